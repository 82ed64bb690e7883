package scenario

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
)

// drive runs the scheduler along the scenario's timeline: up to each
// action's time, the action, and at the end until nothing more can happen.
// With controllers (f not nil) it also stops whenever one has something to
// do, at that simulated time, and lets it act (fleet.react). With node
// groups (as not nil) it also stops at each of the autoscaler's times
// (NextTime) and lets it act (Step), after the actions of that time.
func (sc *Scenario) drive(s *gangsim.Scheduler, f *fleet, as *scaler) error {
	acts := sc.timeline()
	if f == nil && as == nil {
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
	if f == nil {
		return sc.driveScaled(s, as, acts)
	}
	f.s = s
	for next := 0; ; {
		if f.busy() {
			if err := f.react(); err != nil {
				return err
			}
			continue
		}
		done, err := sc.step(s, f, acts, &next, as)
		if done || err != nil {
			return err
		}
	}
}

// step runs the scheduler to the next thing the runner must do: the next
// action (applied), the next controller sync (its controllers marked), the
// autoscaler's next step, or a pause of the controllers. At the end of the
// timeline the run goes on while anything is in progress besides the pods
// of services (ReplicaSets, StatefulSets, DaemonSets) ending and being
// replaced, which would go on for ever: when only that is left, the run
// settles what can happen before the next pod ends (Settle), lets the
// autoscaler act until then, and stops. It reports whether the run is
// over.
func (sc *Scenario) step(s *gangsim.Scheduler, f *fleet, acts []action, next *int, as *scaler) (bool, error) {
	f.paused = false
	w, woken := f.nextWakeup()
	if t, ok := as.due(s, acts, *next); ok && (!woken || t < w) {
		if err := s.RunUntil(t); err != nil || f.paused {
			return false, err
		}
		return false, as.step(s, t)
	}
	limit, limited := w, woken
	if *next < len(acts) && (!woken || acts[*next].at < w) {
		limit, limited = acts[*next].at, true
	}
	if moved, err := as.toTimer(s, limit, limited || !f.otherWork()); err != nil || moved {
		return false, err
	}
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
	case f.otherWork() && as != nil:
		// no timer left (toTimer), yet work in progress: settle it
		return false, s.Settle()
	case f.otherWork():
		err := s.Run()
		return err == nil && !f.paused, err // not paused: nothing more can happen
	}
	err := s.Settle()
	if err != nil || f.paused {
		return false, err
	}
	if t, ok := as.nextTime(s); ok {
		if timer, pending := s.NextTimer(); !pending || t < timer {
			return false, nil // the autoscaler acts first (the step above)
		}
	}
	return !f.otherWork() && !f.busy(), nil
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

// driveScaled is drive with an autoscaler and no controllers: the next
// stop is the next action or the autoscaler's next time, the earlier
// (actions first at equal times). While the autoscaler has nothing to do
// until the cluster changes, the scheduler goes from timer to timer (a pod
// ending, a victim terminating), each of which may give it something to
// do at that time; the run ends when neither has anything left.
func (sc *Scenario) driveScaled(s *gangsim.Scheduler, as *scaler, acts []action) error {
	for next := 0; ; {
		if t, ok := as.due(s, acts, next); ok {
			if err := s.RunUntil(t); err != nil {
				return err
			}
			if err := as.step(s, t); err != nil {
				return err
			}
			continue
		}
		var limit time.Duration
		if next < len(acts) {
			limit = acts[next].at
		}
		if moved, err := as.toTimer(s, limit, next < len(acts)); err != nil || moved {
			if err != nil {
				return err
			}
			continue
		}
		if next < len(acts) {
			a := acts[next]
			next++
			if err := s.RunUntil(a.at); err != nil {
				return err
			}
			if err := sc.apply(s, a); err != nil {
				return err
			}
			continue
		}
		if err := s.Settle(); err != nil { // schedules what it can, up to the next timer
			return err
		}
		if _, ok := as.nextTime(s); ok {
			continue
		}
		if _, ok := s.NextTimer(); !ok {
			return s.Run() // quiescent: Run checks it when asked to
		}
	}
}

// scaler is a scenario's autoscaler as the runner drives it: it remembers
// its last step, so that an autoscaler that would not move on is an error
// rather than a run that never ends.
type scaler struct {
	a        *autoscaler.Autoscaler
	groups   []autoscaler.NodeGroup
	interval time.Duration // the scan interval: scans fall on its multiples
	last     time.Duration // the time of the last step; -1 before the first
	// tap, when set, sees each decision after the step that made it
	// (Scenario.autoscalerTap); tapped counts those it saw
	tap    func(autoscaler.Event)
	tapped int
}

// nextTime is the autoscaler's next time, never before now: a scan the
// scheduler has run past (the cluster changed in the middle of a stretch
// the runner gave it) falls on the first scan time from now. False without
// an autoscaler or when it has nothing to do.
func (as *scaler) nextTime(s *gangsim.Scheduler) (time.Duration, bool) {
	if as == nil {
		return 0, false
	}
	t, ok := as.a.NextTime()
	if now := s.Now(); ok && t < now {
		t = (now + as.interval - 1) / as.interval * as.interval
	}
	return t, ok
}

// due is the autoscaler's next time when it comes before the next action
// (actions first at equal times).
func (as *scaler) due(s *gangsim.Scheduler, acts []action, next int) (time.Duration, bool) {
	t, ok := as.nextTime(s)
	if !ok || next < len(acts) && acts[next].at <= t {
		return 0, false
	}
	return t, true
}

// toTimer moves the scheduler to its next timer when the autoscaler has
// nothing to do and the timer comes before limit (when limited: the next
// action or controller sync): a pod ending there may give the autoscaler
// something to do at that time, which a longer stretch would put off. A
// timer due now is fired (AdvanceTo), since RunUntil leaves what is due at
// its bound to the next call. It reports whether it moved.
func (as *scaler) toTimer(s *gangsim.Scheduler, limit time.Duration, limited bool) (bool, error) {
	if as == nil {
		return false, nil
	}
	if _, ok := as.nextTime(s); ok {
		return false, nil
	}
	t, ok := s.NextTimer()
	if !ok || limited && t >= limit {
		return false, nil
	}
	if t > s.Now() {
		return true, s.RunUntil(t)
	}
	return true, s.AdvanceTo(t)
}

// step lets the autoscaler act at t.
func (as *scaler) step(s *gangsim.Scheduler, t time.Duration) error {
	if t <= as.last {
		return fmt.Errorf("autoscaler: its next time, %v, does not come after its last step, %v", t, as.last)
	}
	as.last = t
	err := as.a.Step(s, t)
	as.flush()
	return err
}
