package placement

import (
	"slices"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
)

// knownGroups (the KnownGroupFailures shortcut) remembers, per group, the
// placements its last all-or-nothing search found infeasible, with the
// state their nodes were in then. In a busy cluster a gang that found no
// room is retried after nearly every change, and most of its placements
// (a rack, a block) are untouched by it: while a placement's nodes hold
// what they held and carry the same nominations, its evaluation would
// fail the same way, so the search passes over it, and a retry costs the
// placements that changed, not all of them.
//
// It answers only where an evaluation depends on its placement's nodes
// alone: the group is placed at the top (no parent placement), none of
// its pods is nominated or explained, every plugin of the profile is
// local for each of its pods (PodScheduler.localFor), every
// PlacementFeasible plugin is framework.Stateless, and every filter scan
// of the placement visits all its nodes (PodScheduler.scansAll), so that
// where the last scan stopped changes nothing but the next scan's start,
// which a pass replays.
type knownGroups struct {
	byKey map[string]*knownGroup
	hits  int // placements passed over
}

// maxKnownGroups bounds the groups remembered; past it, all are
// forgotten.
const maxKnownGroups = 4096

// knownGroup is one group's last search: the request it was for and, per
// generated placement, what is known of it.
type knownGroup struct {
	snap                 *cluster.Snapshot
	nodeSet, nodeVersion int64
	podGroup             *podgroup.PodGroup
	composite            *podgroup.CompositePodGroup
	pods                 []*cluster.PodInfo
	scheduled            int
	scheduledNodes       []string
	places               []knownPlace // by generation index
	// owner is the placement of each node (by snapshot index, -1 for
	// none), when no node is in two; fed tells that pos, the snapshot's
	// feed position at the end of the last search, is good: a known
	// placement none of whose nodes the feed names since holds as it
	// was, with no need to compare its nodes' stamps (catchUp).
	owner       []int32
	ownersKnown bool
	pos         cluster.FeedPos
	fed         bool
	first       GroupResult // placement 0's result, once known (places[0].known)
}

// knownPlace is a placement found infeasible, and its nodes as they were.
type knownPlace struct {
	known  bool
	name   string
	nodes  []int    // the placement's nodes (read-only)
	stamps []uint64 // Snapshot.Stamp of each node
	noms   []nomID  // the nominations of each node; nil when none had any
	scans  bool     // its evaluation ran a filter scan
	// changed tells that the feed named one of its nodes since it was
	// known: its stamps decide
	changed bool
	// bounded tells that the quorum bound let it through (a pruned first
	// placement is evaluated for its status alone)
	bounded bool
}

// nomID tells a node's nomination lists apart, as Nominations promises:
// a list never changes, a change makes a new one.
type nomID struct {
	first **cluster.PodInfo
	n     int
}

func nomsOf(list []*cluster.PodInfo) nomID {
	return nomID{first: unsafe.SliceData(list), n: len(list)}
}

// knownGroup returns what is known of req's search among placements (on
// the top placement), or nil when nothing is known of this request or
// the shortcut cannot answer it.
func (gs *GroupScheduler) knownGroup(snap *cluster.Snapshot, req *GroupRequest, placements []fw.Placement, parent fw.Placement) *knownGroup {
	kg := gs.known.byKey[req.Group.Ref.Key]
	if kg == nil {
		return nil
	}
	if !kg.sameRequest(snap, req.Group, len(placements)) || !gs.knownAnswers(snap, req, parent) {
		gs.forget(req.Group)
		return nil
	}
	kg.catchUp(snap)
	return kg
}

// newKnownGroup starts what is known of req's search, at its first
// failure; nil when the shortcut cannot answer it.
func (gs *GroupScheduler) newKnownGroup(snap *cluster.Snapshot, req *GroupRequest, placements []fw.Placement, parent fw.Placement) *knownGroup {
	if !gs.knownAnswers(snap, req, parent) {
		return nil
	}
	k, g := &gs.known, req.Group
	if k.byKey == nil || len(k.byKey) >= maxKnownGroups {
		k.byKey = map[string]*knownGroup{}
	}
	kg := &knownGroup{snap: snap, nodeSet: snap.NodeSetVersion(), nodeVersion: snap.NodeVersion(),
		podGroup: g.PodGroup, composite: g.Composite, pods: slices.Clone(g.Pods),
		scheduled: g.Scheduled, scheduledNodes: slices.Clone(g.ScheduledNodes),
		places: make([]knownPlace, len(placements))}
	k.byKey[g.Ref.Key] = kg
	return kg
}

// knownAnswers reports whether the shortcut can answer req's search.
func (gs *GroupScheduler) knownAnswers(snap *cluster.Snapshot, req *GroupRequest, parent fw.Placement) bool {
	ps := gs.Pods
	if ps.shortcuts.NoKnownGroups || parent.Nodes != nil || !allStateless(gs.Feasible) {
		return false
	}
	for i, pod := range req.Group.Pods {
		if req.nominated(i) >= 0 || ps.Explain != nil && ps.Explain(pod) || !ps.localFor(pod, snap) {
			return false
		}
	}
	return true
}

// owners returns the placement of each of n nodes (-1 for none), or nil
// when a node is in two.
func owners(n int, placements []fw.Placement) []int32 {
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	for i := range placements {
		for _, node := range placements[i].Nodes {
			if owner[node] >= 0 {
				return nil
			}
			owner[node] = int32(i)
		}
	}
	return owner
}

