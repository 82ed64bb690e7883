package placement_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/plugins/gangscheduling"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/nodeunschedulable"
	"github.com/gangsim/gangsim/plugins/podgrouppodscount"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
	"github.com/gangsim/gangsim/podgroup"
)

// opaqueScorer hides NodeIndependentScorer, forcing the evaluate-all path.
type opaqueScorer struct{ fw.PlacementScorePlugin }

type opaqueNormalizer struct {
	fw.PlacementScorePlugin
	fw.PlacementScoreNormalizer
}

func groupScheduler(opaque bool) *placement.GroupScheduler {
	fit := noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)
	pods := newPodScheduler(
		[]fw.FilterPlugin{nodeunschedulable.NodeUnschedulable{}, tainttoleration.TaintToleration{}, nodeaffinity.NodeAffinity{}, fit},
		[]placement.WeightedScorer{{Plugin: tainttoleration.TaintToleration{}, Weight: 3}, {Plugin: fit, Weight: 1}, {Plugin: noderesources.NewBalancedCPUMemory(), Weight: 1}}, 0)
	var fitScore fw.PlacementScorePlugin = fit
	var countScore fw.PlacementScorePlugin = podgrouppodscount.PodGroupPodsCount{}
	if opaque {
		fitScore = opaqueScorer{fitScore}
		countScore = opaqueNormalizer{countScore, podgrouppodscount.PodGroupPodsCount{}}
	}
	return &placement.GroupScheduler{
		Pods:      pods,
		Feasible:  []fw.PlacementFeasiblePlugin{gangscheduling.GangScheduling{}},
		Generator: topologyplacement.NewTopologyPlacement(),
		Scorers:   []placement.WeightedPlacementScorer{{Plugin: fitScore, Weight: 1}, {Plugin: countScore, Weight: 1}},
	}
}

// The best-first shortcut for all-or-nothing gangs picks exactly what
// evaluating every placement and scoring them all picks.
func TestBestFirstMatchesEvaluateAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	feasible := 0
	for trial := range 400 {
		c := cluster.NewCache()
		racks := 1 + rng.IntN(6)
		for i := range 2 + rng.IntN(12) {
			n := gangsimtest.MakeNode(fmt.Sprintf("n%02d", i)).MilliCPU(1000 * (1 + rng.Int64N(8))).Memory(fmt.Sprintf("%dGi", 1+rng.Int64N(16))).Rack(fmt.Sprintf("r%d", rng.IntN(racks))).Obj()
			require.NoError(t, c.AddNode(n))
			if used := rng.Int64N(n.Allocatable.MilliCPU); used > 0 {
				require.NoError(t, c.AddPod(cluster.Pod{Name: fmt.Sprintf("busy%d", i), NodeName: n.Name, Requests: cluster.NewResources(used, rng.Int64N(n.Allocatable.Memory), 0)}))
			}
		}
		size := 1 + rng.IntN(6)
		req := placement.GroupRequest{Group: &fw.Group{PodGroup: &podgroup.PodGroup{Name: "g", Policy: podgroup.Gang, MinCount: int32(size), TopologyKey: "rack"}}}
		for i := range size {
			req.Group.Pods = append(req.Group.Pods, cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(250*(1+rng.Int64N(8)), mi*256*(1+rng.Int64N(8)), 0)}))
		}
		snap := c.Snapshot()
		fast := groupScheduler(false).Schedule(snap, req, fw.Placement{})
		snap.Rollback(0)
		slow := groupScheduler(true).Schedule(snap, req, fw.Placement{})
		snap.Rollback(0)
		require.Equal(t, slow.Feasible, fast.Feasible, "trial %d", trial)
		require.Equal(t, slow.Placement, fast.Placement, "trial %d", trial)
		require.Equal(t, slow.Message, fast.Message, "trial %d", trial)
		require.Equal(t, len(slow.Assignments), len(fast.Assignments), "trial %d", trial)
		for i := range slow.Assignments {
			require.Equal(t, slow.Assignments[i].Node, fast.Assignments[i].Node, "trial %d", trial)
		}
		if fast.Feasible {
			feasible++
		}
	}
	require.Greater(t, feasible, 50)
	require.Less(t, feasible, 390, "infeasible cases are covered too")
}

// A failed group leaves the snapshot exactly as it found it; a successful
// one leaves exactly its assignments reserved.
func TestGroupScheduleLeavesOnlyItsAssignments(t *testing.T) {
	c := cluster.NewCache()
	for i := range 4 {
		require.NoError(t, c.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).CPU("2000m").Memory("8Gi").Rack(fmt.Sprintf("r%d", i/2)).Obj()))
	}
	snap := c.Snapshot()
	gs := groupScheduler(false)
	mk := func(n int, cpu int64) placement.GroupRequest {
		req := placement.GroupRequest{Group: &fw.Group{PodGroup: &podgroup.PodGroup{Name: "g", Policy: podgroup.Gang, MinCount: int32(n), TopologyKey: "rack"}}}
		for i := range n {
			req.Group.Pods = append(req.Group.Pods, cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(cpu, 0, 0)}))
		}
		return req
	}
	res := gs.Schedule(snap, mk(5, 1000), fw.Placement{}) // a rack holds 4
	require.False(t, res.Feasible)
	require.Equal(t, 0, snap.Tentative())
	require.Contains(t, res.Message, "0/2 placements are available, first placement status: ")
	res = gs.Schedule(snap, mk(4, 1000), fw.Placement{})
	require.True(t, res.Feasible)
	require.Equal(t, "r0", res.Placement)
	require.Equal(t, 4, snap.Tentative())
}
