package cluster

import (
	"maps"
	"slices"
	"sync/atomic"
)

// Devices that are not local to one node (issue 48). A ResourceSlice with
// AllNodes, or a NodeSelector, publishes devices every node it selects
// reaches: network-attached devices. They are one pool of devices whose
// use every node sees, so their accounts are not a node's but the
// cluster's (the cache's, and each snapshot's own copy): a claim that
// takes one on behalf of a pod on node A makes it unavailable on node B.
//
// A claim whose allocation holds only such devices (AllocationResult.Node
// empty) is node-independent: it is usable from every node its
// allocation's NodeSelector selects, and pods of several nodes may share
// it. Each node still counts its own pods reserving the claim (so that a
// pod leaving its node gives back its own reservation); the claim's
// devices are taken with its first reservation anywhere and freed when its
// last one ends, as Kubernetes deallocates a claim when its reservedFor
// list becomes empty. A claim holding a node-local device is pinned to
// that node, as kube's allocator pins it; its network devices, if any,
// are still taken from the cluster's accounts.

// netVersions names the contents of every netDevices: a version is never
// given twice, so equal versions mean equal contents.
var netVersions atomic.Uint64

// netDevices are the accounts of the devices no single node owns.
type netDevices struct {
	// slices are the published slices that are not node-local, by name
	// (read-only, replaced on change).
	slices []*ResourceSlice
	// pools are the driver/pool pairs of such slices, ever published: a
	// device of these pools is accounted here.
	pools map[DeviceID]bool // Device empty
	// claims are the node-independent claims allocated, by key.
	claims map[string]netClaim
	use    map[DeviceID]DeviceUse
	// version names the contents (see netVersions); 0 for none ever.
	version uint64
}

// netClaim is a node-independent claim: its allocation and how many pods
// reserve it, over all nodes.
type netClaim struct {
	alloc *AllocationResult // read-only
	pods  int32
}

func (n *netDevices) changed() { n.version = netVersions.Add(1) }

// copyFrom makes n a copy of o that shares nothing mutable with it.
func (n *netDevices) copyFrom(o *netDevices) {
	n.slices, n.pools = o.slices, o.pools // replaced, never changed in place
	n.claims, n.use, n.version = maps.Clone(o.claims), maps.Clone(o.use), o.version
}

// isNet reports whether a device is of a pool that is not node-local.
func (n *netDevices) isNet(id DeviceID) bool {
	if n == nil || len(n.pools) == 0 {
		return false
	}
	return n.pools[DeviceID{Driver: id.Driver, Pool: id.Pool}]
}

// NodeIndependent reports whether the allocation holds devices and none
// of them is local to a node: it is usable from every node its
// NodeSelector selects (every node, for nil), and pods of several nodes
// may share it.
func (a *AllocationResult) NodeIndependent() bool {
	return a.Node == "" && len(a.Devices) > 0
}

// UsableOn reports whether a pod on node may use the allocation: the
// node it is pinned to, or a node its NodeSelector selects (any node for
// a node-independent allocation without one).
func (a *AllocationResult) UsableOn(node *Node) bool {
	if !a.NodeIndependent() {
		return a.Node == "" || a.Node == node.Name
	}
	if a.NodeSelector == nil {
		return true
	}
	for i := range a.NodeSelector {
		if a.NodeSelector[i].MatchesNode(node) {
			return true
		}
	}
	return false
}

// TargetsNode reports whether the slice's devices can be reached from
// node: its NodeName is the node, it is AllNodes, or a term of its
// NodeSelector matches (kube's NodeMatches).
func (s *ResourceSlice) TargetsNode(node *Node) bool {
	switch {
	case s.NodeName != "":
		return s.NodeName == node.Name
	case s.AllNodes:
		return true
	}
	for i := range s.NodeSelector {
		if s.NodeSelector[i].MatchesNode(node) {
			return true
		}
	}
	return false
}

// ReachableSlices returns the slices whose devices the node may reach,
// by name: its own and those that are not node-local (every one of them:
// the allocator picks those that select the node, and counts the others
// to judge a pool complete). Read-only.
func (ni *NodeInfo) ReachableSlices() []*ResourceSlice {
	if ni.net == nil || len(ni.net.slices) == 0 {
		return ni.Slices()
	}
	if ni.devices == nil || ni.devices.reach == nil {
		return ni.net.slices
	}
	return ni.devices.reach
}

// mergeSlices merges two lists sorted by name.
func mergeSlices(a, b []*ResourceSlice) []*ResourceSlice {
	out := make([]*ResourceSlice, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.SortStableFunc(out, func(x, y *ResourceSlice) int {
		switch {
		case x.Name < y.Name:
			return -1
		case x.Name > y.Name:
			return 1
		}
		return 0
	})
	return out
}

// NetworkVersion names what the claims have taken of the devices that
// are not node-local, in this snapshot: it changes whenever that changes
// (and comes back with a rollback), so a verdict on any node that
// depends on those devices is valid while it holds. It stays 0 in a
// cluster without such devices.
func (s *Snapshot) NetworkVersion() uint64 {
	if s.net == nil {
		return 0
	}
	return s.net.version
}

// NetworkClaim returns the allocation of a node-independent claim
// allocated in the cache, and how many pods reserve it over all nodes.
func (c *Cache) NetworkClaim(key string) (*AllocationResult, int, bool) {
	nc, ok := c.net.claims[key]
	if !ok {
		return nil, 0, false
	}
	return nc.alloc, int(nc.pods), true
}
