package gangsim

import (
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
)

// unitsOnNode returns the victim units with pods on a node: each pod alone,
// or, for a member of a group whose disruption mode is All, every scheduled
// pod of that group. A unit's priority is its group's.
func (s *Scheduler) unitsOnNode(node int) []*preemption.Unit {
	if units, ok := s.cachedLoneUnits(node); ok {
		return units
	}
	ni := s.snap.Node(node)
	pods := ni.PodList()
	loneOnly := true
	for _, p := range pods {
		if r := s.recordOf(p); r != nil && r.group != 0 {
			loneOnly = false
			break
		}
	}
	if loneOnly {
		return s.loneUnits(node, pods)
	}
	var out []*preemption.Unit
	seen := map[string]bool{}
	for _, p := range pods {
		u := s.unitOf(p)
		if !seen[u.Key] {
			seen[u.Key] = true
			out = append(out, u)
		}
	}
	return out
}

// loneUnits returns the units of a node whose pods belong to no group:
// one per pod, remembered while the node's snapshot stamp holds (such a
// unit depends on its pod alone), since a busy cluster's failed
// preemptions ask for the same nodes' units cycle after cycle.
func (s *Scheduler) loneUnits(node int, pods []*cluster.PodInfo) []*preemption.Unit {
	if len(s.unitCache) != s.snap.Len() {
		s.unitCache = make([]cachedUnits, s.snap.Len())
	}
	out := make([]*preemption.Unit, len(pods))
	for i, p := range pods {
		out[i] = preemption.NewPodUnit(p)
	}
	if !s.uses(VictimUnits) {
		return out
	}
	s.unitCache[node] = cachedUnits{snap: s.snap, stamp: s.snap.Stamp(node), units: out}
	return out
}

// cachedLoneUnits returns the units loneUnits remembered for the node, if
// its stamp still holds: its pods are the same, so they are still alone
// (a pod's group is fixed at admission). This is the VictimUnits
// shortcut; RememberedCandidates keeps only the candidates of nodes it
// knows this way to hold lone pods.
func (s *Scheduler) cachedLoneUnits(node int) ([]*preemption.Unit, bool) {
	if node >= len(s.unitCache) || len(s.unitCache) != s.snap.Len() {
		return nil, false
	}
	c := &s.unitCache[node]
	if c.snap != s.snap || c.stamp != s.snap.Stamp(node) || c.snap == nil {
		return nil, false
	}
	return c.units, true
}

// cachedUnits are a node's units at a snapshot stamp.
type cachedUnits struct {
	snap  *cluster.Snapshot
	stamp uint64
	units []*preemption.Unit
}

// unitOf returns the victim unit of a pod: the pod alone, or every
// scheduled pod under the highest group above it (its PodGroup or a
// CompositePodGroup) whose disruption mode is All. A group member's unit
// has its root's priority; a member's own unit is typed PodGroup, as
// kube-scheduler types it.
func (s *Scheduler) unitOf(p *cluster.PodInfo) *preemption.Unit {
	r := s.recordOf(p)
	if r == nil || r.group == 0 {
		return preemption.NewPodUnit(p)
	}
	chain := append([]podgroup.Ref{{Key: s.groupOf(r).key}}, s.forest.Ancestors(podgroup.Ref{Key: s.groupOf(r).key})...)
	var top *podgroup.Ref
	for i := range chain {
		if s.disruptsAll(chain[i]) {
			top = &chain[i]
		}
	}
	priority := s.rootPriority(chain[len(chain)-1])
	if top == nil {
		return preemption.NewUnit(string(p.Key()), preemption.KindPodGroup, priority, []*cluster.PodInfo{p})
	}
	var pods []*cluster.PodInfo
	for _, leaf := range s.forest.Leaves(*top) {
		for k, st := range s.group(leaf.Key).members.Members() {
			if st == podgroup.Unscheduled {
				continue
			}
			if pi, ok := s.cache.Pod(k); ok {
				pods = append(pods, pi)
			}
		}
	}
	if top.Composite {
		return preemption.NewUnit("compositepodgroup/"+top.Key, preemption.KindCompositePodGroup, priority, pods)
	}
	return preemption.NewUnit("podgroup/"+top.Key, preemption.KindPodGroup, priority, pods)
}

func (s *Scheduler) disruptsAll(ref podgroup.Ref) bool {
	if ref.Composite {
		return s.composites[ref.Key].cpg.EffectiveDisruptionMode() == podgroup.DisruptAll
	}
	return s.group(ref.Key).group.EffectiveDisruptionMode() == podgroup.DisruptAll
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
