package cluster

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

// The devices of a node and the claims allocated on it. A node's devices
// are those of the ResourceSlices published for it (NodeName); a claim
// allocated on the node takes its devices until the last pod that
// reserves it ends. Claims are counted per node like pods: reserving a
// claim is a change of the node (its generation, its snapshot stamp), and
// a snapshot's tentative reservations roll back exactly, so a gang's
// members allocate their devices together or not at all.

// ErrClaim is wrapped by the errors of claim reservations.
var ErrClaim = errors.New("cluster: resource claim")

// DeviceUse is what the claims allocated on a node take of one device.
type DeviceUse struct {
	// Exclusive counts the claims that hold the device alone (0 or 1 but
	// for admin access, which does not count).
	Exclusive int
	// Shares counts the claims that share the device (KEP-5075), whatever
	// they take: a share taking nothing still holds the device, and the
	// shared counters it consumes, as kube's allocated state does.
	Shares int
	// Capacity sums what the claims sharing the device take of each of
	// its capacities. Read-only: a change makes a new map.
	Capacity map[QualifiedName]Quantity
}

// nodeClaim is a claim allocated on a node.
type nodeClaim struct {
	key   string
	alloc *AllocationResult // read-only
	pods  int32             // pods of the node reserving it
}

// nodeDevices is a node's device accounts; nil on a node without slices
// or claims.
type nodeDevices struct {
	slices []*ResourceSlice // read-only, by name
	// reach are slices and the slices no node owns, by name (nil when
	// there are none of those); read-only
	reach  []*ResourceSlice
	claims []nodeClaim // by key
	use    map[DeviceID]DeviceUse
}

// clone copies the accounts (the slices and allocations are shared,
// read-only).
func (d *nodeDevices) clone() *nodeDevices {
	if d == nil {
		return nil
	}
	return &nodeDevices{slices: slices.Clone(d.slices), reach: d.reach, claims: slices.Clone(d.claims), use: maps.Clone(d.use)}
}

// Slices returns the slices published for the node, by name. Read-only.
func (ni *NodeInfo) Slices() []*ResourceSlice {
	if ni.devices == nil {
		return nil
	}
	return ni.devices.slices
}

// DeviceUse returns what the node's allocated claims take of a device,
// or, for a device no node owns, what the claims of every node take.
func (ni *NodeInfo) DeviceUse(id DeviceID) (DeviceUse, bool) {
	if ni.net.isNet(id) {
		u, ok := ni.net.use[id]
		return u, ok
	}
	if ni.devices == nil {
		return DeviceUse{}, false
	}
	u, ok := ni.devices.use[id]
	return u, ok
}

// EachDeviceInUse calls f for each device the node's claims take, and
// each device no node owns that any claim takes, in no particular order:
// for callers that build a set (the devices a pod on the node cannot
// have).
func (ni *NodeInfo) EachDeviceInUse(f func(DeviceID, DeviceUse)) {
	if ni.net != nil {
		for id, u := range ni.net.use {
			f(id, u)
		}
	}
	if ni.devices == nil {
		return
	}
	for id, u := range ni.devices.use {
		f(id, u)
	}
}

// DevicesInUse yields the devices the node's claims take, in DeviceID
// order; not the devices no node owns (EachDeviceInUse has those).
func (ni *NodeInfo) DevicesInUse() iter.Seq2[DeviceID, DeviceUse] {
	return func(yield func(DeviceID, DeviceUse) bool) {
		if ni.devices == nil {
			return
		}
		ids := slices.SortedFunc(maps.Keys(ni.devices.use), DeviceID.Compare)
		for _, id := range ids {
			if !yield(id, ni.devices.use[id]) {
				return
			}
		}
	}
}

// Claim returns the allocation of a claim reserved on the node and how
// many pods reserve it: the node's, or for a node-independent claim,
// those of every node (its reservedFor in Kubernetes).
func (ni *NodeInfo) Claim(key string) (*AllocationResult, int, bool) {
	if ni.devices == nil {
		return nil, 0, false
	}
	if i, ok := ni.claimIndex(key); ok {
		c := &ni.devices.claims[i]
		if nc, ok := ni.netClaim(c); ok {
			return c.alloc, int(nc.pods), true
		}
		return c.alloc, int(c.pods), true
	}
	return nil, 0, false
}

