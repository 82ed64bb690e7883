package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrInconsistent is wrapped by every violation CheckConsistency finds.
var ErrInconsistent = errors.New("cluster: inconsistent cache")

// CheckConsistency verifies the cache's accounts from scratch: every node's
// totals equal the sum of its pods' requests, no node holds more than its
// allocatable of any resource or more pods than it allows, every pod sits
// on the node it names and on no other, and every pod the cache knows is
// on a node it knows. It returns the first violation, or nil.
func (c *Cache) CheckConsistency() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInconsistent, fmt.Sprintf(format, args...))
	}
	seen := make(map[PodKey]string, len(c.pods))
	var err error
	c.byName.Ascend(func(it *nodeItem) bool {
		ni := it.info
		if c.nodes[ni.node.Name] != it {
			err = bad("node %q is listed but not indexed", ni.node.Name)
			return false
		}
		var sum Resources
		var cpu, mem int64
		var prios []priorityCount
		for _, pi := range ni.pods {
			if where, dup := seen[pi.spec.key]; dup {
				err = bad("pod %s is on nodes %q and %q", pi.spec.key, where, ni.node.Name)
				return false
			}
			seen[pi.spec.key] = ni.node.Name
			if pi.node != ni.node.Name {
				err = bad("pod %s names node %q but is on %q", pi.spec.key, pi.node, ni.node.Name)
				return false
			}
			if c.pods[pi.spec.key] != pi {
				err = bad("pod %s on node %q is not the cache's record of it", pi.spec.key, ni.node.Name)
				return false
			}
			sum = sum.Add(pi.spec.request)
			nzCPU, nzMem := pi.NonZeroRequests()
			cpu += nzCPU
			mem += nzMem
			addPriority(&prios, pi.priority, 1)
		}
		switch {
		case !sum.Equal(ni.requested):
			err = bad("node %q accounts %v requested, its pods sum to %v", ni.node.Name, ni.requested, sum)
		case cpu != ni.nonZeroCPU || mem != ni.nonZeroMem:
			err = bad("node %q accounts %d/%d scoring cpu/memory, its pods sum to %d/%d", ni.node.Name, ni.nonZeroCPU, ni.nonZeroMem, cpu, mem)
		case !slices.Equal(prios, ni.priorities):
			err = bad("node %q counts its pods by priority as %v, they are %v", ni.node.Name, ni.priorities, prios)
		case !c.servedFits(sum, ni.node.Allocatable):
			err = bad("node %q holds %v, more than its allocatable %v", ni.node.Name, sum, ni.node.Allocatable)
		default:
			if problem := ni.claimProblem(); problem != "" {
				err = bad("node %q: %s", ni.node.Name, problem)
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if problem := c.netProblem(); problem != "" {
		return bad("devices no node owns: %s", problem)
	}
	if len(seen) != len(c.pods) {
		for key := range c.pods {
			if _, ok := seen[key]; !ok {
				return bad("pod %s is in the cache on no node", key)
			}
		}
	}
	if len(c.nodes) != c.byName.Len() {
		return bad("%d nodes indexed, %d listed", len(c.nodes), c.byName.Len())
	}
	return nil
}

// servedFits is Resources.Fits, but for the extended resources a device
// class serves that the node does not offer: devices are allocated for
// them (KEP-5004), the node's allocatable does not count them.
func (c *Cache) servedFits(sum, alloc Resources) bool {
	if sum.Fits(alloc) {
		return true
	}
	if !sum.HasScalars() || c.devices.classes == nil || c.devices.classes.Len() == 0 {
		return false
	}
	trimmed := sum
	trimmed.scalars = nil
	for sc := range sum.Scalars() {
		if alloc.Get(sc.Name) == 0 && c.servesExtended(sc.Name) {
			continue
		}
		trimmed = trimmed.Add(NewResources(0, 0, 0, sc))
	}
	return trimmed.Fits(alloc)
}

// servesExtended reports whether a device class serves an extended
// resource (Snapshot.DeviceClassFor).
func (c *Cache) servesExtended(r ResourceName) bool {
	found := false
	c.devices.classes.Ascend(func(dc *DeviceClass) bool {
		found = dc.ExtendedResourceName == r || ImplicitExtendedResourcePrefix+ResourceName(dc.Name) == r
		return !found
	})
	return found
}

// localPart is the part of an allocation the node's own accounts hold:
// its devices that are not network devices.
func (ni *NodeInfo) localPart(alloc *AllocationResult) *AllocationResult {
	if ni.net == nil || len(ni.net.pools) == 0 {
		return alloc
	}
	out := &AllocationResult{Node: alloc.Node}
	for _, d := range alloc.Devices {
		if !ni.net.isNet(d.DeviceID()) {
			out.Devices = append(out.Devices, d)
		}
	}
	return out
}

// netProblem checks the cluster's accounts of the devices no node owns:
// each node-independent claim counts the pods reserving it on every node,
// and the devices' use is what those claims and the pinned claims' network
// devices take.
func (c *Cache) netProblem() string {
	pods := map[string]int32{}
	want := map[DeviceID]DeviceUse{}
	for _, it := range c.nodes {
		ni := it.info
		if ni.devices == nil {
			continue
		}
		for _, cl := range ni.devices.claims {
			if cl.alloc.NodeIndependent() {
				pods[cl.key] += cl.pods
				continue
			}
			for i := range cl.alloc.Devices {
				if a := &cl.alloc.Devices[i]; !a.AdminAccess && c.net.isNet(a.DeviceID()) {
					accountDevice(&want, a.DeviceID(), a, 1)
				}
			}
		}
	}
	if len(pods) != len(c.net.claims) {
		return fmt.Sprintf("%d node-independent claims reserved on nodes, %d accounted", len(pods), len(c.net.claims))
	}
	for key, nc := range c.net.claims {
		if pods[key] != nc.pods {
			return fmt.Sprintf("claim %s counts %d pods, the nodes %d", key, nc.pods, pods[key])
		}
		for i := range nc.alloc.Devices {
			if a := &nc.alloc.Devices[i]; !a.AdminAccess {
				accountDevice(&want, a.DeviceID(), a, 1)
			}
		}
	}
	if len(want) != len(c.net.use) {
		return fmt.Sprintf("%d devices in use, the claims take %d", len(c.net.use), len(want))
	}
	for id, u := range want {
		got := c.net.use[id]
		if got.Exclusive != u.Exclusive || got.Shares != u.Shares || !maps.Equal(got.Capacity, u.Capacity) {
			return fmt.Sprintf("device %s: in use %+v, the claims take %+v", id, got, u)
		}
		if u.Exclusive > 1 {
			return fmt.Sprintf("device %s is held alone by %d claims", id, u.Exclusive)
		}
	}
	return ""
}

// claimProblem checks a node's claim accounts against its pods: each claim
// allocated there counts the node's pods that use it, one at least, and
// their devices' use is the sum of the allocations.
func (ni *NodeInfo) claimProblem() string {
	if ni.devices == nil || len(ni.devices.claims) == 0 {
		return ""
	}
	users := map[string]int32{}
	for _, pi := range ni.pods {
		p := pi.spec.pod
		for i := range p.ResourceClaims {
			users[p.ClaimKey(i)]++
		}
		if p.Requests.HasScalars() {
			users[p.ExtendedClaimKey()]++
		}
	}
	var want nodeDevices
	for _, c := range ni.devices.claims {
		if c.pods != users[c.key] || c.pods < 1 {
			return fmt.Sprintf("claim %s counts %d pods, %d of the node's pods use it", c.key, c.pods, users[c.key])
		}
		if ni.net != nil && c.alloc.NodeIndependent() {
			continue // the cluster's accounts (netProblem)
		}
		probe := NodeInfo{devices: &want}
		probe.accountClaim(ni.localPart(c.alloc), 1)
	}
	if len(want.use) != len(ni.devices.use) {
		return fmt.Sprintf("%d devices in use, the claims take %d", len(ni.devices.use), len(want.use))
	}
	for id, u := range want.use {
		got := ni.devices.use[id]
		if got.Exclusive != u.Exclusive || got.Shares != u.Shares || !maps.Equal(got.Capacity, u.Capacity) {
			return fmt.Sprintf("device %s: in use %+v, the claims take %+v", id, got, u)
		}
	}
	return ni.deviceProblem()
}

// deviceProblem checks the devices in use against the node's slices: at
// most one claim holds a device alone, and then none shares it; a shared
// one allows sharing and its shares fit its capacities; the counters the
// devices in use consume fit their pools' counter sets. A device in use
// that no slice has is one of a slice withdrawn since (RemoveResourceSlice):
// its claims keep it until their pods end, as Kubernetes keeps a claim's
// allocation, and nothing is left to check it against.
func (ni *NodeInfo) deviceProblem() string {
	devices := map[DeviceID]*Device{}
	type counterKey struct{ driver, pool, set, counter string }
	capacity, consumed := map[counterKey]Quantity{}, map[counterKey]Quantity{}
	for _, sl := range ni.devices.slices {
		for i := range sl.Devices {
			devices[DeviceID{sl.Driver, sl.Pool.Name, sl.Devices[i].Name}] = &sl.Devices[i]
		}
		for _, set := range sl.SharedCounters {
			for name, q := range set.Counters {
				capacity[counterKey{sl.Driver, sl.Pool.Name, set.Name, name}] = q
			}
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(ni.devices.use), DeviceID.Compare) {
		u, d := ni.devices.use[id], devices[id]
		switch {
		case d == nil:
			continue // its slice was withdrawn
		case u.Exclusive > 1:
			return fmt.Sprintf("device %s is held alone by %d claims", id, u.Exclusive)
		case u.Shares > 0 && !d.AllowMultipleAllocations:
			return fmt.Sprintf("device %s is shared but does not allow multiple allocations", id)
		case u.Exclusive > 0 && u.Shares > 0:
			return fmt.Sprintf("device %s is held alone and shared at once", id)
		}
		for name, q := range u.Capacity {
			if c, ok := d.Capacity[name]; !ok || q > c.Value {
				return fmt.Sprintf("device %s: the claims take %v of its capacity %s, more than it has", id, q, name)
			}
		}
		for _, cc := range d.ConsumesCounters {
			for name, q := range cc.Counters {
				consumed[counterKey{id.Driver, id.Pool, cc.CounterSet, name}] += q
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(consumed), func(a, b counterKey) int {
		return cmp.Or(cmp.Compare(a.driver, b.driver), cmp.Compare(a.pool, b.pool), cmp.Compare(a.set, b.set), cmp.Compare(a.counter, b.counter))
	}) {
		if consumed[k] > capacity[k] {
			return fmt.Sprintf("counter %s of set %s (%s/%s): the devices in use take %v, the set has %v", k.counter, k.set, k.driver, k.pool, consumed[k], capacity[k])
		}
	}
	return ""
}
