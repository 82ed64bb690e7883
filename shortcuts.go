package gangsim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/preemption"
	"github.com/gangsim/gangsim/queue"
)

// Shortcut names one of the engine's shortcuts. Each is a cache of
// something the straightforward code computes, kept in one place, and
// none changes a decision: the event stream with it equals the stream
// without it (each has an equivalence test beside it). WithoutShortcuts
// switches them off, to check that on one's own workload or to measure
// what one buys; ShortcutStats tells how often each answered.
type Shortcut uint8

// The shortcuts.
const (
	// FilterMemo remembers, per pod signature and node, the verdicts and
	// raw scores of the plugins that are framework.Signers while the node
	// is unchanged, and a signature's last failure on every node
	// (placement/memo.go).
	FilterMemo Shortcut = 1 << iota
	// MemoTree finds, over FilterMemo's answers, the node a filter scan
	// would pick from an index of them: a tree that finds it without
	// visiting the nodes, or a column that packs a node's answers in a
	// few bytes, whichever costs less for the pod
	// (placement/internal/memo).
	MemoTree
	// KnownFailures answers the cycle of a pod of the same shape as one
	// that just found no node and no preemption, while nothing changed,
	// from that pod's failure, and retries such pods in a row
	// (below).
	KnownFailures
	// DryRunMemo passes over, in a preemption dry run, the nodes an
	// earlier dry run found to be no candidate while they hold the same
	// pods and no nomination, and tries only the nodes changed since a
	// fruitless dry run of the same list (below).
	DryRunMemo
	// RememberedCandidates takes again the candidate an earlier dry run
	// of the same class found on an unchanged node (below).
	RememberedCandidates
	// VictimUnits keeps a node's victim units while it holds the same
	// pods, none of them in a group (below).
	VictimUnits
	// KnownGroupFailures passes over, in a gang's search, the placements
	// its last search found infeasible while their nodes hold what they
	// held and carry the same nominations (placement/known_groups.go).
	KnownGroupFailures
	// FutileRetries answers the search of a gang's retry from its last
	// search when every change since could not help it: each node changed
	// since rejects its pods as it did (futile.go).
	FutileRetries

	allShortcuts = FilterMemo | MemoTree | KnownFailures | DryRunMemo | RememberedCandidates | VictimUnits | KnownGroupFailures | FutileRetries
)

var shortcutNames = []string{"FilterMemo", "MemoTree", "KnownFailures", "DryRunMemo", "RememberedCandidates", "VictimUnits", "KnownGroupFailures", "FutileRetries"}

