package helper

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
)

// TopologyCounts are counts per slot (a kind of count over one topology key)
// and domain, summed over the nodes of a snapshot, for one signature of the
// pod being scheduled: how many pods matching its spread selector each
// zone holds, say. They follow the snapshot's change feed, so that after
// the first computation they cost the nodes that changed since, not the
// cluster: the pods of one workload share them, and a gang's tentative
// reservations or preemption's tentative removals are seen as soon as the
// snapshot holds them.
//
// A node's contribution is computed by the counter; it must depend only on
// the node (its labels, taints and pods), the namespaces' labels and the
// signature. Counts are dense per key's domains (cluster.Domains), so that
// filters read them by node index without hashing.
type TopologyCounts struct {
	counter          NodeCounter
	snap             *cluster.Snapshot
	nodeVersion      int64
	namespaceVersion int64
	pos              cluster.FeedPos
	slots            []TopologySlot
	stamps           []uint64      // per node: the stamp its contribution reflects
	contrib          [][]nodeCount // per node
	kindTotal        []int64       // per kind, the sum of all counts
	kindEntries      []int64       // per kind, how many contributions were made
	scratch          []nodeCount
	cur              int // the node being counted
}

// NodeCounter computes a node's contributions by calling tc.Add; Count
// must depend only on the node (its labels, taints and pods), the
// namespaces' labels and the signature the counts were made for.
type NodeCounter interface {
	Count(tc *TopologyCounts, ni *cluster.NodeInfo)
}

// TopologySlot is one kind of count over one key's domains.
type TopologySlot struct {
	kind int
	key  string
	// keepMissing counts nodes without the key in one more domain (at
	// index len(doms.Values)), as spreading's system defaults do.
	keepMissing bool
	// perNode makes every node its own domain (by snapshot index), for
	// counts a node reads of itself alone.
	perNode    bool
	doms       *cluster.Domains
	counts     []int64 // per domain
	present    []int32 // per domain: how many contributions (the domain exists)
	numPresent int     // domains with contributions
	minDirty   bool
	min        int64 // the lowest count among present domains
}

// nodeCount is one contribution of a node: n to its domain of a slot.
type nodeCount struct {
	slot int32
	dom  int32
	n    int64
}

// NewTopologyCounts returns empty counts made by counter; they are counted
// at the first Sync.
func NewTopologyCounts(counter NodeCounter) *TopologyCounts { return &TopologyCounts{counter: counter} }

// Sync brings the counts up to date with snap.
func (tc *TopologyCounts) Sync(snap *cluster.Snapshot) {
	if tc.snap == snap && tc.pos == snap.FeedPos() && tc.nodeVersion == snap.NodeVersion() && tc.namespaceVersion == snap.NamespaceVersion() {
		return
	}
	changed, ok := snap.NodesChangedSince(tc.pos)
	if tc.snap != snap || tc.nodeVersion != snap.NodeVersion() || tc.namespaceVersion != snap.NamespaceVersion() || !ok || len(tc.stamps) != snap.Len() {
		tc.rebuild(snap)
		return
	}
	for _, i := range changed {
		if tc.stamps[i] != snap.Stamp(int(i)) {
			tc.recount(snap, int(i))
		}
	}
	tc.pos = snap.FeedPos()
}

// rebuild counts every node from scratch. Slots keep their indexes.
func (tc *TopologyCounts) rebuild(snap *cluster.Snapshot) {
	tc.snap, tc.nodeVersion, tc.namespaceVersion, tc.pos = snap, snap.NodeVersion(), snap.NamespaceVersion(), snap.FeedPos()
	for i := range tc.slots {
		tc.resetSlot(&tc.slots[i])
	}
	clear(tc.kindTotal)
	clear(tc.kindEntries)
	n := snap.Len()
	tc.stamps = make([]uint64, n)
	if cap(tc.contrib) >= n {
		tc.contrib = tc.contrib[:n]
		for i := range tc.contrib {
			tc.contrib[i] = tc.contrib[i][:0]
		}
	} else {
		tc.contrib = make([][]nodeCount, n)
	}
	for i := range n {
		tc.recount(snap, i)
	}
}

func (tc *TopologyCounts) resetSlot(s *TopologySlot) {
	n := tc.snap.Len()
	if !s.perNode {
		s.doms = tc.snap.Domains(s.key)
		n = len(s.doms.Values) + 1
	}
	s.counts, s.present = make([]int64, n), make([]int32, n)
	s.numPresent, s.minDirty = 0, true
}

// recount replaces node i's contribution.
func (tc *TopologyCounts) recount(snap *cluster.Snapshot, i int) {
	for _, c := range tc.contrib[i] {
		tc.apply(c, -1)
	}
	tc.scratch, tc.cur = tc.scratch[:0], i
	tc.counter.Count(tc, snap.Node(i))
	tc.contrib[i] = append(tc.contrib[i][:0], tc.scratch...)
	for _, c := range tc.contrib[i] {
		tc.apply(c, 1)
	}
	tc.stamps[i] = snap.Stamp(i)
}

// Add records n for the node being counted in its domain of slot; a node
// without the slot's key counts only when the slot keeps missing ones.
func (tc *TopologyCounts) Add(slot int, n int64) {
	s := &tc.slots[slot]
	if s.perNode {
		tc.scratch = append(tc.scratch, nodeCount{slot: int32(slot), dom: int32(tc.cur), n: n})
		return
	}
	d := s.doms.NodeDomain[tc.cur]
	if d < 0 {
		if !s.keepMissing {
			return
		}
		d = int32(len(s.doms.Values))
	}
	tc.scratch = append(tc.scratch, nodeCount{slot: int32(slot), dom: d, n: n})
}

