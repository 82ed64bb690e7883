package placement_test

import (
	"fmt"
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

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		name       string
		percentage int32
		nodes      int
		want       int
	}{
		{"no nodes", 0, 0, 0},
		{"below 100 nodes: all", 0, 50, 50},
		{"99 nodes: all", 10, 99, 99},
		{"100 nodes adaptive: 50% = 50, raised to 100", 0, 100, 100},
		{"250 nodes adaptive: 50-2 = 48% = 120", 0, 250, 120},
		{"1000 nodes adaptive: 50-8 = 42% = 420", 0, 1000, 420},
		{"5000 nodes adaptive: 50-40 = 10% = 500", 0, 5000, 500},
		{"6000 nodes adaptive: 50-48 = 2%, raised to 5% = 300", 0, 6000, 300},
		{"10000 nodes adaptive: 5% minimum = 500", 0, 10000, 500},
		{"100000 nodes adaptive: 5% = 5000", 0, 100000, 5000},
		{"percentage 100: all", 100, 5000, 5000},
		{"percentage 50 of 1000", 50, 1000, 500},
		{"percentage 1 of 1000: 10, raised to 100", 1, 1000, 100},
		{"percentage 1 of 200: 2, raised to 100", 1, 200, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, placement.NumFeasibleNodesToFind(tt.percentage, tt.nodes))
		})
	}
}

func rejections(reasons map[int][]string) []fw.NodeStatus {
	var out []fw.NodeStatus
	for i := range len(reasons) {
		out = append(out, fw.NodeStatus{Node: i, Status: fw.NewStatus(fw.Unschedulable, reasons[i]...).WithPlugin("X")})
	}
	return out
}

func repeat(n int, reasons ...string) map[int][]string {
	m := map[int][]string{}
	for i := range n {
		m[i] = reasons
	}
	return m
}

func merge(ms ...map[int][]string) map[int][]string {
	out := map[int][]string{}
	for _, m := range ms {
		base := len(out)
		for i, r := range m {
			out[base+i] = r
		}
	}
	return out
}

func TestFitErrorMessage(t *testing.T) {
	const cpu, mem, taint = "Insufficient cpu", "Insufficient memory", "node(s) had untolerated taint(s)"
	tests := []struct {
		name    string
		nodes   int
		reasons map[int][]string
		want    string
	}{
		{"no nodes", 0, nil, "no nodes available to schedule pods"},
		{"parts sorted as strings", 5, merge(repeat(3, cpu), repeat(2, taint)),
			"0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu."},
		{"a node with two reasons counts in both", 2, map[int][]string{0: {cpu, mem}, 1: {cpu}},
			"0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu."},
		{"string order, not numeric: 10 before 2", 12, merge(repeat(10, cpu), repeat(2, taint)),
			"0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint(s)."},
		{"same count: by reason", 4, merge(repeat(2, taint), repeat(2, cpu)),
			"0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint(s)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &fw.FitError{Pod: "default/p", NumAllNodes: tt.nodes, Statuses: rejections(tt.reasons)}
			require.Equal(t, tt.want, e.Error())
		})
	}
}

func TestFitErrorResolvable(t *testing.T) {
	e := &fw.FitError{NumAllNodes: 4, Statuses: []fw.NodeStatus{
		{Node: 0, Status: fw.NewStatus(fw.Unschedulable, "r").WithPlugin("A")},
		{Node: 1, Status: fw.NewStatus(fw.UnschedulableAndUnresolvable, "r").WithPlugin("B")},
		{Node: 3, Status: fw.NewStatus(fw.Unschedulable, "r").WithPlugin("A")},
	}}
	require.Equal(t, []int{0, 3}, e.Resolvable())
	require.Empty(t, (&fw.FitError{}).Resolvable())
}

// defaultFilters and defaultScorers are kube-scheduler's default per-pod
// plugins, with their default weights.
func defaultFilters() []fw.FilterPlugin {
	return []fw.FilterPlugin{
		nodename.NodeName{}, nodeunschedulable.NodeUnschedulable{}, tainttoleration.TaintToleration{},
		nodeaffinity.NodeAffinity{}, noderesources.NewFitStrategy(noderesources.LeastAllocated, nil),
	}
}

func defaultScorers(strategy noderesources.ScoringType) []placement.WeightedScorer {
	return []placement.WeightedScorer{
		{Plugin: tainttoleration.TaintToleration{}, Weight: 3},
		{Plugin: noderesources.NewFitStrategy(strategy, nil), Weight: 1},
		{Plugin: noderesources.NewBalancedCPUMemory(), Weight: 1},
	}
}

