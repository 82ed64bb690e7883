package noderesources_test

import (
	"fmt"
	"testing"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// benchNodes is a cluster of n nodes of 32 cpus, 128Gi and 8 GPUs, each
// running 0 to 3 pods of varied sizes, so that no two neighbours score
// alike.
func benchNodes(b *testing.B, n int) []*cluster.NodeInfo {
	b.Helper()
	c := cluster.NewCache()
	for i := range n {
		name := fmt.Sprintf("n%05d", i)
		if err := c.AddNode(gangsimtest.MakeNode(name).CPU("32").Memory("128Gi").GPU(8).Obj()); err != nil {
			b.Fatal(err)
		}
		for j := range i % 4 {
			p := gangsimtest.MakePod(fmt.Sprintf("%s-%d", name, j)).NodeName(name).
				MilliCPU(int64(500 * (1 + (i+j)%7))).Memory(fmt.Sprintf("%dGi", 1+(i*j)%9))
			if j == 2 {
				p = p.GPU(1)
			}
			if err := c.AddPod(p.Obj()); err != nil {
				b.Fatal(err)
			}
		}
	}
	snap := c.Snapshot()
	out := make([]*cluster.NodeInfo, snap.Len())
	for i := range out {
		out[i] = snap.Node(i)
	}
	return out
}

// BenchmarkScore scores one pod on 1,000 nodes with each node scorer of
// the package, the pod-scoring path's inner loop: one op is 1,000 Score
// calls.
func BenchmarkScore(b *testing.B) {
	nodes := benchNodes(b, 1000)
	pod := cluster.NewPodInfo(gangsimtest.MakePod("p").CPU("2").Memory("4Gi").Obj())
	gpuPod := cluster.NewPodInfo(gangsimtest.MakePod("p").CPU("2").Memory("4Gi").GPU(1).Obj())
	withGPU := []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}, {Name: cluster.ResourceMemory, Weight: 1}, {Name: gangsimtest.ResourceGPU, Weight: 3}}
	shape := []noderesources.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}
	ratio := func(resources []noderesources.ResourceWeight) fw.ScorePlugin {
		f := noderesources.NewFitStrategy(noderesources.RequestedToCapacityRatio, resources)
		f.Shape = shape
		return f
	}
	// not NewBalancedCPUMemory's fast path: the general one, over three
	gpuBalanced := &noderesources.BalancedAllocation{Resources: []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory, gangsimtest.ResourceGPU}}
	tests := []struct {
		name   string
		plugin fw.ScorePlugin
		pod    *cluster.PodInfo
	}{
		{"LeastAllocated", noderesources.NewFitStrategy(noderesources.LeastAllocated, nil), pod},
		{"MostAllocated", noderesources.NewFitStrategy(noderesources.MostAllocated, nil), pod},
		{"RequestedToCapacityRatio", ratio(nil), pod},
		{"BalancedAllocation", noderesources.NewBalancedCPUMemory(), pod},
		{"LeastAllocated/gpu", noderesources.NewFitStrategy(noderesources.LeastAllocated, withGPU), gpuPod},
		{"RequestedToCapacityRatio/gpu", ratio(withGPU), gpuPod},
		{"BalancedAllocation/gpu", gpuBalanced, gpuPod},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			var sum int64
			for b.Loop() {
				for _, ni := range nodes {
					s, _ := tt.plugin.Score(nil, tt.pod, ni)
					sum += s
				}
			}
			if sum < 0 {
				b.Fatal("negative score")
			}
		})
	}
}
