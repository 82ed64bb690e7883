package memo_test

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
	// weights apart, so that a fixed score summed without its weight
	// changes decisions
	scorers := []placement.WeightedScorer{{Plugin: tainttoleration.TaintToleration{}, Weight: 3}, {Plugin: fit, Weight: 2}, {Plugin: bal, Weight: 5}}
	memo = newPodScheduler(filters, scorers, pct)
	var pf []fw.FilterPlugin
	for _, f := range filters {
		pf = append(pf, plainFilter{f})
	}
	ps := []placement.WeightedScorer{
		{Plugin: plainNormalizer{tainttoleration.TaintToleration{}, tainttoleration.TaintToleration{}}, Weight: 3},
		{Plugin: plainScorer{fit}, Weight: 2},
		{Plugin: plainSkipper{bal, bal}, Weight: 5},
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
			{Requests: cluster.NewResources(100, 0, 0), NodeName: "n002"}, // NodeName's filter runs for it alone
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

// The memo's indexes, the tree and the column, alone or chosen by cost,
// must choose what the node-by-node scan chooses, and leave the scan
// position where the scan leaves it, on random clusters and pod streams
// (with PreferNoSchedule taints and preferred node affinity, which make
// the normalised scores vary, so that both paths of each index run), and
// with weights so large that the fixed scores pass 32 bits (the indexes'
// scores: such a table is scanned).
func TestMemoIndexesMatchScan(t *testing.T) {
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		n := []int{3, 50, 99, 100, 101, 250, 700}[r.IntN(7)]
		pct := []int32{0, 0, 100, 30, 7}[r.IntN(5)]
		scale := []int64{1, 1, 30_000_000}[r.IntN(3)] // a score of 72 times 30 M passes 2^31
		build := func(sc placement.Shortcuts) (*cluster.Cache, *placement.PodScheduler) {
			c := cluster.NewCache()
			rn := rand.New(rand.NewPCG(uint64(seed), 1))
			for i := range n {
				node := cluster.Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"zone": fmt.Sprintf("z%d", rn.IntN(3))},
					Allocatable: cluster.NewResources(int64(4+rn.IntN(4)*4)*1000, int64(8+rn.IntN(3)*8)<<30, 110)}
				switch rn.IntN(12) {
				case 0:
					node.Taints = []cluster.Taint{{Key: "spot", Effect: cluster.TaintPreferNoSchedule}}
				case 1:
					node.Taints = []cluster.Taint{{Key: "gpu", Effect: cluster.TaintNoSchedule}}
				case 2:
					node.Unschedulable = true
				}
				require.NoError(t, c.AddNode(node))
			}
			plugins := placement.PodPlugins{
				Filter: []fw.FilterPlugin{nodeunschedulable.NodeUnschedulable{}, tainttoleration.TaintToleration{}, nodeaffinity.NodeAffinity{}, noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)},
				Score: []placement.WeightedScorer{{Plugin: tainttoleration.TaintToleration{}, Weight: 3}, {Plugin: nodeaffinity.NodeAffinity{}, Weight: 2},
					{Plugin: noderesources.NewFitStrategy(noderesources.LeastAllocated, nil), Weight: scale}, {Plugin: noderesources.NewBalancedCPUMemory(), Weight: 1}},
			}
			for _, ws := range plugins.Score {
				if pre, ok := ws.Plugin.(fw.PreScorePlugin); ok {
					plugins.PreScore = append(plugins.PreScore, pre)
				}
			}
			return c, placement.NewPodScheduler(plugins, pct, sc)
		}
		cScan, psScan := build(placement.Shortcuts{NoTree: true, NoColumn: true})
		sScan := cScan.Snapshot()
		type indexed struct {
			name string
			c    *cluster.Cache
			ps   *placement.PodScheduler
			snap *cluster.Snapshot
		}
		var indexes []indexed
		for _, x := range []struct {
			name string
			sc   placement.Shortcuts
		}{{"both", placement.Shortcuts{}}, {"tree", placement.Shortcuts{NoColumn: true}}, {"column", placement.Shortcuts{NoTree: true}}} {
			c, ps := build(x.sc)
			indexes = append(indexes, indexed{x.name, c, ps, c.Snapshot()})
		}
		shapes := 1 + r.IntN(4)
		for i := range 300 {
			shape := r.IntN(shapes)
			p := cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(int64(250*(1+shape)), int64(shape)<<28, 0)}
			if shape == 2 {
				p.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{Preferred: []cluster.PreferredSchedulingTerm{
					{Weight: 10, Preference: cluster.SelectorTerm{MatchExpressions: []cluster.SelectorRequirement{{Key: "zone", Operator: cluster.SelectorIn, Values: []string{"z1"}}}}}}}}
			}
			if shape == 3 {
				p.Tolerations = []cluster.Toleration{{Key: "spot", Operator: cluster.TolerationExists}}
			}
			pi := cluster.NewPodInfo(p)
			b, errB := psScan.Schedule(sScan, pi, nil, -1)
			for _, x := range indexes {
				a, errA := x.ps.Schedule(x.snap, pi, nil, -1)
				require.Equal(t, errB == nil, errA == nil, "%s: seed %d pod %d", x.name, seed, i)
				require.Equal(t, b, a, "%s: seed %d pod %d (n %d, pct %d)", x.name, seed, i, n, pct)
				require.Equal(t, psScan.ScanPosition(), x.ps.ScanPosition(), "%s: seed %d pod %d scan position", x.name, seed, i)
			}
			caches := []*cluster.Cache{cScan}
			for _, x := range indexes {
				caches = append(caches, x.c)
			}
			if errB == nil {
				for _, c := range caches {
					bound := p
					bound.NodeName = sScan.Node(b).Name()
					require.NoError(t, c.AddPod(bound))
				}
			}
			if r.IntN(10) == 0 { // some pods end
				victim := cluster.MakePodKey("", fmt.Sprintf("p%d", r.IntN(i+1)))
				_, err := cScan.RemovePod(victim)
				for _, c := range caches[1:] {
					_, errC := c.RemovePod(victim)
					require.Equal(t, err == nil, errC == nil)
				}
			}
			switch r.IntN(60) { // now and then a node changes its taints, or one is added
			case 0:
				node := sScan.Node(r.IntN(sScan.Len())).Node().Clone()
				node.Taints = nil
				if r.IntN(2) == 0 {
					node.Taints = []cluster.Taint{{Key: "spot", Effect: cluster.TaintPreferNoSchedule}}
				}
				for _, c := range caches {
					require.NoError(t, c.UpdateNode(node))
				}
			case 1:
				node := cluster.Node{Name: fmt.Sprintf("m%04d", i), Allocatable: cluster.NewResources(8000, 16<<30, 110)}
				for _, c := range caches {
					require.NoError(t, c.AddNode(node))
				}
			}
			require.NoError(t, cScan.UpdateSnapshot(sScan))
			for _, x := range indexes {
				require.NoError(t, x.c.UpdateSnapshot(x.snap))
			}
		}
	}
}

// Two pods whose node selectors differ never share remembered verdicts,
// even when one's labels spell the other's: {a: "b,c=d"} is not
// {a: b, c: d}. A signature that wrote labels without their lengths gave
// both one table, and the second pod went to a node its selector rejects.
func TestMemoTellsSpelledAlikeSelectorsApart(t *testing.T) {
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("n1").CPU("8").Label("a", "b").Label("c", "d")})
	ps := newPodScheduler([]fw.FilterPlugin{nodeaffinity.NodeAffinity{}}, nil, 100)
	for i := range 3 { // seen often enough to be remembered
		idx, fit := ps.Schedule(snap, podInfo(gangsimtest.MakePod(fmt.Sprintf("p%d", i)).NodeSelector("a", "b").NodeSelector("c", "d")), nil, -1)
		require.Nil(t, fit)
		require.Equal(t, 0, idx)
	}
	_, fit := ps.Schedule(snap, podInfo(gangsimtest.MakePod("q").NodeSelector("a", "b,c=d")), nil, -1)
	require.NotNil(t, fit, "the node's labels do not match a=\"b,c=d\"")
}
