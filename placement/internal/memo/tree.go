package memo

import (
	"math"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/internal/prefetch"
)

// tree, the memo tree, answers a pod's whole filter-and-score pass in O(log n)
// when every plugin that runs for it is remembered (no live filter or
// score) and its normalised scores come out constant over the nodes it
// would score, the usual case: resource fit, balance and taint scores on
// a cluster without PreferNoSchedule taints.
//
// A scan that visits the nodes in rotation from start and stops at the
// want-th feasible node scores exactly the feasible nodes from start up to
// that one; the tree, built over a signature's remembered verdicts and
// scores, finds that node by counting, and the best of the range by its
// per-subtree maxima, without visiting the nodes. The outcome is the
// scan's (TestMemoIndexesMatchScan checks it against the scan on random
// clusters).
type tree struct {
	n     int // nodes (leaves)
	pos   cluster.FeedPos
	snap  *cluster.Snapshot
	nNorm int
	// nodes holds the tree level by level, the root's first (see base);
	// a node's four children sit side by side, in one cache line
	nodes []treeNode
	// base is where each level starts in nodes, the root's (0) first and
	// the leaves' (height) last; each level holds a multiple of four
	// nodes, its last ones empty, so that a node's children are always
	// four
	base   []int
	height int
	// wide says a remembered score does not fit a tree node (below): the
	// table is scanned instead
	wide bool
	// second holds, per tree node, the lowest and highest raw score of the
	// second normaliser, when there is one (the first's are in the tree
	// node: the default profile has one, TaintToleration)
	second []int32
}

// arity is how many children a tree node has. Four children of 16 bytes
// fill a cache line, and the tree has half the levels of a binary one: on
// a large cluster each level an update climbs or a descent takes is a
// cache miss.
const arity = 4

// treeNode sums up the leaves under it; a pull reads a node's four
// children, side by side. It holds the best fixed score, not which node
// has it: a pull then stops where the best score holds, though the node
// holding it changed, which on a cluster of many alike nodes (equal
// scores) is most pulls; the node is found once a pod, by descending
// (first).
//
// Its scores are 32 bits, so that a node is 16 bytes and a node's
// children one cache line: on a large cluster each is a miss. Scores are
// sums of a few plugins' 0-100 times their weights, far inside; a table
// with one outside (a plugin's raw score, or weights in the millions) is
// scanned (wide).
type treeNode struct {
	cnt   int32 // feasible nodes under it
	bestV int32 // the highest fixed score among them (math.MinInt32: none)
	// the lowest and highest raw score of the first normaliser among the
	// feasible nodes under it (unused without normalisers)
	lo, hi int32
}

// narrow reports whether v fits a tree node's scores, above the value
// that marks no node.
func narrow(v int64) bool { return v > math.MinInt32 && v <= math.MaxInt32 }

// treeUsable reports whether the plan lets the tree answer for the pod:
// no live filter, and every score plugin remembered or known to skip the
// pod (its PreScore runs now when it ignores the nodes, or says from the
// pod alone that it skips).
func (m *Memo) treeUsable(state *fw.CycleState, pod *cluster.PodInfo) bool {
	plan := &m.plan
	if len(plan.liveFilters) > 0 {
		return false
	}
	n := len(m.scorers)
	for i := range m.scorers {
		if plan.memoScores[i] || state.ScoreSkipped(i) {
			continue
		}
		pre := m.scorePre[i]
		if pre < 0 {
			return false // scored live on every node
		}
		switch p := m.preScore[pre]; {
		case m.preSkippers[pre] != nil:
			if !m.preSkippers[pre].PreScoreSkips(pod) {
				return false
			}
		case m.preIgnoresNodes[pre]:
			if p.PreScore(state, pod, nil).IsSuccess() {
				return false
			}
		default:
			return false
		}
		state.SetScoreSkipped(i, n, true)
	}
	return true
}

// treeChangeCost is what bringing an index (the tree or the column) up
// to date costs per node changed since its last use, in nodes a scan
// visits: refreshing the node's remembered answers and its path to the
// root. It is lower than the ratio of the two costs alone would say,
// because a scan defers the change rather than saving it: the index pays
// for it at its next use. Measured with the tree on 10,000 pods of 20
// shapes on 1,000 nodes and on gangs (BENCHMARKS.md): 1 and 4 alike on
// the first, 4 best on the second.
const treeChangeCost = 4

