package scenario

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/controllers"
)

// drive runs the scheduler along the scenario's timeline: up to each
// action's time, the action, and at the end until nothing more can happen.
// With controllers (m not nil) it also stops whenever one has something to
// do, at that simulated time, and lets it act (Manager.React). With node
// groups (as not nil) it also stops at each of the autoscaler's times
// (NextTime) and lets it act (Step), after the actions of that time.
// With templates of resource claims (rc not nil) each pod's claims are
// made as it is added (apply).
//
// With Kueue (kr not nil, and then always with a Manager) the runner also
// stops at Kueue's times (kueueRun.nextTime) and lets it act, before the
// actions, wakeups and scans of later times.
func (sc *Scenario) drive(s *gangsim.Scheduler, m *controllers.Manager, as *scaler, rc *controllers.ResourceClaims, kr *kueueRun, st *stopper) error {
	acts := sc.timeline()
	if m == nil && as == nil {
		for _, a := range acts {
			if err := s.RunUntil(a.at); err != nil || st.stopped() {
				return err
			}
			if err := sc.apply(s, a, rc, nil); err != nil {
				return err
			}
		}
		return s.Run()
	}
	if m == nil {
		return sc.driveScaled(s, as, acts, rc, st)
	}
	m.Start(s)
	for next := 0; ; {
		if st.stopped() {
			return nil
		}
		if m.Busy() {
			if err := m.React(); err != nil {
				return sc.controllerError(err)
			}
			continue
		}
		if kr.busy() {
			if err := kr.react(s); err != nil {
				return err
			}
			continue
		}
		done, err := sc.step(s, m, acts, &next, as, rc, kr, st)
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
func (sc *Scenario) step(s *gangsim.Scheduler, m *controllers.Manager, acts []action, next *int, as *scaler, rc *controllers.ResourceClaims, kr *kueueRun, st *stopper) (bool, error) {
	m.Resume()
	kr.resume()
	w, woken := m.NextWakeup()
	if t, ok := kr.nextTime(); ok && (!kr.a.OnlyTimers() || *next < len(acts) || woken || m.InProgress() || m.Busy()) {
		t = max(t, s.Now())
		first := (*next >= len(acts) || t < acts[*next].at) && (!woken || t < w)
		if at, aok := as.nextTime(s); aok && at < t {
			first = false
		}
		if first {
			if err := s.RunUntil(t); err != nil || paused(m, kr, st) {
				return false, err
			}
			return false, kr.step(s, m, t)
		}
	}
	if as != nil {
		t, ok := as.target(s)
		more := ok || woken || *next < len(acts) || m.InProgress()
		if more && (*next >= len(acts) || t < acts[*next].at) && (!woken || t < w) {
			if err := s.RunUntil(t); err != nil || paused(m, kr, st) || !ok {
				return false, err
			}
			return false, as.step(s, t)
		}
	}
	switch {
	case *next < len(acts) && (!woken || acts[*next].at <= w):
		a := acts[*next]
		if err := s.RunUntil(a.at); err != nil || paused(m, kr, st) {
			return false, err
		}
		*next++
		if skips(m, a) {
			return false, nil
		}
		return false, sc.apply(s, a, rc, kr)
	case woken:
		if err := s.RunUntil(w); err != nil || paused(m, kr, st) {
			return false, err
		}
		m.Wake(w)
		return false, nil
	case m.InProgress():
		err := s.Run()
		return err == nil && !paused(m, kr, st), err // not paused: nothing more can happen
	}
	err := s.Settle()
	if err != nil || paused(m, kr, st) {
		return false, err
	}
	if t, ok := as.nextTime(s); ok {
		if timer, pending := s.NextTimer(); !pending || t < timer {
			return false, nil // the autoscaler acts first (the step above)
		}
	}
	return !m.InProgress() && !m.Busy(), nil
}

// paused reports whether the scheduler's run paused for the controllers,
// for Kueue, or to stop (RunUntil).
func paused(m *controllers.Manager, kr *kueueRun, st *stopper) bool {
	return m.Paused() || kr != nil && kr.paused || st.stopped()
}

// skips reports whether an action is moot: the deletion of a pod that a
// controller deleted already (a Job's pod that failed).
func skips(m *controllers.Manager, a action) bool {
	e := a.event
	return e != nil && e.Kind == DeletePod && m.Deleted(podKeyOf(e.Name))
}

// driveScaled is drive with an autoscaler and no controllers: the next
// stop is the next action or the autoscaler's next time, the earlier
// (actions first at equal times). While the autoscaler has nothing to do
// until the cluster changes, the scheduler goes on a scan interval at a
// time, so that a change (a pod ending, a pod found unschedulable) is seen
// at the first scan after it, as the cluster autoscaler's loop sees it.
// The run ends when neither has anything left.
func (sc *Scenario) driveScaled(s *gangsim.Scheduler, as *scaler, acts []action, rc *controllers.ResourceClaims, st *stopper) error {
	for next := 0; ; {
		if st.stopped() {
			return nil
		}
		t, ok := as.target(s)
		if next < len(acts) && acts[next].at <= t {
			a := acts[next]
			next++
			if err := s.RunUntil(a.at); err != nil || st.stopped() {
				return err
			}
			if err := sc.apply(s, a, rc, nil); err != nil {
				return err
			}
			continue
		}
		if _, timer := s.NextTimer(); !ok && !timer && next == len(acts) {
			if err := s.Settle(); err != nil || st.stopped() { // what can be scheduled now
				return err
			}
			if _, ok := as.nextTime(s); ok {
				continue
			}
			return s.Run() // quiescent: Run checks it when asked to
		}
		if err := s.RunUntil(t); err != nil || st.stopped() {
			return err
		}
		if ok {
			if err := as.step(s, t); err != nil {
				return err
			}
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
	if ok && as.last >= 0 && t <= as.last {
		// the cluster changed at the instant of the last step, after it
		// (Kueue admitting pods at that time): the scan that sees it is
		// the next one, as in the cluster autoscaler's loop
		t = (as.last/as.interval + 1) * as.interval
	}
	return t, ok
}

// target is where the runner takes the scheduler next for the
// autoscaler: its next time (ok), or, when it waits for the cluster to
// change, the next scan time, where it looks again.
func (as *scaler) target(s *gangsim.Scheduler) (time.Duration, bool) {
	if t, ok := as.nextTime(s); ok {
		return t, true
	}
	return (s.Now()/as.interval + 1) * as.interval, false
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
