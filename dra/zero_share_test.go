package dra

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// A share of a device that consumes shared counters holds the counters
// even when it takes none of the device's capacities, as kube's allocated
// state counts a device with any share (IsDeviceAllocated): a device shared
// without capacities ("shared", 30 of the 40 counter) committed by one
// claim leaves 10, so a partition of 20 of the same counter set is refused;
// once the last share goes, it fits.
func TestZeroShareHoldsCounters(t *testing.T) {
	slices := migSlices(30, 20)
	devs := slices[0]
	devs.Devices[0].AllowMultipleAllocations = true
	devs.Devices[0].Attributes["model"] = str("shared")
	devs.Devices[1].Attributes["model"] = str("part")

	c := cluster.NewCache()
	require.NoError(t, c.AddNode(*node("n1")))
	for _, s := range slices {
		require.NoError(t, c.AddResourceSlice(*s))
	}
	ni, _ := c.Node("n1")
	allocate := func(st *AllocatedState, name, model string) ([]cluster.AllocationResult, bool) {
		t.Helper()
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim(name, exact("gpu", 1, "model="+model))}, Classes: gpuClass,
			Slices: ni.ReachableSlices(), Node: ni.Node(), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return res, ok
	}
	share := func(name string) *cluster.AllocationResult {
		t.Helper()
		res, ok := allocate(NodeState(ni), name, "shared")
		require.True(t, ok)
		require.Equal(t, "gpu=mig0", picked(res))
		require.NotNil(t, res[0].Devices[0].ConsumedCapacity, "a share")
		require.Empty(t, res[0].Devices[0].ConsumedCapacity, "taking nothing")
		require.NoError(t, c.ReserveClaim("n1", "default/"+name, &res[0]))
		return &res[0]
	}
	first := share("a")
	u, ok := ni.DeviceUse(cluster.DeviceID{Driver: drv, Pool: "n1", Device: "mig0"})
	require.True(t, ok, "a share taking nothing is a use of the device")
	require.Equal(t, 1, u.Shares)
	_, ok = allocate(NodeState(ni), "p", "part")
	require.False(t, ok, "30 of the 40 are held by the share")

	second := share("b")
	// as a preemption frees one of the two claims, then both
	_, ok = allocate(NodeStateWithout(ni, []*cluster.AllocationResult{first}), "p", "part")
	require.False(t, ok, "the other share still holds the counters")
	_, ok = allocate(NodeStateWithout(ni, []*cluster.AllocationResult{first, second}), "p", "part")
	require.True(t, ok, "no share left")

	for _, key := range []string{"default/a", "default/b"} {
		_, err := c.UnreserveClaim("n1", key)
		require.NoError(t, err)
	}
	_, ok = ni.DeviceUse(cluster.DeviceID{Driver: drv, Pool: "n1", Device: "mig0"})
	require.False(t, ok)
	_, ok = allocate(NodeState(ni), "p", "part")
	require.True(t, ok)
}

// Freed shares give back what they took of a shared device's capacity,
// and only that: of 40, two shares of 20 committed, one freed leaves room
// for 20, not 30.
func TestNodeStateWithoutGivesBackCapacity(t *testing.T) {
	c := cluster.NewCache()
	require.NoError(t, c.AddNode(*node("n1")))
	require.NoError(t, c.AddResourceSlice(*nodeSlice("s", "n1", sharedGPU(nil))))
	ni, _ := c.Node("n1")
	allocate := func(st *AllocatedState, name string, mem int64) ([]cluster.AllocationResult, bool) {
		t.Helper()
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim(name, memRequest(mem))}, Classes: gpuClass,
			Slices: ni.ReachableSlices(), Node: ni.Node(), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return res, ok
	}
	var held []*cluster.AllocationResult
	for _, name := range []string{"a", "b"} {
		res, ok := allocate(NodeState(ni), name, 20)
		require.True(t, ok)
		require.NoError(t, c.ReserveClaim("n1", "default/"+name, &res[0]))
		held = append(held, &res[0])
	}
	_, ok := allocate(NodeState(ni), "p", 1)
	require.False(t, ok, "full")
	_, ok = allocate(NodeStateWithout(ni, held[:1]), "p", 30)
	require.False(t, ok, "20 left")
	_, ok = allocate(NodeStateWithout(ni, held[:1]), "p", 20)
	require.True(t, ok)
	_, ok = allocate(NodeStateWithout(ni, held), "p", 40)
	require.True(t, ok, "both freed")
}