// String names the shortcuts in sc, joined by "|".
func (sc Shortcut) String() string {
	var names []string
	for i, name := range shortcutNames {
		if sc&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// WithoutShortcuts switches the shortcuts named off (several may be
// or-ed into one value). The decisions stay the same; only the time they
// take changes. A fork keeps its parent's choice.
func WithoutShortcuts(off ...Shortcut) Option {
	return func(s *Scheduler) {
		for _, sc := range off {
			s.shortcutsOff |= sc & allShortcuts
		}
	}
}

// uses reports whether shortcut sc is on.
func (s *Scheduler) uses(sc Shortcut) bool { return s.shortcutsOff&sc == 0 }

// placementShortcuts are the shortcuts of the pod scan, as placement
// takes them, given those switched off.
func placementShortcuts(off Shortcut) placement.Shortcuts {
	noIndex := off&MemoTree != 0
	return placement.Shortcuts{NoMemo: off&FilterMemo != 0, NoTree: noIndex, NoColumn: noIndex, NoKnownGroups: off&KnownGroupFailures != 0}
}

// ShortcutStats counts the answers the scheduler's own shortcuts gave
// over the run (FilterMemo's and MemoTree's are the pod scan's, not
// counted here).
type ShortcutStats struct {
	// KnownFailures are cycles answered from another pod's failure,
	// InRow those of them retried in a row.
	KnownFailures, InRow int
	// DryRunNodesKnown are nodes a dry run passed over as known to be no
	// candidate; DryRunNodesSkipped those it did not try for nothing
	// changed since a fruitless dry run of the same list.
	DryRunNodesKnown, DryRunNodesSkipped int
	// RememberedCandidates are candidates taken again.
	RememberedCandidates int
	// GroupPlacementsKnown are placements a gang's search passed over
	// as known to fail (KnownGroupFailures).
	GroupPlacementsKnown int
	// FutileRetries are retries answered from the last search or failure
	// after changes that could not help them (FutileRetries).
	FutileRetries int
}

// ShortcutStats returns how often each shortcut answered so far.
func (s *Scheduler) ShortcutStats() ShortcutStats {
	if s == nil {
		return ShortcutStats{}
	}
	st := s.shortcutStats
	for _, p := range s.profiles.list {
		st.GroupPlacementsKnown += p.groups.KnownPlacements()
	}
	return st
}

// KnownFailures.

// knownFailures (the KnownFailures shortcut) remembers, per pod shape, the
// last cycle of a pod of that shape that found no node and no preemption:
// while nothing in the cluster and no nomination changed since, a pod of
// the same shape nominated nowhere fails the same way, with the same
// message, and is parked without running the plugins again. In a busy cluster every pending pod is retried after
// each change; after the first of a shape, the others cost their queue
// moves and events only. It applies to profiles whose PreFilter, Filter and
// PostFilter plugins are all framework.Stateless (or Signers).
type knownFailures struct {
	ids      map[string]int32 // shape -> id, from 1
	byShape  []*knownFailure  // by shape id (ids are dense, from 1)
	restarts uint32           // counts restarts of ids
}

// knownFailure is a shape's last fruitless cycle.
type knownFailure struct {
	p      *profile
	fit    *fw.FitError // read-only, shared
	wakeOn uint64
	snap   *cluster.Snapshot
	pos    cluster.FeedPos
	nomPos uint64
	objs   int64 // the snapshot's ObjectsVersion
	// local says every plugin read only the pod and its node for the
	// failure (PodLocal): FutileRetries may answer after changes
	local bool
}

// podShape is the KnownFailures shortcut's note on a pod's record: the id
// of the pod's shape, found at its first failure (0 until then), and the
// knownFailures.restarts of the ids it is from. It lives in the record rather than in a
// table of the shortcut's so that a busy cluster's retry reads one record,
// not a record and an entry elsewhere.
type podShape struct {
	id       int32
	restarts uint32
}

// knownNow is what every remembered failure must match to hold now: the
// snapshot's feed, its other objects (budgets, namespaces, device
// objects: a claim made from a template lets a waiting pod through) and
// the nominations as they are.
type knownNow struct {
	pos    cluster.FeedPos
	nomPos uint64
	objs   int64
}

// maxShapes bounds the shapes known; past it, all are forgotten.
const maxShapes = 4096

// shape returns the id of r's shape: everything its cycle's outcome
// depends on but its name; 0 for none. Found on its first failure (most
// pods never fail), kept while it waits.
func (f *knownFailures) shapeOf(r *podRecord) int32 {
	if r.shape.id != 0 {
		return r.shape.id
	}
	shape := r.info.Pod().Shape()
	if shape == "" {
		return 0 // never shortened
	}
	shape = strconv.FormatInt(int64(r.info.Priority()), 10) + "|" + shape
	if f.ids == nil || len(f.ids) >= maxShapes {
		f.ids, f.byShape = map[string]int32{}, nil // ids restart: records of old ones must go
		f.restarts++
	}
	id, ok := f.ids[shape]
	if !ok {
		id = int32(len(f.ids) + 1)
		f.ids[shape] = id
	}
	r.shape = podShape{id: id, restarts: f.restarts}
	return id
}

// knownFailureFor returns the remembered failure that holds for r now, or nil.
func (s *Scheduler) knownFailureFor(p *profile, r *podRecord) *knownFailure {
	if !s.knownFailuresUsable() {
		return nil
	}
	return s.knownFailures.at(p, r, s.snap, knownNowOf(s.snap, s.nominations), &s.shortcutStats, s.futileFor())
}

// knownFailuresUsable reports whether remembered failures may answer
// cycles: the shortcut is on and no cycle is being explained.
func (s *Scheduler) knownFailuresUsable() bool {
	return s.uses(KnownFailures) && len(s.explainer.want) == 0
}

// knownNowOf is what every remembered failure must match to hold now.
func knownNowOf(snap *cluster.Snapshot, noms *nominator) knownNow {
	return knownNow{pos: snap.FeedPos(), nomPos: noms.feedPos(), objs: snap.ObjectsVersion()}
}

// at returns the remembered failure that holds for r on snap now, or nil
// (the shortcut usable): a busy cluster's retries ask for many pods in a
// row with now as it is.
//
// With futile (the FutileRetries shortcut) a failure also holds after
// changes when futile says none of them helps r.
func (f *knownFailures) at(p *profile, r *podRecord, snap *cluster.Snapshot, now knownNow, stats *ShortcutStats, futile func(*knownFailure, *podRecord) bool) *knownFailure {
	if r.nominated != "" || !p.plainPostFilter() {
		return nil
	}
	if r.shape.id == 0 || r.shape.restarts != f.restarts {
		return nil // a pod's first cycle, or its id is from before the ids restarted
	}
	if int(r.shape.id) >= len(f.byShape) {
		return nil
	}
	k := f.byShape[r.shape.id]
	if k == nil || k.p != p || k.snap != snap || k.objs != now.objs {
		return nil
	}
	if k.pos != now.pos || k.nomPos != now.nomPos {
		if futile == nil || !futile(k, r) {
			return nil
		}
		moved := *k // the failure holds as it is now (forks share the old)
		moved.pos, moved.nomPos = now.pos, now.nomPos
		k = &moved
		f.byShape[r.shape.id] = k
		stats.FutileRetries++
	}
	stats.KnownFailures++
	return k
}

// rememberKnownFailure records a cycle of r that found no node and left no
// nomination, evicted nobody.
func (s *Scheduler) rememberKnownFailure(p *profile, r *podRecord, fit *fw.FitError, wakeOn uint64) {
	if s.knownFailuresUsable() && p.plainPostFilter() {
		s.knownFailures.remember(p, r, fit, wakeOn, s.snap, knownNowOf(s.snap, s.nominations), s.uses(FutileRetries) && p.pods.PodLocal(r.info, s.snap))
	}
}

// remember records r's fruitless cycle on snap as its shape's.
func (f *knownFailures) remember(p *profile, r *podRecord, fit *fw.FitError, wakeOn uint64, snap *cluster.Snapshot, now knownNow, local bool) {
	if r.shape.id != 0 && r.shape.restarts != f.restarts {
		r.shape = podShape{}
	}
	key := f.shapeOf(r)
	if key == 0 {
		return
	}
	if n := int(key) + 1; n > len(f.byShape) {
		f.byShape = append(f.byShape, make([]*knownFailure, n-len(f.byShape))...)
	}
	fit.Summarize() // read by every pod that fails alike
	f.byShape[key] = &knownFailure{p: p, fit: fit, wakeOn: wakeOn, snap: snap, pos: now.pos, nomPos: now.nomPos, objs: now.objs, local: local}
}

// plainPostFilter reports whether a cycle of the profile depends on
// nothing but the cluster, the pod and the nominations: each of its
// PreFilter, Filter and PostFilter plugins declares itself
// framework.Stateless or is a framework.Signer (whose answers depend on
// the node and the pod alone). A plugin that declares neither may keep
// state between calls.
func (p *profile) plainPostFilter() bool { return p.pure }

// isPure is plainPostFilter's answer, worked out once.
func (p *profile) isPure() bool {
	plugins := p.pods.Plugins()
	return allStateless(p.postFilter) && allStateless(plugins.PreFilter) && allStateless(plugins.Filter)
}

// allStateless reports whether every plugin of a list is Stateless or a
// Signer.
func allStateless[P fw.Plugin](list []P) bool {
	for _, pl := range list {
		switch any(pl).(type) {
		case fw.Stateless, fw.Signer:
		default:
			return false
		}
	}
	return true
}

// retryKnownFailures runs the cycles at the head of activeQ, at most max,
// of pods that fail as a pod of their shape just failed (see knownFailures),
// one after another; it returns how many it ran. Each is the cycle
// scheduleOne would run, with the same events and the same outcome: what
// it leaves out is the search for the head of activeQ at each pop, and
// the rest of a cycle's general path. A busy cluster's cycles are nearly
// all such retries.
func (s *Scheduler) retryKnownFailures(max int) (int, error) {
	if s.cfg.CheckInvariants || !s.knownFailuresUsable() || len(s.knownFailures.byShape) == 0 || max <= 0 {
		return 0, nil // with invariants checked, every cycle takes the general path, which checks them
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return 0, err
	}
	s.retry.now = knownNowOf(s.snap, s.nominations) // what nothing in these cycles changes
	n := s.queue.ParkKnownFailures(s.now, s.clusterEvents.version, max, s.retryKnown, s.retriedKnown)
	s.shortcutStats.InRow += n
	return n, nil
}

// retryKnown begins the cycle of it's pod if it fails as a known failure
// (else it changes nothing): scheduleOne's and schedulePod's work for
// that case up to parking, which ParkKnownFailures does.
func (s *Scheduler) retryKnown(it *queue.Item[entry]) (uint64, bool) {
	r := s.tracker.records.at(it.Value.pod)
	if r == nil {
		return 0, false
	}
	f := s.knownFailures.at(s.profiles.of(r), r, s.snap, s.retry.now, &s.shortcutStats, s.futileFor())
	if f == nil {
		return 0, false
	}
	s.beginCycle()
	s.failFit(r, f.fit) // the same status, reason and rejections, shared
	if s.wants(EventCycle) {
		s.retry.pod, s.retry.reason = r.info, f.fit.Error() // a FitError's message is never empty
	}
	return f.wakeOn, true
}

// retriedKnown ends the cycle retryKnown began, once the pod is parked.
func (s *Scheduler) retriedKnown(*queue.Item[entry]) {
	if s.wants(EventCycle) {
		s.emit(cycleEvent(s.retry.pod, Ref{}, s.retry.reason))
		s.retry.pod = nil
	} else {
		s.stats.count(EventCycle, false)
	}
	s.inCycle = 0
}

// DryRunMemo and RememberedCandidates.

var _ preemption.DryRunMemos = (*handle)(nil)

// dryRuns (the DryRunMemo and RememberedCandidates shortcuts) remembers
// the nodes preemption dry runs found to be no candidate, each under the
// node's stamp, and the candidates they found. A pod whose filters read
// only their node is no candidate on a node for as long as the node holds
// the same pods (its stamp; a dry run's own removals are rolled back to
// it) and no pod is nominated there; the pod's priority and filters do
// not change while it waits. Pods of one priority whose filters sign alike
// share what they found: the class. In a busy cluster a pending pod is
// retried after every change anywhere, and this turns its dry run from
// every node into the nodes that changed, tried once for all the pods of
// a class.
type dryRuns struct {
	snap    *cluster.Snapshot
	nodeSet int64
	byPod   map[*cluster.PodInfo]*podDryRuns // by the pod as admitted: a pod admitted again starts afresh
	byClass map[string]*classDryRuns         // by filter signature and priority
	sig     []byte                           // the signature being built
	entries int
}

// podDryRuns is one preemptor's memory.
type podDryRuns struct {
	nodes map[int]uint64 // nodes found no candidate, with their stamps then, when the pod has no class
	none  noneFound      // when the pod has no class, or is nominated somewhere
}

// classDryRuns is the memory of the pods of a class.
type classDryRuns struct {
	stamps []uint64  // by node: the stamp under which it was no candidate, noStamp when unknown
	none   noneFound // of pods nominated nowhere: nominated pods on a node count alike for them
	// found is, by node (nil until the first), the candidate a dry run
	// found on it, under its stamp then and with budgets as they were. A
	// successful preemption tries nodes until it has a hundred or a tenth
	// of them as candidates, and the next pod of the class finds nearly
	// all of them unchanged: nine dry runs in ten of a busy cluster were
	// of such searches.
	found   []foundCandidate
	budgets []cluster.BudgetStatus
}

// foundCandidate is a candidate found on a node under a stamp.
type foundCandidate struct {
	stamp uint64 // noStamp when none
	c     preemption.Candidate
}

// noneFound is the last dry run of a whole potential list that found no
// candidate: with the nodes as at pos and the nominations as at nomPos,
// only the nodes changed since need trying again.
type noneFound struct {
	list   []int // read-only: a FitError's list, kept as is
	pos    cluster.FeedPos
	nomPos uint64
	since  []int // nodesChangedSince's answer, reused
}

// maxDryRunEntries bounds the memo (a class costs an entry per node);
// past it, it starts over.
const maxDryRunEntries = 1 << 23

// noStamp marks a node of a class not known to be no candidate.
const noStamp = ^uint64(0)

// DryRunMemo implements preemption.DryRunMemos: the memory of the pod's
// class when its filters sign, else the pod's own.
func (h *handle) DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo, budgets []cluster.BudgetStatus) preemption.DryRunMemo {
	m, s := &h.s.dryRuns, h.s
	if !s.uses(DryRunMemo) || !h.p.pods.NodeLocalFor(state) {
		return nil
	}
	if m.snap != s.snap || m.nodeSet != s.snap.NodeSetVersion() || m.entries > maxDryRunEntries {
		// node indexes are kept: they hold for one node list
		*m = dryRuns{snap: s.snap, nodeSet: s.snap.NodeSetVersion(), byPod: map[*cluster.PodInfo]*podDryRuns{}, byClass: map[string]*classDryRuns{}, sig: m.sig}
	}
	d := m.byPod[pod]
	if d == nil {
		d = &podDryRuns{}
		m.byPod[pod] = d
	}
	sig, ok := h.p.pods.FilterSignature(state, pod, m.sig[:0])
	if !ok {
		return &podMemo{s: s, d: d}
	}
	p := pod.Priority()
	m.sig = append(sig, byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
	c := m.byClass[string(m.sig)]
	if c == nil {
		c = &classDryRuns{stamps: make([]uint64, s.snap.Len())}
		for i := range c.stamps {
			c.stamps[i] = noStamp
		}
		m.byClass[string(m.sig)] = c
		m.entries += len(c.stamps)
	}
	if !slices.Equal(c.budgets, budgets) {
		// a candidate's victims depend on the budgets' allowances
		c.found, c.budgets = nil, slices.Clone(budgets)
	}
	none := &d.none
	if r := s.tracker.record(pod.Key()); r == nil || r.nominated == "" {
		none = &c.none // the pod is no nominated pod that counts on some node for others
	}
	return &classMemo{s: s, c: c, none: none}
}

// classMemo is the memory of a class, for one dry run.
type classMemo struct {
	s    *Scheduler
	c    *classDryRuns
	none *noneFound
}

func (cm *classMemo) Changed(potential []int) ([]int, bool) {
	return cm.none.nodesChangedSince(cm.s, potential)
}

func (cm *classMemo) NoneFound(potential []int) { cm.none.record(cm.s, potential) }

func (cm *classMemo) KnownNoCandidate(node int) bool {
	s := cm.s
	if cm.c.stamps[node] == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.DryRunNodesKnown++
		return true
	}
	return false
}

func (cm *classMemo) KnownCandidate(node int) (preemption.Candidate, bool) {
	s, c := cm.s, cm.c
	if c.found != nil && c.found[node].stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.RememberedCandidates++
		return c.found[node].c, true
	}
	return preemption.Candidate{}, false
}