// netClaim returns the cluster's account of a node-independent claim.
func (ni *NodeInfo) netClaim(c *nodeClaim) (netClaim, bool) {
	if ni.net == nil || !c.alloc.NodeIndependent() {
		return netClaim{}, false
	}
	nc, ok := ni.net.claims[c.key]
	return nc, ok
}

// ClaimPods returns how many pods reserve an allocated claim, over all
// nodes, counting tentative reservations (0 when it is not allocated).
func (s *Snapshot) ClaimPods(key string) int {
	node, _, ok := s.ClaimNode(key)
	switch {
	case !ok:
		return 0
	case node < 0:
		return int(s.net.claims[key].pods)
	}
	_, pods, _ := s.nodes[node].Claim(key)
	return pods
}

// ClaimCount is the number of claims allocated on the node.
func (ni *NodeInfo) ClaimCount() int {
	if ni.devices == nil {
		return 0
	}
	return len(ni.devices.claims)
}

func (ni *NodeInfo) claimIndex(key string) (int, bool) {
	return slices.BinarySearchFunc(ni.devices.claims, key, func(c nodeClaim, k string) int { return strings.Compare(c.key, k) })
}

// reserveClaim counts one more pod reserving the claim on the node; the
// first allocates it there (alloc must then be set, and is kept).
func (ni *NodeInfo) reserveClaim(key string, alloc *AllocationResult) error {
	if ni.devices == nil {
		ni.devices = &nodeDevices{}
	}
	d := ni.devices
	i, ok := ni.claimIndex(key)
	if ok {
		d.claims[i].pods++
		ni.countNetClaim(key, d.claims[i].alloc, 1)
		return nil
	}
	if alloc == nil && ni.net != nil {
		// a node-independent claim allocated for a pod of another node
		if nc, ok := ni.net.claims[key]; ok && nc.alloc.UsableOn(&ni.node) {
			alloc = nc.alloc
		}
	}
	if alloc == nil {
		return fmt.Errorf("%w %s: not allocated on node %q", ErrClaim, key, ni.node.Name)
	}
	if ni.net != nil && alloc.NodeIndependent() {
		if nc, ok := ni.net.claims[key]; ok { // allocated already: that allocation
			d.claims = slices.Insert(d.claims, i, nodeClaim{key: key, alloc: nc.alloc, pods: 1})
			ni.countNetClaim(key, nc.alloc, 1)
			return nil
		}
	}
	d.claims = slices.Insert(d.claims, i, nodeClaim{key: key, alloc: alloc, pods: 1})
	if ni.net != nil && alloc.NodeIndependent() {
		if ni.net.claims == nil {
			ni.net.claims = map[string]netClaim{}
		}
		ni.net.claims[key] = netClaim{alloc: alloc, pods: 1}
		ni.net.changed()
	}
	ni.accountClaim(alloc, 1)
	return nil
}

// countNetClaim counts pods (1 or -1) more reserving a node-independent
// claim; it reports whether that was the claim's last pod (its devices
// are then to be freed).
func (ni *NodeInfo) countNetClaim(key string, alloc *AllocationResult, pods int32) bool {
	if ni.net == nil || !alloc.NodeIndependent() {
		return false
	}
	nc, ok := ni.net.claims[key]
	if !ok {
		return false
	}
	nc.pods += pods
	ni.net.changed()
	if nc.pods <= 0 {
		delete(ni.net.claims, key)
		return true
	}
	ni.net.claims[key] = nc
	return false
}

