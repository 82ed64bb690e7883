package placement

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement/internal/memo"
)

// WeightedScorer is a score plugin with its weight in the node total.
type WeightedScorer struct {
	Plugin fw.ScorePlugin
	Weight int64
}

// PodPlugins are one profile's per-pod plugins, each extension point's in
// the order they run.
type PodPlugins struct {
	PreFilter []fw.PreFilterPlugin
	Filter    []fw.FilterPlugin
	PreScore  []fw.PreScorePlugin
	Score     []WeightedScorer
	Reserve   []fw.ReservePlugin
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

// Nominations are the pods preemption nominated to nodes: they count on
// their node while pods of lower or equal priority are filtered.
type Nominations interface {
	// Empty reports whether no pod is nominated anywhere (the fast path).
	Empty() bool
	// NominatedTo returns the pods nominated to the node at index node. A
	// list once returned never changes: a change of the node's nominations
	// makes a new one (the memo tells lists apart by address and length).
	NominatedTo(node int) []*cluster.PodInfo
	// Nodes appends to buf the indexes of the nodes some pod is nominated
	// to, in any order, and returns it.
	Nodes(buf []int) []int
}

// PodScheduler runs one profile's PreFilter, Filter, PreScore and Score
// plugins for one pod at a time on a snapshot: kube-scheduler's
// schedulePod, made sequential and deterministic.
//
// Filtering visits the candidate nodes starting where the previous pod's
// search stopped (so that all nodes get examined over time) and stops once
// NumFeasibleNodesToFind feasible nodes are found. Scoring sums each
// plugin's normalised score times its weight; the highest total wins, and
// among equal totals the node first in name order (lowest snapshot index).
// A lone feasible node is taken without scoring.
//
// Plugins that declare themselves Signers are remembered per pod signature
// and node while the node is unchanged (placement/internal/memo); the
// others run every time, so a plugin without capabilities is correct,
// only slower.
//
// A PodScheduler keeps scratch buffers between calls: it is not safe for
// concurrent use.
type PodScheduler struct {
	// Nominations, when set, makes filtering honour pods nominated to a
	// node by preemption (kube-scheduler's RunFilterPluginsWithNominatedPods).
	Nominations Nominations
	// Explain, when set, says which pods to explain; Explained receives
	// each explained pod's scores when it is scored.
	Explain    func(*cluster.PodInfo) bool
	Explained  func(ScoreExplanation)
	plugins    PodPlugins
	percentage int32
	shortcuts  Shortcuts
	nextStart  int

	filterPre  []int // the PreFilter index of each filter plugin, or -1
	scorePre   []int // the PreScore index of each score plugin, or -1
	extensions []fw.PreFilterExtensions
	normalizer []fw.ScoreNormalizer
	nodeLocal  []bool // the filter reads only its node
	// unreported is set while a group is placed where a failure is
	// never reported (a gang's placement after the first): a pod that
	// fits no node there gets a FitError without node statuses, which
	// would only be copied and dropped.
	unreported bool
	// locals are the profile's plugins as the KnownGroupFailures
	// shortcut judges them (localFor); scans counts filter scans, whose
	// effect on nextStart a search that skips one replays.
	locals []localPlugin
	scans  int
	sig    []byte

	state      *fw.CycleState
	feasible   []int
	infos      []*cluster.NodeInfo
	rejections []fw.NodeStatus
	lists      statusLists // the FitErrors' rejection lists, shared while equal
	scores     []fw.NodeScore
	totals     []int64
	// memo answers pods from what it remembers (the FilterMemo and
	// MemoTree shortcuts, memo.go)
	memo *memo.Memo
}

// NewPodScheduler returns a PodScheduler running plugins; percentage is
// percentageOfNodesToScore (0 adaptive, 100 all).
func NewPodScheduler(plugins PodPlugins, percentage int32, shortcuts Shortcuts) *PodScheduler {
	ps := &PodScheduler{plugins: plugins, percentage: percentage, shortcuts: shortcuts, state: fw.NewCycleState()}
	for _, pf := range plugins.PreFilter {
		ext, _ := pf.(fw.PreFilterExtensions)
		ps.extensions = append(ps.extensions, ext)
	}
	for _, f := range plugins.Filter {
		ps.filterPre = append(ps.filterPre, indexOf(plugins.PreFilter, f.Name()))
		_, sg := f.(fw.Signer)
		_, local := f.(fw.NodeLocal)
		ps.nodeLocal = append(ps.nodeLocal, local || sg)
	}
	ps.locals = localPlugins(plugins)
	for _, ws := range plugins.Score {
		ps.scorePre = append(ps.scorePre, indexOf(plugins.PreScore, ws.Plugin.Name()))
		nz, _ := ws.Plugin.(fw.ScoreNormalizer)
		ps.normalizer = append(ps.normalizer, nz)
	}
	ps.memo = ps.newMemo()
	return ps
}

func indexOf[P fw.Plugin](ps []P, name string) int {
	return slices.IndexFunc(ps, func(p P) bool { return p.Name() == name })
}

// ScanPosition is where the next filter scan starts; SetScanPosition puts
// it back, so that a dry run leaves later decisions as they would have
// been.
func (ps *PodScheduler) ScanPosition() int { return ps.nextStart }

// SetScanPosition sets where the next filter scan starts.
func (ps *PodScheduler) SetScanPosition(pos int) { ps.nextStart = pos }

// Plugins returns the plugins the scheduler runs.
func (ps *PodScheduler) Plugins() PodPlugins { return ps.plugins }

// PreFilter runs the PreFilter plugins for pod on snap into state (reset
// first). A non-nil status other than Skip means no node can fit.
func (ps *PodScheduler) PreFilter(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo) *fw.Status {
	state.Reset()
	n := len(ps.plugins.PreFilter)
	for i, p := range ps.plugins.PreFilter {
		st := p.PreFilter(state, pod, snap)
		switch {
		case st.IsSuccess():
		case st.IsSkip():
			state.SetSkipped(i, n, true)
		default:
			return named(st, p)
		}
	}
	return nil
}

// named returns st naming plugin p when it names none.
func named(st *fw.Status, p fw.Plugin) *fw.Status {
	if st == nil || st.Plugin() != "" {
		return st
	}
	return st.WithPlugin(p.Name())
}

// filterActive reports whether filter i runs for the pod state belongs to.
func (ps *PodScheduler) filterActive(state *fw.CycleState, i int) bool {
	pre := ps.filterPre[i]
	return pre < 0 || !state.Skipped(pre)
}

// runFilters runs the active filters on one node in order and returns the
// first rejection.
func (ps *PodScheduler) runFilters(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	for i, f := range ps.plugins.Filter {
		if !ps.filterActive(state, i) {
			continue
		}
		if st := f.Filter(state, pod, node); st != nil {
			return named(st, f)
		}
	}
	return nil
}

// NodeLocalFor reports whether every filter that runs for the pod of state
// reads only its own node.
func (ps *PodScheduler) NodeLocalFor(state *fw.CycleState) bool {
	for i := range ps.plugins.Filter {
		if ps.filterActive(state, i) && !ps.nodeLocal[i] {
			return false
		}
	}
	return true
}

// FilterNode filters pod on the node at index node as a scheduling cycle
// does, with state from PreFilter: when pods of higher or equal priority
// are nominated to the node, the pod must fit both with them added and
// without them.
func (ps *PodScheduler) FilterNode(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *fw.Status {
	if ps.Nominations != nil && !ps.Nominations.Empty() {
		if st := ps.filterWithNominated(state, snap, pod, node); st != nil {
			return st
		}
	}
	return ps.runFilters(state, pod, snap.Node(node))
}

func (ps *PodScheduler) filterWithNominated(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *fw.Status {
	var added *fw.CycleState
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	ni := snap.Node(node)
	for _, n := range ps.Nominations.NominatedTo(node) {
		if _, there := ni.Pod(n.Key()); there {
			continue // already reserved on the node in this cycle
		}
		if n.Key() == pod.Key() || n.Priority() < pod.Priority() {
			continue
		}
		if added == nil {
			added = state.Clone()
		}
		snap.Reserve(n, node)
		ps.extendAdd(added, pod, n, snap.Node(node))
	}
	if added == nil {
		return nil
	}
	return ps.runFilters(added, pod, snap.Node(node))
}

// extendAdd and extendRemove run the active PreFilter extensions.
func (ps *PodScheduler) extendAdd(state *fw.CycleState, pod, other *cluster.PodInfo, node *cluster.NodeInfo) {
	for i, ext := range ps.extensions {
		if ext != nil && !state.Skipped(i) {
			ext.AddPod(state, pod, other, node)
		}
	}
}

func (ps *PodScheduler) extendRemove(state *fw.CycleState, pod, other *cluster.PodInfo, node *cluster.NodeInfo) {
	for i, ext := range ps.extensions {
		if ext != nil && !state.Skipped(i) {
			ext.RemovePod(state, pod, other, node)
		}
	}
}

// AddPod reserves other on the node at index node and keeps state's
// PreFilter extensions in step.
func (ps *PodScheduler) AddPod(state *fw.CycleState, snap *cluster.Snapshot, pod, other *cluster.PodInfo, node int) {
	snap.Reserve(other, node)
	ps.extendAdd(state, pod, other, snap.Node(node))
}

// RemovePod takes other off the node at index node and keeps state's
// PreFilter extensions in step.
func (ps *PodScheduler) RemovePod(state *fw.CycleState, snap *cluster.Snapshot, pod, other *cluster.PodInfo, node int) error {
	if err := snap.Remove(other.Key(), node); err != nil {
		return err
	}
	ps.extendRemove(state, pod, other, snap.Node(node))
	return nil
}

// Rollback undoes the snapshot's changes since cp, newest first, each
// undone in state too, so state ends as it was at cp.
func (ps *PodScheduler) Rollback(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo, cp cluster.Checkpoint) {
	// one change at a time: the extension sees the node as it is after
	// the undo, as it saw it after the change
	for snap.Tentative() > int(cp) {
		ch, _ := snap.Last()
		snap.Rollback(cluster.Checkpoint(snap.Tentative() - 1))
		if ch.Pod == nil {
			continue // a claim's reservation: no PreFilter state counts it
		}
		if ch.Added {
			ps.extendRemove(state, pod, ch.Pod, snap.Node(ch.Node))
		} else {
			ps.extendAdd(state, pod, ch.Pod, snap.Node(ch.Node))
		}
	}
}

// Reserves reports whether the profile has Reserve plugins: without them,
// Assume is the snapshot's Reserve alone.
func (ps *PodScheduler) Reserves() bool { return len(ps.plugins.Reserve) > 0 }

// Assume reserves pod on the node at index node in snap and runs the
// Reserve plugins (kube-scheduler's assume and RunReservePluginsReserve):
// every place the runner commits a decision to the snapshot goes through
// it. It must be called right after the Schedule that chose the node for
// this pod, before the next pod's: Reserve reads the pod's CycleState,
// which the next Schedule resets. A non-success status from a Reserve
// plugin runs every Reserve plugin's Unreserve in reverse order and rolls
// the snapshot back to where it was before the pod was reserved (the
// plugins' own snapshot changes included); the status names the plugin.
func (ps *PodScheduler) Assume(snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *fw.Status {
	if len(ps.plugins.Reserve) == 0 {
		snap.Reserve(pod, node)
		return nil
	}
	cp := snap.Checkpoint()
	snap.Reserve(pod, node)
	for _, p := range ps.plugins.Reserve {
		if st := p.Reserve(ps.state, pod, node); !st.IsSuccess() {
			for j := len(ps.plugins.Reserve) - 1; j >= 0; j-- {
				ps.plugins.Reserve[j].Unreserve(ps.state, pod, node)
			}
			snap.Rollback(cp)
			return named(st, p)
		}
	}
	return nil
}

// Schedule picks a node for pod among candidates (snapshot indexes; nil
// means every node) and returns its index, or a FitError when none fits.
// A nominated node (a snapshot index, or -1) is tried first and taken
// without scoring if it fits and is a candidate. Schedule does not reserve
// the pod: Assume does.
func (ps *PodScheduler) Schedule(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, nominated int) (int, *fw.FitError) {
	n := len(candidates)
	if candidates == nil {
		n = snap.Len()
	}
	if n == 0 {
		return -1, &fw.FitError{Pod: pod.Key()}
	}
	state := ps.state
	if st := ps.PreFilter(state, snap, pod); st != nil {
		return -1, ps.rejectAll(snap, pod, candidates, n, st)
	}
	if nominated >= 0 && (candidates == nil || slices.Contains(candidates, nominated)) {
		if ps.FilterNode(state, snap, pod, nominated) == nil {
			return nominated, nil
		}
	}
	explain := ps.Explain != nil && ps.Explain(pod)
	if !explain {
		// the memo answers as the scan and scoring below would, from what
		// it remembers, when it can (an explained pod is scored plugin by
		// plugin)
		if idx, fit, ok := ps.scheduleByMemo(snap, pod, candidates, n); ok {
			return idx, fit
		}
	}
	ps.findNodesThatPassFilters(snap, pod, candidates, n)
	switch len(ps.feasible) {
	case 0:
		return -1, ps.fitError(pod, candidates, n, ps.rejections)
	case 1:
		if explain {
			ps.explainLone(pod, ps.feasible[0])
		}
		return ps.feasible[0], nil
	}
	return ps.prioritizeNodes(snap, pod, explain), nil
}

// rejectAll is the FitError of a PreFilter rejection: every candidate
// node fails with it.
func (ps *PodScheduler) rejectAll(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, n int, st *fw.Status) *fw.FitError {
	fe := &fw.FitError{Pod: pod.Key(), NumAllNodes: n, Statuses: make([]fw.NodeStatus, 0, n)}
	for i := range n {
		idx := i
		if candidates != nil {
			idx = candidates[i]
		}
		fe.Statuses = append(fe.Statuses, fw.NodeStatus{Node: idx, Status: st})
	}
	sortStatuses(fe.Statuses)
	_ = snap
	return fe
}

// findNodesThatPassFilters filters the candidates in rotation, from
// where the last scan stopped, until NumFeasibleNodesToFind feasible
// nodes are found (one when no score plugin runs, as the first is then
// taken), filling ps.feasible and ps.rejections.
func (ps *PodScheduler) findNodesThatPassFilters(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, n int) {
	want := NumFeasibleNodesToFind(ps.percentage, n)
	if len(ps.plugins.Score) == 0 {
		want = 1
	}
	ps.feasible, ps.rejections = ps.feasible[:0], ps.rejections[:0]
	start := ps.nextStart % n
	ps.scans++
	state := ps.state
	processed := 0
	for i := 0; i < n && len(ps.feasible) < want; i++ {
		idx := (start + i) % n
		if candidates != nil {
			idx = candidates[idx]
		}
		processed++
		if st := ps.FilterNode(state, snap, pod, idx); st != nil {
			ps.rejections = append(ps.rejections, fw.NodeStatus{Node: idx, Status: st})
			continue
		}
		ps.feasible = append(ps.feasible, idx)
	}
	ps.nextStart = (start + processed) % n
}

// fitError is the FitError of pod fitting none of the n candidates, its
// rejections in node order; none where a failure is never reported (see
// unreported).
func (ps *PodScheduler) fitError(pod *cluster.PodInfo, candidates []int, n int, rejections []fw.NodeStatus) *fw.FitError {
	if ps.unreported && candidates != nil {
		return &fw.FitError{Pod: pod.Key(), NumAllNodes: n}
	}
	return &fw.FitError{Pod: pod.Key(), NumAllNodes: n, Statuses: ps.lists.sorted(rejections)}
}

// sortedStatuses returns a copy of r in node order. A scan starts mid-list
// and wraps around, so r is usually two ascending runs: rotating them is
// linear, where sorting is not.
func sortedStatuses(r []fw.NodeStatus) []fw.NodeStatus {
	out := make([]fw.NodeStatus, 0, len(r))
	wrap, ok := rotation(r)
	if !ok {
		out = append(out, r...)
		sortStatuses(out)
		return out
	}
	out = append(out, r[wrap:]...)
	return append(out, r[:wrap]...)
}

func sortStatuses(r []fw.NodeStatus) {
	// node order keeps reports stable
	slices.SortFunc(r, func(a, b fw.NodeStatus) int { return a.Node - b.Node })
}
