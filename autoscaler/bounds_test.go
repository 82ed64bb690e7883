package autoscaler

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// Hostile inputs (issue 48): each bound below once let a run hang, loop
// for ever, overflow or grow without limit.

// A scan interval below the floor is refused: at 1ns the simulated clock
// would crawl a nanosecond a scan, and the cluster autoscaler never loops
// faster than its work takes anyway.
func TestScanIntervalHasAFloor(t *testing.T) {
	_, err := New(Config{ScanInterval: time.Nanosecond}, []NodeGroup{group("cpu", "4", 3)}, nil)
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorContains(t, err, "scanInterval")
	require.ErrorContains(t, err, MinScanInterval.String())
	_, err = New(Config{ScanInterval: MinScanInterval}, []NodeGroup{group("cpu", "4", 3)}, nil)
	require.NoError(t, err)
}

// runToEnd runs w to its end. A run that never ends is the test
// binary's timeout, which names the test: no wall-clock limit here, the
// rules pinned are the events and the end time.
func (w *world) runToEnd() time.Duration {
	w.t.Helper()
	end, err := Run(w.s, w.a)
	require.NoError(w.t, err)
	return end
}

// A group whose nodes take longer than maxNodeProvisionTime never gives a
// node. Each timeout backs it off for twice as long as the one before (5m,
// 10m, 20m, then 30m, the most), the next scale-up coming at the back-off's
// end; once the back-off is at its most, the autoscaler no longer wakes for
// its end, and the run ends.
func TestBackoffGrowsAndTheRunEnds(t *testing.T) {
	slow := group("slow", "4", 5)
	slow.ProvisioningDelay = Delay{Fixed: 20 * time.Minute}
	w := newWorld(t, Config{}, slow)
	w.addPods(1, "web", "1", 0)
	w.runToEnd()
	require.Equal(t, `10s ScaleUp slow [slow-1] 1 pods
15m10s ScaleUpTimeout slow [slow-1]
15m10s NoScaleUp  [] 1 pods
20m10s ScaleUp slow [slow-2] 1 pods
35m10s ScaleUpTimeout slow [slow-2]
35m10s NoScaleUp  [] 1 pods
45m10s ScaleUp slow [slow-3] 1 pods
1h0m10s ScaleUpTimeout slow [slow-3]
1h0m10s NoScaleUp  [] 1 pods
1h20m10s ScaleUp slow [slow-4] 1 pods
1h35m10s ScaleUpTimeout slow [slow-4]
1h35m10s NoScaleUp  [] 1 pods
`, w.log())
	var reasons []string
	for _, e := range w.a.Events() {
		if e.Kind == EventScaleUpTimeout {
			reasons = append(reasons, e.Reason)
		}
	}
	require.Contains(t, reasons[0], "backed off for 5m0s")
	require.Contains(t, reasons[3], "backed off for 30m0s")
}

// A node that arrives ends its group's back-off: the next timeout backs
// it off for the initial 5m again.
func TestBackoffResetByANodeThatArrives(t *testing.T) {
	a, err := New(Config{}, []NodeGroup{group("g", "4", 5)}, nil)
	require.NoError(t, err)
	g := a.groups[0]
	require.Equal(t, 5*time.Minute, g.nextBackoff(0))
	g.failures, g.lastFailure, g.backoff, g.backoffTil = 3, 0, 20*time.Minute, 20*time.Minute
	require.Equal(t, 30*time.Minute, g.nextBackoff(21*time.Minute))
	g.backoff, g.backoffTil = 10*time.Minute, 10*time.Minute
	require.Equal(t, 20*time.Minute, g.nextBackoff(11*time.Minute))
	// three hours without a failure reset it, as
	// --node-group-backoff-reset-timeout does
	require.Equal(t, 5*time.Minute, g.nextBackoff(3*time.Hour+time.Second))
}

