package dra

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// With Kubernetes' CEL, a class of one model and a request for memory by
// quantity pick the devices they select; a selector that does not compile
// is a compile error of the class, and one reading a missing attribute a
// runtime error.
func TestAllocateWithCELSelectors(t *testing.T) {
	withMemory := func(d cluster.Device, gib int64) cluster.Device {
		d.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"memory": {Value: cluster.Quantity(gib << 30 * 1000)}}
		return d
	}
	slice := nodeSlice("n1-gpus", "n1",
		withMemory(gpu("gpu-0", "T4", "r0"), 16), withMemory(gpu("gpu-1", "A100", "r0"), 40), withMemory(gpu("gpu-2", "A100", "r1"), 80))
	classes := map[string]*cluster.DeviceClass{
		"gpu":    {Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100"`}}},
		"broken": {Name: "broken", Selectors: []cluster.DeviceSelector{{CEL: `device.driver ==`}}},
		"typo":   {Name: "typo", Selectors: []cluster.DeviceSelector{{CEL: `device.attributes["gpu.example.com"].modle == "A100"`}}},
	}
	big := exact("big", 1, `device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0`)
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", big)}, Classes: classes, Slices: []*cluster.ResourceSlice{slice},
		Node: node("n1"), Allocated: &AllocatedState{}, Selectors: NewCELSelectors(), Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu-2", res[0].Devices[0].Device, "the A100 with 80Gi")

	for class, kind := range map[string]string{"broken": "CEL compile error", "typo": "CEL runtime error"} {
		req := exact("r", 1)
		req.Exactly.DeviceClassName = class
		_, _, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", req)}, Classes: classes, Slices: []*cluster.ResourceSlice{slice},
			Node: node("n1"), Allocated: &AllocatedState{}, Selectors: NewCELSelectors(), Features: DefaultFeatures()})
		require.Error(t, err, class)
		require.Contains(t, err.Error(), "class "+class+": selector #0: "+kind, class)
		if class == "broken" {
			require.True(t, errors.Is(err, ErrSelectorCompile))
		}
	}
}

// The devices a node's claims take are in use for the next allocation:
// two claims of two GPUs each on a node of three, the second cannot be
// allocated; freed, it can.
func TestNodeStateKeepsDevicesInUse(t *testing.T) {
	c := cluster.NewCache()
	require.NoError(t, c.AddNode(*node("n1")))
	slice := nodeSlice("n1-gpus", "n1", gpu("gpu-0", "A100", "r0"), gpu("gpu-1", "A100", "r0"), gpu("gpu-2", "A100", "r1"))
	require.NoError(t, c.AddResourceSlice(*slice))
	ni, _ := c.Node("n1")
	allocate := func(name string) ([]cluster.AllocationResult, bool) {
		res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim(name, exact("gpus", 2))}, Classes: gpuClass, Slices: ni.Slices(),
			Node: ni.Node(), Allocated: NodeState(ni), Selectors: &eqSelector{}, Features: DefaultFeatures()})
		require.NoError(t, err)
		return res, ok
	}
	first, ok := allocate("a")
	require.True(t, ok)
	require.Equal(t, "gpus=gpu-0 gpus=gpu-1", picked(first))
	require.NoError(t, c.ReserveClaim("n1", "default/a", &first[0]))
	_, ok = allocate("b")
	require.False(t, ok, "one GPU is left")
	_, err := c.UnreserveClaim("n1", "default/a")
	require.NoError(t, err)
	_, ok = allocate("b")
	require.True(t, ok)
}
