package placement_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// The numbers below are worked out by hand from kube-scheduler's formulas
// (kube-scheduler's formulas, docs/semantics.md §3): per resource, an integer score truncated first,
// then the weighted mean truncated again.

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
	// Node A: 4000m, 10Gi, 4 GPUs; one pod of 500m, 1Gi, 1 GPU on it.
	nodeA := func() *nodeBuilder { return node("a").milli(4000).mem(10 * gi).gpus(4) }
	usedA := func() *podBuilder { return pod("used").milli(500).mem(gi).gpus(1) }
	// The incoming pod on node A: cpu 500+1000 = 1500 of 4000, memory 1+2
	// = 3Gi of 10Gi.
	//   least: cpu (4000-1500)*100/4000 = 62 (62.5), memory 7*100/10 = 70
	//   most:  cpu 1500*100/4000 = 37 (37.5),       memory 3*100/10 = 30
	incoming := func() *podBuilder { return pod("p").milli(1000).mem(2 * gi) }
	gpu2 := noderesources.ResourceWeight{Name: gpuName, Weight: 2}
	tests := []struct {
		name      string
		strategy  noderesources.ScoringType
		resources []noderesources.ResourceWeight
		node      *nodeBuilder
		used      []*podBuilder
		pod       *podBuilder
		want      int64
	}{
		{"least cpu1 mem1: (62+70)/2 = 66", noderesources.LeastAllocated, weights(1, 1), nodeA(), []*podBuilder{usedA()}, incoming(), 66},
		{"least cpu3 mem1: (186+70)/4 = 64", noderesources.LeastAllocated, weights(3, 1), nodeA(), []*podBuilder{usedA()}, incoming(), 64},
		{"least cpu1 mem3: (62+210)/4 = 68", noderesources.LeastAllocated, weights(1, 3), nodeA(), []*podBuilder{usedA()}, incoming(), 68},
		{"least cpu2 mem3: (124+210)/5 = 66 (66.8)", noderesources.LeastAllocated, weights(2, 3), nodeA(), []*podBuilder{usedA()}, incoming(), 66},
		{"most cpu1 mem1: (37+30)/2 = 33", noderesources.MostAllocated, weights(1, 1), nodeA(), []*podBuilder{usedA()}, incoming(), 33},
		{"most cpu3 mem1: (111+30)/4 = 35", noderesources.MostAllocated, weights(3, 1), nodeA(), []*podBuilder{usedA()}, incoming(), 35},
		{"most cpu1 mem3: (37+90)/4 = 31", noderesources.MostAllocated, weights(1, 3), nodeA(), []*podBuilder{usedA()}, incoming(), 31},
		{"most cpu2 mem3: (74+90)/5 = 32", noderesources.MostAllocated, weights(2, 3), nodeA(), []*podBuilder{usedA()}, incoming(), 32},
		{"default weights when nil: least 66", noderesources.LeastAllocated, nil, nodeA(), []*podBuilder{usedA()}, incoming(), 66},
		// 1000m, 2Gi on an empty 3000m, 3Gi node. Per resource first:
		// most 100000/3000 = 33 and 200/3 = 66, (33+66)/2 = 49; the exact
		// mean (33.3+66.7)/2 would give 50.
		{"most truncates per resource first", noderesources.MostAllocated, weights(1, 1), node("b").milli(3000).mem(3 * gi), nil, incoming(), 49},
		{"least truncates per resource first: (66+33)/2", noderesources.LeastAllocated, weights(1, 1), node("b").milli(3000).mem(3 * gi), nil, incoming(), 49},
		// 800m used + 500m = 1300m > 1000m; memory 1+1 = 2Gi of 4Gi.
		{"least, requested > capacity: (0+50)/2 = 25", noderesources.LeastAllocated, weights(1, 1), node("c").milli(1000).mem(4 * gi), []*podBuilder{pod("u").milli(800).mem(gi)}, pod("p").milli(500).mem(gi), 25},
		{"most, requested > capacity: (100+50)/2 = 75", noderesources.MostAllocated, weights(1, 1), node("c").milli(1000).mem(4 * gi), []*podBuilder{pod("u").milli(800).mem(gi)}, pod("p").milli(500).mem(gi), 75},
		// The same node pod, but with no memory request: it counts 200Mi,
		// so memory is 1224Mi of 4096Mi: least (4096-1224)*100/4096 = 70
		// (70.1), (0+70)/2 = 35; most 122400/4096 = 29 (29.9), (100+29)/2 = 64.
		{"least, node pod's missing memory counts 200Mi", noderesources.LeastAllocated, weights(1, 1), node("c").milli(1000).mem(4 * gi), []*podBuilder{pod("u").milli(800)}, pod("p").milli(500).mem(gi), 35},
		{"most, node pod's missing memory counts 200Mi", noderesources.MostAllocated, weights(1, 1), node("c").milli(1000).mem(4 * gi), []*podBuilder{pod("u").milli(800)}, pod("p").milli(500).mem(gi), 64},
		// Memory capacity 0: left out with its weight; cpu 500 of 2000.
		{"least, capacity 0 skipped: 1500*100/2000 = 75", noderesources.LeastAllocated, weights(1, 1), node("d").milli(2000), nil, pod("p").milli(500).mem(gi), 75},
		{"most, capacity 0 skipped: 25", noderesources.MostAllocated, weights(1, 1), node("d").milli(2000), nil, pod("p").milli(500).mem(gi), 25},
		// GPU requested 1+2 = 3 of 4: least (4-3)*100/4 = 25, most 75.
		{"least with gpu weight 2: (62+70+2*25)/4 = 45", noderesources.LeastAllocated, weights(1, 1, gpu2), nodeA(), []*podBuilder{usedA()}, incoming().gpus(2), 45},
		{"most with gpu weight 2: (37+30+2*75)/4 = 54", noderesources.MostAllocated, weights(1, 1, gpu2), nodeA(), []*podBuilder{usedA()}, incoming().gpus(2), 54},
		{"gpu not requested: left out with its weight, (62+70)/2", noderesources.LeastAllocated, weights(1, 1, gpu2), nodeA(), []*podBuilder{usedA()}, incoming(), 66},
		{"gpu requested, node has none: left out", noderesources.LeastAllocated, weights(1, 1, gpu2), node("e").milli(4000).mem(10 * gi), []*podBuilder{pod("u").milli(500).mem(gi)}, incoming().gpus(1), 66},
		{"pods weight is never scored: cpu alone, 62", noderesources.LeastAllocated, []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}, {Name: cluster.ResourcePods, Weight: 5}}, nodeA(), []*podBuilder{usedA()}, incoming(), 62},
		// A pod with no requests counts 100m and 200Mi: on 1000m, 1000Mi,
		// least (900*100/1000 + 800*100/1000)/2 = (90+80)/2 = 85.
		{"zero requests scored as 100m, 200Mi (least)", noderesources.LeastAllocated, weights(1, 1), node("f").milli(1000).mem(1000 * mi), nil, pod("p"), 85},
		{"zero requests scored as 100m, 200Mi (most): (10+20)/2", noderesources.MostAllocated, weights(1, 1), node("f").milli(1000).mem(1000 * mi), nil, pod("p"), 15},
		// Two request-less pods on the node count 2*100m, 2*200Mi; the pod
		// asks 100m and no memory (200Mi): cpu 300, memory 600Mi.
		// least (70+40)/2 = 55; most (30+60)/2 = 45.
		{"node's zero-request pods count the defaults (least)", noderesources.LeastAllocated, weights(1, 1), node("f").milli(1000).mem(1000 * mi), []*podBuilder{pod("u1"), pod("u2")}, pod("p").milli(100), 55},
		{"node's zero-request pods count the defaults (most)", noderesources.MostAllocated, weights(1, 1), node("f").milli(1000).mem(1000 * mi), []*podBuilder{pod("u1"), pod("u2")}, pod("p").milli(100), 45},
		// 300m and no memory on the node counts 300m, 200Mi; the pod 100m
		// 100Mi: cpu 400 -> 60, memory 300Mi -> 70; (60+70)/2 = 65.
		{"only the missing request is defaulted", noderesources.LeastAllocated, weights(1, 1), node("f").milli(1000).mem(1000 * mi), []*podBuilder{pod("u").milli(300)}, pod("p").milli(100).mem(100 * mi), 65},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := nodeInfo(t, tt.node, tt.used...)
			pi := tt.pod.info()
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

