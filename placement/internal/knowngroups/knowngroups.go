package knowngroups

import (
	"slices"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
)

// Groups remembers, per group, the placements its last all-or-nothing
// search found infeasible, with the state their nodes were in then; R is
// the scheduler's result of a placement's evaluation, kept whole for the
// first placement (a search that finds nothing reports it).
type Groups[R any] struct {
	byKey map[string]*Group[R]
	// Hits counts the placements passed over.
	Hits int
}

// maxGroups bounds the groups remembered; past it, all are forgotten.
const maxGroups = 4096

// Request is what a search was for: the same request on nodes that hold
// what they held evaluates a placement the same way.
type Request struct {
	PodGroup       *podgroup.PodGroup
	Composite      *podgroup.CompositePodGroup
	Pods           []*cluster.PodInfo // in cycle order
	Scheduled      int
	ScheduledNodes []string
}

// Nominations are the pods preemption nominated to nodes, as placement's
// PodScheduler holds them.
type Nominations interface {
	Empty() bool
	NominatedTo(node int) []*cluster.PodInfo
}

// Group is one group's last search: the request it was for and, per
// generated placement, what is known of it.
type Group[R any] struct {
	snap                 *cluster.Snapshot
	nodeSet, nodeVersion int64
	req                  Request
	places               []place // by generation index
	// owner is the placement of each node (by snapshot index, -1 for
	// none), when no node is in two; fed tells that pos, the snapshot's
	// feed position at the end of the last search, is good: a known
	// placement none of whose nodes the feed names since holds as it
	// was, with no need to compare its nodes' stamps (catchUp).
	owner       []int32
	ownersKnown bool
	pos         cluster.FeedPos
	fed         bool
	first       R // placement 0's result, once known (places[0].known)
}

// place is a placement found infeasible, and its nodes as they were.
type place struct {
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

// Known returns what is known of the search for req under key among n
// placements, or nil when nothing is known of this request (what was
// known of another is forgotten).
func (g *Groups[R]) Known(snap *cluster.Snapshot, key string, req *Request, n int) *Group[R] {
	kg := g.byKey[key]
	if kg == nil {
		return nil
	}
	if !kg.sameRequest(snap, req, n) {
		g.Forget(key)
		return nil
	}
	kg.catchUp(snap)
	return kg
}

// Start starts what is known of the search for req under key among n
// placements, at its first failure.
func (g *Groups[R]) Start(snap *cluster.Snapshot, key string, req *Request, n int) *Group[R] {
	if g.byKey == nil || len(g.byKey) >= maxGroups {
		g.byKey = map[string]*Group[R]{}
	}
	kg := &Group[R]{snap: snap, nodeSet: snap.NodeSetVersion(), nodeVersion: snap.NodeVersion(),
		req: Request{PodGroup: req.PodGroup, Composite: req.Composite, Pods: slices.Clone(req.Pods),
			Scheduled: req.Scheduled, ScheduledNodes: slices.Clone(req.ScheduledNodes)},
		places: make([]place, n)}
	g.byKey[key] = kg
	return kg
}

// Forget drops what is known of a group's search (it found a placement,
// or its request changed).
func (g *Groups[R]) Forget(key string) {
	delete(g.byKey, key)
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
func (kg *Group[R]) catchUp(snap *cluster.Snapshot) {
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

// Searched records the end of a search that found nothing, the snapshot
// back as it was: the feed from here on tells what changes. The nodes'
// placements are found at the first such end (a gang placed at its first
// search never needs them).
func (kg *Group[R]) Searched(snap *cluster.Snapshot, placements []fw.Placement) {
	if !kg.ownersKnown {
		kg.owner, kg.ownersKnown = owners(snap.Len(), placements), true
	}
	if kg.owner != nil {
		kg.pos, kg.fed = snap.FeedPos(), true
	}
}

// sameRequest reports whether the search kg remembers was for the same
// pods in the same order, with the same members scheduled, on the same
// nodes and snapshot.
func (kg *Group[R]) sameRequest(snap *cluster.Snapshot, req *Request, placements int) bool {
	return kg.snap == snap && kg.nodeSet == snap.NodeSetVersion() && kg.nodeVersion == snap.NodeVersion() &&
		kg.req.PodGroup == req.PodGroup && kg.req.Composite == req.Composite && kg.req.Scheduled == req.Scheduled &&
		len(kg.places) == placements && slices.Equal(kg.req.Pods, req.Pods) && slices.Equal(kg.req.ScheduledNodes, req.ScheduledNodes)
}

// Holds reports whether placement i is known to be infeasible now: it
// was, and its nodes hold what they held then, with the same
// nominations.
func (kg *Group[R]) Holds(snap *cluster.Snapshot, noms Nominations, i int, p *fw.Placement) bool {
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

// Bounded reports whether the quorum bound let placement i through when
// it was evaluated (a placement it pruned, it prunes again).
func (kg *Group[R]) Bounded(i int) bool { return kg.places[i].bounded }

// First is placement 0's result, once known.
func (kg *Group[R]) First() *R { return &kg.first }

// Pass is the effect on the scan position next of the evaluation of
// placement i that Holds passes over: a scan of all n candidates leaves
// the next start at the old one modulo n.
func (kg *Group[R]) Pass(i int, next *int) {
	if kp := &kg.places[i]; kp.scans {
		*next %= len(kp.nodes)
	}
}

// Remember records placement i's evaluation, res, when it can answer it
// later: failed tells that res found the placement infeasible, scansAll
// that a filter scan of its nodes visits them all, scanned that the
// evaluation ran one, and bounded that the quorum bound let it through.
// Placement 0's result is kept whole: a search that finds nothing
// reports it.
func (kg *Group[R]) Remember(snap *cluster.Snapshot, noms Nominations, i int, p *fw.Placement, res *R, failed, scansAll, scanned, bounded bool) {
	kp := &kg.places[i]
	*kp = place{}
	if !failed || p.Nodes == nil || !scansAll {
		return
	}
	kp.known, kp.name, kp.nodes, kp.scans, kp.bounded = true, p.Name, p.Nodes, scanned, bounded
	kp.stamps = make([]uint64, len(p.Nodes))
	for j, node := range p.Nodes {
		kp.stamps[j] = snap.Stamp(node)
	}
	if noms != nil && !noms.Empty() {
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
