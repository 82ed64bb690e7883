package placement

import (
	"cmp"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// WeightedScorer is a score plugin with its weight in the node total.
type WeightedScorer struct {
	Plugin ScorePlugin
	Weight int64
}

// Adaptive sampling bounds of kube-scheduler's numFeasibleNodesToFind.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// NumFeasibleNodesToFind returns how many feasible nodes the filter phase
// looks for before it stops, as kube-scheduler computes it: every node
// below 100 nodes; otherwise percentage of them (0 means adaptive:
// 50 - nodes/125, at least 5), but never fewer than 100.
func NumFeasibleNodesToFind(percentage int32, numNodes int) int {
	if numNodes < minFeasibleNodesToFind {
		return numNodes
	}
	if percentage == 0 {
		percentage = max(int32(50)-int32(numNodes/125), minFeasibleNodesPercentageToFind)
	}
	n := int(int64(numNodes) * int64(percentage) / 100)
	return max(n, minFeasibleNodesToFind)
}

// PodScheduler runs the filter and score phases for one pod at a time on a
// snapshot: kube-scheduler's schedulePod, made sequential and
// deterministic.
//
// Filtering visits the candidate nodes starting where the previous pod's
// search stopped (so that all nodes get examined over time) and stops once
// NumFeasibleNodesToFind feasible nodes are found. Scoring sums each
// plugin's normalised score times its weight; the highest total wins, and
// among equal totals the node first in name order (lowest snapshot index).
// A lone feasible node is taken without scoring.
//
// A PodScheduler keeps scratch buffers between calls: it is not safe for
// concurrent use.
type PodScheduler struct {
	// Nominations, when set, makes filtering honour pods nominated to a
	// node by preemption (kube-scheduler's RunFilterPluginsWithNominatedPods).
	Nominations Nominations

	filters    []FilterPlugin
	scorers    []WeightedScorer
	percentage int32
	nextStart  int

	feasible   []int
	rejections []NodeRejection
	scores     []int64
	totals     []int64

	memoOK bool // every plugin is a SignaturePlugin
	memo   memo
	fused  fused
}

// NewPodScheduler returns a PodScheduler running filters in order, then
// scorers; percentage is percentageOfNodesToScore (0 adaptive, 100 all).
func NewPodScheduler(filters []FilterPlugin, scorers []WeightedScorer, percentage int32) *PodScheduler {
	ps := &PodScheduler{filters: filters, scorers: scorers, percentage: percentage, memoOK: true}
	for _, f := range filters {
		_, ok := f.(SignaturePlugin)
		ps.memoOK = ps.memoOK && ok
	}
	normalizers := 0
	for _, sc := range scorers {
		_, ok := sc.Plugin.(SignaturePlugin)
		ps.memoOK = ps.memoOK && ok
		if _, ok := sc.Plugin.(ScoreNormalizer); ok {
			_, pointwise := sc.Plugin.(PointwiseNormalizer)
			ps.memoOK = ps.memoOK && pointwise
			normalizers++
		}
	}
	ps.memoOK = ps.memoOK && normalizers <= maxNormalizers
	return ps
}

// memoTable returns the remembered answers for pod's signature, or nil
// when they may not be used: a plugin is not a SignaturePlugin, a
// normaliser is not pointwise, or pods are nominated somewhere (filtering
// then depends on the pod's priority).
func (ps *PodScheduler) memoTable(snap *cluster.Snapshot, pod *cluster.PodInfo) *memoTable {
	if !ps.memoOK || ps.Nominations != nil && !ps.Nominations.Empty() {
		return nil
	}
	return ps.memo.table(snap, pod)
}

// Nominations are the pods preemption nominated to nodes: they count on
// their node while pods of lower or equal priority are filtered.
type Nominations interface {
	// Empty reports whether no pod is nominated anywhere (the fast path).
	Empty() bool
	// NominatedTo returns the pods nominated to the node at index node.
	NominatedTo(node int) []*cluster.PodInfo
}

// FilterNode filters pod on one node of the snapshot as a scheduling cycle
// does: when pods of higher or equal priority are nominated to the node, the
// pod must fit both with them added and without them.
func (ps *PodScheduler) FilterNode(snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *Rejection {
	if ps.Nominations != nil && !ps.Nominations.Empty() {
		if r := ps.filterWithNominated(snap, pod, node); r != nil {
			return r
		}
	}
	return ps.Filter(pod, snap.Node(node))
}

func (ps *PodScheduler) filterWithNominated(snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *Rejection {
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	added := false
	ni := snap.Node(node)
	for _, n := range ps.Nominations.NominatedTo(node) {
		if _, there := ni.Pod(n.Key()); there {
			continue // already reserved on the node in this cycle
		}
		if n.Key() != pod.Key() && n.Priority() >= pod.Priority() {
			snap.Reserve(n, node)
			added = true
		}
	}
	if !added {
		return nil
	}
	return ps.Filter(pod, snap.Node(node))
}

// Filter runs every filter on one node and returns the first rejection.
func (ps *PodScheduler) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	for _, f := range ps.filters {
		if r := f.Filter(pod, node); r != nil {
			return r
		}
	}
	return nil
}

// ScheduleNominated is Schedule for a pod with a nominated node (a snapshot
// index, or -1): that node is tried first, and taken without scoring if it
// fits and is among the candidates.
func (ps *PodScheduler) ScheduleNominated(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, nominated int) (int, *FitError) {
	if nominated >= 0 && (candidates == nil || slices.Contains(candidates, nominated)) {
		if ps.FilterNode(snap, pod, nominated) == nil {
			return nominated, nil
		}
	}
	return ps.Schedule(snap, pod, candidates)
}

// Schedule picks a node for pod among candidates (snapshot indexes; nil
// means every node) and returns its index, or a FitError when none fits.
// It does not reserve the pod.
func (ps *PodScheduler) Schedule(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int) (int, *FitError) {
	n := len(candidates)
	if candidates == nil {
		n = snap.Len()
	}
	if n == 0 {
		return -1, &FitError{Pod: pod.Key()}
	}
	want := NumFeasibleNodesToFind(ps.percentage, n)
	if len(ps.scorers) == 0 {
		want = 1
	}
	ps.feasible, ps.rejections = ps.feasible[:0], ps.rejections[:0]
	t := ps.memoTable(snap, pod)
	if t != nil {
		ps.planFused(pod)
	}
	start := ps.nextStart % n
	processed := 0
	for i := 0; i < n && len(ps.feasible) < want; i++ {
		idx := (start + i) % n
		if candidates != nil {
			idx = candidates[idx]
		}
		processed++
		if t == nil {
			if r := ps.FilterNode(snap, pod, idx); r != nil {
				ps.rejections = append(ps.rejections, NodeRejection{Node: idx, Rejection: r})
				continue
			}
			ps.feasible = append(ps.feasible, idx)
			continue
		}
		// the memoised path, inline: it runs once per node per pod
		st, e := snap.Stamp(idx), &t.nodes[idx]
		if e.stamp != st {
			e.rej, e.stamp = ps.Filter(pod, snap.Node(idx)), st
		}
		if r := e.rej; r != nil {
			ps.rejections = append(ps.rejections, NodeRejection{Node: idx, Rejection: r})
			continue
		}
		ps.feasible = append(ps.feasible, idx)
		if e.scored != st {
			ps.rescore(e, snap, pod, idx)
		}
		for j := range ps.fused.n {
			ps.fused.highest[j] = max(ps.fused.highest[j], e.norm[j])
		}
	}
	ps.nextStart = (start + processed) % n
	switch len(ps.feasible) {
	case 0:
		return -1, ps.fitError(pod, n)
	case 1:
		return ps.feasible[0], nil
	}
	return ps.best(snap, pod, t), nil
}

func (ps *PodScheduler) fitError(pod *cluster.PodInfo, n int) *FitError {
	rej := append([]NodeRejection(nil), ps.rejections...)
	sortRejections(rej)
	return &FitError{Pod: pod.Key(), NumAllNodes: n, Rejections: rej}
}

// best scores the feasible nodes and returns the winner.
func (ps *PodScheduler) best(snap *cluster.Snapshot, pod *cluster.PodInfo, t *memoTable) int {
	if t != nil {
		return ps.bestFused(t)
	}
	return ps.bestGeneric(snap, pod)
}

// bestGeneric scores plugin by plugin: raw scores, normalisation, weights.
func (ps *PodScheduler) bestGeneric(snap *cluster.Snapshot, pod *cluster.PodInfo) int {
	m := len(ps.feasible)
	ps.totals = resize(ps.totals, m)
	clear(ps.totals)
	for _, ws := range ps.scorers {
		if sk, ok := ws.Plugin.(ScoreSkipper); ok && sk.SkipScore(pod) {
			continue
		}
		ps.scores = resize(ps.scores, m)
		for i, idx := range ps.feasible {
			ps.scores[i] = ws.Plugin.Score(pod, snap.Node(idx))
		}
		if nz, ok := ws.Plugin.(ScoreNormalizer); ok {
			nz.NormalizeScores(ps.scores)
		}
		w := ws.Weight
		for i, sc := range ps.scores {
			ps.totals[i] += sc * w
		}
	}
	bestIdx, bestTotal := -1, int64(-1)
	for i, idx := range ps.feasible {
		if t := ps.totals[i]; t > bestTotal || t == bestTotal && idx < bestIdx {
			bestIdx, bestTotal = idx, t
		}
	}
	return bestIdx
}

func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}

func sortRejections(r []NodeRejection) {
	// the scan started mid-list; node order keeps reports stable
	slices.SortFunc(r, func(a, b NodeRejection) int { return cmp.Compare(a.Node, b.Node) })
}

// PointwiseNormalizer is a ScoreNormalizer whose normalised score of a node
// depends only on the node's raw score and the highest raw score among the
// feasible nodes (TaintToleration's reverse normalisation is one). It lets
// the memoised path score every node in one pass.
type PointwiseNormalizer interface {
	NormalizeOne(raw, highest int64) int64
}

// fused is the per-pod plan of the memoised scoring path: the scorers
// summed as they are, the pointwise normalisers, and the highest raw score
// of each normaliser among the feasible nodes seen so far.
type fused struct {
	fixed   []WeightedScorer
	norm    [maxNormalizers]PointwiseNormalizer
	plugin  [maxNormalizers]ScorePlugin
	weights [maxNormalizers]int64
	n       int
	highest [maxNormalizers]int64
}

func (ps *PodScheduler) planFused(pod *cluster.PodInfo) {
	f := &ps.fused
	f.fixed, f.n, f.highest = f.fixed[:0], 0, [maxNormalizers]int64{}
	for _, ws := range ps.scorers {
		if sk, ok := ws.Plugin.(ScoreSkipper); ok && sk.SkipScore(pod) {
			continue
		}
		if pn, ok := ws.Plugin.(PointwiseNormalizer); ok {
			f.norm[f.n], f.plugin[f.n], f.weights[f.n] = pn, ws.Plugin, ws.Weight
			f.n++
			continue
		}
		f.fixed = append(f.fixed, ws)
	}
}

// rescore brings a node's remembered scores up to date.
func (ps *PodScheduler) rescore(e *memoEntry, snap *cluster.Snapshot, pod *cluster.PodInfo, idx int) {
	f := &ps.fused
	ni := snap.Node(idx)
	var sum int64
	for _, ws := range f.fixed {
		sum += ws.Plugin.Score(pod, ni) * ws.Weight
	}
	e.fixed = sum
	for j := range f.n {
		e.norm[j] = f.plugin[j].Score(pod, ni)
	}
	e.scored = snap.Stamp(idx)
}

// bestFused totals and picks over the remembered scores, with the same
// arithmetic and tie-break as bestGeneric. The filter scan has brought the
// feasible nodes' scores up to date and found the normalisers' highest raw
// scores. A node's remembered part is the weighted sum of its scores that
// need no normalisation, plus the raw scores of the pointwise normalisers.
func (ps *PodScheduler) bestFused(t *memoTable) int {
	f := &ps.fused
	bestIdx, bestTotal := -1, int64(-1)
	for _, idx := range ps.feasible {
		e := &t.nodes[idx]
		total := e.fixed
		for j := range f.n {
			total += f.norm[j].NormalizeOne(e.norm[j], f.highest[j]) * f.weights[j]
		}
		if total > bestTotal || total == bestTotal && idx < bestIdx {
			bestIdx, bestTotal = idx, total
		}
	}
	return bestIdx
}

// maxNormalizers bounds the normalising score plugins the memo handles.
const maxNormalizers = 2
