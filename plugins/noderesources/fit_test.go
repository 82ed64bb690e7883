package noderesources_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// The numbers below are worked out by hand from kube-scheduler's formulas
// (docs/semantics.md §3): per resource, an integer score truncated first,
// then the weighted mean truncated again.

// fpga is an extended resource nodes do not have unless a test gives it.
const fpga cluster.ResourceName = "example.com/fpga"

// pods lists the pods a test puts on the node.
func pods(ps ...*gangsimtest.PodWrapper) []*gangsimtest.PodWrapper { return ps }

// score runs a score plugin that cannot fail.
func score(p fw.ScorePlugin, pod *gangsimtest.PodWrapper, node *cluster.NodeInfo) int64 {
	v, _ := p.Score(nil, cluster.NewPodInfo(pod.Obj()), node)
	return v
}

func TestFits(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	// Node "n": 2000m, 4Gi, 3 pods, 2 GPUs, with 1000m, 1Gi, 1 GPU used:
	// 1000m, 3Gi, 2 pods and 1 GPU free.
	n := func() *gangsimtest.NodeWrapper { return node("n").CPU("2000m").Memory("4Gi").Pods(3).GPU(2) }
	used := func() *gangsimtest.PodWrapper { return pod("used").CPU("1000m").Memory("1Gi").GPU(1) }
	// Node "full": the same sizes, but room for one pod, which is taken.
	full := func() *gangsimtest.NodeWrapper { return node("full").CPU("2000m").Memory("4Gi").Pods(1).GPU(2) }
	tests := []struct {
		name         string
		node         *gangsimtest.NodeWrapper
		used         *gangsimtest.PodWrapper
		pod          *gangsimtest.PodWrapper
		reasons      []string // nil when the pod fits
		unresolvable bool
	}{
		{"fits", n(), used(), pod("p").CPU("500m").Memory("1Gi"), nil, false},
		{"exactly fills what is free", n(), used(), pod("p").CPU("1000m").Memory("3Gi").GPU(1), nil, false},
		{"cpu short", n(), used(), pod("p").CPU("1500m"), []string{"Insufficient cpu"}, false},
		{"cpu beyond allocatable", n(), used(), pod("p").CPU("2500m"), []string{"Insufficient cpu"}, true},
		{"memory short, equal to allocatable", n(), used(), pod("p").Memory("4Gi"), []string{"Insufficient memory"}, false},
		{"memory beyond allocatable", n(), used(), pod("p").Memory("5Gi"), []string{"Insufficient memory"}, true},
		{"gpu short", n(), used(), pod("p").GPU(2), []string{"Insufficient nvidia.com/gpu"}, false},
		{"gpu beyond allocatable", n(), used(), pod("p").GPU(3), []string{"Insufficient nvidia.com/gpu"}, true},
		{"extended resource the node lacks", n(), used(), pod("p").Resource(fpga, "1"), []string{"Insufficient example.com/fpga"}, true},
		{"cpu then memory", n(), used(), pod("p").CPU("1500m").Memory("4Gi"), []string{"Insufficient cpu", "Insufficient memory"}, false},
		{"one unresolvable reason makes the rejection unresolvable", n(), used(), pod("p").CPU("2500m").Memory("4Gi"), []string{"Insufficient cpu", "Insufficient memory"}, true},
		{"extended after cpu, by name", n(), used(), pod("p").CPU("1500m").GPU(2).Resource(fpga, "1"), []string{"Insufficient cpu", "Insufficient example.com/fpga", "Insufficient nvidia.com/gpu"}, true},
		{"too many pods, pod requests nothing", full(), pod("used"), pod("p"), []string{"Too many pods"}, false},
		{"too many pods and cpu", full(), pod("used"), pod("p").CPU("2500m"), []string{"Too many pods", "Insufficient cpu"}, true},
		{"too many pods, the gpu asked for is free", full(), pod("used"), pod("p").GPU(1), []string{"Too many pods"}, false},
		{"every reason in order", full(), pod("used").CPU("1000m").Memory("1Gi").GPU(1), pod("p").CPU("1500m").Memory("4Gi").GPU(2).Resource(fpga, "1"),
			[]string{"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient example.com/fpga", "Insufficient nvidia.com/gpu"}, true},
		{"a pod requesting nothing only checks the pod count", node("bare"), nil, pod("p"), nil, false},
		{"any cpu request fails on a node without cpu", node("bare"), nil, pod("p").CPU("1m"), []string{"Insufficient cpu"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ni *cluster.NodeInfo
			if tt.used != nil {
				ni = gangsimtest.NodeInfo(t, tt.node, tt.used)
			} else {
				ni = gangsimtest.NodeInfo(t, tt.node)
			}
			pi := cluster.NewPodInfo(tt.pod.Obj())
			r := noderesources.Fits(pi, ni)
			require.Equal(t, r, noderesources.NewFitStrategy(noderesources.LeastAllocated, nil).Filter(nil, pi, ni), "the plugin filters the same")
			if tt.reasons == nil {
				require.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			require.Equal(t, noderesources.Name, r.Plugin())
			require.Equal(t, tt.reasons, r.Reasons())
			require.Equal(t, tt.unresolvable, r.Code() == fw.UnschedulableAndUnresolvable)
		})
	}
}

func TestLeastAllocatedResource(t *testing.T) {
	tests := []struct {
		name                string
		requested, capacity int64
		want                int64
	}{
		{"empty: (4000-0)*100/4000", 0, 4000, 100},
		{"quarter used: 3000*100/4000", 1000, 4000, 75},
		{"three quarters: 1000*100/4000", 3000, 4000, 25},
		{"truncates: 2*100/3 = 66.7", 1, 3, 66},
		{"full", 4000, 4000, 0},
		{"requested > capacity", 5000, 4000, 0},
		{"capacity 0", 100, 0, 0},
		{"nothing at all", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, noderesources.LeastAllocatedResource(tt.requested, tt.capacity))
		})
	}
}