func (cm *classMemo) Tried(node int, cand preemption.Candidate, found bool) {
	s, c := cm.s, cm.c
	if !found {
		if !s.nominations.has(node) {
			c.stamps[node] = s.snap.Stamp(node)
		}
		return
	}
	if !s.uses(RememberedCandidates) {
		return
	}
	if _, lone := s.unitCache.lone(s.snap, node); !lone || s.nominations.has(node) {
		return // a group's unit reaches other nodes, whose changes the stamp does not tell
	}
	if c.found == nil {
		c.found = make([]foundCandidate, len(c.stamps))
		for i := range c.found {
			c.found[i].stamp = noStamp
		}
		s.dryRuns.entries += len(c.found)
	}
	c.found[node] = foundCandidate{stamp: s.snap.Stamp(node), c: cand}
}

// podMemo is one pod's own memory, for one dry run of a pod whose
// filters do not sign: nodes found no candidate, no candidates kept.
type podMemo struct {
	s *Scheduler
	d *podDryRuns
}

func (pm *podMemo) Changed(potential []int) ([]int, bool) {
	return pm.d.none.nodesChangedSince(pm.s, potential)
}

func (pm *podMemo) NoneFound(potential []int) { pm.d.none.record(pm.s, potential) }

func (pm *podMemo) KnownNoCandidate(node int) bool {
	s := pm.s
	stamp, ok := pm.d.nodes[node]
	if ok && stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.DryRunNodesKnown++
		return true
	}
	return false
}