// scheduleByIndex answers a whole-cluster pod by the tree or the column,
// when an index switched on pays and the plan lets an index answer
// (treeUsable). Bringing an index up to date costs the nodes changed since
// its last use (all of them to build it); the scans made instead since
// then count towards it, so that the index is built, or caught up, once
// the scans have cost as much. The index a table keeps is the cheaper of
// the two when both are up to date (columnPays); while it has not paid
// for its catch-up, the other answers if it pays, and its answers count
// towards the catch-up as scans would.
func (m *Memo) scheduleByIndex(p *Pod, t *table) (int, bool) {
	treeOn, columnOn := !m.opts.NoTree, !m.opts.NoColumn
	if !treeOn && !columnOn {
		return -1, false
	}
	snap := p.Snap
	pays := func(pending int) bool { return pending*treeChangeCost <= p.Find+t.scanned }
	kept := columnOn && (!treeOn || columnPays(snap, t, p.Find))
	column := kept
	switch {
	case kept && pays(t.col.pending(snap)), !kept && pays(treePending(snap, t)):
	case kept && treeOn && pays(treePending(snap, t)):
		column = false
	case !kept && columnOn && pays(t.col.pending(snap)):
		column = true
	default:
		return -1, false
	}
	if !m.treeUsable(p.State, p.Pod) {
		return -1, false
	}
	if column == kept {
		t.scanned = 0
	} else {
		t.scanned += p.Find
	}
	if column {
		return m.scheduleByColumn(p, t)
	}
	return m.scheduleByTree(p, t)
}

// treePending is how many nodes bringing the tree up to date refreshes:
// the changes since its last use, or every node.
func treePending(snap *cluster.Snapshot, t *table) int {
	if tr := t.tree; tr != nil && tr.snap == snap && tr.n == snap.Len() {
		if changed, ok := snap.NodesChangedSince(tr.pos); ok {
			return len(changed)
		}
	}
	return snap.Len()
}

// treeOf returns t's tree up to date with p's snapshot: the nodes that
// changed since its last use get their remembered answers refreshed
// first.
func (m *Memo) treeOf(p *Pod, t *table) *tree {
	snap := p.Snap
	tr := t.tree
	if tr == nil || tr.snap != snap || tr.n != snap.Len() || tr.nNorm != m.plan.nNorm {
		if tr == nil {
			tr, m.spareTree = m.spareTree, nil
		}
		tr = newTree(snap.Len(), m.plan.nNorm, tr)
		tr.snap = snap
		t.tree = tr
		for i := range tr.n {
			m.refreshEntry(p, t, i)
			tr.setLeaf(t, i)
		}
		tr.build()
		tr.pos = snap.FeedPos()
		return tr
	}
	changed, ok := snap.NodesChangedSince(tr.pos)
	if !ok { // the feed was cut past the tree's position: built again, in its arrays
		m.spareTree, t.tree = tr, nil
		return m.treeOf(p, t)
	}
	for k := range min(ahead, len(changed)) {
		tr.prefetch(t, int(changed[k]))
	}
	for k, i := range changed {
		if k+ahead < len(changed) {
			tr.prefetch(t, int(changed[k+ahead]))
		}
		m.refreshEntry(p, t, int(i))
	}
	tr.update(t, changed)
	tr.pos = snap.FeedPos()
	return tr
}

// update copies the entries of the given nodes (repeats allowed) into
// their leaves and pulls each changed leaf's ancestors, from the leaf up,
// until one comes out unchanged: its own ancestors then hold as they were.
// Nodes bound one after another change their leaves' best scores, but a
// bound node is seldom the best of a large subtree for every signature,
// so the pulls of most changes stop a level or two up.
func (tr *tree) update(t *table, nodes []int32) {
	for _, i := range nodes {
		if !tr.setLeaf(t, int(i)) {
			continue
		}
		for l, p := tr.height-1, int(i)/arity; l >= 0 && tr.pull(l, p); l, p = l-1, p/arity {
		}
	}
}

