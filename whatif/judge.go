package whatif

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// A search only needs to know whether a run meets its criteria, and a run
// with a wait bound fails for good the moment a pod has waited longer:
// the rest of a run of a count far too small (every pod retried at every
// change of the cluster) can take minutes. judge stops such a run there
// (scenario.RunUntil), once the step that showed it is over.

// stopRun is why a run was stopped early.
type stopRun struct {
	reason string
	waited time.Duration
}

// judge runs a scenario for a search: to its end, or until it has failed
// the criteria's wait bound. A run that does not converge (the engine's
// cycle cap, gangsim.ErrNoProgress) fails the criteria too. note says why
// a run ended early.
func judge(sc *scenario.Scenario, keys []string, c Criteria, watch ...gangsim.Option) (outcome, error) {
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: keys})
	w := &waitWatch{bound: c.MaxWait}
	opts := []gangsim.Option{rec.Attach()}                                         // the recorder observes first
	if c.MaxWait > 0 && (c.Quantile == 0 || c.Quantile == 1) && c.Workload == "" { // a quantile is known at the end only
		opts = append(opts, gangsim.WithObserver(w.observe))
	}
	opts = append(opts, watch...)
	res, err := sc.RunUntil(func(gangsim.Event) bool { return w.stop != nil }, opts...)
	if errors.Is(err, gangsim.ErrNoProgress) {
		return outcome{report: named(rec.Report(), sc), note: "did not converge: " + err.Error()}, nil
	}
	if err != nil {
		return outcome{}, err
	}
	if w.stop != nil {
		return outcome{report: named(rec.Report(), sc), note: w.stop.reason, waited: w.stop.waited}, nil
	}
	if res.Stopped != "" { // the scenario's run stops at the cap with its result so far
		return outcome{report: named(rec.Report(), sc), note: "did not converge: " + gangsim.ErrNoProgress.Error() + ": " + res.Stopped}, nil
	}
	return outcome{report: reportOf(rec, sc, res)}, nil
}

// reportOf is the report of a finished run: the recorder's, to the end of
// the run, with what the autoscaler did when the scenario has node groups.
func reportOf(rec *metrics.Recorder, sc *scenario.Scenario, res *scenario.Result) *metrics.Report {
	a, k := res.Autoscaling, res.Kueue
	if a == nil && k == nil {
		return named(rec.Report(), sc)
	}
	var end time.Duration
	if a != nil {
		end = a.End
	}
	if k != nil {
		end = max(end, k.End)
	}
	rep := rec.ReportUntil(end)
	if a != nil {
		rep.AddAutoscaling(a.Groups, a.Summaries, a.Events, a.Waits)
	}
	if k != nil {
		workloads := make([]metrics.KueueWorkload, len(k.Workloads))
		for i, w := range k.Workloads {
			workloads[i] = metrics.KueueWorkload(w)
		}
		rep.AddKueue(k.Objects, k.Events, workloads)
	}
	return named(rep, sc)
}

// named names a report after its scenario and gives it the scenario's
// warnings, its skipped workloads and the notices they call for.
func named(rep *metrics.Report, sc *scenario.Scenario) *metrics.Report {
	rep.Name = sc.Name
	rep.Warnings = nil
	for _, w := range sc.Warnings {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	rep.Skipped, rep.Notices = nil, nil
	for _, s := range sc.Skipped {
		rep.Skipped = append(rep.Skipped, metrics.SkippedWorkload(s))
	}
	if note := scenario.SkippedNote(sc.Skipped); note != "" {
		rep.Notices = append(rep.Notices, note+".")
	}
	if !hasRunTimes(sc) && len(sc.Pods) > 0 {
		rep.Notices = append(rep.Notices, NoRunTimes)
	}
	return rep
}

// NoRunTimes is the notice of a run in which no pod has a run time.
const NoRunTimes = "No pod has a run time, so nothing ends: a pod that does not fit when it arrives waits until the end of the run, " +
	"and the waits are not meaningful. Give the pods run times: for Kubernetes objects -duration 30m (a default for every pod, " +
	"or a distribution: -duration '{exponential: 20m, max: 2h}') or the annotation gangsim.io/duration; in a scenario file, an entry's duration."

// hasRunTimes reports whether some pod of the scenario ends by itself: a
// workload's pods made later have run times as those made at the start.
func hasRunTimes(sc *scenario.Scenario) bool {
	for i := range sc.Pods {
		if sc.Pods[i].Duration > 0 {
			return true
		}
	}
	return false
}

// waitWatch follows the pods that have not been bound yet, in arrival
// order (arrivals come in time order), and stops the run when the oldest
// has waited longer than bound.
type waitWatch struct {
	stop    *stopRun // set once a pod has waited too long
	bound   time.Duration
	waiting []waiter
	gone    map[cluster.PodKey]bool // bound or deleted
}

type waiter struct {
	key cluster.PodKey
	at  time.Duration
}

func (w *waitWatch) observe(e gangsim.Event) {
	switch e.Kind {
	case gangsim.EventPodArrived:
		// a gated pod waits for its gates, not for room: its wait starts
		// when the last gate goes
		if e.Node == "" && len(e.Pod.Pod().SchedulingGates) == 0 {
			w.waiting = append(w.waiting, waiter{e.Pod.Key(), e.At})
		}
	case gangsim.EventPodUngated:
		if e.Reason == "" {
			w.waiting = append(w.waiting, waiter{e.Pod.Key(), e.At})
		}
	case gangsim.EventPodBound, gangsim.EventPodDeleted:
		if w.gone == nil {
			w.gone = map[cluster.PodKey]bool{}
		}
		w.gone[e.Pod.Key()] = true
	}
	for len(w.waiting) > 0 && w.gone[w.waiting[0].key] {
		w.waiting = w.waiting[1:]
	}
	if len(w.waiting) > 0 && e.At-w.waiting[0].at > w.bound && w.stop == nil {
		oldest := w.waiting[0]
		w.stop = &stopRun{reason: fmt.Sprintf("stopped at %v: pod %s had waited %v, over %v", e.At, oldest.key.Display(), e.At-oldest.at, w.bound),
			waited: e.At - oldest.at}
	}
}
