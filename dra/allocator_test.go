package dra

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

func eightGPUs() *cluster.ResourceSlice {
	return nodeSlice("n1-gpus", "n1",
		gpu("g0", "a100", "r0"), gpu("g1", "a100", "r0"), gpu("g2", "h100", "r1"), gpu("g3", "a100", "r1"),
		gpu("g4", "a100", "r1"), gpu("g5", "h100", "r2"), gpu("g6", "a100", "r2"), gpu("g7", "a100", "r3"))
}

func withConstraints(c *cluster.ResourceClaim, k ...cluster.DeviceConstraint) *cluster.ResourceClaim {
	c.Spec.Constraints = k
	return c
}

func allOf(name string, sels ...string) cluster.DeviceRequest {
	r := exact(name, 0, sels...)
	r.Exactly.AllocationMode = cluster.DeviceAllocationAll
	return r
}

func TestAllocate(t *testing.T) {
	taint := func(d cluster.Device, effect cluster.DeviceTaintEffect) cluster.Device {
		d.Taints = []cluster.DeviceTaint{{Key: "broken", Value: "yes", Effect: effect}}
		return d
	}
	tolerating := exact("gpu", 1)
	tolerating.Exactly.Tolerations = []cluster.DeviceToleration{{Key: "broken", Operator: cluster.TolerationExists}}
	admin := exact("gpu", 1)
	admin.Exactly.AdminAccess = true
	fallback := cluster.DeviceRequest{Name: "gpu", FirstAvailable: []cluster.DeviceSubRequest{
		{Name: "big", ExactDeviceRequest: cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: 3, Selectors: []cluster.DeviceSelector{{CEL: "model=h100"}}}},
		{Name: "small", ExactDeviceRequest: cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2, Selectors: []cluster.DeviceSelector{{CEL: "model=a100"}}}},
	}}
	tests := []struct {
		name      string
		slices    []*cluster.ResourceSlice
		claims    []*cluster.ResourceClaim
		allocated *AllocatedState
		want      string // picks, or "" for cannot allocate
		wantErr   string
	}{{
		name:      "two of a model, one free: cannot allocate",
		slices:    []*cluster.ResourceSlice{nodeSlice("s", "n1", gpu("g0", "a100", "r0"), gpu("g1", "a100", "r0"), gpu("g2", "h100", "r0"))},
		claims:    []*cluster.ResourceClaim{claim("c", exact("gpu", 2, "model=a100"))},
		allocated: exclusive("n1/g0"),
	}, {
		name:   "exact count takes the lowest devices in order",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 3, "model=a100"))},
		want:   "gpu=g0 gpu=g1 gpu=g3",
	}, {
		name:      "in-use devices are skipped",
		slices:    []*cluster.ResourceSlice{eightGPUs()},
		claims:    []*cluster.ResourceClaim{claim("c", exact("gpu", 2, "model=a100"))},
		allocated: exclusive("n1/g0", "n1/g3"),
		want:      "gpu=g1 gpu=g4",
	}, {
		name:   "all mode takes every matching device",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c", allOf("gpu", "model=h100"))},
		want:   "gpu=g2 gpu=g5",
	}, {
		name:      "all mode fails when one is in use",
		slices:    []*cluster.ResourceSlice{eightGPUs()},
		claims:    []*cluster.ResourceClaim{claim("c", allOf("gpu", "model=h100"))},
		allocated: exclusive("n1/g5"),
	}, {
		name:   "all mode with no matching device cannot allocate",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c", allOf("gpu", "model=b200"))},
	}, {
		name:   "firstAvailable falls back to the second alternative",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c", fallback)},
		want:   "gpu/small=g0 gpu/small=g1",
	}, {
		name:   "matchAttribute keeps devices on one PCIe root",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{withConstraints(claim("c", exact("gpu", 3)), cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})},
		want:   "gpu=g2 gpu=g3 gpu=g4",
	}, {
		name:   "matchAttribute across two requests: same model",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{withConstraints(claim("c", exact("a", 1, "model=h100"), exact("b", 1)), cluster.DeviceConstraint{Requests: []string{"a", "b"}, MatchAttribute: drv + "/model"})},
		want:   "a=g2 b=g5",
	}, {
		name:   "distinctAttribute: one device per PCIe root",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{withConstraints(claim("c", exact("a", 1), exact("b", 1), exact("c", 1)), cluster.DeviceConstraint{DistinctAttribute: drv + "/pcieRoot"})},
		want:   "a=g0 b=g2 c=g5",
	}, {
		name:    "constraint violation in all mode is fatal",
		slices:  []*cluster.ResourceSlice{eightGPUs()},
		claims:  []*cluster.ResourceClaim{withConstraints(claim("c", allOf("gpu", "model=h100")), cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})},
		wantErr: "claim default/c, request gpu: cannot add device gpu.example.com/n1/g5 because a claim constraint would not be satisfied",
	}, {
		name:   "untolerated NoSchedule taint skips the device",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", taint(gpu("g0", "a100", "r0"), cluster.DeviceTaintNoSchedule), gpu("g1", "a100", "r0"))},
		claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))},
		want:   "gpu=g1",
	}, {
		name:   "untolerated NoExecute taint skips the device",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", taint(gpu("g0", "a100", "r0"), cluster.DeviceTaintNoExecute), gpu("g1", "a100", "r0"))},
		claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))},
		want:   "gpu=g1",
	}, {
		name:   "tolerated taint",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", taint(gpu("g0", "a100", "r0"), cluster.DeviceTaintNoSchedule), gpu("g1", "a100", "r0"))},
		claims: []*cluster.ResourceClaim{claim("c", tolerating)},
		want:   "gpu=g0",
	}, {
		name:   "None taint is ignored",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", taint(gpu("g0", "a100", "r0"), cluster.DeviceTaintNone))},
		claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))},
		want:   "gpu=g0",
	}, {
		name:      "admin access ignores devices in use",
		slices:    []*cluster.ResourceSlice{nodeSlice("s", "n1", gpu("g0", "a100", "r0"))},
		claims:    []*cluster.ResourceClaim{claim("c", admin)},
		allocated: exclusive("n1/g0"),
		want:      "gpu=g0",
	}, {
		name:   "an admin pick blocks a later claim of the same pod",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", gpu("g0", "a100", "r0"))},
		claims: []*cluster.ResourceClaim{claim("c1", admin), claim("c2", exact("gpu", 1))},
	}, {
		name:   "two claims of one pod get different devices",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c1", exact("gpu", 1, "model=h100")), claim("c2", exact("gpu", 1, "model=h100"))},
		want:   "gpu=g2; gpu=g5",
	}, {
		name:   "a later claim's failure backtracks into an earlier one",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{claim("c1", exact("gpu", 1)), claim("c2", exact("a", 2, "pcieRoot=r0"))},
		want:   "gpu=g2; a=g0 a=g1",
	}, {
		name:   "backtracking within a claim",
		slices: []*cluster.ResourceSlice{eightGPUs()},
		claims: []*cluster.ResourceClaim{withConstraints(claim("c", exact("a", 1), exact("b", 1, "model=h100")), cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})},
		want:   "a=g3 b=g2",
	}, {
		name:   "other nodes' slices are not reachable",
		slices: []*cluster.ResourceSlice{nodeSlice("s", "n2", gpu("g0", "a100", "r0"))},
		claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))},
	}, {
		name:    "more than 32 devices in a claim is fatal",
		slices:  []*cluster.ResourceSlice{eightGPUs()},
		claims:  []*cluster.ResourceClaim{claim("c", exact("a", 20), exact("b", 13))},
		wantErr: "claim default/c: number of requested devices 33 exceeds the claim limit of 32",
	}, {
		name:    "a selector error is fatal",
		slices:  []*cluster.ResourceSlice{eightGPUs()},
		claims:  []*cluster.ResourceClaim{claim("c", exact("gpu", 1, "boom"))},
		wantErr: "claim default/c: selector #0: CEL runtime error: no such key: missing",
	}, {
		name:    "a missing class is fatal",
		slices:  []*cluster.ResourceSlice{eightGPUs()},
		claims:  []*cluster.ResourceClaim{claim("c", cluster.DeviceRequest{Name: "x", Exactly: &cluster.ExactDeviceRequest{DeviceClassName: "tpu"}})},
		wantErr: `claim default/c, request x: could not retrieve device class tpu: deviceclass.resource.k8s.io "tpu" not found`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok, err := Allocate(&Input{Claims: tt.claims, Classes: gpuClass, Slices: tt.slices, Node: node("n1"),
				Allocated: tt.allocated, Selectors: &eqSelector{}, Features: DefaultFeatures()})
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.want == "" {
				require.False(t, ok, "allocated %s", picked(res))
				return
			}
			require.True(t, ok)
			require.Equal(t, tt.want, picked(res))
			for _, r := range res {
				require.Equal(t, "n1", r.Node)
			}
		})
	}
}