// build pulls every node above the leaves that has children, the lowest
// level first.
func (tr *tree) build() {
	for l := tr.height - 1; l >= 0; l-- {
		for p := range (tr.base[l+2] - tr.base[l+1]) / arity {
			tr.pull(l, p)
		}
	}
}

// prefetchNode asks for tree node k, bounds included.
func (tr *tree) prefetchNode(k int) {
	prefetch.Object(unsafe.Pointer(&tr.nodes[k]), unsafe.Sizeof(tr.nodes[k]))
	if tr.nNorm > 1 {
		prefetch.Object(unsafe.Pointer(&tr.second[2*k]), 2*unsafe.Sizeof(tr.second[0]))
	}
}

// ahead is how many nodes ahead the loops over changed nodes ask for
// their entries and tree nodes (prefetch): on a large cluster each is a
// cache miss, and a refresh of a few nodes a pod is a chain of them.
const ahead = 6

// prefetch asks for node i's entry, leaf and the two tree nodes above it.
func (tr *tree) prefetch(t *table, i int) {
	prefetch.Object(unsafe.Pointer(&t.nodes[i]), unsafe.Sizeof(t.nodes[i]))
	tr.prefetchNode(tr.base[tr.height] + i)
	for l, p := tr.height-1, i/arity; l >= 0 && l >= tr.height-2; l, p = l-1, p/arity {
		tr.prefetchNode(tr.base[l] + p)
	}
}

// refreshEntry brings node i's remembered verdict and scores up to date.
func (m *Memo) refreshEntry(p *Pod, t *table, i int) {
	snap := p.Snap
	stamp, e, node := snap.Stamp(i), &t.nodes[i], snap.Node(i)
	if e.stamp != stamp {
		e.status, e.failAt = m.filter(p.State, p.Pod, node)
		e.stamp = stamp
	}
	if e.status == nil && e.scored != stamp {
		m.score(e, p.State, p.Pod, node)
		e.scored = stamp
	}
}

// newTree returns a tree of n nodes and nNorm normalisers, in the arrays
// of old (a tree no longer used, or nil) when they have the size: a busy
// cluster's many pod shapes forget and build tables over and over.
func newTree(n, nNorm int, old *tree) *tree {
	tr := &tree{n: n, nNorm: nNorm}
	// the levels' sizes, from the leaves up to the root, each a multiple
	// of arity
	roundUp := func(c int) int { return (c + arity - 1) / arity * arity }
	sizes := []int{roundUp(max(n, 1))}
	for c := max(n, 1); c > 1 || len(sizes) == 1; {
		c = (c + arity - 1) / arity
		sizes = append(sizes, roundUp(c))
	}
	tr.height = len(sizes) - 1
	tr.base = make([]int, len(sizes)+1)
	for l := range sizes {
		tr.base[l+1] = tr.base[l] + sizes[len(sizes)-1-l]
	}
	total := tr.base[len(sizes)]
	if old != nil && len(old.nodes) == total {
		tr.nodes, tr.second = old.nodes, old.second
	} else {
		tr.nodes = make([]treeNode, total)
	}
	if nNorm > 1 && len(tr.second) != 2*total {
		tr.second = make([]int32, 2*total)
	}
	for i := range tr.nodes {
		tr.nodes[i] = treeNode{bestV: math.MinInt32}
		tr.empty(i)
	}
	return tr
}

// bound returns tree node k's lowest and highest raw score of normaliser j.
func (tr *tree) bound(k, j int) (lo, hi *int32) {
	if j == 0 {
		tn := &tr.nodes[k]
		return &tn.lo, &tn.hi
	}
	return &tr.second[2*k], &tr.second[2*k+1]
}

// setBounds gives leaf k the bounds of one node's raw scores norm, or of
// no feasible node when norm is nil, and reports whether the bounds kept
// apart from the tree node (second) changed.
func (tr *tree) setBounds(k int, norm *[maxNormalizers]int64) bool {
	changed := false
	for j := range tr.nNorm {
		v, w := int32(math.MaxInt32), int32(math.MinInt32)
		if norm != nil {
			tr.wide = tr.wide || !narrow(norm[j])
			v, w = int32(norm[j]), int32(norm[j])
		}
		lo, hi := tr.bound(k, j)
		changed = changed || j > 0 && (*lo != v || *hi != w)
		*lo, *hi = v, w
	}
	return changed
}

