package memo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The tree's summaries must be what reading the entries says, after any
// sequence of updates: counts, the k-th feasible node, the best node of a
// range (the lowest index among equal scores) and each normaliser's
// bounds, checked against brute force on random tables. Each tree is
// built in the arrays of the one before when their sizes allow, as a
// forgotten table's are reused.
func TestMemoTreeSummariesMatchBruteForce(t *testing.T) {
	rejected := fw.NewStatus(fw.Unschedulable, "no")
	var old *tree
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		n, nNorm := 1+r.IntN(300), r.IntN(maxNormalizers+1)
		table := &table{nodes: make([]entry, n)}
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
		tr := newTree(n, nNorm, old)
		old = tr
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
				want := rangeSummary{best: -1, bestV: math.MinInt64}
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
				got := rangeSummary{best: -1, bestV: math.MinInt64}
				for j := range nNorm {
					got.lo[j], got.hi[j] = math.MaxInt64, math.MinInt64
				}
				tr.summarize(l, rr, &got)
				got.best = int32(tr.first(l, rr, got.bestV))
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

// liveScorer is a score plugin the memo cannot remember (no Signer), with
// a PreScore that skips every pod, declared as a PreScoreSkipper, as a
// PreScoreIgnoresNodes, or as neither.
type liveScorer struct{}

func (liveScorer) Name() string { return "Live" }
func (liveScorer) Score(*fw.CycleState, *cluster.PodInfo, *cluster.NodeInfo) (int64, *fw.Status) {
	return 0, nil
}
func (liveScorer) PreScore(*fw.CycleState, *cluster.PodInfo, []*cluster.NodeInfo) *fw.Status {
	return fw.NewStatus(fw.Skip)
}

type skipperScorer struct{ liveScorer }

func (skipperScorer) PreScoreSkips(*cluster.PodInfo) bool { return true }

type ignoringScorer struct{ liveScorer }

func (ignoringScorer) PreScoreIgnoresNodes() {}

// The tree answers a pod whose only live score plugin says it skips the
// pod (PreScoreSkipper: PodTopologySpread for a pod without constraints,
// in every default profile), or skips it in a PreScore that reads no
// nodes; not one that may read the nodes.
func TestTreeUsableWithSkippedScorers(t *testing.T) {
	pod := cluster.NewPodInfo(cluster.Pod{Name: "p", Requests: cluster.NewResources(100, 0, 0)})
	for _, tc := range []struct {
		name   string
		scorer fw.ScorePlugin
		usable bool
	}{
		{"PreScoreSkipper", skipperScorer{}, true},
		{"PreScoreIgnoresNodes", ignoringScorer{}, true},
		{"neither", liveScorer{}, false},
	} {
		m := New(Plugins{PreScore: []fw.PreScorePlugin{tc.scorer.(fw.PreScorePlugin)}, Score: []fw.ScorePlugin{tc.scorer},
			Weight: []int64{1}, ScorePre: []int{0}}, Options{})
		m.plan.memoScores = []bool{false} // as lookup leaves it: the plugin is not remembered
		state := fw.NewCycleState()
		require.Equal(t, tc.usable, m.treeUsable(state, pod), tc.name)
		if tc.usable {
			require.True(t, state.ScoreSkipped(0), "%s: the plugin is marked skipped", tc.name)
		}
	}
}
