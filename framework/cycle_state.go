package framework

// StateKey names a plugin's data in a CycleState; a plugin's name is a good
// key.
type StateKey string

// StateData is a plugin's data for one pod's attempt. Clone must return a
// copy that later changes to either do not affect the other (preemption
// clones a state for each node it simulates).
type StateData interface {
	Clone() StateData
}

// CycleState is the data plugins keep for one pod's attempt: PreFilter
// writes, Filter, the PreFilter extensions, PreScore and Score read. It
// also records which plugins skipped. A CycleState is used from one
// goroutine, like the scheduler that owns it.
type CycleState struct {
	keys []StateKey
	data []StateData
	// skipped[i] is set when the profile's i-th PreFilter plugin returned
	// Skip for this pod; scoreSkipped likewise for PreScore.
	skipped      []bool
	scoreSkipped []bool
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState { return &CycleState{} }

// Reset empties the state for the next pod, keeping its memory.
func (c *CycleState) Reset() {
	clear(c.data)
	c.keys, c.data = c.keys[:0], c.data[:0]
	clear(c.skipped)
	clear(c.scoreSkipped)
}

// Write stores data under key, replacing any earlier value.
func (c *CycleState) Write(key StateKey, data StateData) {
	for i, k := range c.keys {
		if k == key {
			c.data[i] = data
			return
		}
	}
	c.keys = append(c.keys, key)
	c.data = append(c.data, data)
}

// Read returns the data under key, or nil and false.
func (c *CycleState) Read(key StateKey) (StateData, bool) {
	for i, k := range c.keys {
		if k == key {
			return c.data[i], true
		}
	}
	return nil, false
}

// Clone returns a deep copy: every plugin's data is cloned.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	cp := &CycleState{
		keys:         append([]StateKey(nil), c.keys...),
		data:         make([]StateData, len(c.data)),
		skipped:      append([]bool(nil), c.skipped...),
		scoreSkipped: append([]bool(nil), c.scoreSkipped...),
	}
	for i, d := range c.data {
		if d != nil {
			cp.data[i] = d.Clone()
		}
	}
	return cp
}

// Skipped reports whether the i-th PreFilter plugin of the profile skipped
// this pod (its Filter and extensions do not run).
func (c *CycleState) Skipped(i int) bool { return i < len(c.skipped) && c.skipped[i] }

// SetSkipped records whether the i-th PreFilter plugin skipped, for n
// plugins in the profile.
func (c *CycleState) SetSkipped(i, n int, skip bool) {
	if len(c.skipped) < n {
		c.skipped = append(c.skipped, make([]bool, n-len(c.skipped))...)
	}
	c.skipped[i] = skip
}

// ScoreSkipped reports whether the i-th score plugin of the profile
// skipped this pod at PreScore.
func (c *CycleState) ScoreSkipped(i int) bool { return i < len(c.scoreSkipped) && c.scoreSkipped[i] }

// SetScoreSkipped records whether the i-th score plugin skipped, for n
// plugins in the profile.
func (c *CycleState) SetScoreSkipped(i, n int, skip bool) {
	if len(c.scoreSkipped) < n {
		c.scoreSkipped = append(c.scoreSkipped, make([]bool, n-len(c.scoreSkipped))...)
	}
	c.scoreSkipped[i] = skip
}