func TestBalancedAllocationScore(t *testing.T) {
	// s(f) = int((1 - std)*100), std = |f_cpu - f_mem|/2 with fractions
	// capped at 1; score = 50 + (50 + s(with pod) - s(without pod))/2.
	// Requests count as they are (no 100m/200Mi defaults).
	tests := []struct {
		name string
		node *nodeBuilder
		used []*podBuilder
		pod  *podBuilder
		want int64
	}{
		// without: 0.25, 0.1 -> std 0.075 -> 92; with: 0.5, 0.5 -> 100.
		// 50 + (50+100-92)/2 = 50 + 29 = 79.
		{"pod evens the node out", node("n").milli(4000).mem(10 * gi), []*podBuilder{pod("u").milli(1000).mem(gi)}, pod("p").milli(1000).mem(4 * gi), 79},
		// with: 0.75, 0.1 -> std 0.325 -> 67. 50 + (50+67-92)/2 = 50 + 12 = 62.
		{"pod skews the node", node("n").milli(4000).mem(10 * gi), []*podBuilder{pod("u").milli(1000).mem(gi)}, pod("p").milli(2000), 62},
		// without: 0.5, 0.5 -> 100; with: cpu 2.5 capped to 1, memory 0.75
		// -> std 0.125 -> 87. 50 + (50+87-100)/2 = 50 + 18 = 68
		// (uncapped: std 0.875 -> 12 -> 50 + (-38)/2 = 31).
		{"fractions capped at 1", node("n").milli(1000).mem(gi), []*podBuilder{pod("u").milli(500).mem(512 * mi)}, pod("p").milli(2000).mem(256 * mi), 68},
		// with 0.25, 0.25 and without 0, 0 both 100: 50 + 50/2 = 75.
		{"empty node, balanced pod", node("n").milli(4000).mem(8 * gi), nil, pod("p").milli(1000).mem(2 * gi), 75},
		// with: 0.25, 0 -> std 0.125 -> 87: 50 + (50+87-100)/2 = 68. With
		// the 200Mi default memory it would be std 0.1128 -> 88 -> 69.
		{"actual requests, not the scoring defaults", node("n").milli(4000).mem(8 * gi), nil, pod("p").milli(1000), 68},
		// Memory capacity 0 leaves one fraction: std 0 on both sides.
		{"one resource: 75", node("n").milli(4000), nil, pod("p").milli(1000).mem(gi), 75},
	}
	ba := noderesources.NewBalancedCPUMemory()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, score(ba, tt.pod.info(), nodeInfo(t, tt.node, tt.used...)))
		})
	}
}

