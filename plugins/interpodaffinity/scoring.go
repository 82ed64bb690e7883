package interpodaffinity

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// countScore adds the score contributions of the existing pod ep.
func (c *ipaCounter) countScore(tc *helper.TopologyCounts, ep *cluster.Pod, hasTerms bool) {
	for i := range c.preferred {
		if t := &c.preferred[i]; t.matches(ep) {
			tc.Add(tc.DynamicSlot(ipaScore, t.key), t.weight)
		}
	}
	if !hasTerms {
		return
	}
	if pa := ep.Affinity.PodAffinity; pa != nil {
		if c.hard > 0 {
			for i := range pa.Required {
				if t := &pa.Required[i]; existingTermMatches(ep, t, c.pod, c.nsLabels) {
					tc.Add(tc.DynamicSlot(ipaScore, t.TopologyKey), c.hard)
				}
			}
		}
		for i := range pa.Preferred {
			if w := &pa.Preferred[i]; existingTermMatches(ep, &w.Term, c.pod, c.nsLabels) {
				tc.Add(tc.DynamicSlot(ipaScore, w.Term.TopologyKey), int64(w.Weight))
			}
		}
	}
	if pa := ep.Affinity.PodAntiAffinity; pa != nil {
		for i := range pa.Preferred {
			if w := &pa.Preferred[i]; existingTermMatches(ep, &w.Term, c.pod, c.nsLabels) {
				tc.Add(tc.DynamicSlot(ipaScore, w.Term.TopologyKey), -int64(w.Weight))
			}
		}
	}
}

// PreScore prepares the score sums, or skips when nothing would add to
// them.
func (pl *InterPodAffinity) PreScore(state *fw.CycleState, pod *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	p := pod.Pod()
	hasPreferred := p.Affinity != nil && (p.Affinity.PodAffinity != nil && len(p.Affinity.PodAffinity.Preferred) > 0 ||
		p.Affinity.PodAntiAffinity != nil && len(p.Affinity.PodAntiAffinity.Preferred) > 0)
	snap := pl.snapshots.Snapshot()
	if !hasPreferred && (pl.ignorePreferred || snap.PodsWithAffinity() == 0) {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod)
	if tc.KindEntries(ipaScore) == 0 {
		return statusSkip
	}
	s := ipaStateOf(state)
	if s == nil {
		s = &ipaState{snap: snap, counts: tc, c: c}
		state.Write(Name, s)
	}
	s.scoreKeys = s.scoreKeys[:0]
	for i := range tc.NumSlots() {
		if tc.Slot(i).Kind() == ipaScore {
			s.scoreKeys = append(s.scoreKeys, i)
		}
	}
	return nil
}

// Score sums the node's domains' scores over the keys it carries.
func (pl *InterPodAffinity) Score(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	s := ipaStateOf(state)
	if s == nil {
		return 0, nil
	}
	s.counts.Sync(s.snap)
	var sum int64
	for _, slot := range s.scoreKeys {
		sl := s.counts.Slot(slot)
		if d := sl.DomainOf(node); d >= 0 {
			sum += sl.Count(d)
		}
	}
	return sum, nil
}

// NormalizeScore stretches the sums to 0..100 between the lowest and the
// highest; all equal gives every node 0. As kube-scheduler computes it,
// the ratio (sum - lowest) / (highest - lowest) is taken first in floating
// point, then multiplied by 100 and truncated: 29 of 100 gives 28
// (0.29 * 100 = 28.999999999999996), not 29.
func (pl *InterPodAffinity) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	diff := hi - lo
	for i := range scores {
		if diff > 0 {
			scores[i].Score = int64(float64(fw.MaxNodeScore) * (float64(scores[i].Score-lo) / float64(diff)))
		} else {
			scores[i].Score = 0
		}
	}
	return nil
}