// nodeName schedules pod and returns the chosen node's name.
func nodeName(t *testing.T, ps *placement.PodScheduler, snap *cluster.Snapshot, p *gangsimtest.PodWrapper, candidates []int) string {
	t.Helper()
	idx, ferr := ps.Schedule(snap, podInfo(p), candidates, -1)
	require.Nil(t, ferr)
	return snap.Node(idx).Name()
}

func TestScheduleTotals(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	// Four 4000m, 8Gi nodes, added out of name order; the pod asks 1000m,
	// 1Gi. Per node (taint x3 after NormalizeReverse, fit, balanced):
	//   a empty, PreferNoSchedule taint: taint 0; least cpu 75, mem 7/8 =
	//     87 -> 81; balanced with 0.25/0.125 std 0.0625 -> 93, without
	//     100 -> 50+(50+93-100)/2 = 71. Total 0+81+71 = 152.
	//   b 2000m, 4Gi used: 300; least cpu 25, mem 3/8 = 37 -> 31;
	//     balanced without 0.5/0.5 -> 100, with 0.75/0.625 -> 93 -> 71.
	//     Total 402.
	//   c 2000m, 1Gi used: 300; least cpu 25, mem 6/8 = 75 -> 50;
	//     balanced without 0.5/0.125 std 0.1875 -> 81, with 0.75/0.25 std
	//     0.25 -> 75 -> 50+(50+75-81)/2 = 72. Total 422.
	//   d 1000m, 3Gi used: 300; least cpu 50, mem 50 -> 50; balanced
	//     without 0.25/0.375 -> 93, with 0.5/0.5 -> 100 -> 50+57/2 = 78.
	//     Total 428.
	// MostAllocated instead: a cpu 25, mem 12 -> 18; b 75, 62 -> 68;
	// c 75, 25 -> 50; d 50, 50 -> 50.
	nodes := []*gangsimtest.NodeWrapper{
		node("d").CPU("4000m").Memory("8Gi"), node("c").CPU("4000m").Memory("8Gi"),
		node("b").CPU("4000m").Memory("8Gi"), node("a").CPU("4000m").Memory("8Gi").Taint("k", "", PN),
	}
	snap := gangsimtest.Snapshot(t, nodes,
		pod("ub").NodeName("b").CPU("2000m").Memory("4Gi"), pod("uc").NodeName("c").CPU("2000m").Memory("1Gi"), pod("ud").NodeName("d").CPU("1000m").Memory("3Gi"))
	incoming := func() *gangsimtest.PodWrapper { return pod("p").CPU("1000m").Memory("1Gi") }
	tests := []struct {
		name    string
		scorers []placement.WeightedScorer
		want    string
	}{
		{"defaults: d 428 > c 422 > b 402 > a 152", defaultScorers(noderesources.LeastAllocated), "d"},
		{"without balanced, c and d tie at 350: lowest index", defaultScorers(noderesources.LeastAllocated)[:2], "c"},
		{"most allocated, no balanced: b 368 > c = d 350 > a 18", defaultScorers(noderesources.MostAllocated)[:2], "b"},
		{"taint alone: b, c, d tie at 300", defaultScorers(noderesources.LeastAllocated)[:1], "b"},
		{"fit weight 5, taint weight 1: a 405 > c = d 350 > b 255", []placement.WeightedScorer{
			{Plugin: tainttoleration.TaintToleration{}, Weight: 1},
			{Plugin: noderesources.NewFitStrategy(noderesources.LeastAllocated, nil), Weight: 5},
		}, "a"},
		{"least allocated alone: a 81", []placement.WeightedScorer{{Plugin: noderesources.NewFitStrategy(noderesources.LeastAllocated, nil), Weight: 1}}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := newPodScheduler(defaultFilters(), tt.scorers, 0)
			require.Equal(t, tt.want, nodeName(t, ps, snap, incoming(), nil))
		})
	}
}

// countingScorer counts its calls and scores every node 0.
type countingScorer struct{ calls *int }

func (countingScorer) Name() string { return "Counting" }

func (s countingScorer) Score(*fw.CycleState, *cluster.PodInfo, *cluster.NodeInfo) (int64, *fw.Status) {
	*s.calls++
	return 0, nil
}