func TestAllocateAdminAccessResult(t *testing.T) {
	admin := exact("gpu", 1)
	admin.Exactly.AdminAccess = true
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", admin)}, Classes: gpuClass,
		Slices: []*cluster.ResourceSlice{eightGPUs()}, Node: node("n1"), Allocated: exclusive("n1/g0"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []cluster.DeviceRequestAllocation{{Request: "gpu", Driver: drv, Pool: "n1", Device: "g0", AdminAccess: true}}, res[0].Devices)

	f := DefaultFeatures()
	f.AdminAccess = false
	_, _, err = Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", admin)}, Classes: gpuClass,
		Slices: []*cluster.ResourceSlice{eightGPUs()}, Node: node("n1"), Selectors: &eqSelector{}, Features: f})
	require.EqualError(t, err, "claim default/c, request gpu: admin access is requested, but the feature is disabled")
}

func TestAllocatePools(t *testing.T) {
	in := func(slices []*cluster.ResourceSlice, r cluster.DeviceRequest) (string, bool, error) {
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", r)}, Classes: gpuClass, Slices: slices,
			Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
		return picked(res), ok, err
	}
	sliceOf := func(name string, gen, count int64, devs ...cluster.Device) *cluster.ResourceSlice {
		s := nodeSlice(name, "n1", devs...)
		s.Pool.Generation, s.Pool.SliceCount = gen, count
		return s
	}

	// An incomplete pool is skipped for ExactCount, fatal for All.
	incomplete := []*cluster.ResourceSlice{sliceOf("a", 1, 2, gpu("g0", "a100", "r0"))}
	_, ok, err := in(incomplete, exact("gpu", 1))
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = in(incomplete, allOf("gpu"))
	require.EqualError(t, err, "claim default/c, request gpu: asks for all devices, but resource pool gpu.example.com/n1 is currently being updated")

	// Completed by its second slice; slices are searched by name.
	got, ok, err := in([]*cluster.ResourceSlice{sliceOf("b", 1, 2, gpu("g1", "a100", "r0")), sliceOf("a", 1, 2, gpu("g0", "a100", "r0"))}, exact("gpu", 2))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu=g0 gpu=g1", got)

	// The highest generation replaces older slices.
	got, ok, err = in([]*cluster.ResourceSlice{sliceOf("old", 1, 1, gpu("g0", "a100", "r0")), sliceOf("new", 2, 1, gpu("g9", "a100", "r0"))}, exact("gpu", 1))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu=g9", got)

	// Duplicate device names make the pool invalid: node-local error when nothing fits, fatal for All.
	dup := []*cluster.ResourceSlice{sliceOf("a", 1, 2, gpu("g0", "a100", "r0")), sliceOf("b", 1, 2, gpu("g0", "a100", "r0"))}
	_, ok, err = in(dup, exact("gpu", 1))
	require.ErrorIs(t, err, ErrInvalidPools)
	require.False(t, ok)
	_, _, err = in(dup, allOf("gpu"))
	require.EqualError(t, err, "claim default/c, request gpu: asks for all devices, but resource pool gpu.example.com/n1 is currently invalid")

	// Pools are searched by driver, then pool name.
	other := nodeSlice("z", "n1", gpu("x0", "a100", "r0"))
	other.Driver = "a.example.com"
	got, _, err = in([]*cluster.ResourceSlice{eightGPUs(), other}, exact("gpu", 1))
	require.NoError(t, err)
	require.Equal(t, "gpu=x0", got)

	// Node selectors and AllNodes; devices every node reaches are not node-local.
	net := &cluster.ResourceSlice{Name: "net", Driver: drv, Pool: cluster.ResourcePool{Name: "fabric", Generation: 1, SliceCount: 1}, AllNodes: true, Devices: []cluster.Device{gpu("f0", "a100", "r0")}}
	sel := &cluster.ResourceSlice{Name: "rack", Driver: drv, Pool: cluster.ResourcePool{Name: "rack", Generation: 1, SliceCount: 1},
		NodeSelector: []cluster.SelectorTerm{{MatchExpressions: []cluster.SelectorRequirement{{Key: "kubernetes.io/hostname", Operator: cluster.SelectorIn, Values: []string{"n2"}}}}},
		Devices:      []cluster.Device{gpu("r0", "a100", "r0")}}
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))}, Classes: gpuClass, Slices: []*cluster.ResourceSlice{sel, net},
		Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu=f0", picked(res))
	require.Equal(t, "", res[0].Node)
	res, _, err = Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))}, Classes: gpuClass, Slices: []*cluster.ResourceSlice{sel, net},
		Node: node("n2"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.Equal(t, "gpu=f0", picked(res), "fabric sorts before rack")
}

func TestSelectorCache(t *testing.T) {
	ev := &eqSelector{}
	// Backtracking retries devices: each (device, request) is evaluated once.
	c := withConstraints(claim("c", exact("a", 2), exact("b", 1, "model=h100")), cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})
	_, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{c}, Classes: gpuClass, Slices: []*cluster.ResourceSlice{eightGPUs()},
		Node: node("n1"), Selectors: ev, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.LessOrEqual(t, ev.calls, 8*2+8*2)
}