// Pods of 3, 3, 1 and 1 cpu on a 4-cpu template need 2 new nodes, not 3:
// the estimator tries the earlier new nodes, not only the last one.
func TestBinpackingUsesEarlierNewNodes(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 10))
	for i, cpu := range []string{"3", "3", "1", "1"} {
		require.NoError(t, w.s.AddPod(owned(gt.MakePod(fmt.Sprintf("p%d", i)).CPU(cpu).Memory("1Gi"), "p"+cpu), 0))
	}
	w.run()
	up := w.a.Events()[0]
	require.Equal(t, EventScaleUp, up.Kind)
	require.Len(t, up.Nodes, 2)
	require.Len(t, up.Pods, 4)
}

// The priority expander takes the group of the higher priority, whatever
// the groups' order and the other expanders' figures.
func TestPriorityExpanderPrefersTheHigherPriority(t *testing.T) {
	for _, prios := range []map[int][]string{{10: {"^a$"}, 20: {"^b$"}}, {20: {"^a$"}, 10: {"^b$"}}} {
		want := "b"
		if len(prios[20]) > 0 && prios[20][0] == "^a$" {
			want = "a"
		}
		w := newWorld(t, Config{Expander: "priority", Priorities: prios}, group("a", "4", 10), group("b", "16", 10))
		w.addPods(2, "web", "1", 0)
		w.run()
		require.Equal(t, want, w.a.Events()[0].Group, "%v", prios)
	}
}

// One scale-up asks for at most MaxNodesPerScaleUp nodes (the cluster
// autoscaler's --max-nodes-per-scaleup); the pods left get theirs at the
// next scans.
func TestMaxNodesPerScaleUp(t *testing.T) {
	w := newWorld(t, Config{MaxNodesPerScaleUp: 3}, group("cpu", "4", 10))
	w.addPods(5, "web", "3", 0)
	w.run()
	var sizes []int
	for _, e := range w.a.Events() {
		if e.Kind == EventScaleUp {
			sizes = append(sizes, len(e.Nodes))
		}
	}
	require.Equal(t, []int{3, 2}, sizes)
	_, err := New(Config{MaxNodesPerScaleUp: -1}, nil, nil)
	require.ErrorContains(t, err, "maxNodesPerScaleUp")
}

// The estimate's work is counted, not timed: pods that each need a node
// of their own cost a few checks each, not one per new node made before
// them (which made 50,000 such pods take minutes), and a budget of checks
// (MaxBinpackingChecks, for --max-nodegroup-binpacking-duration) ends an
// estimate early, deterministically.
func TestBinpackingWorkIsLinear(t *testing.T) {
	const pods = 3000
	w := newWorld(t, Config{MaxNodesPerScaleUp: pods}, group("cpu", "4", pods))
	w.addPods(pods, "web", "3", 0)
	require.NoError(t, w.a.Advance(w.s, 10*time.Second))
	up := w.a.Events()[0]
	require.Equal(t, EventScaleUp, up.Kind)
	require.Len(t, up.Nodes, pods)
	require.LessOrEqual(t, w.a.checks, int64(3*pods), "checks for %d pods", pods)

	w = newWorld(t, Config{MaxNodesPerScaleUp: pods, MaxBinpackingChecks: 100}, group("cpu", "4", pods))
	w.addPods(pods, "web", "3", 0)
	require.NoError(t, w.a.Advance(w.s, 10*time.Second))
	up = w.a.Events()[0]
	require.Equal(t, EventScaleUp, up.Kind)
	require.Less(t, len(up.Nodes), 100)
	require.NotEmpty(t, up.Nodes)
}