func (tc *TopologyCounts) apply(c nodeCount, sign int64) {
	s := &tc.slots[c.slot]
	s.counts[c.dom] += sign * c.n
	p := s.present[c.dom]
	s.present[c.dom] = p + int32(sign)
	switch {
	case p == 0:
		s.numPresent++
	case p+int32(sign) == 0:
		s.numPresent--
	}
	s.minDirty = true
	tc.kindTotal[s.kind] += sign * c.n
	tc.kindEntries[s.kind] += sign
}

// SlotFor returns the slot of (kind, key), making it on first use (the
// counts must then be rebuilt before they are read).
func (tc *TopologyCounts) SlotFor(kind int, key string, keepMissing, perNode bool) int {
	for i := range tc.slots {
		if s := &tc.slots[i]; s.kind == kind && s.key == key {
			return i
		}
	}
	tc.slots = append(tc.slots, TopologySlot{kind: kind, key: key, keepMissing: keepMissing, perNode: perNode})
	tc.EnsureKind(kind)
	if tc.snap != nil {
		tc.resetSlot(&tc.slots[len(tc.slots)-1])
		tc.snap = nil // counts of a slot made between syncs are unknown: rebuild
	}
	return len(tc.slots) - 1
}

// DynamicSlot is SlotFor for a counter in the middle of counting: the new
// slot gets its domains at once, and the node's contributions so far stay
// valid.
func (tc *TopologyCounts) DynamicSlot(kind int, key string) int {
	for i := range tc.slots {
		if s := &tc.slots[i]; s.kind == kind && s.key == key {
			return i
		}
	}
	tc.slots = append(tc.slots, TopologySlot{kind: kind, key: key})
	tc.EnsureKind(kind)
	tc.resetSlot(&tc.slots[len(tc.slots)-1])
	return len(tc.slots) - 1
}

// DomainOf returns node's domain in slot s, or -1 when it lacks the key
// (the missing domain when the slot keeps it).
func (s *TopologySlot) DomainOf(ni *cluster.NodeInfo) int {
	if s.perNode {
		if i := ni.Index(); i < len(s.counts) {
			return i
		}
		return -1
	}
	var d int32 = -1
	if i := ni.Index(); i >= 0 && i < len(s.doms.NodeDomain) {
		d = s.doms.NodeDomain[i]
	} else if v, ok := ni.Node().Labels[s.key]; ok {
		d = int32(s.doms.Find(v))
	}
	if d < 0 && s.keepMissing {
		d = int32(len(s.doms.Values))
	}
	return int(d)
}

// Minimum returns the lowest count among the domains that exist, and how
// many exist.
func (s *TopologySlot) Minimum() (int64, int) {
	if s.minDirty {
		s.min = math.MaxInt64
		for d, p := range s.present {
			if p > 0 {
				s.min = min(s.min, s.counts[d])
			}
		}
		s.minDirty = false
	}
	return s.min, s.numPresent
}

// TopologyCache keeps the counts of the last signatures seen, so that the pods
// of one workload share them.
type TopologyCache struct {
	bySig map[string]*TopologyCounts
	order []string
}

const maxTopologySignatures = 32

// Get returns the counts for sig, made with newCounts on first use (the
// oldest signature is forgotten beyond maxTopologySignatures), up to date with
// snap.
func (c *TopologyCache) Get(snap *cluster.Snapshot, sig []byte, newCounts func() *TopologyCounts) *TopologyCounts {
	if c.bySig == nil {
		c.bySig = map[string]*TopologyCounts{}
	}
	tc, ok := c.bySig[string(sig)]
	if !ok {
		if len(c.order) >= maxTopologySignatures {
			delete(c.bySig, c.order[0])
			c.order = c.order[1:]
		}
		tc = newCounts()
		c.bySig[string(sig)] = tc
		c.order = append(c.order, string(sig))
	}
	tc.Sync(snap)
	return tc
}

// Counter returns the counter the counts were made with.
func (tc *TopologyCounts) Counter() NodeCounter { return tc.counter }

// NumSlots returns how many slots the counts have.
func (tc *TopologyCounts) NumSlots() int { return len(tc.slots) }

// Slot returns slot i; it stays valid until the next SlotFor or
// DynamicSlot.
func (tc *TopologyCounts) Slot(i int) *TopologySlot { return &tc.slots[i] }

// KindTotal returns the sum of all counts of kind.
func (tc *TopologyCounts) KindTotal(kind int) int64 { return tc.kindTotal[kind] }

// KindEntries returns how many contributions of kind the nodes made.
func (tc *TopologyCounts) KindEntries(kind int) int64 { return tc.kindEntries[kind] }

// EnsureKind makes room for the totals of kinds up to kind, for a counter
// whose slots of that kind are made only while counting.
func (tc *TopologyCounts) EnsureKind(kind int) {
	for len(tc.kindTotal) <= kind {
		tc.kindTotal, tc.kindEntries = append(tc.kindTotal, 0), append(tc.kindEntries, 0)
	}
}

// Kind returns the kind of count the slot holds.
func (s *TopologySlot) Kind() int { return s.kind }

// Count returns the count of domain d.
func (s *TopologySlot) Count(d int) int64 { return s.counts[d] }

// NumDomains returns how many domains the slot counts (with the missing
// one, when it keeps it).
func (s *TopologySlot) NumDomains() int { return len(s.counts) }

// Present reports whether some node is in domain d (the domain exists).
func (s *TopologySlot) Present(d int) bool { return s.present[d] > 0 }

// NumPresent returns how many domains exist.
func (s *TopologySlot) NumPresent() int { return s.numPresent }
