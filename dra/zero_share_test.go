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
	st := NodeState(ni)
	st.Remove(first) // as a preemption frees one of the two claims
	_, ok = allocate(st, "p", "part")
	require.False(t, ok, "the other share still holds the counters")
	st.Remove(second)
	_, ok = allocate(st, "p", "part")
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
