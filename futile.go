package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
)

// FutileRetries.
//
// A gang that found no room is retried after nearly every change of a busy
// cluster (kube-scheduler's queueing hints requeue it on any pod leaving a
// node), and most of those changes cannot help it: a pod ends on a node
// that still has too little room for any of the gang's pods. Such a retry
// is still a cycle, with its events, its attempt counted and its
// preemption tried, as kube-scheduler runs it; what the shortcut leaves
// out is the search, whose result it knows: the last one.
//
// The last search of a root PodGroup that found nothing holds while:
//   - the group's members, their pods, its scheduled members and its
//     pending pods' order are as they were (the group's version), none of
//     its pending pods is nominated, and the nodes' objects, the
//     nominations and the snapshot's other objects are as they were;
//   - every pending pod has one shape, every plugin reads only the pod and
//     the node it is given for them (PodLocal, then and now), and every
//     PlacementFeasible plugin is Stateless, as is the placement
//     generator;
//   - the scan starts where it started then; with several placements, no
//     evaluation moves it (each scan visits every node of its placement,
//     and the start is below the smallest placement's size);
//   - every node changed since (its pods, or the pods nominated to it) is,
//     in the first placement (the one whose failure the search reports;
//     the whole cluster when it is the only one), a node that held none of
//     the pods placed there before the evaluation stopped and that rejects
//     the pod that found no node with the status it gave then; in another
//     placement, a node that rejects the pods now, or one in a placement
//     the quorum bound passes over now.
//
// Why that is enough. With one shape and local plugins, a node's room for
// the gang's pods is its own: the sequential algorithm fills every node
// that takes one before a pod finds none, so a node that held no pod of
// the first placement's evaluation rejected them all, and one that
// rejects the failing pod with the same status rejects them all now
// alike: every scan of that evaluation sees the same feasible nodes,
// scored the same, and stops where it stopped, with the same failures.
// Any other placement either holds no more room than it held (its changed
// nodes hold none now), so it fails again, its evaluation, if the bound
// lets it through, leaving the scan start where it found it; or the bound
// passes over it, which then fails without a scan. When no pod failed
// (the quorum was out of reach, or waited for members that are not
// there), every placement fails on counts alone, and the reported one
// places its pods as before, the nodes it placed them on unchanged. The
// search then returns what it returned. TestFutileRetriesKeepDecisions holds the
// shortcut to the search on the scheduler's event streams.

// knownRoot is a root PodGroup's last fruitless search. It never changes:
// a newer search makes a new one (forks share the old).
type knownRoot struct {
	out          placement.TreeResult
	version      uint64 // the group's
	pending      []*podRecord
	snap         *cluster.Snapshot
	nodeVersion  int64
	objs         int64
	start, after int // the scan's start before and after the search
	// neutralBelow is, for a search of several placements, the size of
	// the smallest (each scanned whole): a start below it is one no
	// evaluation moves; 0 for a search of the whole cluster alone
	neutralBelow int
	owner        []int32 // the placement of each node (-1: none); nil for the whole cluster alone
	places       []fw.Placement
	bound        placement.Bound
	// fit is the pod that found no node, and its failure; none when every
	// pod tried was placed and the quorum was out of reach (or still
	// waited for members), which counts alone decide
	fit   placement.PodFailure
	tried []fw.Assignment
}

