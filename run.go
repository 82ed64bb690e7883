package gangsim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/btree"

	"github.com/gangsim/gangsim/cluster"

	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/queue"
)

// timerKind is what a timer does when it fires.
type timerKind uint8

const (
	timerPodDone    timerKind = iota // a pod ran its duration
	timerTerminated                  // an evicted pod's graceful termination ended
)

// timer is a future internal event; timers fire in (at, seq) order.
type timer struct {
	at    time.Duration
	seq   uint64
	kind  timerKind
	pod   podID
	token int // the pod's binding count when armed; stale if it changed
}

func timerLess(a, b timer) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// timers are the pending timers, in (at, seq) order.
type timers struct {
	tree *btree.BTreeG[timer]
	// firstDue is when the earliest timer is due, while firstKnown: the
	// run loop looks before every cycle, and a busy cluster's cycles are
	// a few hundred nanoseconds, of which reading the tree's first leaf
	// was a twentieth
	firstDue   time.Duration
	firstKnown bool
	seq        uint64
}

func newTimers() timers { return timers{tree: btree.NewG(8, timerLess)} }

// add arms a timer.
func (ts *timers) add(t timer) {
	ts.seq++
	t.seq = ts.seq
	ts.tree.ReplaceOrInsert(t)
	ts.firstDue = min(ts.firstDue, t.at)
}

// mayBeDue reports whether a timer may be due at now: false when the
// first is known to be later, which the run loop asks before every cycle
// (inlined: a busy cluster's cycles are a few hundred nanoseconds).
func (ts *timers) mayBeDue(now time.Duration) bool { return !ts.firstKnown || ts.firstDue <= now }

// popDue takes out the first timer due at or before now, if any (mayBeDue
// true).
func (ts *timers) popDue(now time.Duration) (timer, bool) {
	t, ok := ts.tree.Min()
	if !ok || t.at > now {
		ts.firstDue, ts.firstKnown = MaxSimulatedTime+1, true
		if ok {
			ts.firstDue = t.at
		}
		return timer{}, false
	}
	ts.tree.DeleteMin()
	ts.firstKnown = false
	return t, true
}

// clone copies the timers for a fork (copy-on-write: timers are values).
func (ts *timers) clone() timers {
	c := *ts
	c.tree = ts.tree.Clone()
	return c
}

// fireTimers runs every timer due at or before now.
func (s *Scheduler) fireTimers() error {
	for s.timers.mayBeDue(s.now) {
		t, ok := s.timers.popDue(s.now)
		if !ok {
			return nil
		}
		if err := s.fire(t); err != nil {
			return err
		}
		if s.cfg.CheckInvariants {
			if err := s.CheckInvariants(); err != nil {
				return err
			}
		}
		if s.paused {
			return nil // the timers due with it fire on the next call
		}
	}
	return nil
}

// live reports whether a timer still has work to do: its pod is as it was
// when the timer was armed. A timer of a pod deleted, evicted, rebound or
// whose node was removed meanwhile is stale and fires as a no-op.
func (t *tracker) live(tm timer) bool {
	r := t.records.at(tm.pod)
	switch tm.kind {
	case timerTerminated:
		return r.phase == PhaseTerminating && r.binds == tm.token
	case timerPodDone:
		return r.phase == PhaseBound && r.binds == tm.token
	}
	return false
}

// NextTimer returns when the next pending timer is due: a bound pod
// reaching the end of its run time, or an evicted pod the end of its
// graceful termination. It is false when none is pending. A caller that
// must act between timers (a controller replacing the pods that end) may
// Settle, then AdvanceTo it. O(log n), plus the stale timers it passes
// over.
func (s *Scheduler) NextTimer() (time.Duration, bool) {
	if s.usable() != nil {
		return 0, false
	}
	var at time.Duration
	found := false
	s.timers.tree.Ascend(func(t timer) bool {
		if s.tracker.live(t) {
			at, found = t.at, true
		}
		return !found
	})
	return at, found
}

