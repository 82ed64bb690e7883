package dra

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// huge is a quantity near the largest a Quantity holds.
const huge = cluster.Quantity(math.MaxInt64 / 10 * 6) // 0.6 of the most

func hugeShared(value cluster.Quantity, p *cluster.CapacityRequestPolicy) cluster.Device {
	d := gpu("g0", "a100", "r0")
	d.AllowMultipleAllocations = true
	d.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"memory": {Value: value, RequestPolicy: p}}
	return d
}

func hugeRequest(n cluster.Quantity) cluster.DeviceRequest {
	r := exact("gpu", 1)
	r.Exactly.Capacity = map[cluster.QualifiedName]cluster.Quantity{"memory": n}
	return r
}

// Sums of capacities near the largest Quantity never wrap around: what
// does not fit does not fit. Issue 48.
func TestCapacityArithmeticDoesNotOverflow(t *testing.T) {
	allocate := func(dev cluster.Device, st *AllocatedState, claims ...*cluster.ResourceClaim) bool {
		t.Helper()
		res, ok, err := Allocate(&Input{Claims: claims, Classes: gpuClass, Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", dev)},
			Node: node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		if ok {
			for _, r := range res {
				for _, d := range r.Devices {
					for _, c := range d.ConsumedCapacity {
						require.GreaterOrEqual(t, c, cluster.Quantity(0))
					}
				}
			}
		}
		return ok
	}
	top := cluster.Quantity(math.MaxInt64)
	// committed 0.6, asking 0.6 of a capacity of the most: does not fit
	st := &AllocatedState{}
	st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: "g0", ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"memory": huge}}, true)
	require.False(t, allocate(hugeShared(top, nil), st, claim("c", hugeRequest(huge))))
	// two claims of one pod, 0.6 each
	require.False(t, allocate(hugeShared(top, nil), nil, claim("c1", hugeRequest(huge)), claim("c2", hugeRequest(huge))))
	require.True(t, allocate(hugeShared(top, nil), nil, claim("c1", hugeRequest(huge)), claim("c2", hugeRequest(top-huge))))
	// a step that rounds past the most
	step := &cluster.CapacityRequestPolicy{ValidRange: &cluster.CapacityRange{Min: 0, Step: new(huge)}}
	require.False(t, allocate(hugeShared(top, step), nil, claim("c", hugeRequest(huge+1000))))
	require.True(t, allocate(hugeShared(top, step), nil, claim("c", hugeRequest(huge))))

	// the allocated state's sums saturate rather than wrap
	st = &AllocatedState{}
	for range 3 {
		st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: "g0", ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"memory": huge}}, true)
	}
	require.Equal(t, top, st.Shared[cluster.DeviceID{Driver: drv, Pool: "n1", Device: "g0"}]["memory"])
	require.False(t, allocate(hugeShared(top, nil), st, claim("c", hugeRequest(1))))
}

// hugeMIG is a counter of value total, and partitions consuming parts of
// it; committed partitions are allocated already.
func hugeMIG(total cluster.Quantity, parts ...cluster.Quantity) []*cluster.ResourceSlice {
	counters := nodeSlice("a-counters", "n1")
	counters.Pool.SliceCount = 2
	counters.SharedCounters = []cluster.CounterSet{{Name: "gpu0", Counters: map[string]cluster.Quantity{"memory": total}}}
	devs := nodeSlice("b-devices", "n1")
	devs.Pool.SliceCount = 2
	for i, m := range parts {
		d := gpu(fmt.Sprintf("mig%d", i), "a100", "r0")
		d.ConsumesCounters = []cluster.DeviceCounterConsumption{{CounterSet: "gpu0", Counters: map[string]cluster.Quantity{"memory": m}}}
		devs.Devices = append(devs.Devices, d)
	}
	return []*cluster.ResourceSlice{devs, counters}
}

// Shared counters near the largest Quantity never wrap around either:
// neither the use of this allocation's picks, nor what committed
// partitions leave. Issue 48.
func TestCounterArithmeticDoesNotOverflow(t *testing.T) {
	top := cluster.Quantity(math.MaxInt64)
	allocate := func(slices []*cluster.ResourceSlice, st *AllocatedState, count int64) (string, bool) {
		t.Helper()
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", count))}, Classes: gpuClass,
			Slices: slices, Node: node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return picked(res), ok
	}
	// two partitions of 0.6 of a counter of the most
	_, ok := allocate(hugeMIG(top, huge, huge), nil, 2)
	require.False(t, ok)
	got, ok := allocate(hugeMIG(top, huge, huge, top-huge), nil, 2)
	require.True(t, ok)
	require.Equal(t, "gpu=mig0 gpu=mig2", got)
	// four committed partitions of the most leave nothing of a counter of 1000
	_, ok = allocate(hugeMIG(1000, top, top, top, top, 1), exclusive("n1/mig0", "n1/mig1", "n1/mig2", "n1/mig3"), 1)
	require.False(t, ok)
}

// A requestPolicy's step rounds a request up, never down: near the
// largest Quantity, where Min plus whole steps no longer fits one, the
// amount is the largest Quantity (which fits no smaller capacity), never
// a wrapped, negative one that would fit anything. Kube's quantities do
// not wrap: the rounded amount is more than the capacity, and the device
// does not fit.
func TestStepRoundingNearTheMostDoesNotWrap(t *testing.T) {
	top := cluster.Quantity(math.MaxInt64)
	units := func(v int64) *cluster.Quantity { x := cluster.Quantity(v * 1000); return &x }
	tests := []struct {
		name    string
		r       cluster.CapacityRange
		request cluster.Quantity
		want    cluster.Quantity
	}{
		{name: "whole units past the most", r: cluster.CapacityRange{Min: huge, Step: units(1)}, request: top, want: top},
		{name: "a step past the most", r: cluster.CapacityRange{Min: huge, Step: units(7)}, request: top - 2000, want: top},
		{name: "a fraction of a unit past", r: cluster.CapacityRange{Min: 1000, Step: units(1)}, request: top - 500, want: top},
		{name: "just within", r: cluster.CapacityRange{Min: 1000, Step: units(1)}, request: top - 1807, want: top - 1807},
		{name: "the request itself on a step", r: cluster.CapacityRange{Min: huge, Step: units(1)}, request: top - 807, want: top - 807},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := roundUpRange(tt.request, &tt.r)
			require.Equal(t, tt.want, got)
			require.GreaterOrEqual(t, got, tt.request, "rounded down")
		})
	}

	// a capacity the request fits, but the rounded amount does not
	allocate := func(request cluster.Quantity) ([]cluster.AllocationResult, bool) {
		step := &cluster.CapacityRequestPolicy{ValidRange: &cluster.CapacityRange{Min: huge, Step: units(1)}}
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", hugeRequest(request))}, Classes: gpuClass,
			Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", hugeShared(top-500, step))},
			Node:   node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return res, ok
	}
	_, ok := allocate(top - 600)
	require.False(t, ok, "rounds up to more than the capacity")
	res, ok := allocate(top - 1600)
	require.True(t, ok)
	require.Equal(t, top-807, res[0].Devices[0].ConsumedCapacity["memory"])
}
