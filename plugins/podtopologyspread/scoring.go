package podtopologyspread

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// PreScoreSkips reports that the pod has no soft constraints (its own, or
// defaults): PreScore would skip it.
func (pl *PodTopologySpread) PreScoreSkips(pod *cluster.PodInfo) bool {
	_, soft, _ := pl.constraintsOf(pod.Pod())
	return len(soft) == 0
}

// PreScore prepares the soft constraints' weights over the feasible
// nodes, or skips when the pod has none.
func (pl *PodTopologySpread) PreScore(state *fw.CycleState, pod *cluster.PodInfo, nodes []*cluster.NodeInfo) *fw.Status {
	p := pod.Pod()
	if len(nodes) == 0 {
		return statusSkip
	}
	hard, soft, requireAll := pl.constraintsOf(p)
	if len(soft) == 0 {
		return statusSkip
	}
	snap := pl.snapshots.Snapshot()
	tc, c := pl.counts(snap, pod, hard, soft, requireAll)
	s := spreadStateOf(state)
	if s == nil {
		s = &spreadState{snap: snap, counts: tc, c: c}
		state.Write(Name, s)
	} else if s.counts != tc {
		s.counts, s.c = tc, c
	}
	s.ignored = nil
	if requireAll {
		for _, ni := range nodes {
			if !hasKeys(ni.Node().Labels, c.soft) {
				if s.ignored == nil {
					s.ignored = map[int]bool{}
				}
				s.ignored[ni.Index()] = true
			}
		}
	}
	s.weights = s.weights[:0]
	for j := range c.soft {
		sc := &c.soft[j]
		size := len(nodes) - len(s.ignored)
		if sc.key != LabelHostname {
			sl := tc.Slot(sc.slot)
			seen := map[int]bool{}
			for _, ni := range nodes {
				if !s.ignored[ni.Index()] {
					seen[sl.DomainOf(ni)] = true
				}
			}
			size = len(seen)
		}
		s.weights = append(s.weights, math.Log(float64(size+2)))
	}
	return nil
}

// Score sums, over the soft constraints whose key the node carries, the
// matching pods in its domain times the constraint's weight, plus
// maxSkew-1; fewer is better (see NormalizeScore).
func (pl *PodTopologySpread) Score(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	s := spreadStateOf(state)
	if s == nil || s.ignored[node.Index()] {
		return 0, nil
	}
	s.counts.Sync(s.snap)
	var score float64
	labels := node.Node().Labels
	for j := range s.c.soft {
		sc := &s.c.soft[j]
		if _, ok := labels[sc.key]; !ok {
			continue
		}
		sl := s.counts.Slot(sc.slot)
		var cnt int64
		if d := sl.DomainOf(node); d >= 0 {
			cnt = sl.Count(d)
		}
		score += float64(cnt)*s.weights[j] + float64(sc.maxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// NormalizeScore turns the sums around: the lowest gets 100, others
// 100*(highest+lowest-score)/highest; ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(state *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	s := spreadStateOf(state)
	var ignored map[int]bool
	if s != nil {
		ignored = s.ignored
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, ns := range scores {
		if !ignored[ns.Node] {
			lo, hi = min(lo, ns.Score), max(hi, ns.Score)
		}
	}
	for i := range scores {
		switch {
		case ignored[scores[i].Node]:
			scores[i].Score = 0
		case hi == 0:
			scores[i].Score = fw.MaxNodeScore
		default:
			scores[i].Score = fw.MaxNodeScore * (hi + lo - scores[i].Score) / hi
		}
	}
	return nil
}
