package gangsim

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
)

// postFilterGroup runs the profile's PodGroupPostFilter plugins when a
// root's cycle failed (workload-aware preemption, docs/semantics.md §8) and
// carries out the first success: victims evicted, the group's pods
// nominated to the nodes found. Nothing is bound in this cycle; the group
// retries, nominated nodes first, once the victims are gone.
func (s *Scheduler) postFilterGroup(p *profile, root podgroup.Ref, pending []*podRecord) ([]Eviction, []Binding) {
	g := s.rootGroup(root)
	pods := make([]*cluster.PodInfo, len(pending))
	for i, r := range pending {
		pods[i] = r.info
	}
	place := func() ([]fw.Assignment, *fw.Status) { return s.placeForPreemption(p, root) }
	for _, pl := range p.groupPostFilter {
		res, st := pl.PodGroupPostFilter(g, pods, place)
		if st.IsSuccess() && res != nil {
			return s.actuateGroup(root, res)
		}
		if st.Code() == fw.UnschedulableAndUnresolvable {
			break
		}
	}
	return nil, nil
}

// actuateGroup carries out a successful PodGroupPostFilter.
func (s *Scheduler) actuateGroup(root podgroup.Ref, res *fw.PodGroupPostFilterResult) ([]Eviction, []Binding) {
	prio := s.rootPriority(root)
	var nominated []Binding
	for _, a := range res.Nominations {
		node := s.snap.Node(a.Node).Name()
		s.nominations.clearBelow(node, prio)
		s.nominate(s.record(a.Pod.Key()), node)
		nominated = append(nominated, Binding{Pod: a.Pod.Key(), Node: node})
	}
	return s.evictVictims(res.Victims, groupRef(root)), nominated
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
