package cluster

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
)

// ErrTentative is returned by UpdateSnapshot while a snapshot still holds
// tentative changes: they must be rolled back first.
var ErrTentative = errors.New("cluster: snapshot has tentative changes")

// Snapshot is a consistent view of the cache taken at one instant, and the
// working copy of a scheduling cycle.
//
// Nodes are listed in name order and addressed by a dense index (0..Len-1)
// that stays valid until the node set changes (NodeSetVersion).
// Mutating the cache never changes a snapshot: each snapshot owns copies
// of its NodeInfos. UpdateSnapshot refreshes it in O(changed nodes), plus
// O(nodes) when nodes were added or removed; it brings a changed node's
// copy up to date in place, so a NodeInfo read from a snapshot is good
// until the next UpdateSnapshot (NodeInfo.Clone keeps one longer).
//
// A cycle makes tentative changes on the snapshot (Reserve, Remove); each is
// logged, and Rollback(cp) undoes every change made since Checkpoint()
// returned cp, last first, restoring the exact previous state (pod order
// included). A Snapshot is not safe for concurrent use.
type Snapshot struct {
	nodes            []*NodeInfo
	index            map[string]int
	budgets          []BudgetStatus
	generation       int64
	nodeSetVersion   int64
	nodeVersion      int64
	budgetVersion    int64
	namespaces       map[string]map[string]string // shared with the cache until it changes them
	namespaceVersion int64
	log              []change
	claimIdx         claimIndex    // see ClaimNode
	devices          deviceObjects // classes and claims, copy-on-write from the cache's
	net              *netDevices   // the devices no node owns: the snapshot's own accounts
	extendedIdx      extendedIndex // see DeviceClassFor
	// stamps[i] changes whenever node i's content may have changed in
	// this snapshot (refresh, reservation, removal); a rollback gives the
	// node back the stamp of the content it restores. A stamp names one
	// content of its node, so derived data keyed by it cannot go stale.
	stamps   []uint64
	stampSeq uint64
	// feed lists the nodes touched since the feed last restarted, in
	// order (with repeats), but for the oldest, dropped once it grew long:
	// feed[0] is the feedBase-th touch since the restart. Consumers
	// keeping data derived from nodes follow it (see NodesChangedSince).
	// feedRestarts counts its restarts.
	feed         []int32
	feedBase     int
	feedRestarts uint64
	// handed is the furthest feed position given out since the feed last
	// restarted: a rollback may cut the feed back only to a position no
	// consumer is past.
	handed int
	// podsWithAffinity and podsWithRequiredAnti count, over all nodes, the
	// pods with inter-pod affinity terms and with required anti-affinity.
	podsWithAffinity     int64
	podsWithRequiredAnti int64
	priorities           []priorityCount     // pods on the nodes, by priority ascending; no zero count
	domains              map[string]*Domains // by label key, valid at domainsVersion
	domainsVersion       int64
	totals               []*DomainTotals // kept up to date while domains are valid
	// tentativeNodes counts the tentative nodes ever added (AddNode): it
	// names their node lists
	tentativeNodes int64
}

// change is one tentative change: pod added to (added) or removed from the
// node at index node, at position pos in its pod list.
type change struct {
	node  int
	pos   int
	pod   *PodInfo
	added bool
	// claim is the claim reserved (added) or unreserved on the node in a
	// claim change (pod nil), with the allocation given to the reservation
	// (nil when the claim was allocated there already) or the one it had
	claim string
	alloc *AllocationResult
	stamp uint64  // the node's stamp before the change, given back by Rollback
	net   uint64  // a claim change's NetworkVersion before it, given back by Rollback
	feed  FeedPos // the feed before the change
	// nodeAdded marks a tentative node's addition (AddNode), with the
	// node set and node versions it replaced
	nodeAdded bool
	versions  [2]int64
}

// Checkpoint marks a point in a snapshot's tentative changes.
type Checkpoint int

