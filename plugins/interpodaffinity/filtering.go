package interpodaffinity

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

var (
	errPodAffinity     = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match pod affinity rules").WithPlugin(Name)
	errPodAntiAffinity = fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod anti-affinity rules").WithPlugin(Name)
	errExistingAnti    = fw.NewStatus(fw.Unschedulable, "node(s) didn't satisfy existing pods anti-affinity rules").WithPlugin(Name)
)

// PreFilter prepares the counts, or skips when the pod has no required
// terms and no existing pod's required anti-affinity selects it.
func (pl *InterPodAffinity) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	p := pod.Pod()
	hasRequired := p.Affinity != nil && (p.Affinity.PodAffinity != nil && len(p.Affinity.PodAffinity.Required) > 0 ||
		p.Affinity.PodAntiAffinity != nil && len(p.Affinity.PodAntiAffinity.Required) > 0)
	if !hasRequired && snap.PodsWithRequiredAntiAffinity() == 0 {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod)
	if !hasRequired && tc.KindEntries(ipaExistingAnti) == 0 {
		return statusSkip
	}
	s := &ipaState{snap: snap, counts: tc, c: c, selfMatch: len(c.affinity) > 0 && c.matchesAll(p)}
	state.Write(Name, s)
	return nil
}

// AddPod and RemovePod bring the counts up to date with the node the
// scheduler just changed.
func (pl *InterPodAffinity) AddPod(state *fw.CycleState, _, _ *cluster.PodInfo, _ *cluster.NodeInfo) *fw.Status {
	if s := ipaStateOf(state); s != nil {
		s.counts.Sync(s.snap)
	}
	return nil
}

// RemovePod: see AddPod.
func (pl *InterPodAffinity) RemovePod(state *fw.CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	return pl.AddPod(state, pod, removed, node)
}

// Filter applies the pod's required affinity, its required anti-affinity
// and the existing pods' required anti-affinity, in that order.
func (pl *InterPodAffinity) Filter(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	s := ipaStateOf(state)
	if s == nil {
		return nil
	}
	tc := s.counts
	tc.Sync(s.snap)
	if len(s.c.affSlots) > 0 {
		all := true
		for _, slot := range s.c.affSlots {
			sl := tc.Slot(slot)
			d := sl.DomainOf(node)
			if d < 0 {
				return errPodAffinity
			}
			if sl.Count(d) <= 0 {
				all = false
			}
		}
		if !all && !(tc.KindTotal(ipaAffinity) == 0 && s.selfMatch) {
			return errPodAffinity
		}
	}
	for _, slot := range s.c.antiSlots {
		sl := tc.Slot(slot)
		if d := sl.DomainOf(node); d >= 0 && sl.Count(d) > 0 {
			return errPodAntiAffinity
		}
	}
	if tc.KindEntries(ipaExistingAnti) > 0 {
		for i := range tc.NumSlots() {
			sl := tc.Slot(i)
			if sl.Kind() != ipaExistingAnti {
				continue
			}
			if d := sl.DomainOf(node); d >= 0 && sl.Count(d) > 0 {
				return errExistingAnti
			}
		}
	}
	return nil
}