// unreserveClaim counts one pod fewer reserving the claim; the last frees
// its devices. It reports whether the claim was freed.
func (ni *NodeInfo) unreserveClaim(key string) (bool, error) {
	if ni.devices == nil {
		return false, fmt.Errorf("%w %s: not reserved on node %q", ErrClaim, key, ni.node.Name)
	}
	d := ni.devices
	i, ok := ni.claimIndex(key)
	if !ok {
		return false, fmt.Errorf("%w %s: not reserved on node %q", ErrClaim, key, ni.node.Name)
	}
	alloc := d.claims[i].alloc
	if d.claims[i].pods--; d.claims[i].pods > 0 {
		ni.countNetClaim(key, alloc, -1)
		return false, nil
	}
	d.claims = slices.Delete(d.claims, i, i+1)
	if ni.net != nil && alloc.NodeIndependent() {
		if _, ok := ni.net.claims[key]; ok {
			if !ni.countNetClaim(key, alloc, -1) {
				return false, nil // pods of other nodes still hold it
			}
		}
	}
	ni.accountClaim(alloc, -1)
	return true, nil
}

// accountClaim adds (sign 1) or takes back (-1) what an allocation takes
// of the node's devices.
func (ni *NodeInfo) accountClaim(alloc *AllocationResult, sign int) {
	d := ni.devices
	for i := range alloc.Devices {
		a := &alloc.Devices[i]
		if a.AdminAccess {
			continue // admin access takes nothing from other claims
		}
		id := a.DeviceID()
		use := &d.use
		if ni.net.isNet(id) {
			use = &ni.net.use
			ni.net.changed()
		}
		accountDevice(use, id, a, sign)
	}
}

// accountDevice adds (sign 1) or takes back (-1) what one allocated device
// takes.
func accountDevice(use *map[DeviceID]DeviceUse, id DeviceID, a *DeviceRequestAllocation, sign int) {
	if *use == nil {
		*use = map[DeviceID]DeviceUse{}
	}
	m := *use
	u := m[id]
	if a.ConsumedCapacity == nil {
		u.Exclusive += sign
	} else {
		u.Shares += sign
		c := maps.Clone(u.Capacity)
		if c == nil {
			c = map[QualifiedName]Quantity{}
		}
		for name, q := range a.ConsumedCapacity {
			if sign > 0 {
				c[name] = c[name].SaturatingAdd(q)
			} else {
				c[name] = c[name].SaturatingSub(q)
			}
			if c[name] == 0 {
				delete(c, name)
			}
		}
		if len(c) == 0 {
			c = nil
		}
		u.Capacity = c
	}
	if u.Exclusive == 0 && u.Shares == 0 {
		delete(m, id)
	} else {
		m[id] = u
	}
}

// setSlices replaces the node's slices (sorted by name).
func (ni *NodeInfo) setSlices(list []*ResourceSlice) {
	if ni.devices == nil {
		if len(list) == 0 {
			return
		}
		ni.devices = &nodeDevices{}
	}
	ni.devices.slices = list
	ni.devices.reach = nil
	if ni.net != nil && len(ni.net.slices) > 0 && len(list) > 0 {
		ni.devices.reach = mergeSlices(list, ni.net.slices)
	}
}

// ErrSlice is wrapped by the errors of AddResourceSlice and
// RemoveResourceSlice.
var ErrSlice = errors.New("cluster: resource slice")

// AddResourceSlice publishes a slice of devices for its node (NodeName),
// which need not exist yet: its node has the devices from when it is
// added. A slice for several nodes (NodeSelector, AllNodes) publishes
// devices that every node it selects reaches, and whose use every node
// sees (netdevices.go).
func (c *Cache) AddResourceSlice(s ResourceSlice) error {
	if err := s.Validate(); err != nil {
		return err
	}
	for _, list := range c.slices {
		for _, o := range list {
			if o.Name == s.Name {
				return fmt.Errorf("%w %q: already published", ErrSlice, s.Name)
			}
		}
	}
	cp := s.clone()
	list := slices.Clone(c.slices[s.NodeName])
	i, _ := slices.BinarySearchFunc(list, s.Name, func(o *ResourceSlice, name string) int { return strings.Compare(o.Name, name) })
	list = slices.Insert(list, i, &cp)
	if c.slices == nil {
		c.slices = map[string][]*ResourceSlice{}
	}
	c.slices[s.NodeName] = list
	if s.NodeName == "" {
		pools := maps.Clone(c.net.pools)
		if pools == nil {
			pools = map[DeviceID]bool{}
		}
		pools[DeviceID{Driver: s.Driver, Pool: s.Pool.Name}] = true
		c.net.pools = pools
	}
	c.setNodeSlices(s.NodeName)
	return nil
}