func TestMostAllocatedResource(t *testing.T) {
	tests := []struct {
		name                string
		requested, capacity int64
		want                int64
	}{
		{"empty", 0, 4000, 0},
		{"quarter: 1000*100/4000", 1000, 4000, 25},
		{"truncates: 2*100/3 = 66.7", 2, 3, 66},
		{"full", 4000, 4000, 100},
		{"requested > capacity: min(5000,4000)*100/4000", 5000, 4000, 100},
		{"capacity 0", 100, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, noderesources.MostAllocatedResource(tt.requested, tt.capacity))
		})
	}
}

func weights(cpu, mem int64, extra ...noderesources.ResourceWeight) []noderesources.ResourceWeight {
	return append([]noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: cpu}, {Name: cluster.ResourceMemory, Weight: mem}}, extra...)
}

func TestAllocationScore(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	// Node A: 4000m, 10Gi, 4 GPUs; one pod of 500m, 1Gi, 1 GPU on it.
	nodeA := func() *gangsimtest.NodeWrapper { return node("a").CPU("4000m").Memory("10Gi").GPU(4) }
	usedA := func() *gangsimtest.PodWrapper { return pod("used").CPU("500m").Memory("1Gi").GPU(1) }
	// The incoming pod on node A: cpu 500+1000 = 1500 of 4000, memory 1+2
	// = 3Gi of 10Gi.
	//   least: cpu (4000-1500)*100/4000 = 62 (62.5), memory 7*100/10 = 70
	//   most:  cpu 1500*100/4000 = 37 (37.5),       memory 3*100/10 = 30
	incoming := func() *gangsimtest.PodWrapper { return pod("p").CPU("1000m").Memory("2Gi") }
	gpu2 := noderesources.ResourceWeight{Name: gangsimtest.ResourceGPU, Weight: 2}
	tests := []struct {
		name      string
		strategy  noderesources.ScoringType
		resources []noderesources.ResourceWeight
		node      *gangsimtest.NodeWrapper
		used      []*gangsimtest.PodWrapper
		pod       *gangsimtest.PodWrapper
		want      int64
	}{
		{"least cpu1 mem1: (62+70)/2 = 66", noderesources.LeastAllocated, weights(1, 1), nodeA(), pods(usedA()), incoming(), 66},
		{"least cpu3 mem1: (186+70)/4 = 64", noderesources.LeastAllocated, weights(3, 1), nodeA(), pods(usedA()), incoming(), 64},
		{"least cpu1 mem3: (62+210)/4 = 68", noderesources.LeastAllocated, weights(1, 3), nodeA(), pods(usedA()), incoming(), 68},
		{"least cpu2 mem3: (124+210)/5 = 66 (66.8)", noderesources.LeastAllocated, weights(2, 3), nodeA(), pods(usedA()), incoming(), 66},
		{"most cpu1 mem1: (37+30)/2 = 33", noderesources.MostAllocated, weights(1, 1), nodeA(), pods(usedA()), incoming(), 33},
		{"most cpu3 mem1: (111+30)/4 = 35", noderesources.MostAllocated, weights(3, 1), nodeA(), pods(usedA()), incoming(), 35},
		{"most cpu1 mem3: (37+90)/4 = 31", noderesources.MostAllocated, weights(1, 3), nodeA(), pods(usedA()), incoming(), 31},
		{"most cpu2 mem3: (74+90)/5 = 32", noderesources.MostAllocated, weights(2, 3), nodeA(), pods(usedA()), incoming(), 32},
		{"default weights when nil: least 66", noderesources.LeastAllocated, nil, nodeA(), pods(usedA()), incoming(), 66},
		// 1000m, 2Gi on an empty 3000m, 3Gi node. Per resource first:
		// most 100000/3000 = 33 and 200/3 = 66, (33+66)/2 = 49; the exact
		// mean (33.3+66.7)/2 would give 50.
		{"most truncates per resource first", noderesources.MostAllocated, weights(1, 1), node("b").CPU("3000m").Memory("3Gi"), nil, incoming(), 49},
		{"least truncates per resource first: (66+33)/2", noderesources.LeastAllocated, weights(1, 1), node("b").CPU("3000m").Memory("3Gi"), nil, incoming(), 49},
		// 800m used + 500m = 1300m > 1000m; memory 1+1 = 2Gi of 4Gi.
		{"least, requested > capacity: (0+50)/2 = 25", noderesources.LeastAllocated, weights(1, 1), node("c").CPU("1000m").Memory("4Gi"), pods(pod("u").CPU("800m").Memory("1Gi")), pod("p").CPU("500m").Memory("1Gi"), 25},
		{"most, requested > capacity: (100+50)/2 = 75", noderesources.MostAllocated, weights(1, 1), node("c").CPU("1000m").Memory("4Gi"), pods(pod("u").CPU("800m").Memory("1Gi")), pod("p").CPU("500m").Memory("1Gi"), 75},
		// The same node pod, but with no memory request: it counts 200Mi,
		// so memory is 1224Mi of 4096Mi: least (4096-1224)*100/4096 = 70
		// (70.1), (0+70)/2 = 35; most 122400/4096 = 29 (29.9), (100+29)/2 = 64.
		{"least, node pod's missing memory counts 200Mi", noderesources.LeastAllocated, weights(1, 1), node("c").CPU("1000m").Memory("4Gi"), pods(pod("u").CPU("800m")), pod("p").CPU("500m").Memory("1Gi"), 35},
		{"most, node pod's missing memory counts 200Mi", noderesources.MostAllocated, weights(1, 1), node("c").CPU("1000m").Memory("4Gi"), pods(pod("u").CPU("800m")), pod("p").CPU("500m").Memory("1Gi"), 64},
		// Memory capacity 0: left out with its weight; cpu 500 of 2000.
		{"least, capacity 0 skipped: 1500*100/2000 = 75", noderesources.LeastAllocated, weights(1, 1), node("d").CPU("2000m"), nil, pod("p").CPU("500m").Memory("1Gi"), 75},
		{"most, capacity 0 skipped: 25", noderesources.MostAllocated, weights(1, 1), node("d").CPU("2000m"), nil, pod("p").CPU("500m").Memory("1Gi"), 25},
		// GPU requested 1+2 = 3 of 4: least (4-3)*100/4 = 25, most 75.
		{"least with gpu weight 2: (62+70+2*25)/4 = 45", noderesources.LeastAllocated, weights(1, 1, gpu2), nodeA(), pods(usedA()), incoming().GPU(2), 45},
		{"most with gpu weight 2: (37+30+2*75)/4 = 54", noderesources.MostAllocated, weights(1, 1, gpu2), nodeA(), pods(usedA()), incoming().GPU(2), 54},
		{"gpu not requested: left out with its weight, (62+70)/2", noderesources.LeastAllocated, weights(1, 1, gpu2), nodeA(), pods(usedA()), incoming(), 66},
		{"gpu requested, node has none: left out", noderesources.LeastAllocated, weights(1, 1, gpu2), node("e").CPU("4000m").Memory("10Gi"), pods(pod("u").CPU("500m").Memory("1Gi")), incoming().GPU(1), 66},
		{"pods weight is never scored: cpu alone, 62", noderesources.LeastAllocated, []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}, {Name: cluster.ResourcePods, Weight: 5}}, nodeA(), pods(usedA()), incoming(), 62},
		// A pod with no requests counts 100m and 200Mi: on 1000m, 1000Mi,
		// least (900*100/1000 + 800*100/1000)/2 = (90+80)/2 = 85.
		{"zero requests scored as 100m, 200Mi (least)", noderesources.LeastAllocated, weights(1, 1), node("f").CPU("1000m").Memory("1000Mi"), nil, pod("p"), 85},
		{"zero requests scored as 100m, 200Mi (most): (10+20)/2", noderesources.MostAllocated, weights(1, 1), node("f").CPU("1000m").Memory("1000Mi"), nil, pod("p"), 15},
		// Two request-less pods on the node count 2*100m, 2*200Mi; the pod
		// asks 100m and no memory (200Mi): cpu 300, memory 600Mi.
		// least (70+40)/2 = 55; most (30+60)/2 = 45.
		{"node's zero-request pods count the defaults (least)", noderesources.LeastAllocated, weights(1, 1), node("f").CPU("1000m").Memory("1000Mi"), pods(pod("u1"), pod("u2")), pod("p").CPU("100m"), 55},
		{"node's zero-request pods count the defaults (most)", noderesources.MostAllocated, weights(1, 1), node("f").CPU("1000m").Memory("1000Mi"), pods(pod("u1"), pod("u2")), pod("p").CPU("100m"), 45},
		// 300m and no memory on the node counts 300m, 200Mi; the pod 100m
		// 100Mi: cpu 400 -> 60, memory 300Mi -> 70; (60+70)/2 = 65.
		{"only the missing request is defaulted", noderesources.LeastAllocated, weights(1, 1), node("f").CPU("1000m").Memory("1000Mi"), pods(pod("u").CPU("300m")), pod("p").CPU("100m").Memory("100Mi"), 65},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := gangsimtest.NodeInfo(t, tt.node, tt.used...)
			pi := cluster.NewPodInfo(tt.pod.Obj())
			require.Equal(t, tt.want, noderesources.AllocationScore(tt.strategy, resourcesOrDefault(tt.resources), pi, ni))
			fit := noderesources.NewFitStrategy(tt.strategy, tt.resources)
			got, _ := fit.Score(nil, pi, ni)
			require.Equal(t, tt.want, got, "the plugin scores the same")
		})
	}
}

