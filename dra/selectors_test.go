package dra

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

// CELSelectors remembers verdicts by selector and device: asked in any
// order, more selectors than it keeps recent, of two drivers (the
// attributes of the other are missing: a runtime error, not remembered),
// it answers as a fresh evaluation does.
func TestCELSelectorsRememberEachVerdict(t *testing.T) {
	devs := []cluster.Device{gpu("g0", "T4", "r0"), gpu("g1", "A100", "r0"), gpu("g2", "A100", "r1")}
	exprs := []string{`true`, `false`}
	for _, m := range []string{"T4", "A100", "H100"} {
		exprs = append(exprs, `device.attributes["gpu.example.com"].model == "`+m+`"`)
	}
	exprs = append(exprs, `device.driver == "gpu.example.com"`, `device.attributes["gpu.example.com"].pcieRoot == "r0"`)
	drivers := []string{"gpu.example.com", "other.example.com"}
	c := NewCELSelectors()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		expr, driver, d := exprs[rng.IntN(len(exprs))], drivers[rng.IntN(len(drivers))], &devs[rng.IntN(len(devs))]
		got, err := c.Match(expr, driver, d)
		want, wantErr := NewCELSelectors().Match(expr, driver, d)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "ask %d: %s of %s on %s", i, expr, driver, d.Name)
		require.Equal(t, want, got, "ask %d: %s of %s on %s", i, expr, driver, d.Name)
	}
	require.LessOrEqual(t, c.kept, len(exprs)*len(drivers)*len(devs))
}

// BenchmarkCELSelectorsRemembered: the class's selector and a request's
// asked of 6,000 devices (a thousand nodes' GPUs) in a scattered order,
// every verdict remembered, as a sweep's allocations ask them.
func BenchmarkCELSelectorsRemembered(b *testing.B) {
	devs := make([]cluster.Device, 6000)
	for i := range devs {
		devs[i] = gpu(fmt.Sprintf("g%d", i), []string{"T4", "A100", "V100"}[i%3], "r0")
	}
	class := `device.driver == "gpu.example.com"`
	request := `device.attributes["gpu.example.com"].model in ["A100", "V100"]`
	c := NewCELSelectors()
	for i := range devs {
		for _, e := range []string{class, request} {
			if _, err := c.Match(e, drv, &devs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i = (i + 2477) % len(devs)
		for k := range 8 { // a node's devices, one after the other
			d := &devs[(i+k)%len(devs)]
			if ok, _ := c.Match(class, drv, d); ok {
				c.Match(request, drv, d)
			}
		}
	}
}