// Cluster totals near the int64 range do not overflow: a cores limit of
// 10^16 (10^19 millicores) allows every scale-up, as no limit would.
func TestHugeTotalsDoNotOverflow(t *testing.T) {
	for _, cfg := range []Config{{MaxCoresTotal: 1e16}, {MaxCoresTotal: math.MaxInt64}, {MaxMemoryTotal: math.MaxInt64}} {
		w := newWorld(t, cfg, group("cpu", "4", 10))
		w.addPods(2, "web", "3", 0)
		w.run()
		up := w.a.Events()[0]
		require.Equal(t, EventScaleUp, up.Kind, "%+v: %s", cfg, up.Reason)
		require.Len(t, up.Nodes, 2)
	}
	require.Equal(t, int64(math.MaxInt64), satMul(math.MaxInt64/2, 3))
	require.Equal(t, int64(math.MaxInt64), satAdd(math.MaxInt64, 1))
	require.Equal(t, int64(6), satMul(2, 3))
}

// hugeNode is a cordoned node (no pod may use it) of 4 cpu and 16Gi,
// with the amount of res (millicores or bytes) instead.
func hugeNode(name string, res cluster.ResourceName, amount int64) cluster.Node {
	w := gt.MakeNode(name).CPU("4").Memory("16Gi").Pods(110).Unschedulable()
	if res == cluster.ResourceCPU {
		w = w.MilliCPU(amount)
	} else {
		w = w.Memory(fmt.Sprint(amount))
	}
	return w.Obj()
}

// limitOn is a config whose maxCoresTotal (for cpu) or maxMemoryTotal
// is amount millicores or bytes.
func limitOn(res cluster.ResourceName, amount int64) Config {
	if res == cluster.ResourceCPU {
		return Config{MaxCoresTotal: amount / 1000}
	}
	return Config{MaxMemoryTotal: amount}
}

// The cluster's cpu and memory totals saturate rather than wrap: nodes
// whose cpu or memory together pass the int64 range hold more than any
// limit, so a scale-up past maxCoresTotal or maxMemoryTotal is refused,
// as it is when they hold just over the limit; under it, the scale-up
// comes.
func TestHugeClusterTotalsStillBlockAScaleUp(t *testing.T) {
	for _, res := range []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory} {
		for _, tc := range []struct {
			name    string
			amounts []int64 // the existing nodes'
			blocked bool
		}{
			{name: "under the limit", amounts: []int64{4e17, 4e17}},
			{name: "just over the limit", amounts: []int64{5e17, 5e17 + 1}, blocked: true},
			{name: "past the int64 range", amounts: []int64{5e18, 5e18}, blocked: true},
			{name: "far past it", amounts: []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64}, blocked: true},
		} {
			t.Run(string(res)+" "+tc.name, func(t *testing.T) {
				w := newWorld(t, limitOn(res, 1e18), group("cpu", "4", 10))
				for i, m := range tc.amounts {
					require.NoError(t, w.s.AddNode(hugeNode(fmt.Sprintf("big-%d", i), res, m)))
				}
				w.addPods(2, "web", "3", 0)
				require.NoError(t, w.a.Advance(w.s, 10*time.Second))
				up := w.a.Events()[0]
				if !tc.blocked {
					require.Equal(t, EventScaleUp, up.Kind, up.Reason)
					require.Len(t, up.Nodes, 2)
					return
				}
				require.Equal(t, EventNoScaleUp, up.Kind)
				if res == cluster.ResourceCPU {
					require.Contains(t, up.Reason, "cores-total max 1000000000000000 reached")
				} else {
					require.Contains(t, up.Reason, "memory-total max 1000000000000000000 reached")
				}
			})
		}
	}
}

