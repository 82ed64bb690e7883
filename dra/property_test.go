package dra

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// TestAllocateAgainstBruteForce: on tiny random inputs (ExactCount, no
// constraints) the allocator finds an allocation iff some assignment of
// devices to the requests' slots is valid, and picks the first in kube's
// search order: lexicographic over the slots (claims, requests, devices
// in order), each slot's device by its position in the search order.
func TestAllocateAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	models := []string{"a", "b"}
	var reused Allocator // answers as Allocate does, trial after trial
	for trial := range 3000 {
		// Up to 4 devices in one or two pools (search order: p0, then p1).
		nDev := 1 + rng.IntN(4)
		split := rng.IntN(nDev + 1)
		var order []cluster.DeviceID
		var model []string
		mk := func(pool string, from, to int) *cluster.ResourceSlice {
			s := nodeSlice("s-"+pool, "n1")
			s.Pool.Name = pool
			for i := from; i < to; i++ {
				m := models[rng.IntN(2)]
				s.Devices = append(s.Devices, gpu(fmt.Sprintf("d%d", i), m, "r"))
				order = append(order, cluster.DeviceID{Driver: drv, Pool: pool, Device: fmt.Sprintf("d%d", i)})
				model = append(model, m)
			}
			return s
		}
		// Listed p1 first: the allocator must sort.
		var sl []*cluster.ResourceSlice
		p0, p1 := mk("p0", 0, split), mk("p1", split, nDev)
		for _, s := range []*cluster.ResourceSlice{p1, p0} {
			if len(s.Devices) > 0 {
				sl = append(sl, s)
			}
		}
		st := &AllocatedState{}
		inUse := make([]bool, nDev)
		for i := range nDev {
			if rng.IntN(4) == 0 {
				inUse[i] = true
				st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: order[i].Pool, Device: order[i].Device}, false)
			}
		}
		// Up to two claims of up to two requests, each for 1-2 devices of
		// any model or of one.
		type slot struct{ want string } // "" any model
		var slots []slot
		var claims []*cluster.ResourceClaim
		for c := range 1 + rng.IntN(2) {
			var reqs []cluster.DeviceRequest
			for r := range 1 + rng.IntN(2) {
				n := 1 + rng.IntN(2)
				want := ""
				var sels []string
				if rng.IntN(2) == 0 {
					want = models[rng.IntN(2)]
					sels = []string{"model=" + want}
				}
				reqs = append(reqs, exact(fmt.Sprintf("r%d", r), int64(n), sels...))
				for range n {
					slots = append(slots, slot{want})
				}
			}
			claims = append(claims, claim(fmt.Sprintf("c%d", c), reqs...))
		}
		// Slot boundaries of requests: picks within one are increasing.
		var sameRequestAsPrev []bool
		for _, c := range claims {
			for _, r := range c.Spec.Requests {
				for i := range r.Exactly.Count {
					sameRequestAsPrev = append(sameRequestAsPrev, i > 0)
				}
			}
		}
		var best []int
		assign := make([]int, len(slots))
		var walk func(k int)
		walk = func(k int) {
			if k == len(slots) {
				for i := range assign {
					d := assign[i]
					if inUse[d] || slices.Contains(assign[:i], d) || (slots[i].want != "" && model[d] != slots[i].want) ||
						(sameRequestAsPrev[i] && assign[i-1] > d) {
						return
					}
				}
				if best == nil || slices.Compare(assign, best) < 0 {
					best = slices.Clone(assign)
				}
				return
			}
			for d := range nDev {
				assign[k] = d
				walk(k + 1)
			}
		}
		walk(0)

		in := &Input{Claims: claims, Classes: gpuClass, Slices: sl, Node: node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()}
		res, ok, err := Allocate(in)
		require.NoError(t, err)
		again, okAgain, err := reused.Allocate(in)
		require.NoError(t, err)
		require.Equal(t, ok, okAgain, "trial %d: a reused Allocator", trial)
		require.Equal(t, res, again, "trial %d: a reused Allocator", trial)
		fits, err := reused.Fits(in)
		require.NoError(t, err)
		require.Equal(t, ok, fits, "trial %d: Fits", trial)
		require.Equal(t, best != nil, ok, "trial %d", trial)
		if !ok {
			continue
		}
		var got []string
		for _, r := range res {
			for _, d := range r.Devices {
				got = append(got, d.Pool+"/"+d.Device)
			}
		}
		var want []string
		for _, d := range best {
			want = append(want, order[d].Pool+"/"+order[d].Device)
		}
		require.Equal(t, strings.Join(want, " "), strings.Join(got, " "), "trial %d", trial)
	}
}

// BenchmarkAllocateGPU: a node with 8 GPUs in one slice, 4 in use, and a
// claim for 2 of a model (a selector through a trivial evaluator).
func BenchmarkAllocateGPU(b *testing.B) {
	in := &Input{
		Claims:    []*cluster.ResourceClaim{claim("c", exact("gpu", 2, "model=a100"))},
		Classes:   gpuClass,
		Slices:    []*cluster.ResourceSlice{eightGPUs()},
		Node:      node("n1"),
		Allocated: exclusive("n1/g0", "n1/g1", "n1/g3", "n1/g5"),
		Selectors: &eqSelector{},
		Features:  DefaultFeatures(),
	}
	b.ReportAllocs()
	for b.Loop() {
		res, ok, err := Allocate(in)
		if err != nil || !ok || res[0].Devices[1].Device != "g6" {
			b.Fatal(res, ok, err)
		}
	}
}

// BenchmarkAllocateSharedGPU: a share of one GPU (300 of 1000 milligpu)
// on a node of 8 shared GPUs, 3 of them 600 taken, ranked by free
// capacity as the gpu-sharing example ranks them; a fresh allocator per
// call (Allocate), or one Allocator reused (the plugin's).
func BenchmarkAllocateSharedGPU(b *testing.B) {
	s := nodeSlice("n1-gpus", "n1")
	for i := range 8 {
		d := gpu(fmt.Sprintf("g%d", i), "a100", "r0")
		d.AllowMultipleAllocations = true
		d.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"milligpu": {Value: q(1000)}}
		s.Devices = append(s.Devices, d)
	}
	st := &AllocatedState{}
	for _, g := range []string{"g1", "g4", "g6"} {
		st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: g, ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"milligpu": q(600)}}, true)
	}
	r := exact("gpu", 1, "model=a100")
	r.Exactly.Capacity = map[cluster.QualifiedName]cluster.Quantity{"milligpu": q(300)}
	devs := NewNodeDevices([]*cluster.ResourceSlice{s}, node("n1"), DefaultFeatures())
	in := &Input{
		Claims:    []*cluster.ResourceClaim{claim("c", r)},
		Classes:   gpuClass,
		Slices:    []*cluster.ResourceSlice{s},
		Node:      node("n1"),
		Devices:   devs,
		Allocated: st,
		Selectors: &eqSelector{},
		Features:  DefaultFeatures(),
		Rank: func(id cluster.DeviceID) int64 {
			if slices.Contains([]string{"g1", "g4", "g6"}, id.Device) {
				return 400
			}
			return 1000
		},
	}
	check := func(res []cluster.AllocationResult, ok bool, err error) {
		if err != nil || !ok || res[0].Devices[0].Device != "g1" {
			b.Fatal(res, ok, err)
		}
	}
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(Allocate(in))
		}
	})
	b.Run("reused", func(b *testing.B) {
		var al Allocator
		b.ReportAllocs()
		for b.Loop() {
			check(al.Allocate(in))
		}
	})
}
