package dra

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// A claim may hold exactly MaxDevicesPerClaim (32) devices; one more is
// kube's error. Issue 48.
func TestClaimOfThirtyTwoDevicesAllocates(t *testing.T) {
	require.Equal(t, 32, MaxDevicesPerClaim)
	var devs []cluster.Device
	for i := range 33 {
		devs = append(devs, gpu(fmt.Sprintf("g%02d", i), "a100", "r0"))
	}
	in := func(reqs ...cluster.DeviceRequest) *Input {
		return &Input{Claims: []*cluster.ResourceClaim{claim("c", reqs...)}, Classes: gpuClass,
			Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", devs...)}, Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()}
	}
	res, ok, err := Allocate(in(exact("gpu", 32)))
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, res[0].Devices, 32)
	// split over requests too
	res, ok, err = Allocate(in(exact("a", 16), exact("b", 16)))
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, res[0].Devices, 32)

	_, _, err = Allocate(in(exact("gpu", 33)))
	require.EqualError(t, err, "claim default/c: number of requested devices 33 exceeds the claim limit of 32")
	_, _, err = Allocate(in(exact("a", 16), exact("b", 17)))
	require.EqualError(t, err, "claim default/c: number of requested devices 33 exceeds the claim limit of 32")
}

// Backtracking gives a partition's shared counters back: the first
// partition tried for r1 must be given up for r2 to match its PCIe root,
// and the second needs the counter the first took. Issue 48.
func TestBacktrackingGivesCountersBack(t *testing.T) {
	slices := hugeMIG(q(40), q(30), q(30), q(10)) // mig0, mig1, mig2
	roots := []string{"A", "B", "B"}
	for i, root := range roots {
		slices[0].Devices[i].Attributes["pcieRoot"] = str(root)
	}
	c := withConstraints(claim("c", exact("r1", 1), exact("r2", 1)), cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{c}, Classes: gpuClass, Slices: slices, Node: node("n1"),
		Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "r1=mig1 r2=mig2", picked(res))
}

// A partition allocated from another node's slice of the same pool uses
// up the pool's counters too. Issue 48.
func TestOtherNodesPartitionUsesThePoolsCounters(t *testing.T) {
	counters := &cluster.ResourceSlice{Name: "a-counters", Driver: drv, Pool: cluster.ResourcePool{Name: "shared", Generation: 1, SliceCount: 3},
		AllNodes: true, SharedCounters: []cluster.CounterSet{{Name: "gpu0", Counters: map[string]cluster.Quantity{"memory": q(40)}}}}
	part := func(name, node string) *cluster.ResourceSlice {
		d := gpu(name, "a100", "r0")
		d.ConsumesCounters = []cluster.DeviceCounterConsumption{{CounterSet: "gpu0", Counters: map[string]cluster.Quantity{"memory": q(30)}}}
		return &cluster.ResourceSlice{Name: "b-" + node, Driver: drv, Pool: cluster.ResourcePool{Name: "shared", Generation: 1, SliceCount: 3},
			NodeName: node, Devices: []cluster.Device{d}}
	}
	slices := []*cluster.ResourceSlice{counters, part("mig-n1", "n1"), part("mig-n2", "n2")}
	allocate := func(st *AllocatedState) bool {
		_, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))}, Classes: gpuClass, Slices: slices,
			Node: node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return ok
	}
	require.True(t, allocate(nil))
	require.False(t, allocate(exclusive("shared/mig-n2")), "n2's partition holds 30 of the 40")
}

// A device that allows multiple allocations and has no capacities is
// shared: its allocation is marked a share (an empty, non-nil
// ConsumedCapacity, kube's shareID), so that once committed the device
// stays open to the next claim's share, as in kube.
func TestShareOfDeviceWithoutCapacitiesStaysShareable(t *testing.T) {
	classes := map[string]*cluster.DeviceClass{"class-a": kClassMulti("class-a", kDriverA, true)}
	slices := []*cluster.ResourceSlice{kSlice("slice-1", "node-1", "pool-1", 1, kDriverA, kDev("device-1", multi()))}
	st := &AllocatedState{}
	for _, name := range []string{"claim-0", "claim-1", "claim-2"} {
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{kClaim(name, kReq("req-0", "class-a", 1))}, Classes: classes,
			Slices: slices, Node: kNode("node-1", "region-1"), Allocated: st, Selectors: NewCELSelectors(), Features: DefaultFeatures()})
		require.NoError(t, err)
		require.True(t, ok, name)
		a := &res[0].Devices[0]
		require.NotNil(t, a.ConsumedCapacity, "%s: a share", name)
		st.Add(a, a.ConsumedCapacity != nil) // as the cluster's accounts tell a share
	}
}