// empty gives tree node k the bounds of no feasible node.
func (tr *tree) empty(k int) {
	for j := range tr.nNorm {
		lo, hi := tr.bound(k, j)
		*lo, *hi = math.MaxInt32, math.MinInt32
	}
}

// setLeaf copies node i's entry into its leaf and reports whether the
// leaf changed.
func (tr *tree) setLeaf(t *table, i int) bool {
	k := tr.base[tr.height] + i
	e, leaf := &t.nodes[i], &tr.nodes[k]
	old := *leaf
	changed := false
	if e.status != nil {
		*leaf = treeNode{bestV: math.MinInt32}
		changed = tr.setBounds(k, nil)
	} else {
		tr.wide = tr.wide || !narrow(e.fixed)
		*leaf = treeNode{cnt: 1, bestV: int32(e.fixed)}
		changed = tr.setBounds(k, &e.norm)
	}
	return changed || *leaf != old
}

// pull recomputes node p of level l from its children and reports
// whether it changed: an unchanged node leaves its ancestors as they
// were. It runs a few times for every node changed, so it reads one cache
// line of children, bounds included.
func (tr *tree) pull(l, p int) bool {
	k, c := tr.base[l]+p, tr.base[l+1]+arity*p
	ch := tr.nodes[c : c+arity : c+arity]
	to := ch[0]
	for _, x := range ch[1:] {
		to = treeNode{cnt: to.cnt + x.cnt, bestV: max(to.bestV, x.bestV), lo: min(to.lo, x.lo), hi: max(to.hi, x.hi)}
	}
	changed := to != tr.nodes[k]
	tr.nodes[k] = to
	if tr.nNorm > 1 {
		b := tr.second
		lo, hi := b[2*c], b[2*c+1]
		for j := 1; j < arity; j++ {
			lo, hi = min(lo, b[2*(c+j)]), max(hi, b[2*(c+j)+1])
		}
		changed = changed || lo != b[2*k] || hi != b[2*k+1]
		b[2*k], b[2*k+1] = lo, hi
	}
	return changed
}

// parts calls visit with the tree nodes that cover the leaves [l, r)
// exactly, from the lowest level up: at each level, the nodes left of the
// part its parents cover, left to right, then those right of it, right
// to left. It stops when visit returns false.
func (tr *tree) parts(l, r int, visit func(k int, left bool) bool) {
	for lev := tr.height; l < r; lev-- {
		base := tr.base[lev]
		for ; l < r && l%arity != 0; l++ {
			if !visit(base+l, true) {
				return
			}
		}
		for ; l < r && r%arity != 0; r-- {
			if !visit(base+r-1, false) {
				return
			}
		}
		l, r = l/arity, r/arity
	}
}

// count returns the feasible nodes in [l, r).
func (tr *tree) count(l, r int) int {
	var n int32
	tr.parts(l, r, func(k int, _ bool) bool {
		n += tr.nodes[k].cnt
		return true
	})
	return int(n)
}

// kth returns the index of the k-th feasible node (1-based) in index
// order; k must not exceed the total.
func (tr *tree) kth(k int) int {
	p := 0
	for l := 0; l < tr.height; l++ {
		c := tr.base[l+1] + arity*p
		j := 0
		for ; j < arity-1; j++ {
			n := int(tr.nodes[c+j].cnt)
			if k <= n {
				break
			}
			k -= n
		}
		p = arity*p + j
	}
	return p
}

// rangeSummary is the best node and the normaliser bounds over [l, r).
type rangeSummary struct {
	best   int32 // set by first, not by summarize
	bestV  int64
	lo, hi [maxNormalizers]int64
}

