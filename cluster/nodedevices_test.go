package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// deviceState is a node's device accounts, for comparison.
type deviceState struct {
	use    map[DeviceID]DeviceUse
	claims map[string]int
}

func devicesOf(ni *NodeInfo) deviceState {
	st := deviceState{use: map[DeviceID]DeviceUse{}, claims: map[string]int{}}
	for id, u := range ni.DevicesInUse() {
		st.use[id] = u
	}
	if ni.devices != nil {
		for _, c := range ni.devices.claims {
			st.claims[c.key] = int(c.pods)
		}
	}
	return st
}

// gpuAlloc allocates devices of node n's pool: shared ones take 250 of
// their memory each.
func gpuAlloc(node string, devs []int, shared bool) *AllocationResult {
	a := &AllocationResult{Node: node}
	for _, d := range devs {
		r := DeviceRequestAllocation{Request: "gpu", Driver: "gpu.example.com", Pool: node, Device: fmt.Sprintf("gpu-%d", d)}
		if shared {
			r.ConsumedCapacity = map[QualifiedName]Quantity{"memory": 250}
		}
		a.Devices = append(a.Devices, r)
	}
	return a
}

// A claim reserved by two pods takes its devices once and frees them
// with the second; shared devices add up what their claims take.
func TestClaimsTakeDevicesUntilTheLastPod(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "n1", Allocatable: NewResources(8000, 8<<30, 110)}))
	require.NoError(t, c.ReserveClaim("n1", "default/train", gpuAlloc("n1", []int{0, 1}, false)))
	require.NoError(t, c.ReserveClaim("n1", "default/train", nil)) // a second pod of the shared claim
	require.NoError(t, c.ReserveClaim("n1", "default/infer-a", gpuAlloc("n1", []int{2}, true)))
	require.NoError(t, c.ReserveClaim("n1", "default/infer-b", gpuAlloc("n1", []int{2}, true)))
	ni, _ := c.Node("n1")
	u, ok := ni.DeviceUse(DeviceID{"gpu.example.com", "n1", "gpu-0"})
	require.True(t, ok)
	require.Equal(t, 1, u.Exclusive)
	u, _ = ni.DeviceUse(DeviceID{"gpu.example.com", "n1", "gpu-2"})
	require.Equal(t, map[QualifiedName]Quantity{"memory": 500}, u.Capacity)

	freed, err := c.UnreserveClaim("n1", "default/train")
	require.NoError(t, err)
	require.False(t, freed, "one pod still reserves it")
	freed, err = c.UnreserveClaim("n1", "default/train")
	require.NoError(t, err)
	require.True(t, freed)
	_, ok = ni.DeviceUse(DeviceID{"gpu.example.com", "n1", "gpu-0"})
	require.False(t, ok, "the last pod freed it")
	_, err = c.UnreserveClaim("n1", "default/train")
	require.ErrorIs(t, err, ErrClaim)
	require.ErrorIs(t, c.ReserveClaim("n1", "default/new", nil), ErrClaim, "a first reservation needs the allocation")
}

