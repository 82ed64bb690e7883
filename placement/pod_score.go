package placement

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Scoring the feasible nodes of one pod: PreScore, the score plugins,
// normalisation, weights, and the pick of the best (kube-scheduler's
// prioritizeNodes and selectHost).

// prioritizeNodes scores the feasible nodes and returns the winner.
func (ps *PodScheduler) prioritizeNodes(snap *cluster.Snapshot, pod *cluster.PodInfo, explain bool) int {
	var ex *ScoreExplanation
	if explain {
		ex = ps.newExplanation(pod)
	}
	ps.scoreLive(snap, pod, ps.feasible, nil, ex)
	bestIdx := argmax(ps.feasible, ps.totals)
	if ex != nil {
		ps.finishExplanation(ex, bestIdx)
	}
	return bestIdx
}

// scoreLive runs PreScore with the feasible nodes, then each score plugin
// that does not skip the pod, and is not answered elsewhere (answered[i],
// when answered is set: the memo's), on every feasible node, summing the
// weighted normalised scores into ps.totals (recording into ex when
// explaining). It reports whether any plugin ran: ps.totals is reset
// only then.
func (ps *PodScheduler) scoreLive(snap *cluster.Snapshot, pod *cluster.PodInfo, feasible []int, answered []bool, ex *ScoreExplanation) bool {
	ps.preScore(snap, pod, feasible, answered)
	m := len(feasible)
	live := false
	for i, ws := range ps.plugins.Score {
		if ps.state.ScoreSkipped(i) || answered != nil && answered[i] {
			continue
		}
		if !live {
			ps.totals = resize(ps.totals, m)
			clear(ps.totals)
			live = true
		}
		ps.addLiveScores(snap, pod, feasible, i, ws, ex)
	}
	return live
}

// preScore runs the PreScore plugins with the feasible nodes and records
// which score plugins skip. The node list is built only for plugins that
// read it.
func (ps *PodScheduler) preScore(snap *cluster.Snapshot, pod *cluster.PodInfo, feasible []int, answered []bool) {
	state := ps.state
	if len(ps.plugins.PreScore) == 0 {
		return
	}
	ps.infos = ps.infos[:0]
	n := len(ps.plugins.Score)
	for i := range ps.plugins.Score {
		pre := ps.scorePre[i]
		if pre < 0 || answered != nil && answered[i] {
			continue // no PreScore, or it ran when the memo planned the pod
		}
		p := ps.plugins.PreScore[pre]
		var nodes []*cluster.NodeInfo
		if _, ignores := p.(fw.PreScoreIgnoresNodes); !ignores {
			if len(ps.infos) == 0 {
				for _, idx := range feasible {
					ps.infos = append(ps.infos, snap.Node(idx))
				}
			}
			nodes = ps.infos
		}
		st := p.PreScore(state, pod, nodes)
		state.SetScoreSkipped(i, n, !st.IsSuccess())
	}
}

// argmax returns the feasible node with the highest total, the lowest
// index among equals.
func argmax(feasible []int, totals []int64) int {
	bestIdx, bestTotal := -1, int64(math.MinInt64)
	for k, idx := range feasible {
		if t := totals[k]; t > bestTotal || t == bestTotal && idx < bestIdx {
			bestIdx, bestTotal = idx, t
		}
	}
	return bestIdx
}

// addLiveScores runs score plugin i on every feasible node, normalises,
// weights and adds to the totals (recording into ex when explaining).
func (ps *PodScheduler) addLiveScores(snap *cluster.Snapshot, pod *cluster.PodInfo, feasible []int, i int, ws WeightedScorer, ex *ScoreExplanation) {
	m := len(feasible)
	if cap(ps.scores) < m {
		ps.scores = make([]fw.NodeScore, m)
	}
	ps.scores = ps.scores[:m]
	for k, idx := range feasible {
		v, st := ws.Plugin.Score(ps.state, pod, snap.Node(idx))
		if !st.IsSuccess() {
			v = 0 // a failing score plugin adds nothing to the node
		}
		ps.scores[k] = fw.NodeScore{Node: idx, Score: v}
	}
	var raw []int64
	if ex != nil {
		raw = make([]int64, m)
		for k := range ps.scores {
			raw[k] = ps.scores[k].Score
		}
	}
	if nz := ps.normalizer[i]; nz != nil {
		nz.NormalizeScore(ps.state, pod, ps.scores)
	}
	for k := range ps.scores {
		ps.totals[k] += ps.scores[k].Score * ws.Weight
	}
	if ex != nil {
		ex.add(ws, raw, ps.scores)
	}
}

func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}