// Nodes on the way count in the totals as the nodes there do, and their
// sum saturates too: a huge node requested at 10s and one as big that
// joins at 15s pass the int64 range together, so the small node another
// pod asks for at 20s is past the limit.
func TestHugeNodesOnTheWayStillBlockAScaleUp(t *testing.T) {
	for _, res := range []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory} {
		t.Run(string(res), func(t *testing.T) {
			big := hugeNode("t", res, 5e18)
			big.Unschedulable = false
			big.Labels = map[string]string{"pool": "huge"}
			small := group("small", "4", 10)
			small.Template.Labels = map[string]string{"pool": "small"}
			w := newWorld(t, limitOn(res, 9e18), NodeGroup{Name: "huge", Template: big, Max: 10,
				ProvisioningDelay: Delay{Fixed: 2 * time.Minute, Text: "2m"}, PricePerHour: 0.5}, small)
			require.NoError(t, w.s.AddPod(owned(gt.MakePod("first").CPU("1").Memory("1Gi").NodeSelector("pool", "huge"), "first"), 0))
			require.NoError(t, w.a.Advance(w.s, 10*time.Second))
			require.NoError(t, w.s.AddNode(hugeNode("there", res, 5e18)))
			require.NoError(t, w.s.AddPod(owned(gt.MakePod("second").CPU("1").Memory("1Gi").NodeSelector("pool", "small"), "second"), 15*time.Second))
			require.NoError(t, w.a.Advance(w.s, 20*time.Second))
			require.Equal(t, "10s ScaleUp huge [huge-1] 1 pods\n20s NoScaleUp  [] 1 pods\n", w.log())
			want := "memory-total max 9000000000000000000 reached"
			if res == cluster.ResourceCPU {
				want = "cores-total max 9000000000000000 reached"
			}
			require.Contains(t, w.a.Events()[1].Reason, want)
		})
	}
}

// A price so high that node-hours times it overflows costs the most a
// float64 holds, never +Inf (which JSON cannot carry).
func TestHugePriceCostIsFinite(t *testing.T) {
	g := group("cpu", "4", 10)
	g.PricePerHour = 1e308
	w := newWorld(t, Config{}, g)
	w.addPods(1, "web", "3", 0)
	end := w.run() + 10*time.Hour
	sum := w.a.Groups(end)[0]
	require.False(t, math.IsInf(sum.Cost, 0) || math.IsNaN(sum.Cost), "%v", sum.Cost)
	require.Equal(t, math.MaxFloat64, sum.Cost)
}

// A drain a disruption budget blocks is a failed scale-down: no node is
// removed before the failure cooldown (scaleDownDelayAfterFailure) ends.
func TestNoRemovalBeforeFailureCooldown(t *testing.T) {
	w := newWorld(t, Config{ScaleDownDelayAfterAdd: time.Second}, group("cpu", "4", 10))
	w.addPods(1, "web", "1", 0)
	require.NoError(t, w.a.Advance(w.s, 3*time.Minute))
	one := cluster.IntOrPercent{Value: 1}
	require.NoError(t, w.s.AddPodDisruptionBudget(cluster.PodDisruptionBudget{Name: "web",
		Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MinAvailable: &one}))
	require.NoError(t, w.s.AddPod(owned(gt.MakePod("kept").CPU("1").Memory("1Gi").Label("app", "web"), "kept"), 0))
	require.NoError(t, w.a.Advance(w.s, 4*time.Minute))
	n := w.a.nodes["cpu-1"]
	require.NotNil(t, n)
	now := w.s.Now()
	require.NoError(t, w.a.remove(n, now))
	last := w.a.Events()[len(w.a.Events())-1]
	require.Equal(t, EventNodeNeeded, last.Kind)
	require.True(t, strings.Contains(last.Reason, "disruption budget"), last.Reason)
	until, cool := w.a.cooldown()
	require.True(t, cool)
	require.Equal(t, now+DefaultScaleDownDelayAfterFailure, until)
	require.NoError(t, w.a.Advance(w.s, now+DefaultScaleDownDelayAfterFailure-time.Second))
	for _, e := range w.a.Events() {
		require.NotEqual(t, EventScaleDown, e.Kind, "removed at %v, before the cooldown's end", e.At)
	}
}