// Tentative claim reservations and unreservations roll back exactly, with
// the node's stamp, among pod reservations; the cache's accounts reach a
// fresh snapshot as they are.
func TestSnapshotClaimsRollBackExactly(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 5))
		c := NewCache()
		for i := range 3 {
			require.NoError(t, c.AddNode(Node{Name: fmt.Sprintf("n%d", i), Allocatable: NewResources(8000, 8<<30, 110)}))
		}
		for i := range 1 + r.IntN(4) {
			node := fmt.Sprintf("n%d", r.IntN(3))
			require.NoError(t, c.ReserveClaim(node, fmt.Sprintf("default/bound-%d", i), gpuAlloc(node, []int{r.IntN(4)}, r.IntN(2) == 0)))
		}
		snap := c.Snapshot()
		// a change of the cache after the snapshot was taken reaches it by
		// an update, which copies the changed node over its copy
		node := fmt.Sprintf("n%d", r.IntN(3))
		require.NoError(t, c.ReserveClaim(node, "default/late", gpuAlloc(node, []int{7}, false)))
		require.NoError(t, c.UpdateSnapshot(snap))
		var inCache [3]deviceState
		for i := range 3 {
			inCache[i] = devicesOf(mustNode(t, c, fmt.Sprintf("n%d", i)))
			require.Equal(t, inCache[i], devicesOf(snap.Node(i)), "seed %d: the snapshot copies the cache", seed)
		}
		var marks []Checkpoint
		var states [][3]deviceState
		var stamps [][3]uint64
		record := func() {
			marks = append(marks, snap.Checkpoint())
			var st [3]deviceState
			var sp [3]uint64
			for i := range 3 {
				st[i], sp[i] = devicesOf(snap.Node(i)), snap.Stamp(i)
			}
			states, stamps = append(states, st), append(stamps, sp)
		}
		record()
		for step := range 20 {
			node := r.IntN(3)
			if step == 10 {
				// the cache's changes stay out of the snapshot until it
				// is updated, which it refuses while tentative changes
				// are made
				for i := range 3 {
					require.Equal(t, inCache[i], devicesOf(mustNode(t, c, fmt.Sprintf("n%d", i))), "seed %d: tentative changes stay in the snapshot", seed)
				}
			}
			switch op := r.IntN(5); {
			case op <= 1:
				reserveRandomClaim(t, r, snap, node, 6)
			case op == 2:
				unreserveRandomClaim(t, r, snap, node)
			case op == 3:
				snap.Reserve(NewPodInfo(Pod{Name: fmt.Sprintf("p%d-%d", seed, step), Requests: NewResources(100, 0, 0)}), node)
			default:
				record()
			}
			checkClaimIndex(t, snap, seed)
		}
		for len(marks) > 0 {
			k := len(marks) - 1
			snap.Rollback(marks[k])
			for i := range 3 {
				require.Equal(t, states[k][i], devicesOf(snap.Node(i)), "seed %d: node %d after rolling back to mark %d", seed, i, k)
				require.Equal(t, stamps[k][i], snap.Stamp(i), "seed %d: node %d's stamp", seed, i)
			}
			marks, states, stamps = marks[:k], states[:k], stamps[:k]
			checkClaimIndex(t, snap, seed)
		}
		require.Zero(t, snap.Tentative())
		for i := range 3 {
			require.Equal(t, inCache[i], devicesOf(mustNode(t, c, fmt.Sprintf("n%d", i))), "seed %d: the snapshot's changes never reach the cache", seed)
		}
	}
}

// reserveRandomClaim reserves one of the claims default/c0..c<keys-1>:
// where it is allocated, as a pod sharing it must go where it is, or newly
// on node.
func reserveRandomClaim(t *testing.T, r *rand.Rand, snap *Snapshot, node, keys int) {
	t.Helper()
	key := fmt.Sprintf("default/c%d", r.IntN(keys))
	var alloc *AllocationResult
	if at, _, ok := snap.ClaimNode(key); ok {
		node = at
	} else {
		alloc = gpuAlloc(snap.Node(node).Name(), []int{r.IntN(4), 4 + r.IntN(4)}, r.IntN(2) == 0)
	}
	require.NoError(t, snap.ReserveClaim(node, key, alloc))
}

// unreserveRandomClaim unreserves one of node's claims, if it has any.
func unreserveRandomClaim(t *testing.T, r *rand.Rand, snap *Snapshot, node int) {
	t.Helper()
	if ni := snap.Node(node); ni.ClaimCount() > 0 {
		_, err := snap.UnreserveClaim(node, ni.devices.claims[r.IntN(ni.ClaimCount())].key)
		require.NoError(t, err)
	}
}

// checkClaimIndex compares ClaimNode with a scan of the nodes.
func checkClaimIndex(t *testing.T, snap *Snapshot, seed uint64) {
	t.Helper()
	want := map[string]int{}
	for i := range snap.Len() {
		if d := snap.Node(i).devices; d != nil {
			for _, c := range d.claims {
				want[c.key] = i
			}
		}
	}
	for _, key := range []string{"default/c0", "default/c1", "default/c2", "default/c3", "default/c4", "default/c5", "default/late", "default/bound-0"} {
		node, alloc, ok := snap.ClaimNode(key)
		w, wantOK := want[key]
		require.Equal(t, wantOK, ok, "seed %d: claim %s", seed, key)
		if ok {
			require.Equal(t, w, node, "seed %d: claim %s", seed, key)
			require.NotNil(t, alloc)
		}
	}
}

func mustNode(t *testing.T, c *Cache, name string) *NodeInfo {
	t.Helper()
	ni, ok := c.Node(name)
	require.True(t, ok)
	return ni
}

