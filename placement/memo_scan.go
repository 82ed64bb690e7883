package placement

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The pod scan over the memo (FilterMemo): the remembered verdicts and raw
// scores are read where a node is unchanged and refreshed where it
// changed, and the remembered totals ranked without rescoring.

// scanMemo is the memoised scan, the hot path: the remembered filters'
// verdict and the remembered raw scores are refreshed only where a node's
// stamp changed, the live filters run on top in their place.
func (ps *PodScheduler) scanMemo(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, n, start, want int, t *memoTable) int {
	state, plan := ps.state, &ps.plan
	live, nNorm := plan.liveFilters, plan.nNorm
	var lowest, highest [maxNormalizers]int64
	for j := range nNorm {
		lowest[j], highest[j] = math.MaxInt64, math.MinInt64
	}
	processed := 0
	feasible, rejections, nodes := ps.feasible, ps.rejections, t.nodes
	// Pods nominated to a node count there for pods of lower or equal
	// priority: such a node is filtered with them first, live, and then
	// without them as remembered.
	nominated := ps.markNominated(snap)
	defer ps.unmarkNominated()
	for i := 0; i < n && len(feasible) < want; i++ {
		idx := start + i
		if idx >= n {
			idx -= n
		}
		if candidates != nil {
			idx = candidates[idx]
		}
		processed++
		if nominated && ps.nomMark[idx] {
			if st := ps.filterWithNominated(state, snap, pod, idx); st != nil {
				rejections = append(rejections, fw.NodeStatus{Node: idx, Status: st})
				continue
			}
		}
		stamp, e := snap.Stamp(idx), &nodes[idx]
		if e.stamp != stamp {
			e.status, e.failAt = ps.memoFilter(state, pod, snap.Node(idx))
			e.stamp = stamp
		}
		st := e.status
		for _, f := range live {
			if int32(f) >= e.failAt {
				break
			}
			if s := ps.plugins.Filter[f].Filter(state, pod, snap.Node(idx)); s != nil {
				st = named(s, ps.plugins.Filter[f])
				break
			}
		}
		if st != nil {
			rejections = append(rejections, fw.NodeStatus{Node: idx, Status: st})
			continue
		}
		feasible = append(feasible, idx)
		if e.scored != stamp {
			ps.memoScore(e, state, pod, snap.Node(idx))
			e.scored = stamp
		}
		for j := range nNorm {
			lowest[j], highest[j] = min(lowest[j], e.norm[j]), max(highest[j], e.norm[j])
		}
	}
	ps.feasible, ps.rejections = feasible, rejections
	plan.lowest, plan.highest = lowest, highest
	return processed
}

// markNominated lists in ps.nomNodes and marks in ps.nomMark the nodes
// pods are nominated to, and reports whether there are any. The list
// stays after unmarkNominated, until the next call.
func (ps *PodScheduler) markNominated(snap *cluster.Snapshot) bool {
	ps.nomNodes = ps.nomNodes[:0]
	if ps.Nominations == nil || ps.Nominations.Empty() {
		return false
	}
	if len(ps.nomMark) < snap.Len() {
		ps.nomMark = make([]bool, snap.Len())
	}
	ps.nomNodes = ps.Nominations.Nodes(ps.nomNodes)
	for _, i := range ps.nomNodes {
		ps.nomMark[i] = true
	}
	return len(ps.nomNodes) > 0
}

func (ps *PodScheduler) unmarkNominated() {
	for _, i := range ps.nomNodes {
		ps.nomMark[i] = false
	}
}

// memoNorm adds a node's remembered scores: the fixed sum, and each
// pointwise normaliser's score; a normaliser whose raw scores were all
// equal gives every node the same score, computed once.
type memoNorm struct {
	constant int64
	n        int
	slot     [maxNormalizers]int
	pw       [maxNormalizers]fw.PointwiseNormalizer
	weight   [maxNormalizers]int64
	highest  [maxNormalizers]int64
}

func (ps *PodScheduler) memoNorm() memoNorm {
	var mn memoNorm
	plan := &ps.plan
	for j := range plan.nNorm {
		i := plan.norm[j]
		pw, w := ps.pointwise[i], ps.plugins.Score[i].Weight
		if plan.lowest[j] == plan.highest[j] {
			mn.constant += pw.NormalizeOne(plan.highest[j], plan.highest[j]) * w
			continue
		}
		mn.slot[mn.n], mn.pw[mn.n], mn.weight[mn.n], mn.highest[mn.n] = j, pw, w, plan.highest[j]
		mn.n++
	}
	return mn
}

// argmax is the package argmax over the remembered scores alone, the hot
// path: with no normaliser varying it compares the fixed sums.
func (mn *memoNorm) argmax(feasible []int, nodes []memoEntry) int {
	bestIdx, bestTotal := -1, int64(math.MinInt64)
	if mn.n == 0 {
		for _, idx := range feasible {
			if t := nodes[idx].fixed; t > bestTotal || t == bestTotal && idx < bestIdx {
				bestIdx, bestTotal = idx, t
			}
		}
		return bestIdx
	}
	for _, idx := range feasible {
		if t := mn.total(&nodes[idx]); t > bestTotal || t == bestTotal && idx < bestIdx {
			bestIdx, bestTotal = idx, t
		}
	}
	return bestIdx
}

// total is a node's weighted sum of the remembered scores.
func (mn *memoNorm) total(e *memoEntry) int64 {
	sum := e.fixed + mn.constant
	for j := range mn.n {
		sum += mn.pw[j].NormalizeOne(e.norm[mn.slot[j]], mn.highest[j]) * mn.weight[j]
	}
	return sum
}