func resourcesOrDefault(r []noderesources.ResourceWeight) []noderesources.ResourceWeight {
	if r == nil {
		return noderesources.DefaultResourceWeights()
	}
	return r
}

// Scores of nodes beyond 82 PiB do not wrap: a 1 EiB node with a little
// used is nearly empty, not nearly full.
func TestResourceScoresOfHugeNodes(t *testing.T) {
	const eib = int64(1) << 60
	require.Equal(t, int64(99), noderesources.LeastAllocatedResource(eib/100, eib))
	require.Equal(t, int64(1), noderesources.MostAllocatedResource(eib/100+1, eib))
	require.Equal(t, int64(100), noderesources.LeastAllocatedResource(0, math.MaxInt64))
	require.Equal(t, int64(99), noderesources.LeastAllocatedResource(1<<30, 1<<31*50))
}

// Fit's own path for kube-scheduler's default scoring (LeastAllocated over
// cpu and memory, weight 1 each) scores as the general walk does: on
// random nodes, with either resource missing (allocatable 0), pods asking
// for nothing (the non-zero defaults count), more than the node has, or
// amounts near the int64 limit; a Fit built with other weights or
// strategy takes the general walk.
func TestLeastAllocatedCPUMemoryIsTheGeneralWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	fast := noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)
	amount := func(scale int64) int64 {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.MaxInt64 / 3
		}
		return r.Int64N(scale)
	}
	for i := range 3000 {
		c := cluster.NewCache()
		node := cluster.Node{Name: "n", Allocatable: cluster.NewResources(amount(64_000), amount(256<<30), 110)}
		require.NoError(t, c.AddNode(node))
		for j := range r.IntN(3) {
			p := cluster.Pod{Name: fmt.Sprintf("on%d", j), NodeName: "n", Requests: cluster.NewResources(amount(8000), amount(32<<30), 0)}
			if err := c.AddPod(p); err != nil {
				continue // more than the node holds: refused, as it should be
			}
		}
		ni := c.Snapshot().Node(0)
		pod := cluster.NewPodInfo(cluster.Pod{Name: "p", Requests: cluster.NewResources(amount(8000), amount(32<<30), 0)})
		got, st := fast.Score(nil, pod, ni)
		require.True(t, st.IsSuccess())
		require.Equal(t, noderesources.AllocationScore(noderesources.LeastAllocated, noderesources.DefaultResourceWeights(), pod, ni), got, "case %d: node %v, pod %v", i, node.Allocatable, pod.Pod().Requests)
	}
	for _, f := range []*noderesources.Fit{
		noderesources.NewFitStrategy(noderesources.LeastAllocated, []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 2}, {Name: cluster.ResourceMemory, Weight: 1}}),
		noderesources.NewFitStrategy(noderesources.MostAllocated, nil),
	} {
		c := cluster.NewCache()
		require.NoError(t, c.AddNode(gangsimtest.MakeNode("n").CPU("4").Memory("8Gi").Obj()))
		ni := c.Snapshot().Node(0)
		pod := cluster.NewPodInfo(gangsimtest.MakePod("p").CPU("3").Memory("1Gi").Obj())
		got, _ := f.Score(nil, pod, ni)
		require.Equal(t, noderesources.AllocationScore(f.Strategy, f.Resources, pod, ni), got)
	}
}