// knownSearch returns the last search of root if it holds now (see
// above), or nil; a search that does not hold is forgotten.
func (s *Scheduler) knownSearch(p *profile, root podgroup.Ref, pending []*podRecord) *knownRoot {
	if root.Composite || !s.uses(FutileRetries) || s.cfg.CheckInvariants || len(s.explainer.want) != 0 {
		return nil
	}
	gr := s.tracker.group(root.Key)
	k, at := gr.known, gr.knownAt
	gr.known = nil // the search runs, unless k answers it
	pos := p.pods.ScanPosition()
	if k == nil || k.version != gr.version || k.snap != s.snap || k.nodeVersion != s.snap.NodeVersion() ||
		k.objs != s.snap.ObjectsVersion() || k.start != pos ||
		k.owner != nil && pos >= k.neutralBelow || !slices.Equal(k.pending, pending) {
		return nil
	}
	if slices.ContainsFunc(pending, func(r *podRecord) bool { return r.nominated != "" }) {
		return nil // preemption nominated its pods: the search tries their nodes first
	}
	changed, noms, ok := s.changesSince(at)
	if !ok {
		return nil
	}
	if len(changed) == 0 && len(noms) == 0 {
		return k
	}
	pod := k.fit.Pod
	state := s.owners.state()
	if pod != nil {
		if st := p.pods.PreFilter(state, s.snap, pod); st != nil && !st.IsSkip() || !p.pods.PodLocal(pod, s.snap) {
			return nil // PodLocal no more: a pod with affinity terms came, unchanged nodes may answer otherwise
		}
	}
	seen := s.owners.marks(s.snap.Len())
	futile := func(n int) bool {
		if !seen.first(n) {
			return true
		}
		place := int32(0)
		if k.owner != nil {
			place = k.owner[n]
		}
		switch {
		case place < 0: // in no placement
			return true
		case pod == nil && place > 0: // no placement can hold the quorum, whatever its nodes
			return true
		case place > 0: // no room for its pods now, or none where the search would look
			return p.pods.FilterNode(state, s.snap, pod, n) != nil || k.bound.Prunes(s.snap, &k.places[place])
		case pod == nil: // the pods placed still fit where they went
			return !slices.ContainsFunc(k.tried, func(a fw.Assignment) bool { return a.Node == n })
		}
		return !slices.ContainsFunc(k.tried, func(a fw.Assignment) bool { return a.Node == n }) &&
			rejectsAsThen(p, s.snap, state, pod, k.fit.Err, n)
	}
	for _, n := range changed {
		if !futile(int(n)) {
			return nil
		}
	}
	for _, name := range noms { // a node whose nominations changed: they count in its filters
		if n, ok := s.snap.Index(name); !ok || !futile(n) {
			return nil
		}
	}
	s.shortcutStats.FutileRetries++
	return k
}

// feedsAt is where the snapshot's feed and the nominations' feed were
// read up to.
type feedsAt struct {
	pos    cluster.FeedPos
	nomPos uint64
}

// changesSince returns the nodes changed since the feeds were read up to
// at: by index, those whose pods changed, and by name, those whose
// nominations did (with repeats); false when that is no longer known.
func (s *Scheduler) changesSince(at feedsAt) ([]int32, []string, bool) {
	changed, ok := s.snap.NodesChangedSince(at.pos)
	if !ok {
		return nil, nil, false
	}
	noms, ok := s.nominations.nodesChangedSince(at.nomPos)
	return changed, noms, ok
}

// answered keeps k for root's next cycle, the feeds read up to here.
func (s *Scheduler) answered(root podgroup.Ref, k *knownRoot) {
	gr := s.tracker.group(root.Key)
	gr.known, gr.knownAt = k, feedsAt{s.snap.FeedPos(), s.nominations.feedPos()}
}

