package controllers

import (
	"container/heap"
	"time"
)

// A controller that must act at a later time (a Job's backoff or active
// deadline, the first sync at time 0) asks for a wakeup; the caller runs
// the Scheduler up to NextWakeup and calls Wake there.

// wakeAt asks for the controller's sync at t, unless one is due before.
func (m *Manager) wakeAt(c *controller, t time.Duration) {
	if c.wake >= 0 && c.wake <= t {
		return
	}
	c.wake = t
	heap.Push(&m.wakeups, wakeup{at: t, ctl: c.index})
}

// NextWakeup returns when the next controller sync is due; false when
// none is.
func (m *Manager) NextWakeup() (time.Duration, bool) {
	for len(m.wakeups) > 0 {
		w := m.wakeups[0]
		if m.ctls[w.ctl].wake == w.at {
			return w.at, true
		}
		heap.Pop(&m.wakeups) // superseded by an earlier one
	}
	return 0, false
}

// Wake marks for a sync the controllers whose wakeup is due at t or
// before; React then syncs them.
func (m *Manager) Wake(t time.Duration) {
	for {
		at, ok := m.NextWakeup()
		if !ok || at > t {
			return
		}
		w := heap.Pop(&m.wakeups).(wakeup)
		c := m.ctls[w.ctl]
		c.wake = -1
		m.markDirty(c)
	}
}

// wakeup is a controller's sync due at a time.
type wakeup struct {
	at  time.Duration
	ctl int
}

// wakeups is a heap of wakeups, by time then controller.
type wakeups []wakeup

func (w wakeups) Len() int { return len(w) }
func (w wakeups) Less(i, j int) bool {
	return w[i].at < w[j].at || w[i].at == w[j].at && w[i].ctl < w[j].ctl
}
func (w wakeups) Swap(i, j int) { w[i], w[j] = w[j], w[i] }
func (w *wakeups) Push(x any)   { *w = append(*w, x.(wakeup)) }
func (w *wakeups) Pop() any {
	old := *w
	x := old[len(old)-1]
	*w = old[:len(old)-1]
	return x
}
