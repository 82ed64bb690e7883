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
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/nodename"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/nodeunschedulable"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
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
	fit := noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)
	filters := []fw.FilterPlugin{nodename.NodeName{}, nodeunschedulable.NodeUnschedulable{}, tainttoleration.TaintToleration{}, nodeaffinity.NodeAffinity{}, fit}
	bal := noderesources.NewBalancedCPUMemory()
	scorers := []placement.WeightedScorer{{Plugin: tainttoleration.TaintToleration{}, Weight: 3}, {Plugin: fit, Weight: 1}, {Plugin: bal, Weight: 1}}
	memo = newPodScheduler(filters, scorers, pct)
	var pf []fw.FilterPlugin
	for _, f := range filters {
		pf = append(pf, plainFilter{f})
	}
	ps := []placement.WeightedScorer{
		{Plugin: plainNormalizer{tainttoleration.TaintToleration{}, tainttoleration.TaintToleration{}}, Weight: 3},
		{Plugin: plainScorer{fit}, Weight: 1},
		{Plugin: plainSkipper{bal, bal}, Weight: 1},
	}
	return memo, newPodScheduler(pf, ps, pct)
}

// fakeNominations nominates pods by snapshot index.
type fakeNominations map[int][]*cluster.PodInfo

func (f fakeNominations) Empty() bool                             { return len(f) == 0 }
func (f fakeNominations) NominatedTo(node int) []*cluster.PodInfo { return f[node] }
func (f fakeNominations) Nodes(buf []int) []int {
	for i := range f {
		buf = append(buf, i)
	}
	return buf
}

// Remembering answers per signature never changes a decision: a memoised
// and a plain PodScheduler agree through reservations, rollbacks, cache
// updates and pods nominated to nodes.
func TestMemoNeverChangesDecisions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for trial := range 60 {
		c := cluster.NewCache()
		nodes := 5 + rng.IntN(150)
		for i := range nodes {
			b := gangsimtest.MakeNode(fmt.Sprintf("n%03d", i)).MilliCPU(1000*(1+rng.Int64N(8))).Memory(fmt.Sprintf("%dGi", 1+rng.Int64N(8))).Label("zone", fmt.Sprintf("z%d", rng.IntN(3)))
			if rng.IntN(5) == 0 {
				b = b.Taint("spot", "true", cluster.TaintPreferNoSchedule)
			}
			if rng.IntN(7) == 0 {
				b = b.Taint("gpu", "", cluster.TaintNoSchedule)
			}
			require.NoError(t, c.AddNode(b.Obj()))
		}
		shapes := []cluster.Pod{
			{Requests: cluster.NewResources(500, gi, 0)},
			{Requests: cluster.NewResources(1500, 512*mi, 0)},
			{Requests: cluster.NewResources(250, 0, 0), NodeSelector: map[string]string{"zone": "z1"}},
			{Requests: cluster.NewResources(0, 0, 0), Tolerations: []cluster.Toleration{{Operator: cluster.TolerationExists}}},
		}
		snap := c.Snapshot()
		memo, plain := podSchedulers(int32(rng.IntN(3) * 50))
		noms := fakeNominations{}
		if trial%2 == 1 {
			memo.Nominations, plain.Nominations = noms, noms
		}
		for step := range 300 {
			shape := shapes[rng.IntN(len(shapes))]
			shape.Name = fmt.Sprintf("p%d", step)
			shape.Priority = new(int32(rng.IntN(3)))
			pod := cluster.NewPodInfo(shape)
			if trial%2 == 1 && rng.IntN(4) == 0 {
				// a pod of another shape nominated to a random node, or
				// a node's nominations dropped
				i := rng.IntN(snap.Len())
				if rng.IntN(3) == 0 {
					delete(noms, i)
				} else {
					n := shapes[rng.IntN(len(shapes))]
					n.Name, n.Priority = fmt.Sprintf("nom%d", step), new(int32(rng.IntN(3)))
					noms[i] = append(noms[i], cluster.NewPodInfo(n))
				}
			}
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

// A signature's failure is reused only while each node with nominated pods
// rejects the pod as then: which nominated pods count depends on the pod's
// priority, so a pod of higher priority may fit where the last one did not.
func TestFailureReuseHonoursNominations(t *testing.T) {
	c := cluster.NewCache()
	require.NoError(t, c.AddNode(gangsimtest.MakeNode("x").CPU("4000m").Memory("8Gi").Obj()))
	require.NoError(t, c.AddNode(gangsimtest.MakeNode("y").CPU("1000m").Memory("8Gi").Obj()))
	require.NoError(t, c.AddPod(cluster.Pod{Name: "busy", NodeName: "y", Requests: cluster.NewResources(1000, 0, 0)}))
	snap := c.Snapshot()
	nominated := func(name string, milli int64, prio int32) *cluster.PodInfo {
		return cluster.NewPodInfo(cluster.Pod{Name: name, Priority: new(prio), Requests: cluster.NewResources(milli, 0, 0)})
	}
	noms := fakeNominations{0: {nominated("small", 1000, 2), nominated("large", 3000, 1)}}
	memo, plain := podSchedulers(100)
	memo.Nominations, plain.Nominations = noms, noms
	for i, prio := range []int32{1, 1, 1, 2, 1, 2} {
		p := cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("p%d", i), Priority: new(prio), Requests: cluster.NewResources(2000, 0, 0)})
		a, errA := memo.Schedule(snap, p, nil, -1)
		b, errB := plain.Schedule(snap, p, nil, -1)
		require.Equal(t, b, a, "pod %d", i)
		if prio == 2 {
			require.Equal(t, 0, a, "pod %d: only the small nominated pod counts", i)
		} else {
			require.Error(t, errA)
			require.Equal(t, errB.Error(), errA.Error())
		}
	}
}

// Two pods whose node selectors differ never share remembered verdicts,
// even when one's labels spell the other's: {a: "b,c=d"} is not
// {a: b, c: d}. A signature that wrote labels without their lengths gave
// both one table, and the second pod went to a node its selector rejects.
func TestMemoTellsSpelledAlikeSelectorsApart(t *testing.T) {
	snap := snapshot(t, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("n1").CPU("8").Label("a", "b").Label("c", "d")})
	ps := newPodScheduler([]fw.FilterPlugin{nodeaffinity.NodeAffinity{}}, nil, 100)
	for i := range 3 { // seen often enough to be remembered
		idx, fit := ps.Schedule(snap, podInfo(gangsimtest.MakePod(fmt.Sprintf("p%d", i)).NodeSelector("a", "b").NodeSelector("c", "d")), nil, -1)
		require.Nil(t, fit)
		require.Equal(t, 0, idx)
	}
	_, fit := ps.Schedule(snap, podInfo(gangsimtest.MakePod("q").NodeSelector("a", "b,c=d")), nil, -1)
	require.NotNil(t, fit, "the node's labels do not match a=\"b,c=d\"")
}