// Snapshot returns a new snapshot of the cache.
func (c *Cache) Snapshot() *Snapshot {
	s := &Snapshot{index: map[string]int{}, nodeSetVersion: -1, budgetVersion: -1, namespaceVersion: -1}
	_ = c.UpdateSnapshot(s) // a new snapshot has no tentative changes
	return s
}

// UpdateSnapshot brings s up to date with the cache, copying only the nodes
// that changed since s was last updated. It refuses (ErrTentative) while s
// holds tentative changes.
func (c *Cache) UpdateSnapshot(s *Snapshot) error {
	if len(s.log) > 0 {
		return fmt.Errorf("%w: %d not rolled back", ErrTentative, len(s.log))
	}
	if s.generation == c.generation && s.nodeSetVersion == c.nodeSetVersion && s.nodeVersion == c.nodeVersion &&
		s.budgetVersion == c.budgetVersion && s.namespaceVersion == c.namespaceVersion && s.devices.version == c.devices.version {
		return nil // up to date: a busy cluster's failed cycles mostly find it so
	}
	rebuild := s.nodeSetVersion != c.nodeSetVersion
	if s.net == nil {
		s.net = &netDevices{}
	}
	if s.net.version != c.net.version {
		s.net.copyFrom(c.net) // in place: the snapshot's nodes point to it
	}
	if s.nodeVersion != c.nodeVersion {
		// nodes or labels change: domains and their totals are rebuilt on use
		s.domains, s.totals = nil, s.totals[:0]
	}
	var fresh map[string]*NodeInfo
	for it := c.recent; it != nil && it.info.generation > s.generation; it = it.next {
		if i, ok := s.indexOf(c, it); ok && !rebuild {
			// the snapshot's copy is its own: copied over in place, its
			// lists' room reused (every binding changes a node)
			own := s.nodes[i]
			s.countNode(own, -1)
			for _, t := range s.totals {
				t.addNode(i, own, -1)
			}
			it.info.copyTo(own)
			own.index = int32(i)
			own.net = s.net
			s.countNode(own, 1)
			for _, t := range s.totals {
				t.addNode(i, own, 1)
			}
			s.touch(i)
			continue
		}
		if fresh == nil {
			fresh = map[string]*NodeInfo{}
		}
		fresh[it.info.node.Name] = it.info.clone()
		fresh[it.info.node.Name].net = s.net
	}
	if rebuild {
		s.rebuild(c, fresh)
	}
	if s.budgetVersion != c.budgetVersion {
		s.budgets = s.budgets[:0]
		for b := range c.Budgets() {
			b.Budget = new(*b.Budget)
			s.budgets = append(s.budgets, b)
		}
		s.budgetVersion = c.budgetVersion
	}
	if s.namespaceVersion != c.namespaceVersion {
		s.namespaces = maps.Clone(c.namespaces) // the label maps are replaced, never changed, by the cache
		s.namespaceVersion = c.namespaceVersion
	}
	if s.devices.classes == nil || s.devices.version != c.devices.version {
		s.devices = c.devices.clone()
	}
	s.generation = c.generation
	s.nodeVersion = c.nodeVersion
	return nil
}

// ObjectsVersion changes whenever a budget or its counts, a namespace's
// labels or a device object change (a sum of counters that only grow):
// with FeedPos and the nominations, it tells whether anything a pod's
// cycle reads changed.
func (s *Snapshot) ObjectsVersion() int64 {
	return s.budgetVersion + s.namespaceVersion + s.devices.version
}

// NamespaceLabels returns the labels of a namespace (nil when unknown).
func (s *Snapshot) NamespaceLabels(name string) map[string]string { return s.namespaces[name] }

// NamespaceVersion changes whenever a namespace's labels change: data
// derived from namespace labels is valid while it holds.
func (s *Snapshot) NamespaceVersion() int64 { return s.namespaceVersion }

