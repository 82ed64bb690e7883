package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/preemption"
)

// postFilterGroup is workload-aware preemption, the built-in
// PodGroupPostFilter (SEMANTICS S8): when a group cycle fails, the whole
// cluster is searched for lower-priority units whose eviction lets the
// group fit. On success the victims are evicted and the group's pods are
// nominated to the nodes found; nothing is bound in this cycle, and the
// group retries, nominated nodes first, once the victims are gone.
func (s *Scheduler) postFilterGroup(gr *groupRecord, req placement.GroupRequest) ([]Eviction, []Binding) {
	if !s.groupMayPreempt(gr, req.Pods) || s.groupWaitingForVictims(gr) {
		return nil, nil
	}
	out, ok := preemption.PreemptForGroup(preemption.GroupRequest{
		Snapshot:          s.snap,
		PreemptorPriority: gr.group.Priority,
		Units:             s.allUnits(),
		Budgets:           slices.Collect(s.snap.Budgets()),
		Place:             func() ([]preemption.Assignment, bool) { return s.placeGroup(req) },
		Fits:              func(p *cluster.PodInfo, node int) bool { return s.podAlgo.FilterNode(s.snap, p, node) == nil },
		NodeLocal:         true, // every filter the model has reads only its node
	})
	if !ok {
		return nil, nil
	}
	var nominated []Binding
	for _, a := range out.Assignments {
		node := s.snap.Node(a.Node).Name()
		s.nominations.clearBelow(node, gr.group.Priority)
		s.nominations.nominate(s.pods[a.Pod.Key()], node)
		nominated = append(nominated, Binding{Pod: a.Pod.Key(), Node: node})
	}
	return s.evictUnits(out.Victims, gr.group.Name, out.PDBViolations), nominated
}

// groupMayPreempt: a group whose policy, or any of whose pending pods'
// policy, is Never does not preempt.
func (s *Scheduler) groupMayPreempt(gr *groupRecord, pods []*cluster.PodInfo) bool {
	if gr.group.EffectivePreemptionPolicy() == cluster.PreemptNever {
		return false
	}
	for _, p := range pods {
		if p.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever {
			return false
		}
	}
	return true
}

// groupWaitingForVictims: while a member's nominated node still holds
// lower-priority pods terminating from an earlier preemption, the group
// waits for them instead of choosing new victims.
func (s *Scheduler) groupWaitingForVictims(gr *groupRecord) bool {
	for _, r := range gr.pods {
		idx := s.nominations.index(r)
		if idx < 0 || r.phase != PhasePending {
			continue
		}
		for p := range s.snap.Node(idx).Pods() {
			if p.State() == cluster.PodTerminating && p.Priority() < gr.group.Priority {
				return true
			}
		}
	}
	return false
}

// placeGroup runs the group algorithm on the snapshot as it is and leaves
// the snapshot unchanged.
func (s *Scheduler) placeGroup(req placement.GroupRequest) ([]preemption.Assignment, bool) {
	cp := s.snap.Checkpoint()
	out := s.groupAlgo.Schedule(s.snap, req, placement.Placement{})
	s.snap.Rollback(cp)
	if out.Err != nil || !out.Feasible {
		return nil, false
	}
	as := make([]preemption.Assignment, len(out.Assignments))
	for i, a := range out.Assignments {
		as[i] = preemption.Assignment{Pod: a.Pod, Node: a.Node}
	}
	return as, true
}

// allUnits returns every victim unit in the cluster, in node order and
// pod order on the node of their first pod.
func (s *Scheduler) allUnits() []*preemption.Unit {
	var out []*preemption.Unit
	seen := map[string]bool{}
	for i := range s.snap.Len() {
		for _, u := range s.unitsOnNode(i) {
			if !seen[u.Key] {
				seen[u.Key] = true
				out = append(out, u)
			}
		}
	}
	return out
}