// rememberSearch keeps a root's fruitless search for its next cycle, when
// the shortcut may answer it then.
func (s *Scheduler) rememberSearch(p *profile, root podgroup.Ref, pending []*podRecord, tree *placement.TreeNode, out placement.TreeResult, start int) {
	if root.Composite || !s.uses(FutileRetries) || out.Err != nil || out.Feasible || len(out.Leaves) != 1 || tree.Leaf == nil {
		return
	}
	gr := s.tracker.group(root.Key)
	leaf := &out.Leaves[0].GroupResult
	if len(leaf.Failures) > 0 && leaf.Failures[0].Err == nil || tree.Leaf.Nominated != nil || !p.groups.FeasibleStateless() {
		return
	}
	if !s.tracker.oneShape(gr) || !p.pods.PodLocal(pending[0].info, s.snap) {
		return
	}
	places, ok := p.groups.Placements(s.snap, tree.Leaf.Group, fw.Placement{})
	if !ok {
		return
	}
	k := &knownRoot{out: out, version: gr.version, pending: pending, snap: s.snap, nodeVersion: s.snap.NodeVersion(),
		objs: s.snap.ObjectsVersion(), start: start,
		after: p.pods.ScanPosition(), tried: leaf.Tried}
	if len(leaf.Failures) > 0 {
		k.fit = leaf.Failures[0]
	}
	if k.fit.Pod == nil && len(k.tried) > 0 && len(places) == 1 && places[0].Nodes == nil && !p.pods.ScansAll(s.snap.Len()) {
		return // where a scan stops depends on nodes that may change
	}
	if len(places) > 1 || places[0].Nodes != nil {
		k.neutralBelow = s.snap.Len()
		for _, pl := range places {
			if pl.Nodes == nil || !p.pods.ScansAll(len(pl.Nodes)) {
				return
			}
			k.neutralBelow = min(k.neutralBelow, len(pl.Nodes))
		}
		if k.owner = s.owners.of(s.snap, places); k.owner == nil {
			return
		}
		k.places, k.bound = places, p.groups.Bound(tree.Leaf)
	}
	s.answered(root, k)
}

// placementOwners keeps, per list of placements a generator handed out
// (shared while the nodes are as they were), the placement of each node.
type placementOwners struct {
	nodeVersion int64
	byList      map[*fw.Placement][]int32
	seen        nodeMarks      // the changed nodes met in a pass
	scratch     *fw.CycleState // the state of a check's PreFilter, reused
}

// state returns the cycle state a check's PreFilter fills (it resets it).
func (o *placementOwners) state() *fw.CycleState {
	if o.scratch == nil {
		o.scratch = fw.NewCycleState()
	}
	return o.scratch
}

// victimsMayExist reports whether some pod in the snapshot has a lower
// priority than prio: without one, a LowerPriorityVictims plugin finds
// no victim.
func victimsMayExist(snap *cluster.Snapshot, prio int32) bool {
	lowest, ok := snap.LowestPriority()
	return ok && lowest < prio
}

// of returns the placement of each node of snap among places (-1: none),
// or nil when a node is in two.
func (o *placementOwners) of(snap *cluster.Snapshot, places []fw.Placement) []int32 {
	if o.byList == nil || o.nodeVersion != snap.NodeVersion() || len(o.byList) >= 64 {
		o.byList, o.nodeVersion = map[*fw.Placement][]int32{}, snap.NodeVersion()
	}
	if owner, ok := o.byList[&places[0]]; ok && len(owner) == snap.Len() {
		return owner
	}
	owner := make([]int32, snap.Len())
	for i := range owner {
		owner[i] = -1
	}
	for j, pl := range places {
		for _, n := range pl.Nodes {
			if owner[n] >= 0 {
				return nil
			}
			owner[n] = int32(j)
		}
	}
	o.byList[&places[0]] = owner
	return owner
}

// oneShape reports whether the pending members of gr have one shape (and
// one that can be told), kept while the members stay as they are.
func (t *tracker) oneShape(gr *groupRecord) bool {
	m := t.memberMemo(gr)
	if m.oneShape == 0 {
		m.oneShape = 1
		pending := t.pending(gr)
		shape := pending[0].info.Pod().Shape()
		if shape != "" && !slices.ContainsFunc(pending[1:], func(r *podRecord) bool { return r.info.Pod().Shape() != shape }) {
			m.oneShape = 2
		}
	}
	return m.oneShape == 2
}

// futileFor is the FutileRetries shortcut's judge of a pod's remembered
// failure (knownFailures) after changes, or nil when it is off.
func (s *Scheduler) futileFor() func(*knownFailure, *podRecord) bool {
	if !s.uses(FutileRetries) {
		return nil
	}
	return s.futilePod
}