// Slices reach their node whenever it comes, stay sorted by name, and a
// change of them is a change of the node.
func TestSlicesFollowTheirNode(t *testing.T) {
	c := NewCache()
	slice := func(name, node string) ResourceSlice {
		return ResourceSlice{Name: name, Driver: "gpu.example.com", Pool: ResourcePool{Name: node, SliceCount: 2}, NodeName: node, Devices: []Device{{Name: "gpu-0"}}}
	}
	require.NoError(t, c.AddResourceSlice(slice("n1-b", "n1")))
	require.NoError(t, c.AddNode(Node{Name: "n1"}))
	gen := c.Generation()
	require.NoError(t, c.AddResourceSlice(slice("n1-a", "n1")))
	require.Greater(t, c.Generation(), gen)
	ni := mustNode(t, c, "n1")
	names := func() []string {
		var out []string
		for _, s := range ni.Slices() {
			out = append(out, s.Name)
		}
		return out
	}
	require.Equal(t, []string{"n1-a", "n1-b"}, names())
	require.ErrorIs(t, c.AddResourceSlice(slice("n1-a", "n2")), ErrSlice, "names are unique")
	shared := slice("pool", "")
	shared.AllNodes = true
	require.ErrorIs(t, c.AddResourceSlice(shared), ErrInvalidDevices, "slices of several nodes are not modelled")
	require.NoError(t, c.RemoveResourceSlice("n1-b"))
	require.Equal(t, []string{"n1-a"}, names())
	require.Equal(t, []string{"n1-a"}, slices.Collect(func(yield func(string) bool) {
		for s := range c.ResourceSlices() {
			if !yield(s.Name) {
				return
			}
		}
	}))
	require.ErrorIs(t, c.RemoveResourceSlice("n1-b"), ErrSlice)
	cp := c.Clone()
	require.NoError(t, cp.AddResourceSlice(slice("n1-c", "n1")))
	require.Len(t, ni.Slices(), 1, "a clone's slices are its own")
}

// The consistency check finds devices in use that the node's slices do
// not allow: a device no slice has, held alone twice, shared without
// allowing it, held and shared at once, shares over a capacity, and
// partitions over their counters; and passes what they allow.
func TestDeviceProblemFindsWhatSlicesDoNotAllow(t *testing.T) {
	id := func(d string) DeviceID { return DeviceID{"gpu.example.com", "n1", d} }
	slices := []*ResourceSlice{
		{Name: "n1-counters", Driver: "gpu.example.com", Pool: ResourcePool{Name: "n1", SliceCount: 2},
			SharedCounters: []CounterSet{{Name: "big", Counters: map[string]Quantity{"memory": 80}}}},
		{Name: "n1-gpus", Driver: "gpu.example.com", Pool: ResourcePool{Name: "n1", SliceCount: 2}, Devices: []Device{
			{Name: "whole"},
			{Name: "shared", AllowMultipleAllocations: true, Capacity: map[QualifiedName]DeviceCapacity{"memory": {Value: 40}}},
			{Name: "half-a", ConsumesCounters: []DeviceCounterConsumption{{CounterSet: "big", Counters: map[string]Quantity{"memory": 40}}}},
			{Name: "half-b", ConsumesCounters: []DeviceCounterConsumption{{CounterSet: "big", Counters: map[string]Quantity{"memory": 40}}}},
			{Name: "all", ConsumesCounters: []DeviceCounterConsumption{{CounterSet: "big", Counters: map[string]Quantity{"memory": 80}}}},
		}},
	}
	shares := func(q Quantity) map[QualifiedName]Quantity { return map[QualifiedName]Quantity{"memory": q} }
	for _, c := range []struct {
		name string
		use  map[DeviceID]DeviceUse
		want string
	}{
		{"what the slices allow", map[DeviceID]DeviceUse{id("whole"): {Exclusive: 1}, id("shared"): {Shares: 1, Capacity: shares(40)},
			id("half-a"): {Exclusive: 1}, id("half-b"): {Exclusive: 1}}, ""},
		{"a device of a withdrawn slice, still held", map[DeviceID]DeviceUse{id("gone"): {Exclusive: 2}, id("whole"): {Exclusive: 1}}, ""},
		{"a withdrawn device does not hide the others", map[DeviceID]DeviceUse{id("gone"): {Exclusive: 1}, id("whole"): {Exclusive: 2}}, "held alone by 2 claims"},
		{"held alone twice", map[DeviceID]DeviceUse{id("whole"): {Exclusive: 2}}, "held alone by 2 claims"},
		{"shared without allowing it", map[DeviceID]DeviceUse{id("whole"): {Shares: 1, Capacity: shares(1)}}, "does not allow multiple allocations"},
		{"held and shared", map[DeviceID]DeviceUse{id("shared"): {Exclusive: 1, Shares: 1, Capacity: shares(1)}}, "held alone and shared at once"},
		{"shares over the capacity", map[DeviceID]DeviceUse{id("shared"): {Shares: 1, Capacity: shares(41)}}, "more than it has"},
		{"partitions over the counters", map[DeviceID]DeviceUse{id("half-a"): {Exclusive: 1}, id("all"): {Exclusive: 1}}, "the devices in use take 120m, the set has 80m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ni := &NodeInfo{devices: &nodeDevices{slices: slices, use: c.use}}
			got := ni.deviceProblem()
			if c.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, c.want)
		})
	}
}