func (pm *podMemo) KnownCandidate(int) (preemption.Candidate, bool) {
	return preemption.Candidate{}, false
}

func (pm *podMemo) Tried(node int, _ preemption.Candidate, found bool) {
	s, d := pm.s, pm.d
	if found || s.nominations.has(node) {
		return
	}
	if d.nodes == nil {
		d.nodes = map[int]uint64{}
	}
	if _, had := d.nodes[node]; !had {
		s.dryRuns.entries++
	}
	d.nodes[node] = s.snap.Stamp(node)
}

// record remembers a dry run of potential that found no candidate.
func (nf *noneFound) record(s *Scheduler, potential []int) {
	if !sameList(nf.list, potential) && !slices.IsSorted(potential) {
		nf.list = nil
		return
	}
	nf.list, nf.pos, nf.nomPos = potential, s.snap.FeedPos(), s.nominations.feedPos()
}

// nodesChangedSince returns the nodes of potential changed since the last
// dry run over the same list that found no candidate, in node order.
func (nf *noneFound) nodesChangedSince(s *Scheduler, potential []int) ([]int, bool) {
	if nf.list == nil || !sameList(nf.list, potential) {
		return nil, false
	}
	changed, ok := s.snap.NodesChangedSince(nf.pos)
	noms, nomsOK := s.nominations.nodesChangedSince(nf.nomPos)
	if !ok || !nomsOK || len(changed)+len(noms) > 2*len(potential) {
		return nil, false // sorting them costs more than the whole list
	}
	out := nf.since[:0]
	add := func(i int) {
		if _, in := slices.BinarySearch(potential, i); in {
			out = append(out, i)
		}
	}
	for _, i := range changed {
		add(int(i))
	}
	for _, name := range noms {
		if i, ok := s.snap.Index(name); ok {
			add(i)
		}
	}
	slices.Sort(out)
	nf.since = slices.Compact(out)
	s.shortcutStats.DryRunNodesSkipped += len(potential) - len(nf.since)
	return nf.since, true
}

