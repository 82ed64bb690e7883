package placement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/nodeunschedulable"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
)

// The memo tree must choose what the node-by-node scan chooses, and leave
// the scan position where the scan leaves it, on random clusters and pod
// streams (with PreferNoSchedule taints and preferred node affinity, which
// make the normalised scores vary, so that both tree paths run).
func TestMemoTreeMatchesScan(t *testing.T) {
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		n := []int{3, 50, 99, 100, 101, 250, 700}[r.IntN(7)]
		pct := []int32{0, 0, 100, 30, 7}[r.IntN(5)]
		build := func() (*cluster.Cache, *PodScheduler) {
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
			plugins := PodPlugins{
				Filter: []fw.FilterPlugin{nodeunschedulable.NodeUnschedulable{}, tainttoleration.TaintToleration{}, nodeaffinity.NodeAffinity{}, noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)},
				Score: []WeightedScorer{{Plugin: tainttoleration.TaintToleration{}, Weight: 3}, {Plugin: nodeaffinity.NodeAffinity{}, Weight: 2},
					{Plugin: noderesources.NewFitStrategy(noderesources.LeastAllocated, nil), Weight: 1}, {Plugin: noderesources.NewBalancedCPUMemory(), Weight: 1}},
			}
			for _, ws := range plugins.Score {
				if pre, ok := ws.Plugin.(fw.PreScorePlugin); ok {
					plugins.PreScore = append(plugins.PreScore, pre)
				}
			}
			return c, NewPodScheduler(plugins, pct)
		}
		cTree, psTree := build()
		cScan, psScan := build()
		psScan.NoTree = true
		sTree, sScan := cTree.Snapshot(), cScan.Snapshot()
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
			a, errA := psTree.Schedule(sTree, pi, nil, -1)
			b, errB := psScan.Schedule(sScan, pi, nil, -1)
			require.Equal(t, errB == nil, errA == nil, "seed %d pod %d", seed, i)
			require.Equal(t, b, a, "seed %d pod %d (n %d, pct %d)", seed, i, n, pct)
			require.Equal(t, psScan.ScanPosition(), psTree.ScanPosition(), "seed %d pod %d scan position", seed, i)
			if errA != nil {
				continue
			}
			for _, c := range []*cluster.Cache{cTree, cScan} {
				bound := p
				bound.NodeName = sTree.Node(a).Name()
				require.NoError(t, c.AddPod(bound))
			}
			if r.IntN(10) == 0 { // some pods end
				victim := cluster.MakePodKey("", fmt.Sprintf("p%d", r.IntN(i+1)))
				_, err1 := cTree.RemovePod(victim)
				_, err2 := cScan.RemovePod(victim)
				require.Equal(t, err1 == nil, err2 == nil)
			}
			require.NoError(t, cTree.UpdateSnapshot(sTree))
			require.NoError(t, cScan.UpdateSnapshot(sScan))
		}
	}
}

// The tree's summaries must be what reading the entries says, after any
// sequence of updates: counts, the k-th feasible node, the best node of a
// range (the lowest index among equal scores) and each normaliser's
// bounds, checked against brute force on random tables.
func TestMemoTreeSummariesMatchBruteForce(t *testing.T) {
	rejected := fw.NewStatus(fw.Unschedulable, "no")
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		n, nNorm := 1+r.IntN(300), r.IntN(maxNormalizers+1)
		table := &memoTable{nodes: make([]memoEntry, n)}
		set := func(i int) {
			e := &table.nodes[i]
			e.status = nil
			if r.IntN(4) == 0 {
				e.status = rejected
			}
			e.fixed = int64(r.IntN(5)) // few values: ties are common
			for j := range nNorm {
				e.norm[j] = int64(r.IntN(4))
			}
		}
		all := make([]int32, n)
		for i := range n {
			set(i)
			all[i] = int32(i)
		}
		tr := newMemoTree(n, nNorm)
		tr.update(table, all)
		for round := range 30 {
			var changed []int32
			for range r.IntN(8) {
				i := r.IntN(n)
				set(i)
				changed = append(changed, int32(i), int32(i)) // repeats allowed
			}
			tr.update(table, changed)
			for range 20 {
				l := r.IntN(n)
				rr := l + 1 + r.IntN(n-l)
				want := rangeSummary{best: -1}
				cnt := 0
				for j := range nNorm {
					want.lo[j], want.hi[j] = math.MaxInt64, math.MinInt64
				}
				for i := l; i < rr; i++ {
					e := &table.nodes[i]
					if e.status != nil {
						continue
					}
					cnt++
					if want.best < 0 || e.fixed > want.bestV {
						want.best, want.bestV = int32(i), e.fixed
					}
					for j := range nNorm {
						want.lo[j], want.hi[j] = min(want.lo[j], e.norm[j]), max(want.hi[j], e.norm[j])
					}
				}
				got := rangeSummary{best: -1}
				for j := range nNorm {
					got.lo[j], got.hi[j] = math.MaxInt64, math.MinInt64
				}
				tr.summarize(l, rr, &got)
				require.Equal(t, cnt, tr.count(l, rr), "seed %d round %d count [%d,%d)", seed, round, l, rr)
				require.Equal(t, want, got, "seed %d round %d summary [%d,%d)", seed, round, l, rr)
				if cnt > 0 {
					k := 1 + r.IntN(cnt)
					before := tr.count(0, l)
					idx := tr.kth(before + k)
					require.Equal(t, k, tr.count(l, idx+1), "seed %d round %d kth", seed, round)
					require.Nil(t, table.nodes[idx].status, "seed %d round %d: the k-th node is feasible", seed, round)
				}
			}
		}
	}
}
