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
	// Capacity sums what the claims sharing the device take of each of
	// its capacities (KEP-5075). Read-only: a change makes a new map.
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
	claims []nodeClaim      // by key
	use    map[DeviceID]DeviceUse
}

// clone copies the accounts (the slices and allocations are shared,
// read-only).
func (d *nodeDevices) clone() *nodeDevices {
	if d == nil {
		return nil
	}
	return &nodeDevices{slices: slices.Clone(d.slices), claims: slices.Clone(d.claims), use: maps.Clone(d.use)}
}

// Slices returns the slices published for the node, by name. Read-only.
func (ni *NodeInfo) Slices() []*ResourceSlice {
	if ni.devices == nil {
		return nil
	}
	return ni.devices.slices
}

// DeviceUse returns what the node's allocated claims take of a device.
func (ni *NodeInfo) DeviceUse(id DeviceID) (DeviceUse, bool) {
	if ni.devices == nil {
		return DeviceUse{}, false
	}
	u, ok := ni.devices.use[id]
	return u, ok
}

// EachDeviceInUse calls f for each device the node's claims take, in no
// particular order: for callers that build a set.
func (ni *NodeInfo) EachDeviceInUse(f func(DeviceID, DeviceUse)) {
	if ni.devices == nil {
		return
	}
	for id, u := range ni.devices.use {
		f(id, u)
	}
}

// DevicesInUse yields the devices the node's claims take, in DeviceID
// order.
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

// Claim returns the allocation of a claim allocated on the node and how
// many of the node's pods reserve it.
func (ni *NodeInfo) Claim(key string) (*AllocationResult, int, bool) {
	if ni.devices == nil {
		return nil, 0, false
	}
	if i, ok := ni.claimIndex(key); ok {
		c := &ni.devices.claims[i]
		return c.alloc, int(c.pods), true
	}
	return nil, 0, false
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
		return nil
	}
	if alloc == nil {
		return fmt.Errorf("%w %s: not allocated on node %q", ErrClaim, key, ni.node.Name)
	}
	d.claims = slices.Insert(d.claims, i, nodeClaim{key: key, alloc: alloc, pods: 1})
	ni.accountClaim(alloc, 1)
	return nil
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
	if d.claims[i].pods--; d.claims[i].pods > 0 {
		return false, nil
	}
	alloc := d.claims[i].alloc
	d.claims = slices.Delete(d.claims, i, i+1)
	ni.accountClaim(alloc, -1)
	return true, nil
}

// accountClaim adds (sign 1) or takes back (-1) what an allocation takes
// of the node's devices.
func (ni *NodeInfo) accountClaim(alloc *AllocationResult, sign int) {
	d := ni.devices
	if d.use == nil {
		d.use = map[DeviceID]DeviceUse{}
	}
	for i := range alloc.Devices {
		a := &alloc.Devices[i]
		if a.AdminAccess {
			continue // admin access takes nothing from other claims
		}
		id := a.DeviceID()
		u := d.use[id]
		if a.ConsumedCapacity == nil {
			u.Exclusive += sign
		} else {
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
		if u.Exclusive == 0 && u.Capacity == nil {
			delete(d.use, id)
		} else {
			d.use[id] = u
		}
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
}

// ErrSlice is wrapped by the errors of AddResourceSlice and
// RemoveResourceSlice.
var ErrSlice = errors.New("cluster: resource slice")

// AddResourceSlice publishes a slice of devices for its node (NodeName),
// which need not exist yet: its node has the devices from when it is
// added. Only node-local slices are modelled; a slice for several nodes
// (NodeSelector, AllNodes) is an error.
func (c *Cache) AddResourceSlice(s ResourceSlice) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.NodeName == "" {
		return fieldError(ErrInvalidDevices, "resourceslice "+s.Name, "spec", "only slices of one node (nodeName) are modelled")
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

// ResourceSlices yields the published slices by node name, then name.
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
	if err := it.info.reserveClaim(key, alloc); err != nil {
		return err
	}
	c.touch(it)
	return nil
}

// UnreserveClaim counts one pod fewer reserving the claim on the node (a
// pod ended); the last frees the claim's devices, and it reports whether
// it did.
func (c *Cache) UnreserveClaim(node, key string) (bool, error) {
	it, ok := c.nodes[node]
	if !ok {
		return false, fmt.Errorf("%w: node %q", ErrNodeNotFound, node)
	}
	freed, err := it.info.unreserveClaim(key)
	if err != nil {
		return false, err
	}
	c.touch(it)
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
// its allocation, counting tentative reservations.
func (s *Snapshot) ClaimNode(key string) (int, *AllocationResult, bool) {
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
