package memo

import (
	"encoding/binary"
	"math"

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
// costs bytesPerNode per node); the one least recently used is forgotten
// first. A trace's pod shapes recur at every rate: a bound that holds
// every shape in use keeps each table's answers for the nodes that did
// not change, where a smaller one builds tables again and again.
const (
	maxSignatures = 512
	budgetBytes   = 512 << 20
	// bytesPerNode is a table entry (64 bytes) and, at most, its share of
	// a memo tree: two tree nodes of a count, a score and two normalisers'
	// bounds, 32 bits each (about four thirds of one on a large cluster,
	// the tree's levels being padded to fours), and its row of the
	// column: a score and two normalisers' raw scores, 32 bits each.
	bytesPerNode = 64 + 2*(4+4+2*2*4) + 4*(1+maxNormalizers)
	// maxNormalizers bounds the pointwise-normalised score plugins
	// remembered per node; more run live.
	maxNormalizers = 2
)

// capacity is how many tables fit the budget for n nodes (at least 1).
func capacity(n int) int {
	return max(1, min(maxSignatures, budgetBytes/max(1, n*bytesPerNode)))
}

// maxSightings bounds the signatures counted before any is remembered.
const maxSightings = 4096

// Plugins are a profile's per-pod plugins as the memo reads them, each
// extension point's in the order they run.
type Plugins struct {
	Filter    []fw.FilterPlugin
	FilterPre []int // the PreFilter index of each filter plugin, or -1
	PreScore  []fw.PreScorePlugin
	Score     []fw.ScorePlugin
	Weight    []int64 // each score plugin's weight
	ScorePre  []int   // the PreScore index of each score plugin, or -1
}

// Options switch the memo's parts off; the zero value has them all on.
type Options struct {
	// Off remembers nothing: Schedule never answers (signatures are
	// still made, for FilterSignature).
	Off bool
	// NoTree answers by the column, or by scanning the remembered
	// answers node by node, where the tree would find the scan's pick
	// without visiting them.
	NoTree bool
	// NoColumn answers by the tree, or by scanning the remembered
	// answers node by node, where the column would (column.go).
	NoColumn bool
}

// Memo holds one table per signature. A signature gets a table on its
// second sighting: a pod shape seen once (common in traces, where
// requests vary pod by pod) would pay for a table it never reuses.
type Memo struct {
	filters   []fw.FilterPlugin
	filterPre []int
	signers   []fw.Signer        // nil for a filter that is no Signer
	skippers  []fw.FilterSkipper // nil for a filter that is none
	// scoreSigners are the score plugins as Signers (nil for one that is
	// none), asserted once: an assertion a pod and plugin is a lookup
	scoreSigners []fw.Signer
	// preSkippers and preIgnoresNodes say, per PreScore plugin, whether it
	// is a PreScoreSkipper (nil: not) and a PreScoreIgnoresNodes, asserted
	// once (see treeUsable)
	preSkippers     []fw.PreScoreSkipper
	preIgnoresNodes []bool
	preScore        []fw.PreScorePlugin
	scorers         []fw.ScorePlugin
	weights         []int64
	scorePre        []int
	memoable        []bool // the score plugin can be remembered (see lookup)
	pointwise       []fw.PointwiseNormalizer
	opts            Options

	snap      *cluster.Snapshot
	tables    map[string]*table
	recent    tableList // the tables, the most recently used first
	sightings map[string]int
	spare     *table // a forgotten table, reused for the next one
	spareTree *tree  // the tree of a forgotten table, its arrays reused for the next one
	buf       []byte // the signature being built
	plan      plan

	feasible   []int
	rejections []fw.NodeStatus
	// nomNodes are the nodes pods are nominated to during a scan, marked
	// in nomMark (by snapshot index).
	nomNodes []int
	nomMark  []bool
}

// New returns a Memo for plugins. A score plugin is remembered when it is
// a Signer whose normalisation, if any, is pointwise and whose PreScore,
// if any, does not read the node list.
func New(plugins Plugins, opts Options) *Memo {
	m := &Memo{filters: plugins.Filter, filterPre: plugins.FilterPre, preScore: plugins.PreScore,
		scorers: plugins.Score, weights: plugins.Weight, scorePre: plugins.ScorePre, opts: opts}
	for _, f := range plugins.Filter {
		sg, _ := f.(fw.Signer)
		sk, _ := f.(fw.FilterSkipper)
		m.signers, m.skippers = append(m.signers, sg), append(m.skippers, sk)
	}
	for _, p := range plugins.PreScore {
		sk, _ := p.(fw.PreScoreSkipper)
		_, ignores := p.(fw.PreScoreIgnoresNodes)
		m.preSkippers, m.preIgnoresNodes = append(m.preSkippers, sk), append(m.preIgnoresNodes, ignores)
	}
	for i, p := range plugins.Score {
		nz, _ := p.(fw.ScoreNormalizer)
		pw, _ := p.(fw.PointwiseNormalizer)
		m.pointwise = append(m.pointwise, pw)
		sg, signer := p.(fw.Signer)
		m.scoreSigners = append(m.scoreSigners, sg)
		pre := plugins.ScorePre[i]
		preOK := pre < 0
		if !preOK {
			_, preOK = plugins.PreScore[pre].(fw.PreScoreIgnoresNodes)
		}
		m.memoable = append(m.memoable, signer && (nz == nil || pw != nil) && preOK)
	}
	return m
}

// table is one signature's answers, node by node; a node's answers sit in
// one cache line, since the scan reads them together.
type table struct {
	key   string // the signature
	nodes []entry
	// newer and older link the tables by their last use (Memo.recent)
	newer, older *table
	tree         *tree // built on first use by a pod the tree can answer
	wide         bool  // a score did not fit the tree (treeNode): no tree
	// scanned counts the nodes scans visited for the signature since the
	// index it keeps was last used, and the answers the other index gave
	// meanwhile (see scheduleByIndex).
	scanned int
	// failed is the signature's last failure on every node (see
	// reuseFailure), nil when its last scan found a node.
	failed *failure
	// col is the signature's column, built on first use (column.go)
	col column
}

type entry struct {
	stamp  uint64     // the filter verdict is valid at this stamp; 0: none
	scored uint64     // the scores are valid at this stamp; 0: none
	status *fw.Status // the first rejection of the remembered filters; nil: they pass
	failAt int32      // the index of that filter (math.MaxInt32 when they pass)
	fixed  int64      // the weighted sum of the remembered scores needing no normalisation
	norm   [maxNormalizers]int64
	// pad makes an entry a cache line: 56 bytes would lay most entries
	// across two, and on a large cluster each line is a miss (a table of
	// 100,000 nodes is a large allocation, aligned to a page)
	_ [64 - 56]byte
}

// plan is which plugins the memo answers for the pod being scheduled.
type plan struct {
	memoFilters []int  // active filters remembered, in order
	liveFilters []int  // active filters run every time, in order
	memoScores  []bool // score plugin i is answered by the memo (or skipped) for this pod
	fixed       []int  // remembered score plugins summed into entry.fixed
	norm        [maxNormalizers]int
	nNorm       int
	// the plugins of memoFilters, fixed and norm, with fixed's weights:
	// a refresh, twenty a pod on a busy cluster, calls them without
	// indexing the memo's lists
	filterCalls []fw.FilterPlugin
	fixedCalls  []weighted
	normCalls   [maxNormalizers]fw.ScorePlugin
	// per normaliser, the lowest and highest raw score among the feasible
	// nodes seen so far
	lowest, highest [maxNormalizers]int64
}

// weighted is a score plugin and its weight.
type weighted struct {
	fw.ScorePlugin
	weight int64
}

// lookup plans the pod's filtering and scoring and returns the table for
// its signature, or nil when the memo may not be used: nothing to
// remember, or the signature's first sighting. The PreScore of remembered
// score plugins runs here, without the node list (they declare they do
// not read it).
func (m *Memo) lookup(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo) *table {
	plan := &m.plan
	plan.memoFilters, plan.liveFilters, plan.fixed = plan.memoFilters[:0], plan.liveFilters[:0], plan.fixed[:0]
	plan.filterCalls, plan.fixedCalls = plan.filterCalls[:0], plan.fixedCalls[:0]
	plan.memoScores = resizeBools(plan.memoScores, len(m.scorers))
	plan.nNorm = 0
	sig := m.signFilters(state, pod, m.buf[:0], func(i int, signed bool) {
		if signed {
			plan.memoFilters = append(plan.memoFilters, i)
			plan.filterCalls = append(plan.filterCalls, m.filters[i])
		} else {
			plan.liveFilters = append(plan.liveFilters, i)
		}
	})
	sig = append(sig, 'S')
	n := len(m.scorers)
	for i := range m.scorers {
		if !m.memoable[i] || m.pointwise[i] != nil && plan.nNorm == maxNormalizers {
			continue
		}
		var ok bool
		if sig, ok = appendSigned(sig, i, m.scoreSigners[i], pod); !ok {
			continue
		}
		plan.memoScores[i] = true
		if pre := m.scorePre[i]; pre >= 0 {
			skip := !m.preScore[pre].PreScore(state, pod, nil).IsSuccess()
			state.SetScoreSkipped(i, n, skip)
			if skip {
				sig = append(sig, 'x')
				continue
			}
		}
		if m.pointwise[i] != nil {
			plan.norm[plan.nNorm], plan.normCalls[plan.nNorm] = i, m.scorers[i]
			plan.nNorm++
		} else {
			plan.fixed = append(plan.fixed, i)
			plan.fixedCalls = append(plan.fixedCalls, weighted{m.scorers[i], m.weights[i]})
		}
	}
	m.buf = sig
	if len(plan.memoFilters) == 0 && len(plan.fixed) == 0 && plan.nNorm == 0 {
		return nil
	}
	return m.table(snap, sig)
}

// filterActive reports whether filter i runs for pod, of state: not when
// its PreFilter skipped, nor when it says from the pod alone that every
// node passes (on a refresh, every filter run is a call per node).
func (m *Memo) filterActive(state *fw.CycleState, pod *cluster.PodInfo, i int) bool {
	if pre := m.filterPre[i]; pre >= 0 && state.Skipped(pre) {
		return false
	}
	sk := m.skippers[i]
	return sk == nil || !sk.FilterSkips(pod)
}

// signFilters appends the signature of the pod's active filters under
// state to sig and tells each active filter, in order, whether it signed.
func (m *Memo) signFilters(state *fw.CycleState, pod *cluster.PodInfo, sig []byte, each func(i int, signed bool)) []byte {
	sig = append(sig, 'F')
	for i, sg := range m.signers {
		if !m.filterActive(state, pod, i) {
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
func (m *Memo) FilterSignature(state *fw.CycleState, pod *cluster.PodInfo, buf []byte) ([]byte, bool) {
	all := true
	buf = m.signFilters(state, pod, buf, func(_ int, signed bool) { all = all && signed })
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

// filter runs the remembered filters on one node and returns the first
// rejection and the index of its filter.
func (m *Memo) filter(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (*fw.Status, int32) {
	for k, f := range m.plan.filterCalls {
		if st := f.Filter(state, pod, node); st != nil {
			return named(st, f), int32(m.plan.memoFilters[k])
		}
	}
	return nil, math.MaxInt32
}

// named returns st naming plugin p when it names none.
func named(st *fw.Status, p fw.Plugin) *fw.Status {
	if st == nil || st.Plugin() != "" {
		return st
	}
	return st.WithPlugin(p.Name())
}

// score brings a node's remembered scores up to date: the weighted sum of
// those needing no normalisation, and the raw scores of the pointwise
// normalisers.
func (m *Memo) score(e *entry, state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) {
	var fixed int64
	for _, s := range m.plan.fixedCalls {
		v, st := s.Score(state, pod, node)
		if st.IsSuccess() {
			fixed += v * s.weight
		}
	}
	e.fixed = fixed
	for j, s := range m.plan.normCalls[:m.plan.nNorm] {
		v, st := s.Score(state, pod, node)
		if !st.IsSuccess() {
			v = 0
		}
		e.norm[j] = v
	}
}

// table returns the table for sig on snap, or nil on the signature's
// first sighting. Everything is forgotten when the snapshot or its node
// list changes.
func (m *Memo) table(snap *cluster.Snapshot, sig []byte) *table {
	if m.snap != snap || m.tables == nil {
		m.snap, m.tables, m.recent, m.sightings, m.spare = snap, map[string]*table{}, tableList{}, map[string]int{}, nil
	}
	if t, ok := m.tables[string(sig)]; ok { // no allocation for the lookup
		if len(t.nodes) == snap.Len() {
			m.recent.moveToFront(t)
			return t
		}
		m.forget(t)
	}
	if len(m.sightings) >= maxSightings {
		clear(m.sightings)
	}
	if n := m.sightings[string(sig)]; n == 0 {
		m.sightings[string(sig)] = 1
		return nil
	}
	if len(m.tables) >= capacity(snap.Len()) {
		m.forget(m.recent.oldest)
	}
	t := m.newTable(snap.Len())
	t.key = string(sig)
	m.tables[t.key] = t
	m.recent.pushFront(t)
	return t
}

func (m *Memo) forget(t *table) {
	m.spare = t
	delete(m.tables, t.key)
	m.recent.remove(t)
}

// newTable returns an empty table for n nodes, reusing a forgotten one.
func (m *Memo) newTable(n int) *table {
	if t := m.spare; t != nil && len(t.nodes) == n {
		m.spare = nil
		clear(t.nodes)
		m.spareTree = t.tree
		t.tree, t.scanned, t.failed, t.wide, t.col.snap = nil, 0, nil, false, nil
		return t
	}
	return &table{nodes: make([]entry, n)}
}

// tableList is a doubly linked list of tables, the most recently used
// first.
type tableList struct{ newest, oldest *table }

func (l *tableList) pushFront(t *table) {
	t.newer, t.older = nil, l.newest
	if l.newest != nil {
		l.newest.newer = t
	} else {
		l.oldest = t
	}
	l.newest = t
}

func (l *tableList) remove(t *table) {
	if t.newer != nil {
		t.newer.older = t.older
	} else {
		l.newest = t.older
	}
	if t.older != nil {
		t.older.newer = t.newer
	} else {
		l.oldest = t.newer
	}
	t.newer, t.older = nil, nil
}

func (l *tableList) moveToFront(t *table) {
	if l.newest != t {
		l.remove(t)
		l.pushFront(t)
	}
}