func TestScheduleLoneFeasibleNodeIsNotScored(t *testing.T) {
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{
		gangsimtest.MakeNode("a").CPU("4000m").Memory("8Gi").Taint("k", "", NS),
		gangsimtest.MakeNode("b").CPU("4000m").Memory("8Gi"),
		gangsimtest.MakeNode("c").CPU("500m").Memory("8Gi"),
	})
	calls := 0
	ps := newPodScheduler(defaultFilters(), []placement.WeightedScorer{{Plugin: countingScorer{&calls}, Weight: 1}}, 0)
	require.Equal(t, "b", nodeName(t, ps, snap, gangsimtest.MakePod("p").CPU("1000m"), nil))
	require.Zero(t, calls)

	require.Equal(t, "b", nodeName(t, ps, snap, gangsimtest.MakePod("p").CPU("100m"), nil), "tie between b and c")
	require.Equal(t, 2, calls, "two feasible nodes are scored")
}

// recordingFilter passes every node and records the names it was asked about.
type recordingFilter struct{ seen *[]string }

func (recordingFilter) Name() string { return "Recording" }

func (f recordingFilter) Filter(_ *fw.CycleState, _ *cluster.PodInfo, n *cluster.NodeInfo) *fw.Status {
	*f.seen = append(*f.seen, n.Name())
	return nil
}

// span returns the names of nodes from..to-1 as identical names them.
func span(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("n%03d", i))
	}
	return out
}

// identical returns n equal nodes n000, n001, ...; the first tainted are
// tainted NoSchedule.
func identical(n, tainted int) []*gangsimtest.NodeWrapper {
	nodes := make([]*gangsimtest.NodeWrapper, n)
	for i := range nodes {
		nodes[i] = gangsimtest.MakeNode(fmt.Sprintf("n%03d", i)).CPU("1000m").Memory("1Gi")
		if i < tainted {
			nodes[i].Taint("k", "", NS)
		}
	}
	return nodes
}

func TestScheduleStopsAndRotates(t *testing.T) {
	// 200 nodes at 1%: 100 feasible nodes are enough. All score the same,
	// so the lowest index among those found wins.
	snap := gangsimtest.Snapshot(t, identical(200, 0))
	var seen []string
	filters := []fw.FilterPlugin{recordingFilter{&seen}, tainttoleration.TaintToleration{}}
	ps := newPodScheduler(filters, defaultScorers(noderesources.LeastAllocated), 1)
	for i, want := range []struct {
		node int
		seen []string
	}{{0, span(0, 100)}, {100, span(100, 200)}, {0, span(0, 100)}} {
		seen = nil
		idx, ferr := ps.Schedule(snap, podInfo(gangsimtest.MakePod("p").CPU("100m")), nil, -1)
		require.Nil(t, ferr)
		require.Equal(t, want.node, idx, "call %d", i)
		require.Equal(t, want.seen, seen, "call %d scanned", i)
	}
}

func TestScheduleResumesAfterRejectedNodes(t *testing.T) {
	// n000..n049 are tainted. The first call scans 150 nodes to find 100
	// feasible ones; the next starts at n150 and wraps around to n099;
	// the lowest index found still wins the tie.
	snap := gangsimtest.Snapshot(t, identical(200, 50))
	var seen []string
	filters := []fw.FilterPlugin{recordingFilter{&seen}, tainttoleration.TaintToleration{}}
	ps := newPodScheduler(filters, defaultScorers(noderesources.LeastAllocated), 1)
	for i, want := range []struct {
		node int
		seen []string
	}{
		{50, span(0, 150)},
		{50, append(span(150, 200), span(0, 100)...)},
		{100, span(100, 200)},
	} {
		seen = nil
		idx, ferr := ps.Schedule(snap, podInfo(gangsimtest.MakePod("p").CPU("100m")), nil, -1)
		require.Nil(t, ferr)
		require.Equal(t, want.node, idx, "call %d", i)
		require.Equal(t, want.seen, seen, "call %d scanned", i)
	}
}