// catchUp marks the known placements whose nodes the snapshot's feed
// names since the last search: a search then reads the stamps of those
// alone, and a retry costs the changes since the last attempt, not the
// placements.
func (kg *knownGroup) catchUp(snap *cluster.Snapshot) {
	if !kg.fed {
		return
	}
	changed, ok := snap.NodesChangedSince(kg.pos)
	if !ok {
		kg.fed = false
		return
	}
	for _, node := range changed {
		if i := kg.owner[node]; i >= 0 {
			kg.places[i].changed = true
		}
	}
}

// searched records the end of a search that found nothing, the snapshot
// back as it was: the feed from here on tells what changes. The nodes'
// placements are found at the first such end (a gang placed at its first
// search never needs them).
func (kg *knownGroup) searched(snap *cluster.Snapshot, placements []fw.Placement) {
	if !kg.ownersKnown {
		kg.owner, kg.ownersKnown = owners(snap.Len(), placements), true
	}
	if kg.owner != nil {
		kg.pos, kg.fed = snap.FeedPos(), true
	}
}

// forget drops what is known of a group's search (it found a placement).
func (gs *GroupScheduler) forget(g *fw.Group) {
	delete(gs.known.byKey, g.Ref.Key)
}

// sameRequest reports whether the search kg remembers was for the same
// pods in the same order, with the same members scheduled, on the same
// nodes and snapshot.
func (kg *knownGroup) sameRequest(snap *cluster.Snapshot, g *fw.Group, placements int) bool {
	return kg.snap == snap && kg.nodeSet == snap.NodeSetVersion() && kg.nodeVersion == snap.NodeVersion() &&
		kg.podGroup == g.PodGroup && kg.composite == g.Composite && kg.scheduled == g.Scheduled &&
		len(kg.places) == placements && slices.Equal(kg.pods, g.Pods) && slices.Equal(kg.scheduledNodes, g.ScheduledNodes)
}

// holds reports whether placement i is known to be infeasible now: it was,
// and its nodes hold what they held then, with the same nominations.
func (kg *knownGroup) holds(ps *PodScheduler, snap *cluster.Snapshot, i int, p *fw.Placement) bool {
	kp := &kg.places[i]
	if !kp.known || kp.name != p.Name || !sameNodes(kp.nodes, p.Nodes) {
		return false
	}
	if !kg.fed || kp.changed {
		for j, node := range kp.nodes {
			if snap.Stamp(node) != kp.stamps[j] {
				return false
			}
		}
		kp.changed = false // its nodes hold what they held: as good as unchanged
	}
	noms := ps.Nominations
	switch {
	case kp.noms != nil:
		for j, node := range kp.nodes {
			if nomsOf(noms.NominatedTo(node)) != kp.noms[j] {
				return false
			}
		}
	case noms != nil && !noms.Empty():
		for _, node := range kp.nodes {
			if len(noms.NominatedTo(node)) > 0 {
				return false
			}
		}
	}
	return true
}

// pass is the effect on ps of the evaluation of placement i that holds
// passes over: a scan of all n candidates leaves the next start at the
// old one modulo n.
func (kg *knownGroup) pass(ps *PodScheduler, i int) {
	if kp := &kg.places[i]; kp.scans {
		ps.nextStart %= len(kp.nodes)
	}
}

// remember records placement i's evaluation, which failed, when the
// shortcut can answer it later; scanned tells whether it ran a filter
// scan, and bounded whether the quorum bound let it through. Placement
// 0's result is kept whole: a search that finds nothing reports it.
func (kg *knownGroup) remember(ps *PodScheduler, snap *cluster.Snapshot, i int, p *fw.Placement, res *GroupResult, scanned, bounded bool) {
	kp := &kg.places[i]
	*kp = knownPlace{}
	if res.Err != nil || res.Feasible || p.Nodes == nil || !ps.scansAll(len(p.Nodes)) {
		return
	}
	kp.known, kp.name, kp.nodes, kp.scans, kp.bounded = true, p.Name, p.Nodes, scanned, bounded
	kp.stamps = make([]uint64, len(p.Nodes))
	for j, node := range p.Nodes {
		kp.stamps[j] = snap.Stamp(node)
	}
	if noms := ps.Nominations; noms != nil && !noms.Empty() {
		kp.noms = make([]nomID, len(p.Nodes))
		any := false
		for j, node := range p.Nodes {
			list := noms.NominatedTo(node)
			kp.noms[j] = nomsOf(list)
			any = any || len(list) > 0
		}
		if !any {
			kp.noms = nil
		}
	}
	if i == 0 {
		kg.first = *res
	}
}

// sameNodes compares two node lists, cheaply when they are one slice
// (the generator hands out the same lists while the nodes stay).
func sameNodes(a, b []int) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true
	}
	return slices.Equal(a, b)
}

// allStateless reports whether every PlacementFeasible plugin declares
// framework.Stateless.
func allStateless(plugins []fw.PlacementFeasiblePlugin) bool {
	for _, pl := range plugins {
		if _, ok := pl.(fw.Stateless); !ok {
			return false
		}
	}
	return true
}

// KnownPlacements counts the placements the KnownGroupFailures shortcut
// passed over.
func (gs *GroupScheduler) KnownPlacements() int { return gs.known.hits }
