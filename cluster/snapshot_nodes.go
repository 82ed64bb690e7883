package cluster

import "fmt"

// AddNode tentatively adds a node to the snapshot, at index Len() (after
// the nodes in name order): a node that does not exist yet, such as a
// cluster autoscaler's template node, for "would it fit" questions. slices
// are the node's own ResourceSlices (read-only, shared). Rollback takes it
// away again; tentative nodes are taken away last first, like every other
// tentative change, so a node added after a checkpoint is gone once
// rolled back to it.
//
// While a tentative node is there, NodeSetVersion and NodeVersion take
// values of their own (negative, never reused), so data derived from the
// node list is rebuilt; a rollback gives the old values back. O(1),
// plus the domains built on their next use.
func (s *Snapshot) AddNode(n Node, slices []*ResourceSlice) (int, error) {
	if err := n.Validate(); err != nil {
		return 0, err
	}
	if _, ok := s.index[n.Name]; ok {
		return 0, fmt.Errorf("%w: node %q", ErrNodeExists, n.Name)
	}
	i := len(s.nodes)
	ni := &NodeInfo{node: n.Clone(), index: int32(i), net: s.net}
	ni.setSlices(slices)
	s.log = append(s.log, change{node: i, nodeAdded: true, versions: [2]int64{s.nodeSetVersion, s.nodeVersion}, feed: s.feedEnd()})
	s.nodes = append(s.nodes, ni)
	s.index[n.Name] = i
	s.stampSeq++
	s.stamps = append(s.stamps, s.stampSeq)
	s.tentativeNodes++
	s.nodeSetVersion, s.nodeVersion = -s.tentativeNodes, -s.tentativeNodes
	s.nodeListChanged()
	return i, nil
}

// undoAddNode takes away the tentative node ch added, the last one.
func (s *Snapshot) undoAddNode(ch change) {
	ni := s.nodes[ch.node]
	for len(ni.pods) > 0 { // pods reserved on it later are rolled back first; none is left
		s.countPod(ni.removePodAt(len(ni.pods)-1), -1)
	}
	delete(s.index, ni.node.Name)
	s.nodes = s.nodes[:ch.node]
	s.stamps = s.stamps[:ch.node]
	s.nodeSetVersion, s.nodeVersion = ch.versions[0], ch.versions[1]
	s.nodeListChanged()
}

// nodeListChanged drops what was derived from the node list: the
// domains and their totals are rebuilt on use, and the change feed
// restarts (positions in the old list mean nothing now).
func (s *Snapshot) nodeListChanged() {
	s.domains, s.totals = nil, s.totals[:0]
	s.restartFeed()
}