func TestScheduleFitErrorAfterRotation(t *testing.T) {
	snap := gangsimtest.Snapshot(t, identical(200, 0))
	ps := newPodScheduler(defaultFilters(), defaultScorers(noderesources.LeastAllocated), 1)
	require.Equal(t, "n000", nodeName(t, ps, snap, gangsimtest.MakePod("p").CPU("100m"), nil)) // the next scan starts at n100

	idx, ferr := ps.Schedule(snap, podInfo(gangsimtest.MakePod("big").CPU("2000m")), nil, -1)
	require.Equal(t, -1, idx)
	require.NotNil(t, ferr)
	require.Equal(t, cluster.PodKey("default/big"), ferr.Pod)
	require.Equal(t, 200, ferr.NumAllNodes)
	require.Len(t, ferr.Statuses, 200)
	for i, r := range ferr.Statuses {
		require.Equal(t, i, r.Node, "rejections in node index order")
		require.Equal(t, fw.UnschedulableAndUnresolvable, r.Status.Code(), "2000m exceeds 1000m allocatable")
	}
	require.Equal(t, "0/200 nodes are available: 200 Insufficient cpu.", ferr.Error())
}

func TestScheduleCandidates(t *testing.T) {
	snap := gangsimtest.Snapshot(t, identical(6, 0))
	var seen []string
	filters := append([]fw.FilterPlugin{recordingFilter{&seen}}, defaultFilters()...)
	ps := newPodScheduler(filters, defaultScorers(noderesources.LeastAllocated), 0)

	require.Equal(t, "n001", nodeName(t, ps, snap, gangsimtest.MakePod("p").CPU("100m"), []int{4, 1, 3}))
	require.Equal(t, []string{"n004", "n001", "n003"}, seen, "only candidates are filtered, in their order")

	seen = nil
	idx, ferr := ps.Schedule(snap, podInfo(gangsimtest.MakePod("big").CPU("1500m")), []int{4, 1, 3}, -1)
	require.Equal(t, -1, idx)
	require.NotNil(t, ferr)
	require.Equal(t, 3, ferr.NumAllNodes)
	require.Len(t, ferr.Statuses, 3)
	require.Equal(t, []int{1, 3, 4}, []int{ferr.Statuses[0].Node, ferr.Statuses[1].Node, ferr.Statuses[2].Node})
	require.Equal(t, "0/3 nodes are available: 3 Insufficient cpu.", ferr.Error())
	require.ElementsMatch(t, []string{"n004", "n001", "n003"}, seen)
}

func TestScheduleNoNodes(t *testing.T) {
	ps := newPodScheduler(defaultFilters(), defaultScorers(noderesources.LeastAllocated), 0)
	for _, tt := range []struct {
		name       string
		snap       *cluster.Snapshot
		candidates []int
	}{
		{"empty snapshot", gangsimtest.Snapshot(t, nil), nil},
		{"empty candidates", gangsimtest.Snapshot(t, identical(3, 0)), []int{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			idx, ferr := ps.Schedule(tt.snap, podInfo(gangsimtest.MakePod("p")), tt.candidates, -1)
			require.Equal(t, -1, idx)
			require.NotNil(t, ferr)
			require.Zero(t, ferr.NumAllNodes)
			require.Equal(t, "no nodes available to schedule pods", ferr.Error())
		})
	}
}

func TestScheduleFitErrorMessage(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	// Three nodes with 500m of 2000m free, two big enough but tainted: the
	// first failing filter (TaintToleration before NodeResourcesFit) gives
	// the reason.
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{
		node("a").CPU("2000m").Memory("8Gi"), node("b").CPU("2000m").Memory("8Gi"), node("c").CPU("2000m").Memory("8Gi"),
		node("d").CPU("500m").Memory("8Gi").Taint("k", "", NS), node("e").CPU("4000m").Memory("8Gi").Taint("k", "", NE),
	}, pod("ua").NodeName("a").CPU("1500m"), pod("ub").NodeName("b").CPU("1500m"), pod("uc").NodeName("c").CPU("1500m"))
	ps := newPodScheduler(defaultFilters(), defaultScorers(noderesources.LeastAllocated), 0)
	idx, ferr := ps.Schedule(snap, podInfo(pod("p").CPU("1000m")), nil, -1)
	require.Equal(t, -1, idx)
	require.NotNil(t, ferr)
	require.Equal(t, "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu.", ferr.Error())
	require.Equal(t, []int{0, 1, 2}, ferr.Resolvable(), "evicting could free cpu on a, b and c")
	for i, r := range ferr.Statuses {
		require.Equal(t, i, r.Node)
	}
	require.Equal(t, tainttoleration.Name, ferr.Statuses[3].Status.Plugin())
	require.Equal(t, noderesources.Name, ferr.Statuses[0].Status.Plugin())
}