func (s *Scheduler) fire(t timer) error {
	if !s.tracker.live(t) {
		return nil // deleted, evicted, rebound or its node removed since
	}
	r := s.tracker.records.at(t.pod)
	switch t.kind {
	case timerTerminated:
		return s.finishEviction(r)
	case timerPodDone:
		if err := s.removeFromNode(r.info.Key()); err != nil {
			return fmt.Errorf("completing pod %s: %w", r.info.Key(), err)
		}
		if err := s.markGone(r, PhaseSucceeded); err != nil {
			return err
		}
		s.emit(podEvent(EventPodSucceeded, r.info, r.node, ""))
		s.clusterChanged(fw.AssignedPodDeleted)
	}
	return nil
}

// AdvanceTo moves the clock to t and fires the timers due by then, without
// scheduling. Moving backwards is an error.
func (s *Scheduler) AdvanceTo(t time.Duration) error {
	if err := s.usable(); err != nil {
		return err
	}
	if t < s.now {
		return fmt.Errorf("%w: %v is before now (%v)", ErrPastTime, t, s.now)
	}
	if t > MaxSimulatedTime {
		return fmt.Errorf("%w: %v is beyond the largest simulated time, %v", ErrPastTime, t, MaxSimulatedTime)
	}
	s.now, s.paused = t, false
	return s.fireTimers()
}

// Run schedules until the simulation is quiescent: the active queue is
// empty, no timer is pending, and every waiting item was last tried
// against the cluster as it is now, so retrying it could not change its
// outcome. The clock stops at the last thing that happened.
func (s *Scheduler) Run() error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.run(0, runQuiescent); err != nil {
		return err
	}
	if s.cfg.CheckInvariants && !s.paused {
		return s.CheckQuiescent()
	}
	return nil
}

// RunUntil schedules and moves the clock until t, processing everything
// due before t (retries of unschedulable pods included), and leaves the
// clock at t.
func (s *Scheduler) RunUntil(t time.Duration) error {
	if err := s.usable(); err != nil {
		return err
	}
	if t < s.now {
		return fmt.Errorf("%w: %v is before now (%v)", ErrPastTime, t, s.now)
	}
	if t > MaxSimulatedTime {
		return fmt.Errorf("%w: %v is beyond the largest simulated time, %v", ErrPastTime, t, MaxSimulatedTime)
	}
	return s.run(t, runUntil)
}

// Settle is Run that stops before the next timer fires: it schedules
// what can be scheduled, fires what is due now, and returns as soon as
// what is due next is a pod's end or a victim's termination (NextTimer),
// which it leaves for a later call; the clock stops at the last thing
// that happened. A caller that lets some timers go (the pods of services,
// which a controller would replace for ever) settles the rest with it.
func (s *Scheduler) Settle() error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.run(0, runSettle)
}

// runBound is how a run ends.
type runBound uint8

const (
	// runQuiescent (Run): when nothing more can happen; a waiting item is
	// retried only when the cluster changed since its last attempt.
	runQuiescent runBound = iota
	// runUntil (RunUntil): at the bound, where the clock is left; every
	// retry counts.
	runUntil
	// runSettle (Settle): as runQuiescent, or before the next timer that
	// is not stale.
	runSettle
)

// ErrNoProgress is returned when a run hits its safety cap of cycles.
var ErrNoProgress = errors.New("gangsim: simulation does not converge")

func maxCycles(cfg *Config, t *tracker) int {
	if cfg.MaxCycles > 0 {
		return cfg.MaxCycles
	}
	return max(100_000, 100*(len(t.pods)+len(t.groups)))
}

