package placement_test

import (
	"fmt"
	"testing"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// benchSnapshot builds n nodes of four sizes, a seventh of them with a
// PreferNoSchedule taint and a fiftieth with a NoSchedule taint, each
// running 0 to 3 pods.
func benchSnapshot(b *testing.B, n int) *cluster.Snapshot {
	b.Helper()
	c := cluster.NewCache()
	for i := range n {
		cores := int64(4) << (i % 4) // 4, 8, 16, 32
		nd := cluster.Node{
			Name:        fmt.Sprintf("node-%05d", i),
			Allocatable: cluster.NewResources(cores*1000, cores*4*gi, 110),
			Labels:      map[string]string{"zone": fmt.Sprintf("z%d", i%3)},
		}
		if i%7 == 0 {
			nd.Taints = append(nd.Taints, cluster.Taint{Key: "spot", Effect: cluster.TaintPreferNoSchedule})
		}
		if i%50 == 0 {
			nd.Taints = append(nd.Taints, cluster.Taint{Key: "dedicated", Effect: cluster.TaintNoSchedule})
		}
		if err := c.AddNode(nd); err != nil {
			b.Fatal(err)
		}
		for j := range i % 4 {
			p := cluster.Pod{
				Name: fmt.Sprintf("run-%05d-%d", i, j), NodeName: nd.Name,
				Requests: cluster.NewResources(int64(500*(j+1)), int64(j+1)*gi, 0),
			}
			if err := c.AddPod(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c.Snapshot()
}

// BenchmarkSchedule filters and scores one pod on 5000 nodes with the
// default plugins and adaptive sampling (500 feasible nodes per call).
func BenchmarkSchedule(b *testing.B) {
	snap := benchSnapshot(b, 5000)
	ps := newPodScheduler(defaultFilters(), defaultScorers(noderesources.LeastAllocated), 0)
	pi := cluster.NewPodInfo(cluster.Pod{Name: "p", Requests: cluster.NewResources(500, gi, 0)})
	b.ReportAllocs()
	for b.Loop() {
		if _, ferr := ps.Schedule(snap, pi, nil, -1); ferr != nil {
			b.Fatal(ferr)
		}
	}
}