// RemoveResourceSlice withdraws a slice. Claims allocated from its devices
// keep them until they are released, as in Kubernetes.
func (c *Cache) RemoveResourceSlice(name string) error {
	for node, list := range c.slices {
		for i, o := range list {
			if o.Name == name {
				list = slices.Delete(slices.Clone(list), i, i+1)
				if len(list) == 0 {
					delete(c.slices, node)
				} else {
					c.slices[node] = list
				}
				c.setNodeSlices(node)
				return nil
			}
		}
	}
	return fmt.Errorf("%w %q: not published", ErrSlice, name)
}

// ResourceSlices yields the published slices by node name (those no node
// owns first), then name.
func (c *Cache) ResourceSlices() iter.Seq[*ResourceSlice] {
	return func(yield func(*ResourceSlice) bool) {
		for _, node := range slices.Sorted(maps.Keys(c.slices)) {
			for _, s := range c.slices[node] {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// setNodeSlices gives an existing node its current slices: a change of
// the node.
func (c *Cache) setNodeSlices(node string) {
	if node == "" { // slices no node owns: every node reaches them
		c.net.slices = c.slices[""]
		c.net.changed()
		for _, it := range c.nodes {
			it.info.setSlices(c.slices[it.info.node.Name])
			c.touch(it)
		}
		c.nodeVersion++
		return
	}
	if it, ok := c.nodes[node]; ok {
		it.info.setSlices(c.slices[node])
		c.nodeVersion++ // the devices a node offers are part of what it is
		c.touch(it)
	}
}

// ReserveClaim counts a pod reserving the claim on the node, as a bound
// pod does; the first allocates it there with alloc.
func (c *Cache) ReserveClaim(node, key string, alloc *AllocationResult) error {
	it, ok := c.nodes[node]
	if !ok {
		return fmt.Errorf("%w: node %q", ErrNodeNotFound, node)
	}
	before := c.net.version
	if err := it.info.reserveClaim(key, alloc); err != nil {
		return err
	}
	c.touch(it)
	c.touchNet(before, it)
	return nil
}

// touchNet records a change of every node but it when the use of the
// devices no node owns changed since version before: each node's answers
// for a pod may change with it, and what remembers them by node (the
// scheduler's shortcuts) must see every node changed. O(nodes), only when
// network devices are taken or freed.
func (c *Cache) touchNet(before uint64, it *nodeItem) {
	if c.net.version == before {
		return
	}
	for _, o := range c.nodes {
		if o != it {
			c.touch(o)
		}
	}
}

// UnreserveClaim counts one pod fewer reserving the claim on the node (a
// pod ended); the last frees the claim's devices, and it reports whether
// it did.
func (c *Cache) UnreserveClaim(node, key string) (bool, error) {
	it, ok := c.nodes[node]
	if !ok {
		return false, fmt.Errorf("%w: node %q", ErrNodeNotFound, node)
	}
	before := c.net.version
	freed, err := it.info.unreserveClaim(key)
	if err != nil {
		return false, err
	}
	c.touch(it)
	c.touchNet(before, it)
	return freed, nil
}

// clone returns a deep copy of the slice.
func (s ResourceSlice) clone() ResourceSlice {
	if s.NodeSelector != nil {
		terms := make([]SelectorTerm, len(s.NodeSelector))
		for i, t := range s.NodeSelector {
			terms[i] = t.clone()
		}
		s.NodeSelector = terms
	}
	s.SharedCounters = slices.Clone(s.SharedCounters)
	for i := range s.SharedCounters {
		s.SharedCounters[i].Counters = maps.Clone(s.SharedCounters[i].Counters)
	}
	s.Devices = slices.Clone(s.Devices)
	for i := range s.Devices {
		d := &s.Devices[i]
		d.Attributes = maps.Clone(d.Attributes)
		d.Capacity = maps.Clone(d.Capacity)
		d.ConsumesCounters = slices.Clone(d.ConsumesCounters)
		for j := range d.ConsumesCounters {
			d.ConsumesCounters[j].Counters = maps.Clone(d.ConsumesCounters[j].Counters)
		}
		d.Taints = slices.Clone(d.Taints)
	}
	return s
}

// claimIndex finds the node a claim is allocated on in a snapshot. It is
// made on first use and follows the change feed, so tentative
// reservations (a gang's earlier member allocating a claim the next
// shares) are found as soon as they are made.
type claimIndex struct {
	valid  bool
	pos    FeedPos
	byKey  map[string]int // claim -> node index
	ofNode [][]string     // per node index: its claims as indexed
}

// ClaimNode returns the index of the node the claim is allocated on, with
// its allocation, counting tentative reservations; the index is -1 for a
// node-independent claim (AllocationResult.NodeIndependent), which the
// pods of every node its allocation selects may use.
func (s *Snapshot) ClaimNode(key string) (int, *AllocationResult, bool) {
	if s.net != nil {
		if nc, ok := s.net.claims[key]; ok {
			return -1, nc.alloc, true
		}
	}
	s.syncClaimIndex()
	i, ok := s.claimIdx.byKey[key]
	if !ok {
		return -1, nil, false
	}
	alloc, _, _ := s.nodes[i].Claim(key)
	return i, alloc, true
}

// syncClaimIndex brings the claim index up to date with the nodes.
func (s *Snapshot) syncClaimIndex() {
	ix := &s.claimIdx
	changed, ok := s.NodesChangedSince(ix.pos)
	if !ix.valid || !ok || len(ix.ofNode) != len(s.nodes) {
		ix.byKey, ix.ofNode = map[string]int{}, make([][]string, len(s.nodes))
		for i := range s.nodes {
			ix.index(s, i)
		}
		ix.valid = true
	} else {
		for _, i := range changed {
			ix.index(s, int(i))
		}
	}
	ix.pos = s.FeedPos()
}

// index replaces node i's claims in the index.
func (ix *claimIndex) index(s *Snapshot, i int) {
	for _, key := range ix.ofNode[i] {
		if ix.byKey[key] == i {
			delete(ix.byKey, key)
		}
	}
	ix.ofNode[i] = ix.ofNode[i][:0]
	if d := s.nodes[i].devices; d != nil {
		for _, c := range d.claims {
			if s.net != nil && c.alloc.NodeIndependent() {
				continue // ClaimNode finds it in the cluster's accounts
			}
			ix.byKey[c.key] = i
			ix.ofNode[i] = append(ix.ofNode[i], c.key)
		}
	}
}

// releaseClaims takes back the reservations a pod leaving the node held
// on its claims (those the node holds: a pod placed without its claims
// reserved, as a test may place one, holds none).
func (ni *NodeInfo) releaseClaims(p *Pod) {
	if ni.devices == nil {
		return
	}
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		if _, ok := ni.claimIndex(key); ok {
			_, _ = ni.unreserveClaim(key) // held: cannot fail
		}
	}
	if p.Requests.HasScalars() {
		if key := p.ExtendedClaimKey(); len(ni.devices.claims) > 0 {
			if _, ok := ni.claimIndex(key); ok {
				_, _ = ni.unreserveClaim(key)
			}
		}
	}
}

// Claims yields the claims allocated on the node, by key, with their
// allocations and how many of the node's pods reserve each.
func (ni *NodeInfo) Claims() iter.Seq2[string, *AllocationResult] {
	return func(yield func(string, *AllocationResult) bool) {
		if ni.devices == nil {
			return
		}
		for _, c := range ni.devices.claims {
			if !yield(c.key, c.alloc) {
				return
			}
		}
	}
}
