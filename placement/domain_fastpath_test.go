package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
	"github.com/gangsim/gangsim/podgroup"
)

// A placement that is a whole domain is scored and pruned from the
// snapshot's domain totals; the result must equal summing its nodes, on
// random clusters, after random tentative changes.
func TestDomainTotalsMatchNodeSums(t *testing.T) {
	gpu := cluster.ResourceName("nvidia.com/gpu")
	fit := noderesources.NewFitStrategy(noderesources.MostAllocated, []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}, {Name: cluster.ResourceMemory, Weight: 2}, {Name: gpu, Weight: 3}})
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		c := cluster.NewCache()
		n := 4 + r.IntN(12)
		for i := range n {
			alloc := cluster.NewResources(int64(r.IntN(3))*4000, int64(r.IntN(3))<<30, 20)
			if r.IntN(2) == 0 {
				alloc = alloc.With(gpu, int64(r.IntN(9)))
			}
			require.NoError(t, c.AddNode(cluster.Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{"rack": fmt.Sprintf("r%d", r.IntN(3))}, Allocatable: alloc}))
		}
		snap := c.Snapshot()
		tp := topologyplacement.NewTopologyPlacement()
		pods := func() []*cluster.PodInfo {
			var out []*cluster.PodInfo
			for i := range 1 + r.IntN(4) {
				req := cluster.NewResources(int64(r.IntN(3))*500, int64(r.IntN(2))<<28, 0)
				if r.IntN(2) == 0 {
					req = req.With(gpu, int64(r.IntN(3)))
				}
				out = append(out, cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("p%d-%d", seed, i), Requests: req}))
			}
			return out
		}
		g := &fw.Group{PodGroup: &podgroup.PodGroup{Name: "g", TopologyKey: "rack"}}
		for step := range 10 {
			// tentative changes: reserve some pods where they fit
			for _, p := range pods() {
				node := r.IntN(snap.Len())
				if noderesources.Fits(p, snap.Node(node)) == nil {
					snap.Reserve(p, node)
				}
			}
			g.Pods = pods()
			placements, st := tp.GeneratePlacements(snap, g, fw.Placement{})
			require.Nil(t, st)
			bound := newQuorumBound(&GroupRequest{Group: g}, len(g.Pods))
			var proposed []fw.Assignment
			for _, p := range g.Pods {
				proposed = append(proposed, fw.Assignment{Pod: p, Node: -1})
			}
			for _, p := range placements {
				require.NotEmpty(t, p.Key)
				slow := p
				slow.Key = ""
				fast, _ := fit.ScorePlacement(snap, g, &p, proposed)
				want, _ := fit.ScorePlacement(snap, g, &slow, proposed)
				require.Equal(t, want, fast, "seed %d step %d placement %s score", seed, step, p.Name)
				require.Equal(t, bound.mayFit(snap, &slow), bound.mayFit(snap, &p), "seed %d step %d placement %s bound", seed, step, p.Name)
			}
			if step%3 == 2 {
				snap.Rollback(0)
			}
		}
	}
}
