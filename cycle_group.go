package gangsim

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// scheduleGroup runs one PodGroup cycle (SEMANTICS S5): validate, one
// snapshot, the group algorithm with tentative reservations, then an
// all-or-nothing commit.
func (s *Scheduler) scheduleGroup(it *queue.Item[entry]) (CycleResult, error) {
	gr := it.Value.group
	res := CycleResult{At: s.now, Item: it.Key}
	pending := gr.pending()
	if len(pending) == 0 {
		return res, s.queue.Done(it.Key)
	}
	if msg := s.validateGroup(gr); msg != "" {
		return s.errorCycle(it, []*groupRecord{gr}, pending, msg, res)
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return res, err
	}
	req := s.leafRequest(gr, pending)
	for _, r := range pending {
		r.attempts++
	}
	cp := s.snap.Checkpoint()
	out := s.groupAlgo.Schedule(s.snap, *req, placement.Placement{})
	s.snap.Rollback(cp)
	if out.Err != nil {
		return s.errorCycle(it, []*groupRecord{gr}, pending, out.Err.Error(), res)
	}
	if out.Feasible && len(out.Assignments) > 0 {
		return s.commitGroup(it, gr, out, res)
	}
	return s.failGroup(it, gr, pending, *req, out, res)
}

// commitGroup binds every placed pod at once and requeues the leftovers
// straight to activeQ, keeping their timestamps.
func (s *Scheduler) commitGroup(it *queue.Item[entry], gr *groupRecord, out placement.GroupResult, res CycleResult) (CycleResult, error) {
	for _, a := range out.Assignments {
		r := s.pods[a.Pod.Key()]
		node := s.snap.Node(a.Node).Name()
		if err := s.bind(r, node); err != nil {
			return res, err
		}
		res.Bound = append(res.Bound, Binding{Pod: a.Pod.Key(), Node: node})
	}
	gr.explain(out, "")
	gr.setCondition(podgroup.ConditionTrue, podgroup.ReasonScheduled, "", s.now)
	left := gr.members.Count(podgroup.Unscheduled)
	if left == 0 {
		return res, s.queue.Done(it.Key)
	}
	it.Size = left
	return res, s.queue.Requeue(it.Key)
}

// failGroup leaves every pod pending with a reason, records the condition,
// runs the PodGroupPostFilter step (workload-aware preemption), and backs
// the group off: even when preemption succeeds nothing is bound in this
// cycle.
func (s *Scheduler) failGroup(it *queue.Item[entry], gr *groupRecord, pending []*podRecord, req placement.GroupRequest, out placement.GroupResult, res CycleResult) (CycleResult, error) {
	msg := out.Message
	if out.Feasible {
		// the policy was met by members scheduled earlier, but no pod was
		// placed now: kube-scheduler turns that success into a failure
		msg = "pod group is unschedulable"
	}
	gr.explain(out, msg)
	gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonUnschedulable, msg, s.now)
	res.Status = NewStatus(Unschedulable, msg)
	res.Evicted, res.Nominated = s.postFilterGroup(gr, req)
	return res, s.queue.BackOff(it.Key, s.now, s.version, false)
}

// validateGroup checks what kube-scheduler's validatePodGroup checks: every
// member, pending or scheduled, names this scheduler, has the group's
// priority and the group's preemption policy. It returns the first problem,
// or "".
func (s *Scheduler) validateGroup(gr *groupRecord) string {
	g := &gr.group
	for k := range gr.members.Members() {
		p := gr.pods[k].info.Pod()
		switch {
		case p.EffectiveSchedulerName() != s.cfg.SchedulerName:
			return fmt.Sprintf("pod %s names scheduler %q, but pod group %s is scheduled by %q", displayName(k), p.EffectiveSchedulerName(), g.Name, s.cfg.SchedulerName)
		case p.Priority != g.Priority:
			return fmt.Sprintf("pod %s has priority %d, but pod group %s has priority %d", displayName(k), p.Priority, g.Name, g.Priority)
		case p.EffectivePreemptionPolicy() != g.EffectivePreemptionPolicy():
			return fmt.Sprintf("pod %s has preemptionPolicy %s, but pod group %s has %s", displayName(k), p.EffectivePreemptionPolicy(), g.Name, g.EffectivePreemptionPolicy())
		}
	}
	return ""
}

// errorCycle ends a cycle that could not judge its groups (invalid
// members, a broken topology constraint): SchedulerError on every group,
// the reason on every pending pod, nothing bound, error backoff.
func (s *Scheduler) errorCycle(it *queue.Item[entry], groups []*groupRecord, pending []*podRecord, msg string, res CycleResult) (CycleResult, error) {
	for _, r := range pending {
		r.reason = msg
	}
	for _, gr := range groups {
		gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonSchedulerError, msg, s.now)
	}
	res.Status = NewStatus(Error, msg)
	return res, s.queue.BackOff(it.Key, s.now, s.version, true)
}

// leafRequest describes a PodGroup's pending pods (in cycle order) for the
// placement algorithm.
func (s *Scheduler) leafRequest(gr *groupRecord, pending []*podRecord) *placement.GroupRequest {
	req := &placement.GroupRequest{Group: &gr.group, Scheduled: gr.members.Scheduled(), ScheduledNodes: gr.scheduledNodes()}
	for _, r := range pending {
		req.Pods = append(req.Pods, r.info)
		req.Nominated = append(req.Nominated, s.nominations.index(r))
	}
	return req
}

// explain gives each pending member the reason it is still pending: its own
// fit error where it fit no node, else msg (nothing, for a member left out
// of a successful cycle that met no failure).
func (gr *groupRecord) explain(out placement.GroupResult, msg string) {
	failed := map[cluster.PodKey]string{}
	for _, f := range out.Failures {
		failed[f.Pod.Key()] = f.Err.Error()
	}
	for _, r := range gr.pending() {
		if reason, ok := failed[r.info.Key()]; ok {
			r.reason = reason
		} else if msg != "" {
			r.reason = msg
		}
	}
}
