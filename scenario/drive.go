package scenario

import (
	"github.com/gangsim/gangsim"
)

// drive runs the scheduler along the scenario's timeline: up to each
// action's time, the action, and at the end until nothing more can happen.
// With controllers (f not nil) it also stops whenever one has something to
// do, at that simulated time, and lets it act (fleet.react).
func (sc *Scenario) drive(s *gangsim.Scheduler, f *fleet) error {
	acts := sc.timeline()
	if f == nil {
		for _, a := range acts {
			if err := s.RunUntil(a.at); err != nil {
				return err
			}
			if err := sc.apply(s, a); err != nil {
				return err
			}
		}
		return s.Run()
	}
	f.s = s
	for next := 0; ; {
		if f.busy() {
			if err := f.react(); err != nil {
				return err
			}
			continue
		}
		done, err := sc.step(s, f, acts, &next)
		if done || err != nil {
			return err
		}
	}
}

// step runs the scheduler to the next thing the runner must do: the next
// action (applied), the next controller sync (its controllers marked), or
// a pause of the controllers. At the end of the timeline the run goes on
// while anything is in progress besides the pods of services (ReplicaSets,
// StatefulSets, DaemonSets) ending and being replaced, which would go on
// for ever: when only that is left, the run settles what can happen before
// the next pod ends (Settle), and stops. It reports whether the run is
// over.
func (sc *Scenario) step(s *gangsim.Scheduler, f *fleet, acts []action, next *int) (bool, error) {
	f.paused = false
	w, woken := f.nextWakeup()
	switch {
	case *next < len(acts) && (!woken || acts[*next].at <= w):
		a := acts[*next]
		if err := s.RunUntil(a.at); err != nil || f.paused {
			return false, err
		}
		*next++
		if f.skips(a) {
			return false, nil
		}
		return false, sc.apply(s, a)
	case woken:
		if err := s.RunUntil(w); err != nil || f.paused {
			return false, err
		}
		f.wake(w)
		return false, nil
	case f.otherWork():
		err := s.Run()
		return err == nil && !f.paused, err // not paused: nothing more can happen
	}
	err := s.Settle()
	return err == nil && !f.paused && !f.otherWork() && !f.busy(), err
}

// skips reports whether an action is moot: the deletion of a pod that a
// controller deleted already (a Job's pod that failed).
func (f *fleet) skips(a action) bool {
	e := a.event
	if e == nil || e.Kind != DeletePod {
		return false
	}
	cp := f.pods[podKeyOf(e.Name)]
	return cp != nil && cp.byUs && cp.state == podEnded
}
