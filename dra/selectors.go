package dra

import (
	"fmt"
	"maps"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
)

// CELSelectors evaluates selectors in Kubernetes' CEL environment
// (cluster/deviceselector), each expression compiled once and kept in a
// cache, and remembers each verdict by expression and device: a device is
// read-only (a slice's change replaces it), so a verdict holds while the
// device lives, and the cycle after a binding asks the same questions of
// the same devices again. It belongs to one goroutine.
type CELSelectors struct {
	cache *deviceselector.Cache
	// verdicts are per selector (driver and expression), then per device;
	// recent are the selectors asked last, most recent first (an
	// allocation asks its class's and its request's over and over), so
	// that most questions compare expressions instead of hashing them
	verdicts map[selectorKey]*selectorVerdicts
	recent   [4]*selectorVerdicts
	kept     int // verdicts kept, over all selectors
}

// selectorKey is one selector of a driver's devices.
type selectorKey struct{ driver, expr string }

// selectorVerdicts are one selector's verdicts, by device.
type selectorVerdicts struct {
	selectorKey
	byDevice map[*cluster.Device]bool
}

// maxVerdicts bounds the verdicts kept; past it they are forgotten at
// once (they are found again at the cost of an evaluation).
const maxVerdicts = 1 << 18

var _ SelectorEvaluator = (*CELSelectors)(nil)

// NewCELSelectors returns an evaluator with a cache of the default size.
func NewCELSelectors() *CELSelectors {
	return &CELSelectors{cache: deviceselector.NewCache(deviceselector.DefaultCacheSize), verdicts: map[selectorKey]*selectorVerdicts{}}
}

// Match reports whether the selector selects the device; a compile error
// wraps ErrSelectorCompile. Errors are not remembered.
func (c *CELSelectors) Match(expr, driver string, d *cluster.Device) (bool, error) {
	sv := c.selector(expr, driver)
	if v, ok := sv.byDevice[d]; ok {
		return v, nil
	}
	sel, err := c.cache.Get(expr)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrSelectorCompile, err)
	}
	v, err := sel.Matches(driver, d)
	if err != nil {
		return false, err
	}
	if c.kept >= maxVerdicts {
		clear(c.verdicts)
		c.recent, c.kept = [4]*selectorVerdicts{}, 0
		sv = c.selector(expr, driver)
	}
	sv.byDevice[d] = v
	c.kept++
	return v, nil
}

// selector returns the verdicts of a selector, made recent.
func (c *CELSelectors) selector(expr, driver string) *selectorVerdicts {
	for i, sv := range c.recent {
		if sv != nil && sv.expr == expr && sv.driver == driver {
			copy(c.recent[1:i+1], c.recent[:i])
			c.recent[0] = sv
			return sv
		}
	}
	k := selectorKey{driver, expr}
	sv := c.verdicts[k]
	if sv == nil {
		sv = &selectorVerdicts{selectorKey: k, byDevice: map[*cluster.Device]bool{}}
		c.verdicts[k] = sv
	}
	copy(c.recent[1:], c.recent[:len(c.recent)-1])
	c.recent[0] = sv
	return sv
}

// NodeState is the allocated state of a node's devices as its claims take
// them (cluster.NodeInfo.DevicesInUse), for Allocate.
func NodeState(ni *cluster.NodeInfo) *AllocatedState { return NodeStateWithout(ni, nil) }

// NodeStateWithout is NodeState with the allocations freed taken back (the
// claims a preemption would free): a device stays held while a claim not
// freed holds it, a shared one while a share is left, even a share that
// takes nothing (the node's accounts count the shares).
func NodeStateWithout(ni *cluster.NodeInfo, freed []*cluster.AllocationResult) *AllocatedState {
	var back map[cluster.DeviceID]cluster.DeviceUse // what the freed allocations hold, by device
	for _, alloc := range freed {
		for i := range alloc.Devices {
			if a := &alloc.Devices[i]; !a.AdminAccess {
				if back == nil {
					back = map[cluster.DeviceID]cluster.DeviceUse{}
				}
				u := back[a.DeviceID()]
				if a.ConsumedCapacity == nil {
					u.Exclusive++
				} else {
					u.Shares++
					c := maps.Clone(u.Capacity)
					if c == nil {
						c = map[cluster.QualifiedName]cluster.Quantity{}
					}
					for name, q := range a.ConsumedCapacity {
						c[name] = c[name].SaturatingAdd(q)
					}
					u.Capacity = c
				}
				back[a.DeviceID()] = u
			}
		}
	}
	st := &AllocatedState{}
	ni.EachDeviceInUse(func(id cluster.DeviceID, u cluster.DeviceUse) { // a set: the order does not matter
		if b, ok := back[id]; ok {
			u.Exclusive -= b.Exclusive
			u.Shares -= b.Shares
			if u.Shares > 0 {
				left := map[cluster.QualifiedName]cluster.Quantity{}
				for name, q := range u.Capacity {
					if q = q.SaturatingSub(b.Capacity[name]); q != 0 {
						left[name] = q
					}
				}
				u.Capacity = left
			}
		}
		if u.Exclusive > 0 {
			if st.Exclusive == nil {
				st.Exclusive = map[cluster.DeviceID]bool{}
			}
			st.Exclusive[id] = true
		}
		if u.Shares > 0 {
			if st.Shared == nil {
				st.Shared = map[cluster.DeviceID]map[cluster.QualifiedName]cluster.Quantity{}
			}
			st.Shared[id] = u.Capacity // read-only, as Allocate reads it; nil when the shares take nothing
		}
	})
	return st
}