// sameList reports whether a and b hold the same nodes; FitErrors of pods
// that failed alike share one list, which makes the usual case one
// comparison.
func sameList(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// forget drops a pod's remembered dry runs: it is bound or gone.
func (m *dryRuns) forget(pod *cluster.PodInfo) {
	if d, ok := m.byPod[pod]; ok {
		m.entries -= len(d.nodes)
		delete(m.byPod, pod)
	}
}

// VictimUnits.

// unitCache (the VictimUnits shortcut) keeps, by snapshot index, the
// units of nodes whose pods belong to no group: one per pod, remembered
// while the node's snapshot stamp holds (such a unit depends on its pod
// alone), since a busy cluster's failed preemptions ask for the same
// nodes' units cycle after cycle.
type unitCache []cachedUnits

// cachedUnits are a node's units at a snapshot stamp.
type cachedUnits struct {
	snap  *cluster.Snapshot
	stamp uint64
	units []*preemption.Unit
}

// keep returns the units of a node of lone pods, remembered when on.
func (c *unitCache) keep(snap *cluster.Snapshot, node int, pods []*cluster.PodInfo, on bool) []*preemption.Unit {
	if len(*c) != snap.Len() {
		*c = make(unitCache, snap.Len())
	}
	out := make([]*preemption.Unit, len(pods))
	for i, p := range pods {
		out[i] = preemption.NewPodUnit(p)
	}
	if on {
		(*c)[node] = cachedUnits{snap: snap, stamp: snap.Stamp(node), units: out}
	}
	return out
}

// lone returns the units keep remembered for the node, if its stamp still
// holds: its pods are the same, so they are still alone (a pod's group is
// fixed at admission). RememberedCandidates keeps only the candidates of
// nodes it knows this way to hold lone pods.
func (c unitCache) lone(snap *cluster.Snapshot, node int) ([]*preemption.Unit, bool) {
	if node >= len(c) || len(c) != snap.Len() {
		return nil, false
	}
	u := &c[node]
	if u.snap != snap || u.stamp != snap.Stamp(node) || u.snap == nil {
		return nil, false
	}
	return u.units, true
}