// The bounds are the cluster autoscaler's: a scan interval of at least a
// second (999ms is refused), at most 1,000 nodes a scale-up
// (--max-nodes-per-scaleup), back-off from 5 to 30 minutes, reset after
// 3 hours without a timeout.
func TestBoundsAreTheClusterAutoscalers(t *testing.T) {
	_, err := New(Config{ScanInterval: 999 * time.Millisecond}, []NodeGroup{group("cpu", "4", 3)}, nil)
	require.ErrorContains(t, err, "scanInterval: 999ms is below 1s")
	_, err = New(Config{ScanInterval: time.Second}, []NodeGroup{group("cpu", "4", 3)}, nil)
	require.NoError(t, err)
	d := Config{}.WithDefaults()
	require.Equal(t, 1000, d.MaxNodesPerScaleUp)
	require.Equal(t, 300_000, d.MaxBinpackingChecks)
	require.Equal(t, 5*time.Minute, NodeGroupBackoff)
	require.Equal(t, 30*time.Minute, MaxNodeGroupBackoff)
	require.Equal(t, 3*time.Hour, NodeGroupBackoffReset)
}

// After a reset (three hours without a timeout) the back-off's growth
// starts over: 5m, then 10m, not on from where it stood.
func TestBackoffGrowthStartsOverAfterAReset(t *testing.T) {
	a, err := New(Config{}, []NodeGroup{group("g", "4", 5)}, nil)
	require.NoError(t, err)
	g := a.groups[0]
	g.failures, g.lastFailure = 3, 0
	g.backOff(4 * time.Hour)
	require.Equal(t, 5*time.Minute, g.backoff)
	g.backOff(4*time.Hour + 10*time.Minute)
	require.Equal(t, 10*time.Minute, g.backoff)
}

// A node of the group that arrives ends its back-off's growth: after a
// timeout, an arrival, then another timeout within three hours, the group
// backs off for the first 5 minutes again, not 10.
func TestBackoffGrowthEndsWhenANodeArrives(t *testing.T) {
	slow := group("g", "4", 5)
	slow.ProvisioningDelay = Delay{Fixed: 20 * time.Minute} // past the 15m provision time
	w := newWorld(t, Config{}, slow)
	w.addPods(1, "web", "3", 0)
	require.NoError(t, w.a.Advance(w.s, 16*time.Minute)) // the first timeout
	g := w.a.groups[0]
	require.Equal(t, 5*time.Minute, g.backoff)
	g.ProvisioningDelay = Delay{Fixed: time.Minute} // the next node comes
	require.NoError(t, w.a.Advance(w.s, 30*time.Minute))
	require.Positive(t, g.live)
	require.Zero(t, g.failures, "an arrival ends the growth")
	g.ProvisioningDelay = Delay{Fixed: 20 * time.Minute}
	w.addPods(1, "api", "3", 30*time.Minute)
	require.NoError(t, w.a.Advance(w.s, 47*time.Minute)) // one timeout, at 45m10s
	require.Equal(t, 5*time.Minute, g.backoff, "the timeout after an arrival backs off as a first one")
}

// The estimate stops at the first pod that finds its budget of checks
// spent: pods of 3 cpu on 4-cpu nodes, each on a node of its own, cost
// one check for the first and two for each after (the earlier new nodes,
// then a fresh one).
func TestBinpackingStopsWhenItsChecksAreSpent(t *testing.T) {
	for _, tc := range []struct{ budget, nodes, checks int }{{1, 1, 1}, {2, 2, 3}, {3, 2, 3}, {10, 6, 11}} {
		w := newWorld(t, Config{MaxNodesPerScaleUp: 100, MaxBinpackingChecks: tc.budget}, group("cpu", "4", 100))
		w.addPods(50, "web", "3", 0)
		require.NoError(t, w.a.Advance(w.s, 10*time.Second))
		require.Len(t, w.a.Events()[0].Nodes, tc.nodes, "budget %d", tc.budget)
		require.Equal(t, int64(tc.checks), w.a.checks, "budget %d", tc.budget)
	}
}