// NamespacesMatching returns the names of the known namespaces whose
// labels sel selects, sorted.
func (s *Snapshot) NamespacesMatching(sel *LabelSelector) []string {
	var out []string
	for name, labels := range s.namespaces {
		if sel.Matches(labels) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// rebuild lays out the node list anew in name order, taking fresh copies
// where a node changed and keeping the snapshot's own copies otherwise.
func (s *Snapshot) rebuild(c *Cache, fresh map[string]*NodeInfo) {
	nodes := make([]*NodeInfo, 0, len(c.nodes))
	index := make(map[string]int, len(c.nodes))
	c.byName.Ascend(func(it *nodeItem) bool {
		name := it.info.node.Name
		ni, ok := fresh[name]
		if !ok {
			if i, had := s.index[name]; had {
				ni = s.nodes[i]
			} else {
				ni = it.info.clone()
				ni.net = s.net
			}
		}
		index[name] = len(nodes)
		it.rank, it.rankAt = len(nodes), c.nodeSetVersion
		nodes = append(nodes, ni)
		return true
	})
	s.nodes, s.index = nodes, index
	s.stamps = make([]uint64, len(nodes))
	s.restartFeed() // positions in the old list mean nothing now
	s.podsWithAffinity, s.podsWithRequiredAnti = 0, 0
	s.priorities = s.priorities[:0]
	for i, ni := range nodes {
		ni.index = int32(i)
		s.stampSeq++
		s.stamps[i] = s.stampSeq
		s.countNode(ni, 1)
	}
	s.nodeSetVersion = c.nodeSetVersion
}

// indexOf returns the index of the cache's node it in the snapshot, or
// false when the snapshot has no such node.
func (s *Snapshot) indexOf(c *Cache, it *nodeItem) (int, bool) {
	if it.rankAt == c.nodeSetVersion && s.nodeSetVersion == c.nodeSetVersion && it.rankAt != 0 {
		return it.rank, true
	}
	i, ok := s.index[it.info.node.Name]
	return i, ok
}

// countNode adds (sign 1) or takes away (-1) a node's pods from the
// snapshot's totals.
func (s *Snapshot) countNode(ni *NodeInfo, sign int64) {
	s.podsWithAffinity += sign * int64(ni.podsWithAffinity)
	s.podsWithRequiredAnti += sign * int64(ni.podsWithRequiredAnti)
	for _, pc := range ni.priorities {
		addPriority(&s.priorities, pc.p, sign*pc.n)
	}
}

// countPod adds or takes away one pod from the totals.
func (s *Snapshot) countPod(pi *PodInfo, sign int64) {
	if pi.HasPodAffinity() {
		s.podsWithAffinity += sign
	}
	if pi.HasRequiredAntiAffinity() {
		s.podsWithRequiredAnti += sign
	}
	addPriority(&s.priorities, pi.priority, sign)
}

// priorityCount is how many pods of one priority the nodes hold.
type priorityCount struct {
	p int32
	n int64
}

// addPriority adds n pods of priority p to the counts. Pods come in a few
// priorities: a short list sorted by priority, searched from the front,
// with no zero count.
func addPriority(counts *[]priorityCount, p int32, n int64) {
	cs := *counts
	i := 0
	for i < len(cs) && cs[i].p < p {
		i++
	}
	if i == len(cs) || cs[i].p != p {
		cs = slices.Insert(cs, i, priorityCount{p: p})
	}
	if cs[i].n += n; cs[i].n == 0 {
		if cs = slices.Delete(cs, i, i+1); len(cs) == 0 {
			cs = nil // as it was before the first pod: equal states compare equal
		}
	}
	*counts = cs
}

// LowestPriority returns the lowest priority among the pods on the
// snapshot's nodes, or false when there are none: preemption for a pod of
// that priority or lower can find no victim anywhere.
func (s *Snapshot) LowestPriority() (int32, bool) {
	if len(s.priorities) == 0 {
		return 0, false
	}
	return s.priorities[0].p, true
}

// PodsWithAffinity counts the pods on all nodes that have pod affinity or
// anti-affinity terms.
func (s *Snapshot) PodsWithAffinity() int64 { return s.podsWithAffinity }

// PodsWithRequiredAntiAffinity counts the pods on all nodes with a
// required anti-affinity term.
func (s *Snapshot) PodsWithRequiredAntiAffinity() int64 { return s.podsWithRequiredAnti }

// Len returns the number of nodes.
func (s *Snapshot) Len() int { return len(s.nodes) }

// Node returns the node at index i (0 <= i < Len()).
func (s *Snapshot) Node(i int) *NodeInfo { return s.nodes[i] }

// Index returns the index of the named node.
func (s *Snapshot) Index(name string) (int, bool) {
	i, ok := s.index[name]
	return i, ok
}

// NodeInfo returns the named node.
func (s *Snapshot) NodeInfo(name string) (*NodeInfo, bool) {
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return s.nodes[i], true
}

// Nodes yields (index, node) in name order.
func (s *Snapshot) Nodes() iter.Seq2[int, *NodeInfo] { return slices.All(s.nodes) }

// VisitNodes calls visit for the nodes at the given indexes, in order, or
// for every node when nodes is nil (a placement of the whole cluster).
func (s *Snapshot) VisitNodes(nodes []int, visit func(*NodeInfo)) {
	if nodes == nil {
		for _, ni := range s.nodes {
			visit(ni)
		}
		return
	}
	for _, i := range nodes {
		visit(s.nodes[i])
	}
}

// Generation returns the cache generation the snapshot reflects.
func (s *Snapshot) Generation() int64 { return s.generation }

// NodeSetVersion changes whenever nodes were added or removed; data derived
// from the node list (indexes, topology domains) is valid while it holds.
func (s *Snapshot) NodeSetVersion() int64 { return s.nodeSetVersion }

// NodeVersion changes whenever a node was added, updated or removed; data
// derived from node objects (labels, taints, allocatable), such as
// topology domains, is valid while it holds.
func (s *Snapshot) NodeVersion() int64 { return s.nodeVersion }

// Budgets yields the pod disruption budgets as they were when the snapshot
// was taken, with their allowed disruptions, in key order.
func (s *Snapshot) Budgets() iter.Seq[BudgetStatus] { return slices.Values(s.budgets) }

// Reserve tentatively places pi on the node at index node.
func (s *Snapshot) Reserve(pi *PodInfo, node int) {
	before, feed := s.stamps[node], s.feedEnd()
	s.touch(node)
	ni := s.nodes[node]
	s.log = append(s.log, change{node: node, pos: len(ni.pods), pod: pi, added: true, stamp: before, feed: feed})
	ni.insertPod(len(ni.pods), pi)
	s.countPod(pi, 1)
	for _, t := range s.totals {
		t.addPod(node, ni, pi, 1)
	}
}

// Remove tentatively takes the pod with the given key off the node at index
// node (a preemption victim, or a reserved pod being unreserved).
func (s *Snapshot) Remove(key PodKey, node int) error {
	ni := s.nodes[node]
	pos := ni.podIndex(key)
	if pos < 0 {
		return fmt.Errorf("%w: pod %s on node %q", ErrPodNotFound, key, ni.node.Name)
	}
	pi := ni.removePodAt(pos)
	s.countPod(pi, -1)
	for _, t := range s.totals {
		t.addPod(node, ni, pi, -1)
	}
	before, feed := s.stamps[node], s.feedEnd()
	s.touch(node)
	s.log = append(s.log, change{node: node, pos: pos, pod: pi, stamp: before, feed: feed})
	return nil
}

// Checkpoint returns a mark to roll back to.
func (s *Snapshot) Checkpoint() Checkpoint { return Checkpoint(len(s.log)) }

// Rollback undoes every tentative change made after cp, newest first.
func (s *Snapshot) Rollback(cp Checkpoint) {
	if len(s.log) <= int(cp) {
		return
	}
	first := s.log[cp].feed
	for len(s.log) > int(cp) {
		ch := s.log[len(s.log)-1]
		s.log = s.log[:len(s.log)-1]
		if ch.nodeAdded {
			s.undoAddNode(ch)
			continue
		}
		ni := s.nodes[ch.node]
		s.touch(ch.node)
		// the node holds again what it held under its stamp before the
		// change, so data derived under that stamp (filter memos, victim
		// units) holds again: a preemption dry run or a failed gang cycle
		// leaves the nodes it tried as they were
		s.stamps[ch.node] = ch.stamp
		if ch.pod == nil {
			s.undoClaim(ni, ch)
			continue
		}
		sign := int64(1)
		if ch.added {
			ni.removePodAt(ch.pos)
			sign = -1
		} else {
			ni.insertPod(ch.pos, ch.pod)
		}
		s.countPod(ch.pod, sign)
		for _, t := range s.totals {
			t.addPod(ch.node, ni, ch.pod, sign)
		}
	}
	// Every node touched since first holds again what it held then, under
	// the same stamp: the feed since then says nothing, and cutting it
	// keeps the feed short for its consumers (a dry run tries victims on
	// many nodes and puts them all back).
	if first.restarts == s.feedRestarts && s.handed <= first.pos && first.pos >= s.feedBase {
		s.feed = s.feed[:first.pos-s.feedBase]
	}
}

// Change is one tentative change of a snapshot: Pod reserved on (Added) or
// removed from the node at index Node; or, with Pod nil, a claim
// reserved (Added) or unreserved on it. Alloc is, for a claim reserved,
// the allocation given to ReserveClaim (nil when the claim was allocated
// on the node already); for a claim unreserved, the allocation it had.
type Change struct {
	Pod   *PodInfo
	Claim string
	Alloc *AllocationResult
	Node  int
	Added bool
}

// Replay makes the changes again, oldest first, as tentative changes: a
// list taken from TentativeChanges (reversed) and rolled back is replayed
// onto the same state to give it back exactly. It stops at the first
// change that cannot be made.
func (s *Snapshot) Replay(changes []Change) error {
	for _, ch := range changes {
		var err error
		switch {
		case ch.Pod != nil && ch.Added:
			s.Reserve(ch.Pod, ch.Node)
		case ch.Pod != nil:
			err = s.Remove(ch.Pod.Key(), ch.Node)
		case ch.Added:
			err = s.ReserveClaim(ch.Node, ch.Claim, ch.Alloc)
		default:
			_, err = s.UnreserveClaim(ch.Node, ch.Claim)
		}
		if err != nil {
			return fmt.Errorf("replaying a tentative change: %w", err)
		}
	}
	return nil
}

// AppendChanges appends to buf the tentative changes made after the
// checkpoint since, oldest first (the order Replay makes them in; the
// reverse of TentativeChanges, which lists them as Rollback undoes them),
// and returns it.
func (s *Snapshot) AppendChanges(buf []Change, since Checkpoint) []Change {
	for i := int(since); i < len(s.log); i++ {
		buf = append(buf, s.log[i].public())
	}
	return buf
}

// public is the change as callers see it.
func (ch *change) public() Change {
	return Change{Pod: ch.pod, Claim: ch.claim, Alloc: ch.alloc, Node: ch.node, Added: ch.added}
}

// TentativeChanges yields the tentative changes made after the checkpoint
// since, newest first: the order Rollback undoes them in, so a caller
// keeping derived state can undo its own side first.
func (s *Snapshot) TentativeChanges(since Checkpoint) iter.Seq[Change] {
	return func(yield func(Change) bool) {
		for i := len(s.log) - 1; i >= int(since); i-- {
			if !yield(s.log[i].public()) {
				return
			}
		}
	}
}

// Last returns the newest tentative change, if there is one.
func (s *Snapshot) Last() (Change, bool) {
	if len(s.log) == 0 {
		return Change{}, false
	}
	return s.log[len(s.log)-1].public(), true
}

// Tentative returns the number of tentative changes not rolled back.
func (s *Snapshot) Tentative() int { return len(s.log) }

func (s *Snapshot) touch(i int) {
	s.stampSeq++
	s.stamps[i] = s.stampSeq
	if len(s.feed) >= maxFeed(len(s.nodes)) {
		// the older half goes: consumers that followed it since recompute
		// from scratch, those that followed the newer half, most of them
		// on a busy cluster (a memo tree per pod shape), go on
		drop := len(s.feed) / 2
		s.feed = s.feed[:copy(s.feed, s.feed[drop:])]
		s.feedBase += drop
	}
	s.feed = append(s.feed, int32(i))
}

// restartFeed empties the feed and makes every position given out mean
// nothing.
func (s *Snapshot) restartFeed() {
	s.feed, s.feedBase, s.feedRestarts, s.handed = s.feed[:0], 0, s.feedRestarts+1, 0
}

// feedEnd is the end of the feed, not given out to a consumer.
func (s *Snapshot) feedEnd() FeedPos {
	return FeedPos{restarts: s.feedRestarts, pos: s.feedBase + len(s.feed)}
}

// maxFeed bounds the change feed: past it, its older half is dropped,
// and a consumer behind that recomputes from scratch, which costs about
// what replaying that many changes would.
func maxFeed(nodes int) int { return 4*nodes + 1024 }

// FeedPos is a position in a snapshot's feed of changed nodes: the
// feed's restart count when it was taken, and the place in the feed.
type FeedPos struct {
	restarts uint64
	pos      int
}

// FeedPos returns the current end of the feed of changed nodes.
func (s *Snapshot) FeedPos() FeedPos {
	end := s.feedEnd()
	s.handed = max(s.handed, end.pos)
	return end
}

// NodesChangedSince returns the indexes of the nodes touched since p
// (with repeats, in order), or false when p is too old to tell (the node
// list changed or the feed restarted): data derived from nodes must then
// be recomputed. Compare Stamps to skip repeats.
func (s *Snapshot) NodesChangedSince(p FeedPos) ([]int32, bool) {
	if p.restarts != s.feedRestarts || p.pos < s.feedBase || p.pos > s.feedBase+len(s.feed) {
		return nil, false
	}
	return s.feed[p.pos-s.feedBase:], true
}

// Stamp returns node i's change stamp: equal stamps mean the node holds
// what it held when the stamp was read (within this snapshot), though it
// may have changed and been rolled back in between.
func (s *Snapshot) Stamp(i int) uint64 { return s.stamps[i] }

// ReserveClaim tentatively counts one more pod reserving the claim on the
// node at index node; the first reservation allocates it there with
// alloc, which must then be set.
func (s *Snapshot) ReserveClaim(node int, key string, alloc *AllocationResult) error {
	ni := s.nodes[node]
	before, feed, netBefore := s.stamps[node], s.feedEnd(), s.NetworkVersion()
	if err := ni.reserveClaim(key, alloc); err != nil {
		return err
	}
	s.touch(node)
	s.log = append(s.log, change{node: node, claim: key, alloc: alloc, added: true, stamp: before, feed: feed, net: netBefore})
	return nil
}

// UnreserveClaim tentatively counts one pod fewer reserving the claim on
// the node at index node (a victim's claim); the last frees its devices,
// and it reports whether it did.
func (s *Snapshot) UnreserveClaim(node int, key string) (bool, error) {
	ni := s.nodes[node]
	alloc, _, ok := ni.Claim(key)
	if !ok {
		return false, fmt.Errorf("%w %s: not reserved on node %q", ErrClaim, key, ni.node.Name)
	}
	before, feed, netBefore := s.stamps[node], s.feedEnd(), s.NetworkVersion()
	freed, err := ni.unreserveClaim(key)
	if err != nil {
		return false, err
	}
	s.touch(node)
	s.log = append(s.log, change{node: node, claim: key, alloc: alloc, stamp: before, feed: feed, net: netBefore})
	return freed, nil
}

// undoClaim undoes a claim change in Rollback.
func (s *Snapshot) undoClaim(ni *NodeInfo, ch change) {
	if ch.added {
		_, _ = ni.unreserveClaim(ch.claim) // the change made it reserved
	} else {
		_ = ni.reserveClaim(ch.claim, ch.alloc) // the change took a reservation that was there
	}
	if s.net != nil {
		s.net.version = ch.net // the contents it names again
	}
}
