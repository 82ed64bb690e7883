package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/preemption"
)

// workload is a preempting group: a root PodGroup or a root
// CompositePodGroup, with its pending pods and a way to place it.
type workload struct {
	ref      Ref
	priority int32
	policy   cluster.PreemptionPolicy
	pending  []*podRecord
	place    func() ([]preemption.Assignment, bool)
}

// preemptFor is workload-aware preemption, the built-in
// PodGroupPostFilter (docs/semantics.md §8): when a group cycle fails, the whole
// cluster is searched for lower-priority units whose eviction lets the
// group fit. On success the victims are evicted and the group's pods are
// nominated to the nodes found; nothing is bound in this cycle, and the
// group retries, nominated nodes first, once the victims are gone.
func (s *Scheduler) preemptFor(w workload) ([]Eviction, []Binding) {
	if !mayPreempt(w) || s.waitingForGroupVictims(w) {
		return nil, nil
	}
	out, ok := preemption.PreemptForGroup(preemption.GroupRequest{
		Snapshot:          s.snap,
		PreemptorPriority: w.priority,
		Units:             s.allUnits(),
		Budgets:           slices.Collect(s.snap.Budgets()),
		Place:             w.place,
		Fits:              func(p *cluster.PodInfo, node int) bool { return s.podAlgo.FilterNode(s.snap, p, node) == nil },
		NodeLocal:         true, // every filter the model has reads only its node
	})
	if !ok {
		return nil, nil
	}
	var nominated []Binding
	for _, a := range out.Assignments {
		node := s.snap.Node(a.Node).Name()
		s.nominations.clearBelow(node, w.priority)
		s.nominate(s.pods[a.Pod.Key()], node)
		nominated = append(nominated, Binding{Pod: a.Pod.Key(), Node: node})
	}
	return s.evictUnits(out.Victims, w.ref, out.Violators), nominated
}

// mayPreempt: a group whose policy, or any of whose pending pods' policy,
// is Never does not preempt.
func mayPreempt(w workload) bool {
	if w.policy == cluster.PreemptNever {
		return false
	}
	for _, r := range w.pending {
		if r.info.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever {
			return false
		}
	}
	return true
}

// waitingForGroupVictims: while a pending member's nominated node still
// holds lower-priority pods terminating from an earlier preemption, the
// group waits for them instead of choosing new victims.
func (s *Scheduler) waitingForGroupVictims(w workload) bool {
	for _, r := range w.pending {
		idx := s.nominations.index(r)
		if idx < 0 {
			continue
		}
		for p := range s.snap.Node(idx).Pods() {
			if p.State() == cluster.PodTerminating && p.Priority() < w.priority {
				return true
			}
		}
	}
	return false
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
