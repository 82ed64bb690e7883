package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// netSlice is a slice of one network GPU every node reaches (allNodes),
// or, with sel, the nodes sel selects.
func netSlice(sel ...SelectorRequirement) ResourceSlice {
	s := ResourceSlice{Name: "fabric", Driver: "net.example.com", Pool: ResourcePool{Name: "fabric", SliceCount: 1},
		Devices: []Device{{Name: "ngpu-0"}}}
	if len(sel) == 0 {
		s.AllNodes = true
	} else {
		s.NodeSelector = []SelectorTerm{{MatchExpressions: sel}}
	}
	return s
}

var netGPU = DeviceID{Driver: "net.example.com", Pool: "fabric", Device: "ngpu-0"}

func netAlloc(sel ...SelectorRequirement) *AllocationResult {
	a := &AllocationResult{Devices: []DeviceRequestAllocation{{Request: "gpu", Driver: netGPU.Driver, Pool: netGPU.Pool, Device: netGPU.Device}}}
	if len(sel) > 0 {
		a.NodeSelector = []SelectorTerm{{MatchExpressions: sel}}
	}
	return a
}

// A device of a slice no node owns (allNodes, or a nodeSelector) is one
// device every node sees: a claim taking it for a pod of node A takes it
// from node B too; a pod of B may share the claim; the devices are freed
// with the claim's last pod, wherever it ran. Issue 48.
func TestNodeIndependentDeviceUse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		slice ResourceSlice
		alloc *AllocationResult
		// usable on n2 (n1 and n2 are in zone a, n3 in zone b)
		onN3 bool
	}{
		{"allNodes", netSlice(), netAlloc(), true},
		{"nodeSelector", netSlice(req("zone", SelectorIn, "a")), netAlloc(req("zone", SelectorIn, "a")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache()
			for _, n := range []Node{node("n1").label("zone", "a").obj(), node("n2").label("zone", "a").obj(), node("n3").label("zone", "b").obj()} {
				require.NoError(t, c.AddNode(n))
			}
			require.NoError(t, c.AddResourceSlice(tc.slice))
			n1, _ := c.Node("n1")
			n2, _ := c.Node("n2")
			n3, _ := c.Node("n3")
			require.Len(t, n2.ReachableSlices(), 1, "every node lists the slice; the allocator picks those selecting it")
			require.Equal(t, tc.onN3, tc.slice.TargetsNode(n3.Node()))

			require.NoError(t, c.ReserveClaim("n1", "ml/c", tc.alloc))
			for _, ni := range []*NodeInfo{n1, n2, n3} {
				u, ok := ni.DeviceUse(netGPU)
				require.True(t, ok, ni.Node().Name)
				require.Equal(t, 1, u.Exclusive, ni.Node().Name)
			}
			alloc, pods, ok := c.NetworkClaim("ml/c")
			require.True(t, ok)
			require.Equal(t, 1, pods)
			require.True(t, alloc.UsableOn(n2.Node()))
			require.Equal(t, tc.onN3, alloc.UsableOn(n3.Node()))

			// a pod of n2 shares the claim: no allocation of its own
			require.NoError(t, c.ReserveClaim("n2", "ml/c", nil))
			if !tc.onN3 {
				require.Error(t, c.ReserveClaim("n3", "ml/c", nil), "n3 does not reach the device")
			}
			_, pods, _ = n2.Claim("ml/c")
			require.Equal(t, 2, pods, "reservedFor counts both nodes' pods")

			freed, err := c.UnreserveClaim("n1", "ml/c")
			require.NoError(t, err)
			require.False(t, freed, "the pod of n2 still holds it")
			_, ok = n3.DeviceUse(netGPU)
			require.True(t, ok)
			freed, err = c.UnreserveClaim("n2", "ml/c")
			require.NoError(t, err)
			require.True(t, freed)
			for _, ni := range []*NodeInfo{n1, n2, n3} {
				_, ok := ni.DeviceUse(netGPU)
				require.False(t, ok, ni.Node().Name)
			}
			_, _, ok = c.NetworkClaim("ml/c")
			require.False(t, ok)
		})
	}
}

// A snapshot's tentative allocation of a network device is seen by every
// node of the snapshot, changes NetworkVersion, and rolls back exactly,
// the version included; the cache is untouched until it commits. Issue 48.
func TestNodeIndependentSnapshotRollback(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(node("n1").obj()))
	require.NoError(t, c.AddNode(node("n2").obj()))
	require.NoError(t, c.AddResourceSlice(netSlice()))
	s := c.Snapshot()
	v0 := s.NetworkVersion()
	cp := s.Checkpoint()
	require.NoError(t, s.ReserveClaim(0, "ml/c", netAlloc()))
	require.NoError(t, s.ReserveClaim(1, "ml/c", nil), "shared by a pod of the other node")
	require.NotEqual(t, v0, s.NetworkVersion())
	_, ok := s.Node(1).DeviceUse(netGPU)
	require.True(t, ok)
	node, alloc, ok := s.ClaimNode("ml/c")
	require.True(t, ok)
	require.Equal(t, -1, node, "a node-independent claim has no node")
	require.True(t, alloc.NodeIndependent())
	require.Equal(t, 2, s.ClaimPods("ml/c"))
	cn, _ := c.Node("n2")
	_, ok = cn.DeviceUse(netGPU)
	require.False(t, ok, "the cache is untouched")

	s.Rollback(cp)
	require.Equal(t, v0, s.NetworkVersion())
	_, ok = s.Node(1).DeviceUse(netGPU)
	require.False(t, ok)
	_, _, ok = s.ClaimNode("ml/c")
	require.False(t, ok)

	// committed to the cache, a fresh snapshot sees it on every node
	require.NoError(t, c.ReserveClaim("n1", "ml/c", netAlloc()))
	require.NoError(t, c.UpdateSnapshot(s))
	_, ok = s.Node(1).DeviceUse(netGPU)
	require.True(t, ok)
	require.Equal(t, 1, s.ClaimPods("ml/c"))
}