// futilePod reports whether k, the failure of a pod of r's shape, holds
// for r after the changes since it was remembered: every plugin reads
// only the pod and its node for r (then and now), the profile's
// preemption finds no victim in a cluster without a pod of lower
// priority and there is none, and every node changed since (its pods or
// its nominations) rejects r with the status it gave then. Unchanged
// nodes answer as they did, the changed ones alike: the scan finds no
// node and gives the same rejections, and preemption nothing.
func (s *Scheduler) futilePod(k *knownFailure, r *podRecord) bool {
	p := k.p
	if !k.local || !p.pods.PodLocal(r.info, s.snap) {
		return false
	}
	for _, pl := range p.postFilter {
		if _, ok := pl.(fw.LowerPriorityVictims); !ok {
			return false
		}
	}
	if len(p.postFilter) > 0 && victimsMayExist(s.snap, r.info.Priority()) {
		return false
	}
	changed, noms, ok := s.changesSince(feedsAt{k.pos, k.nomPos})
	if !ok {
		return false
	}
	return s.stillRejected(p, r.info, k.fit, changed, noms)
}

// stillRejected reports whether every node changed (by index, or by name
// for those whose nominations changed) rejects pod now with the status
// fit gave it then.
func (s *Scheduler) stillRejected(p *profile, pod *cluster.PodInfo, fit *fw.FitError, changed []int32, noms []string) bool {
	if len(changed) == 0 && len(noms) == 0 {
		return true
	}
	state := s.owners.state()
	if st := p.pods.PreFilter(state, s.snap, pod); st != nil && !st.IsSkip() {
		return false
	}
	seen := s.owners.marks(s.snap.Len())
	for _, n := range changed {
		if seen.first(int(n)) && !rejectsAsThen(p, s.snap, state, pod, fit, int(n)) {
			return false
		}
	}
	for _, name := range noms {
		n, ok := s.snap.Index(name)
		if !ok || seen.first(n) && !rejectsAsThen(p, s.snap, state, pod, fit, n) {
			return false
		}
	}
	return true
}

// rejectsAsThen reports whether node n rejects pod now with the status
// fit gave it then.
func rejectsAsThen(p *profile, snap *cluster.Snapshot, state *fw.CycleState, pod *cluster.PodInfo, fit *fw.FitError, n int) bool {
	then := fit.StatusOf(n)
	return then != nil && !then.IsSuccess() && then.Equal(p.pods.FilterNode(state, snap, pod, n))
}

// nodeMarks tells the first visit of each node in a pass over a feed,
// which repeats nodes.
type nodeMarks struct {
	gen  uint32
	mark []uint32
}

// first reports whether n is met for the first time in this pass.
func (m *nodeMarks) first(n int) bool {
	if m.mark[n] == m.gen {
		return false
	}
	m.mark[n] = m.gen
	return true
}

// marks starts a pass over nodes.
func (o *placementOwners) marks(nodes int) *nodeMarks {
	m := &o.seen
	if len(m.mark) != nodes || m.gen == ^uint32(0) {
		m.mark, m.gen = make([]uint32, nodes), 0
	}
	m.gen++
	return m
}

// groupPostFilterFutile reports whether the profile's PodGroupPostFilter
// plugins would all fail on snap for a root of priority prio, changing
// nothing: each is LowerPriorityVictims and no pod has a lower priority.
// A failed root's cycle then does not ask them (FutileRetries).
func (s *Scheduler) groupPostFilterFutile(p *profile, prio int32) bool {
	if !s.uses(FutileRetries) {
		return false
	}
	for _, pl := range p.groupPostFilter {
		if _, ok := pl.(fw.LowerPriorityVictims); !ok {
			return false
		}
	}
	return !victimsMayExist(s.snap, prio)
}