// run schedules until nothing is due before until (bounded) or at all.
// Two caps stop a run that never settles, neither of which a busy or a
// quiet cluster reaches however long it runs: the cycles at one simulated
// instant (a loop that never lets time pass) and the evictions of the
// whole simulation (a loop of preemptions that does, each round waiting
// for its victims): counted from the start, not per call, since a caller
// driving the clock in small steps (a scenario's events, a controller's
// timers) would otherwise reset the count at every step and never stop.
// A pause (WithPause) ends it after the step that asked for it: a timer
// fired, a cycle run.
func (s *Scheduler) run(until time.Duration, bound runBound) error {
	bounded := bound == runUntil // and then every retry counts
	atNow, instant, idle, startEvictions := 0, s.now, 0, s.stats.Evictions
	s.paused = false
	for {
		if s.now != instant {
			atNow, instant = 0, s.now
		}
		limit := maxCycles(&s.cfg, &s.tracker)
		if atNow >= limit {
			return s.stopRun(fmt.Sprintf("%d cycles at simulated time %v, %d evictions so far", atNow, s.now, s.stats.Evictions), s.stats.Evictions-startEvictions)
		}
		if n := s.stats.Evictions; n >= limit {
			return s.stopRun(fmt.Sprintf("%d evictions, simulated time %v", n, s.now), limit)
		}
		if bounded && s.now >= until {
			return nil // what happens at until itself waits for the caller
		}
		if err := s.fireTimers(); err != nil || s.paused {
			return err
		}
		if n, err := s.retryKnownFailures(limit - atNow); err != nil || s.paused {
			return err
		} else if n > 0 {
			idle = 0
			atNow += n
			continue
		}
		var res CycleResult
		if ok, err := s.scheduleOne(&res); err != nil || s.paused {
			return err
		} else if ok {
			idle = 0
			atNow++
			continue
		}
		next, ok := s.nextWakeup(bounded)
		if bound == runSettle {
			if t, live := s.NextTimer(); live && t <= next {
				return nil // a timer is next: it is the caller's
			}
		}
		if !ok || bounded && next >= until {
			if bounded {
				s.now = until
			}
			return nil
		}
		if next <= s.now {
			// something is due now, yet nothing ran: a second such wakeup
			// would repeat forever
			if idle++; idle > 1 {
				return fmt.Errorf("%w: a wakeup at simulated time %v moves nothing", ErrNoProgress, s.now)
			}
		} else {
			idle = 0
		}
		s.now = max(s.now, next)
	}
}

// stopRun ends a run at a safety cap: the event stream says so, naming
// the pods evicted most among the last evictions (the ones that keep
// evicting each other), and the error wraps ErrNoProgress with the same
// words. Everything the run did stays: the result so far.
func (s *Scheduler) stopRun(what string, lastEvictions int) error {
	msg := what
	if names := mostEvicted(s.evictions[len(s.evictions)-min(lastEvictions, len(s.evictions)):], 5); names != "" {
		msg += "; evicted most: " + names
	}
	s.emit(Event{Kind: EventRunStopped, Reason: msg})
	return fmt.Errorf("%w: %s", ErrNoProgress, msg)
}

// mostEvicted names the n pods evicted most often in evictions, most
// first (then by key), each with its count and its last preemptor.
func mostEvicted(evictions []Eviction, n int) string {
	type count struct {
		pod    cluster.PodKey
		times  int
		lastBy Ref
	}
	index := map[cluster.PodKey]int{}
	var counts []count
	for _, e := range evictions {
		i, ok := index[e.Pod]
		if !ok {
			i = len(counts)
			index[e.Pod] = i
			counts = append(counts, count{pod: e.Pod})
		}
		counts[i].times++
		counts[i].lastBy = e.By
	}
	slices.SortFunc(counts, func(a, b count) int { return cmp.Or(cmp.Compare(b.times, a.times), cmp.Compare(a.pod, b.pod)) })
	var parts []string
	for _, c := range counts[:min(n, len(counts))] {
		unit := "evictions"
		if c.times == 1 {
			unit = "eviction"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s, the last by %s)", c.pod, c.times, unit, c.lastBy.Key))
	}
	return strings.Join(parts, ", ")
}

// nextWakeup returns when something is next due: a timer, or a queue
// item's return. Unless every retry counts, only items whose last attempt
// predates a cluster change are considered.
func (s *Scheduler) nextWakeup(everyRetry bool) (time.Duration, bool) {
	var wanted func(*queue.Item[entry]) bool
	if !everyRetry {
		wanted = func(it *queue.Item[entry]) bool {
			return it.Attempts == 0 || it.ClusterEventVersion == changedSinceAttempt || s.clusterEvents.since(it.ClusterEventVersion, it.WakeOn)
		}
	}
	next, ok := s.queue.NextWakeup(wanted, s.clusterEvents.version)
	if t, has := s.timers.tree.Min(); has && (!ok || t.at < next) {
		next, ok = t.at, true
	}
	return next, ok
}