// summarize adds the best fixed score and the normaliser bounds of the
// feasible nodes in [l, r) to acc, from the tree's own copies: the
// table's entries may be newer than the tree (a scan refreshes them, a
// rollback restores the nodes).
func (tr *tree) summarize(l, r int, acc *rangeSummary) {
	tr.parts(l, r, func(k int, _ bool) bool {
		tn := &tr.nodes[k]
		if tn.cnt == 0 {
			return true // no feasible node: nothing to add
		}
		acc.bestV = max(acc.bestV, int64(tn.bestV))
		for j := range tr.nNorm {
			lo, hi := tr.bound(k, j)
			acc.lo[j], acc.hi[j] = min(acc.lo[j], int64(*lo)), max(acc.hi[j], int64(*hi))
		}
		return true
	})
}

// first returns the lowest index in [l, r) of a feasible node whose fixed
// score is v, or -1: the range's parts from left to right, then down the
// first part that holds v, leftmost child first.
func (tr *tree) first(l, r int, v int64) int {
	has := func(k int) bool { return tr.nodes[k].cnt > 0 && int64(tr.nodes[k].bestV) == v }
	// the parts right of the middle, right to left within a level, the
	// lowest level first: at most three a level, and a tree of 2^31
	// leaves has 17 levels
	var right [64]int
	nr, found := 0, -1
	tr.parts(l, r, func(k int, left bool) bool {
		switch {
		case left && has(k):
			found = k
			return false
		case !left && nr < len(right):
			right[nr] = k
			nr++
		}
		return true
	})
	for i := nr - 1; i >= 0 && found < 0; i-- {
		if has(right[i]) {
			found = right[i]
		}
	}
	if found < 0 {
		return -1
	}
	lev := tr.level(found)
	p := found - tr.base[lev]
	for ; lev < tr.height; lev++ {
		c := tr.base[lev+1] + arity*p
		j := 0
		for j < arity-1 && !has(c+j) {
			j++
		}
		p = arity*p + j
	}
	return p
}

// level returns the level of tree node k.
func (tr *tree) level(k int) int {
	l := 0
	for l < tr.height && k >= tr.base[l+1] {
		l++
	}
	return l
}

// scheduleByTree answers a whole-cluster pod by the tree: the node the
// scan and scoring would pick, with p.Next moved as the scan would move
// it. It reports false when the tree cannot answer (no feasible node,
// which needs every rejection for the FitError, or normalised scores that
// vary over the range).
func (m *Memo) scheduleByTree(p *Pod, t *table) (int, bool) {
	tr := m.treeOf(p, t)
	if tr.wide {
		t.wide = true // for good: scanned from now on
		return -1, false
	}
	n := tr.n
	total := tr.count(0, n)
	if total == 0 {
		return -1, false
	}
	want := m.want(p)
	start := *p.Next % n
	// the scan from start takes nodes in rotation until it has want
	// feasible ones (or has seen every node): find where it stops
	var ranges [2][2]int
	nr, processed, found := 1, n, min(want, total)
	before := tr.count(0, start)
	switch after := total - before; {
	case total < want:
		ranges[0] = [2]int{0, n}
	case after >= want:
		end := tr.kth(before+want) + 1
		ranges[0], processed = [2]int{start, end}, end-start
	default:
		end := tr.kth(want-after) + 1 // before start: the scan went round
		ranges[0], ranges[1], nr = [2]int{start, n}, [2]int{0, end}, 2
		processed = n - start + end
	}
	acc := rangeSummary{best: -1, bestV: math.MinInt64}
	for j := range tr.nNorm {
		acc.lo[j], acc.hi[j] = math.MaxInt64, math.MinInt64
	}
	for _, rg := range ranges[:nr] {
		tr.summarize(rg[0], rg[1], &acc)
	}
	if found > 1 {
		for j := range tr.nNorm {
			if acc.lo[j] != acc.hi[j] {
				return -1, false // the normalised scores differ node by node: scan
			}
		}
	}
	// the lowest index among the best: the part of the range at the
	// lowest indexes first (after the wrap, that is the second)
	for k := nr - 1; k >= 0 && acc.best < 0; k-- {
		acc.best = int32(tr.first(ranges[k][0], ranges[k][1], acc.bestV))
	}
	*p.Next = (start + processed) % n
	return int(acc.best), true
}