func TestBalancedAllocationThreeResources(t *testing.T) {
	ba := &noderesources.BalancedAllocation{Resources: []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory, gpuName}}
	n := node("n").milli(4000).mem(8 * gi).gpus(4)
	// with: 0.25, 0.25, 0.75: mean 0.41667, variance (2*0.16667^2 +
	// 0.33333^2)/3 = 0.05556, std 0.23570 -> int(76.43) = 76; without: all
	// 0 -> 100. 50 + (50+76-100)/2 = 50 + 13 = 63.
	require.Equal(t, int64(63), score(ba, pod("p").milli(1000).mem(2*gi).gpus(3).info(), nodeInfo(t, n)))
	// Without a GPU request the GPU is left out: 0.25, 0.25 -> 75.
	require.Equal(t, int64(75), score(ba, pod("p").milli(1000).mem(2*gi).info(), nodeInfo(t, n)))
}

func TestBalancedAllocationSkipsBestEffort(t *testing.T) {
	ba := noderesources.NewBalancedCPUMemory()
	skips := func(p *podBuilder) bool { return ba.PreScore(nil, p.info(), nil).IsSkip() }
	require.True(t, skips(pod("p")), "best-effort pod")
	require.True(t, skips(pod("p").gpus(1)), "only resources it does not compare")
	require.False(t, skips(pod("p").milli(1)))
	require.False(t, skips(pod("p").mem(1)))
}

// score runs a score plugin that cannot fail.
func score(p fw.ScorePlugin, pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	v, _ := p.Score(nil, pod, node)
	return v
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
