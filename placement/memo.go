package placement

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The memo remembers, per pod signature and node, the verdict of the
// Signer filters and the raw scores of the Signer score plugins, while the
// node's snapshot stamp holds: pods of one signature get the same answers
// on an unchanged node, as kube-scheduler's opportunistic batching
// assumes. Plugins that are no Signers, or cannot sign a pod, run live on
// top of the remembered answers, in their place in the filter order.
//
// The signatures remembered are bounded by count and by memory (a table
// costs memoBytesPerNode per node); the oldest is forgotten first.
const (
	maxMemoSignatures = 64
	memoBudgetBytes   = 512 << 20
	// memoBytesPerNode is a table entry (56 bytes) and its share of a memo
	// tree (two tree nodes of a count, an index, a score and two
	// normalisers' bounds).
	memoBytesPerNode = 56 + 2*(4+4+8+2*2*8)
	// maxNormalizers bounds the pointwise-normalised score plugins
	// remembered per node; more run live.
	maxNormalizers = 2
)

// memoCapacity is how many tables fit the budget for n nodes (at least 1).
func memoCapacity(n int) int {
	return max(1, min(maxMemoSignatures, memoBudgetBytes/max(1, n*memoBytesPerNode)))
}

// maxSightings bounds the signatures counted before any is remembered.
const maxSightings = 4096

// memo holds one table per signature. A signature gets a table on its
// second sighting: a pod shape seen once (common in traces, where
// requests vary pod by pod) would pay for a table it never reuses.
type memo struct {
	snap      *cluster.Snapshot
	tables    map[string]*memoTable
	order     []string // insertion order, for forgetting the oldest
	sightings map[string]int
	spare     *memoTable // a forgotten table, reused for the next one
	buf       []byte     // the signature being built
}

// memoTable is one signature's answers, node by node; a node's answers
// sit in one cache line, since the scan reads them together.
type memoTable struct {
	nodes []memoEntry
	tree  *memoTree // built on first use by a pod the tree can answer
	// scanned counts the nodes scans visited for the signature since the
	// tree was last used (see treePays).
	scanned int
	// failed is the signature's last failure on every node (see
	// reuseFailure), nil when its last scan found a node.
	failed *failure
}

// failure is a scan that found no node for a signature: its FitError,
// shared by the pods that fail alike, valid at pos of the snapshot's feed.
type failure struct {
	fit       *fw.FitError
	pos       cluster.FeedPos
	nominated []int // the nodes pods were nominated to
	// verdicts are the filters' verdicts on nodes with the nominated pods
	// that count added, by node.
	verdicts map[int]nominatedVerdict
}

// nominatedVerdict is the verdict of the filters on a node under stamp
// with the nominated pods that count for pods of priority prio added (nil:
// they pass); noms and n identify the node's list of nominated pods then
// (the nominator makes a new list at every change).
type nominatedVerdict struct {
	stamp  uint64
	noms   **cluster.PodInfo
	n      int
	prio   int32
	status *fw.Status
}

// nominatedVerdict returns filterWithNominated's answer for node i,
// remembered in f while the node and the pods nominated there stay: pods
// of one signature and priority, not nominated there themselves, get the
// same answer.
func (ps *PodScheduler) nominatedVerdict(snap *cluster.Snapshot, pod *cluster.PodInfo, f *failure, i int) *fw.Status {
	noms := ps.Nominations.NominatedTo(i)
	if len(noms) == 0 {
		return nil
	}
	prio, self := pod.Priority(), false
	for _, n := range noms {
		self = self || n.Priority() >= prio && n.Key() == pod.Key()
	}
	if self {
		return ps.filterWithNominated(ps.state, snap, pod, i)
	}
	stamp := snap.Stamp(i)
	if v, ok := f.verdicts[i]; ok && v.stamp == stamp && v.noms == &noms[0] && v.n == len(noms) && v.prio == prio {
		return v.status
	}
	st := ps.filterWithNominated(ps.state, snap, pod, i)
	if f.verdicts == nil {
		f.verdicts = map[int]nominatedVerdict{}
	}
	f.verdicts[i] = nominatedVerdict{stamp: stamp, noms: &noms[0], n: len(noms), prio: prio, status: st}
	return st
}

type memoEntry struct {
	stamp  uint64     // the filter verdict is valid at this stamp; 0: none
	scored uint64     // the scores are valid at this stamp; 0: none
	status *fw.Status // the first rejection of the remembered filters; nil: they pass
	failAt int32      // the index of that filter (math.MaxInt32 when they pass)
	fixed  int64      // the weighted sum of the remembered scores needing no normalisation
	norm   [maxNormalizers]int64
}

// memoPlan is which plugins the memo answers for the pod being scheduled.
type memoPlan struct {
	memoFilters []int  // active filters remembered, in order
	liveFilters []int  // active filters run every time, in order
	memoScores  []bool // score plugin i is answered by the memo (or skipped) for this pod
	fixed       []int  // remembered score plugins summed into memoEntry.fixed
	norm        [maxNormalizers]int
	nNorm       int
	// per normaliser, the lowest and highest raw score among the feasible
	// nodes seen so far
	lowest, highest [maxNormalizers]int64
}

