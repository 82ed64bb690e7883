package placement_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
)

// plain hides Signer, so that the plugins run every time.
type plainFilter struct{ fw.FilterPlugin }
type plainScorer struct{ fw.ScorePlugin }
type plainNormalizer struct {
	fw.ScorePlugin
	fw.ScoreNormalizer
}
type plainSkipper struct {
	fw.ScorePlugin
	fw.PreScorePlugin
}

func (p plainSkipper) Name() string { return p.ScorePlugin.Name() }

func podSchedulers(pct int32) (memo, plain *placement.PodScheduler) {
	fit := placement.NewNodeResourcesFit(placement.LeastAllocated, nil)
	filters := []fw.FilterPlugin{placement.NodeName{}, placement.NodeUnschedulable{}, placement.TaintToleration{}, placement.NodeAffinity{}, fit}
	bal := placement.NewBalancedAllocation()
	scorers := []placement.WeightedScorer{{Plugin: placement.TaintToleration{}, Weight: 3}, {Plugin: fit, Weight: 1}, {Plugin: bal, Weight: 1}}
	memo = newPodScheduler(filters, scorers, pct)
	var pf []fw.FilterPlugin
	for _, f := range filters {
		pf = append(pf, plainFilter{f})
	}
	ps := []placement.WeightedScorer{
		{Plugin: plainNormalizer{placement.TaintToleration{}, placement.TaintToleration{}}, Weight: 3},
		{Plugin: plainScorer{fit}, Weight: 1},
		{Plugin: plainSkipper{bal, bal}, Weight: 1},
	}
	return memo, newPodScheduler(pf, ps, pct)
}

// Remembering answers per signature never changes a decision: a memoised
// and a plain PodScheduler agree through reservations, rollbacks and cache
// updates.
func TestMemoNeverChangesDecisions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for trial := range 60 {
		c := cluster.NewCache()
		nodes := 5 + rng.IntN(150)
		for i := range nodes {
			b := node(fmt.Sprintf("n%03d", i)).milli(1000*(1+rng.Int64N(8))).mem(gi*(1+rng.Int64N(8))).label("zone", fmt.Sprintf("z%d", rng.IntN(3)))
			if rng.IntN(5) == 0 {
				b = b.taint("spot", "true", cluster.TaintPreferNoSchedule)
			}
			if rng.IntN(7) == 0 {
				b = b.taint("gpu", "", cluster.TaintNoSchedule)
			}
			require.NoError(t, c.AddNode(b.n))
		}
		shapes := []cluster.Pod{
			{Requests: cluster.NewResources(500, gi, 0)},
			{Requests: cluster.NewResources(1500, 512*mi, 0)},
			{Requests: cluster.NewResources(250, 0, 0), NodeSelector: map[string]string{"zone": "z1"}},
			{Requests: cluster.NewResources(0, 0, 0), Tolerations: []cluster.Toleration{{Operator: cluster.TolerationExists}}},
		}
		snap := c.Snapshot()
		memo, plain := podSchedulers(int32(rng.IntN(3) * 50))
		for step := range 300 {
			shape := shapes[rng.IntN(len(shapes))]
			shape.Name = fmt.Sprintf("p%d", step)
			pod := cluster.NewPodInfo(shape)
			a, errA := memo.Schedule(snap, pod, nil, -1)
			b, errB := plain.Schedule(snap, pod, nil, -1)
			require.Equal(t, b, a, "trial %d step %d", trial, step)
			require.Equal(t, errB == nil, errA == nil)
			if errA != nil {
				require.Equal(t, errB.Error(), errA.Error())
				continue
			}
			switch rng.IntN(6) {
			case 0, 1, 2:
				snap.Reserve(pod, a)
			case 3:
				snap.Rollback(cluster.Checkpoint(rng.IntN(snap.Tentative() + 1)))
			case 4:
				snap.Rollback(0)
				p := shape
				p.NodeName = snap.Node(a).Name()
				require.NoError(t, c.AddPod(p))
				require.NoError(t, c.UpdateSnapshot(snap))
			}
		}
	}
}
