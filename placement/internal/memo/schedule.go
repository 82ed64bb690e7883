package memo

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Scheduler is the pod scheduler a Memo answers for: the parts of a pod's
// pass the memo leaves to it.
type Scheduler interface {
	// FilterNominated filters pod on the node at index node with the pods
	// nominated there that count for it added: nil when they pass or none
	// counts.
	FilterNominated(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *fw.Status
	// ScoreLive runs PreScore with the feasible nodes and Score for each
	// score plugin the memo does not answer (answered[i] false) and
	// returns their weighted totals by feasible node; false when none
	// ran (the totals are then not to be read).
	ScoreLive(snap *cluster.Snapshot, pod *cluster.PodInfo, feasible []int, answered []bool) ([]int64, bool)
	// FitError is the FitError of pod fitting none of the n candidates
	// (nil: every node), with the scan's rejections in scan order.
	FitError(pod *cluster.PodInfo, candidates []int, n int, rejections []fw.NodeStatus) *fw.FitError
}

// Nominations are the pods preemption nominated to nodes, as placement's
// PodScheduler holds them.
type Nominations interface {
	Empty() bool
	NominatedTo(node int) []*cluster.PodInfo
	Nodes(buf []int) []int
}

// Pod is one pod's filter-and-score pass as the scheduler hands it over,
// after PreFilter.
type Pod struct {
	State      *fw.CycleState
	Snap       *cluster.Snapshot
	Pod        *cluster.PodInfo
	Candidates []int // snapshot indexes; nil: every node
	N          int   // how many candidates
	// Find is how many feasible nodes the scan looks for among N
	// (NumFeasibleNodesToFind); one when no score plugin runs.
	Find        int
	Nominations Nominations // nil: none
	// Next is where the next filter scan starts (modulo N): the memo
	// moves it as the scan would. Scans counts the filter scans.
	Next, Scans *int
}

// Schedule answers p's pass from what the memo remembers: the node the
// scan and scoring would pick, or the FitError they would return, with
// p.Next and p.Scans moved as the scan would move them. It reports false
// when it cannot answer (the memo is off, no plugin of the pod's is
// remembered, or its signature is seen for the first time): the
// scheduler then scans as usual.
func (m *Memo) Schedule(s Scheduler, p *Pod) (int, *fw.FitError, bool) {
	if m.opts.Off {
		return -1, nil, false
	}
	t := m.lookup(p.State, p.Snap, p.Pod)
	if t == nil {
		return -1, nil, false
	}
	whole := p.Candidates == nil
	if whole {
		if fit := m.reuseFailure(s, p, t); fit != nil {
			return -1, fit, true
		}
		nominations := p.Nominations != nil && !p.Nominations.Empty()
		if !nominations && !t.wide {
			if idx, ok := m.scheduleByIndex(p, t); ok {
				return idx, nil, true
			}
		}
	}
	t.scanned += m.scan(s, p, t)
	t.failed = nil
	switch len(m.feasible) {
	case 0:
		fit := s.FitError(p.Pod, p.Candidates, p.N, m.rejections)
		if whole {
			m.rememberFailure(p.Snap, t, fit)
		}
		return -1, fit, true
	case 1:
		return m.feasible[0], nil, true
	}
	return m.best(s, p, t), nil, true
}

// want is how many feasible nodes a scan of p looks for.
func (m *Memo) want(p *Pod) int {
	if len(m.scorers) == 0 {
		return 1
	}
	return p.Find
}

// scan is the memoised scan, the hot path: it filters the candidates in
// rotation until enough feasible nodes are found, as the plain scan
// does, but the remembered filters' verdict and the remembered raw
// scores are refreshed only where a node's stamp changed; the live
// filters run on top in their place. It returns the nodes visited.
func (m *Memo) scan(s Scheduler, p *Pod, t *table) int {
	want, n, candidates := m.want(p), p.N, p.Candidates
	start := *p.Next % n
	*p.Scans++
	state, pod, snap, plan := p.State, p.Pod, p.Snap, &m.plan
	live, nNorm := plan.liveFilters, plan.nNorm
	var lowest, highest [maxNormalizers]int64
	for j := range nNorm {
		lowest[j], highest[j] = math.MaxInt64, math.MinInt64
	}
	processed := 0
	feasible, rejections, nodes := m.feasible[:0], m.rejections[:0], t.nodes
	// Pods nominated to a node count there for pods of lower or equal
	// priority: such a node is filtered with them first, live, and then
	// without them as remembered.
	nominated := m.markNominated(p)
	defer m.unmarkNominated()
	for i := 0; i < n && len(feasible) < want; i++ {
		idx := start + i
		if idx >= n {
			idx -= n
		}
		if candidates != nil {
			idx = candidates[idx]
		}
		processed++
		if nominated && m.nomMark[idx] {
			if st := s.FilterNominated(state, snap, pod, idx); st != nil {
				rejections = append(rejections, fw.NodeStatus{Node: idx, Status: st})
				continue
			}
		}
		stamp, e := snap.Stamp(idx), &nodes[idx]
		if e.stamp != stamp {
			e.status, e.failAt = m.filter(state, pod, snap.Node(idx))
			e.stamp = stamp
		}
		st := e.status
		for _, f := range live {
			if int32(f) >= e.failAt {
				break
			}
			if ls := m.filters[f].Filter(state, pod, snap.Node(idx)); ls != nil {
				st = named(ls, m.filters[f])
				break
			}
		}
		if st != nil {
			rejections = append(rejections, fw.NodeStatus{Node: idx, Status: st})
			continue
		}
		feasible = append(feasible, idx)
		if e.scored != stamp {
			m.score(e, state, pod, snap.Node(idx))
			e.scored = stamp
		}
		for j := range nNorm {
			lowest[j], highest[j] = min(lowest[j], e.norm[j]), max(highest[j], e.norm[j])
		}
	}
	m.feasible, m.rejections = feasible, rejections
	plan.lowest, plan.highest = lowest, highest
	*p.Next = (start + processed) % n
	return processed
}

// markNominated lists in m.nomNodes and marks in m.nomMark the nodes
// pods are nominated to, and reports whether there are any. The list
// stays after unmarkNominated, until the next call.
func (m *Memo) markNominated(p *Pod) bool {
	m.nomNodes = m.nomNodes[:0]
	if p.Nominations == nil || p.Nominations.Empty() {
		return false
	}
	if len(m.nomMark) < p.Snap.Len() {
		m.nomMark = make([]bool, p.Snap.Len())
	}
	m.nomNodes = p.Nominations.Nodes(m.nomNodes)
	for _, i := range m.nomNodes {
		m.nomMark[i] = true
	}
	return len(m.nomNodes) > 0
}

func (m *Memo) unmarkNominated() {
	for _, i := range m.nomNodes {
		m.nomMark[i] = false
	}
}

// best scores the feasible nodes and returns the winner: the remembered
// totals, plus the live ones of the score plugins the memo does not
// answer.
func (m *Memo) best(s Scheduler, p *Pod, t *table) int {
	totals, live := s.ScoreLive(p.Snap, p.Pod, m.feasible, m.plan.memoScores)
	sum := m.normSum()
	if !live {
		return sum.argmax(m.feasible, t.nodes)
	}
	for k, idx := range m.feasible {
		totals[k] += sum.total(&t.nodes[idx])
	}
	return argmax(m.feasible, totals)
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

// normSum adds a node's remembered scores: the fixed sum, and each pointwise
// normaliser's score; a normaliser whose raw scores were all equal gives
// every node the same score, computed once.
type normSum struct {
	constant int64
	n        int
	slot     [maxNormalizers]int
	pw       [maxNormalizers]fw.PointwiseNormalizer
	weight   [maxNormalizers]int64
	highest  [maxNormalizers]int64
}

func (m *Memo) normSum() normSum {
	var mn normSum
	plan := &m.plan
	for j := range plan.nNorm {
		i := plan.norm[j]
		pw, w := m.pointwise[i], m.weights[i]
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
func (mn *normSum) argmax(feasible []int, nodes []entry) int {
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
func (mn *normSum) total(e *entry) int64 {
	sum := e.fixed + mn.constant
	for j := range mn.n {
		sum += mn.pw[j].NormalizeOne(e.norm[mn.slot[j]], mn.highest[j]) * mn.weight[j]
	}
	return sum
}