// memoTable plans the pod's filtering and scoring and returns the table
// for its signature, or nil when the memo may not be used: an explained
// pod (it is scored plugin by plugin), nothing to remember, or the
// signature's first sighting. The PreScore of remembered score plugins
// runs here, without the node list (they declare they do not read it).
func (ps *PodScheduler) memoTable(snap *cluster.Snapshot, pod *cluster.PodInfo, explain bool) *memoTable {
	plan := &ps.plan
	plan.memoFilters, plan.liveFilters, plan.fixed = plan.memoFilters[:0], plan.liveFilters[:0], plan.fixed[:0]
	plan.memoScores = resizeBools(plan.memoScores, len(ps.plugins.Score))
	plan.nNorm = 0
	if explain || ps.shortcuts.NoMemo {
		return nil
	}
	m := &ps.memo
	sig := ps.signFilters(ps.state, pod, m.buf[:0], func(i int, signed bool) {
		if signed {
			plan.memoFilters = append(plan.memoFilters, i)
		} else {
			plan.liveFilters = append(plan.liveFilters, i)
		}
	})
	sig = append(sig, 'S')
	n := len(ps.plugins.Score)
	for i, ws := range ps.plugins.Score {
		if !ps.memoable[i] || ps.pointwise[i] != nil && plan.nNorm == maxNormalizers {
			continue
		}
		var ok bool
		if sig, ok = appendSigned(sig, i, ws.Plugin.(fw.Signer), pod); !ok {
			continue
		}
		plan.memoScores[i] = true
		if pre := ps.scorePre[i]; pre >= 0 {
			skip := !ps.plugins.PreScore[pre].PreScore(ps.state, pod, nil).IsSuccess()
			ps.state.SetScoreSkipped(i, n, skip)
			if skip {
				sig = append(sig, 'x')
				continue
			}
		}
		if ps.pointwise[i] != nil {
			plan.norm[plan.nNorm] = i
			plan.nNorm++
		} else {
			plan.fixed = append(plan.fixed, i)
		}
	}
	m.buf = sig
	if len(plan.memoFilters) == 0 && len(plan.fixed) == 0 && plan.nNorm == 0 {
		return ps.noMemo()
	}
	if t := m.table(snap, sig); t != nil {
		return t
	}
	return ps.noMemo()
}

// noMemo resets the plan for a pod scheduled without the memo.
func (ps *PodScheduler) noMemo() *memoTable {
	plan := &ps.plan
	plan.memoFilters, plan.liveFilters, plan.fixed, plan.nNorm = plan.memoFilters[:0], plan.liveFilters[:0], plan.fixed[:0], 0
	clear(plan.memoScores)
	return nil
}

// signFilters appends the signature of the pod's active filters under
// state to sig and tells each active filter, in order, whether it signed.
func (ps *PodScheduler) signFilters(state *fw.CycleState, pod *cluster.PodInfo, sig []byte, each func(i int, signed bool)) []byte {
	sig = append(sig, 'F')
	for i, sg := range ps.filterSign {
		if !ps.filterActive(state, i) {
			continue
		}
		ok := false
		if sg != nil {
			sig, ok = appendSigned(sig, i, sg, pod)
		}
		each(i, ok)
	}
	return sig
}

// FilterSignature appends to buf the signature of the pod's active filters
// under state, its PreFilter state, and reports whether every one of them
// signed: pods of equal signatures then get the same verdicts from the
// filters on nodes holding the same pods.
func (ps *PodScheduler) FilterSignature(state *fw.CycleState, pod *cluster.PodInfo, buf []byte) ([]byte, bool) {
	all := true
	buf = ps.signFilters(state, pod, buf, func(_ int, signed bool) { all = all && signed })
	return buf, all
}

// appendSigned appends plugin i's part of a pod's signature: '#', the
// index, the part's length and the part, so that the parts of two
// signatures are equal exactly when the signatures are, however a plugin
// spells its part. It leaves sig as it was when the plugin cannot sign.
func appendSigned(sig []byte, i int, sg fw.Signer, pod *cluster.PodInfo) ([]byte, bool) {
	mark := len(sig)
	sig = append(sig, '#', byte(i), byte(i>>8), 0, 0, 0, 0)
	start := len(sig)
	sig, ok := sg.Sign(pod, sig)
	if !ok {
		return sig[:mark], false
	}
	binary.LittleEndian.PutUint32(sig[start-4:start], uint32(len(sig)-start))
	return sig, true
}

func resizeBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// reuseFailure returns the FitError of the signature's last failure when
// it still holds: the failure was on every node, and each node changed
// since, or with pods nominated to it then or now, rejects the pod as it
// did then. A pending pod is retried after every change anywhere in a busy
// cluster; this makes a retry that fails again cost the nodes changed,
// not all nodes. The pod's filters must all be remembered ones.
func (ps *PodScheduler) reuseFailure(snap *cluster.Snapshot, pod *cluster.PodInfo, t *memoTable) *fw.FitError {
	f := t.failed
	if f == nil || len(ps.plan.liveFilters) > 0 {
		return nil
	}
	changed, ok := snap.NodesChangedSince(f.pos)
	if !ok {
		t.failed = nil
		return nil
	}
	nominated := ps.markNominated(snap)
	defer ps.unmarkNominated()
	same := func(i int) bool {
		e, stamp := &t.nodes[i], snap.Stamp(i)
		if e.stamp != stamp {
			e.status, e.failAt = ps.memoFilter(ps.state, pod, snap.Node(i))
			e.stamp = stamp
		}
		st := e.status
		if nominated && ps.nomMark[i] {
			if s := ps.nominatedVerdict(snap, pod, f, i); s != nil {
				st = s
			}
		}
		was := f.fit.Statuses[i].Status
		if st == nil || !st.Equal(was) {
			return false
		}
		if st == e.status {
			e.status = was // one pointer for equal statuses: the next check is cheap
		}
		return true
	}
	for _, i := range changed {
		if !same(int(i)) {
			t.failed = nil
			return nil
		}
	}
	// nominations count for pods of lower or equal priority, and may have
	// come or gone on unchanged nodes
	for _, nodes := range [][]int{f.nominated, ps.nomNodes} {
		for _, i := range nodes {
			if !same(i) {
				t.failed = nil
				return nil
			}
		}
	}
	f.pos = snap.FeedPos()
	f.nominated = append(f.nominated[:0], ps.nomNodes...)
	return f.fit.For(pod.Key())
}

// rememberFailure records a scan of every node, in node order, that found
// none for the signature.
func (ps *PodScheduler) rememberFailure(snap *cluster.Snapshot, t *memoTable, fit *fw.FitError) {
	if len(ps.plan.liveFilters) > 0 || len(fit.Statuses) != snap.Len() {
		return
	}
	t.failed = &failure{fit: fit, pos: snap.FeedPos(), nominated: append([]int(nil), ps.nomNodes...)}
}

// memoFilter runs the remembered filters on one node and returns the first
// rejection and the index of its filter.
func (ps *PodScheduler) memoFilter(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (*fw.Status, int32) {
	for _, i := range ps.plan.memoFilters {
		f := ps.plugins.Filter[i]
		if st := f.Filter(state, pod, node); st != nil {
			return named(st, f), int32(i)
		}
	}
	return nil, math.MaxInt32
}

// memoScore brings a node's remembered scores up to date: the weighted sum
// of those needing no normalisation, and the raw scores of the pointwise
// normalisers.
func (ps *PodScheduler) memoScore(e *memoEntry, state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) {
	var fixed int64
	for _, i := range ps.plan.fixed {
		ws := ps.plugins.Score[i]
		v, st := ws.Plugin.Score(state, pod, node)
		if st.IsSuccess() {
			fixed += v * ws.Weight
		}
	}
	e.fixed = fixed
	for j := range ps.plan.nNorm {
		v, st := ps.plugins.Score[ps.plan.norm[j]].Plugin.Score(state, pod, node)
		if !st.IsSuccess() {
			v = 0
		}
		e.norm[j] = v
	}
}

// table returns the table for sig on snap, or nil on the signature's
// first sighting. Everything is forgotten when the snapshot or its node
// list changes.
func (m *memo) table(snap *cluster.Snapshot, sig []byte) *memoTable {
	if m.snap != snap || m.tables == nil {
		m.snap, m.tables, m.order, m.sightings, m.spare = snap, map[string]*memoTable{}, nil, map[string]int{}, nil
	}
	if t, ok := m.tables[string(sig)]; ok { // no allocation for the lookup
		if len(t.nodes) == snap.Len() {
			return t
		}
		m.forget(string(sig))
	}
	if len(m.sightings) >= maxSightings {
		clear(m.sightings)
	}
	if n := m.sightings[string(sig)]; n == 0 {
		m.sightings[string(sig)] = 1
		return nil
	}
	key := string(sig)
	if len(m.order) >= memoCapacity(snap.Len()) {
		m.forget(m.order[0])
	}
	t := m.newTable(snap.Len())
	m.order = append(m.order, key)
	m.tables[key] = t
	return t
}

func (m *memo) forget(sig string) {
	m.spare = m.tables[sig]
	delete(m.tables, sig)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == sig })
}

// newTable returns an empty table for n nodes, reusing a forgotten one.
func (m *memo) newTable(n int) *memoTable {
	if t := m.spare; t != nil && len(t.nodes) == n {
		m.spare = nil
		clear(t.nodes)
		t.tree, t.scanned, t.failed = nil, 0, nil
		return t
	}
	return &memoTable{nodes: make([]memoEntry, n)}
}
