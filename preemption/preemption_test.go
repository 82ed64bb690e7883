package preemption_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/preemption"
)

// fixture is a cache with nodes of 1000m cpu and pods on them.
type fixture struct {
	t     *testing.T
	cache *cluster.Cache
}

func newFixture(t *testing.T, nodes ...string) *fixture {
	f := &fixture{t: t, cache: cluster.NewCache()}
	for _, n := range nodes {
		require.NoError(t, f.cache.AddNode(cluster.Node{Name: n, Allocatable: cluster.NewResources(1000, 1<<30, 110)}))
	}
	return f
}

func (f *fixture) pod(name, node string, milliCPU int64, prio int32, start time.Duration, labels ...string) *fixture {
	p := cluster.Pod{Name: name, NodeName: node, Requests: cluster.NewResources(milliCPU, 0, 0), Priority: &prio, StartTime: start}
	if len(labels) == 2 {
		p.Labels = map[string]string{labels[0]: labels[1]}
	}
	require.NoError(f.t, f.cache.AddPod(p))
	return f
}

// testRequest is a decision with the snapshot and a fits function
// checking cpu only: a Sim over the bare snapshot.
type testRequest struct {
	preemption.Request
	Snapshot *cluster.Snapshot
	Fits     func(node int) bool
}

// snapSim is a Sim with no filter state: the snapshot alone.
type snapSim struct {
	snap *cluster.Snapshot
	fits func(int) bool
}

func (s snapSim) Snapshot() *cluster.Snapshot         { return s.snap }
func (s snapSim) Remove(p *cluster.PodInfo, node int) { _ = s.snap.Remove(p.Key(), node) }
func (s snapSim) Add(p *cluster.PodInfo, node int)    { s.snap.Reserve(p, node) }
func (s snapSim) Rollback(cp cluster.Checkpoint)      { s.snap.Rollback(cp) }
func (s snapSim) Fits(node int) bool                  { return s.fits(node) }

func (r testRequest) sim() preemption.Sim { return snapSim{r.Snapshot, r.Fits} }

// request builds a decision for a preemptor of milliCPU and prio, with a
// fits function checking cpu only and every pod its own unit.
func (f *fixture) request(milliCPU int64, prio int32) testRequest {
	snap := f.cache.Snapshot()
	pre := cluster.NewPodInfo(cluster.Pod{Name: "preemptor", Requests: cluster.NewResources(milliCPU, 0, 0), Priority: &prio})
	var potential []int
	for i := range snap.Len() {
		potential = append(potential, i)
	}
	fits := func(node int) bool {
		ni := snap.Node(node)
		return pre.Request().MilliCPU <= ni.Allocatable().MilliCPU-ni.Requested().MilliCPU
	}
	return testRequest{Snapshot: snap, Fits: fits, Request: preemption.Request{
		PreemptorPriority: prio, Potential: potential,
		Units: func(node int) []*preemption.Unit {
			var out []*preemption.Unit
			for p := range snap.Node(node).Pods() {
				out = append(out, preemption.NewPodUnit(p))
			}
			return out
		},
		Sim:     func(int) preemption.Sim { return snapSim{snap, fits} },
		Budgets: slices.Collect(snap.Budgets()),
	}}
}

func victimNames(c preemption.Candidate) []string {
	var out []string
	for _, p := range c.VictimPods() {
		out = append(out, p.Pod().Name)
	}
	return out
}

// docs/semantics.md §7: remove all lower-priority pods, then reprieve the most
// important first; only big is evicted.
func TestRemoveAllThenReprieve(t *testing.T) {
	f := newFixture(t, "node").pod("small-a", "node", 100, 10, 0).pod("small-b", "node", 100, 10, 0).pod("big", "node", 600, 20, 0)
	req := f.request(700, 100)
	before := req.Snapshot.Node(0).Requested()
	c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), nil)
	require.True(t, ok)
	require.Equal(t, []string{"big"}, victimNames(c))
	require.True(t, before.Equal(req.Snapshot.Node(0).Requested()), "the snapshot is restored")
	require.Equal(t, 0, req.Snapshot.Tentative())
}

func TestNoCandidateWhenRemovingAllDoesNotHelp(t *testing.T) {
	f := newFixture(t, "node").pod("low", "node", 300, 1, 0).pod("high", "node", 600, 500, 0)
	req := f.request(700, 100)
	_, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), nil)
	require.False(t, ok, "even with low gone, high leaves too little room")
	_, ok = preemption.SelectVictimsOnNode(req.sim(), 0, 1, req.Units(0), nil)
	require.False(t, ok, "equal priority never preempts")
}

// Budget-violating units are reprieved first: with two equal pods of
// which one is protected, the unprotected one is the victim.
func TestBudgetViolatorsReprievedFirst(t *testing.T) {
	f := newFixture(t, "node").pod("guarded", "node", 500, 1, 0, "app", "db").pod("plain", "node", 500, 1, time.Second)
	require.NoError(t, f.cache.AddBudget(cluster.PodDisruptionBudget{Name: "db", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MinAvailable: &cluster.IntOrPercent{Value: 1}}))
	req := f.request(500, 100)
	c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), req.Budgets)
	require.True(t, ok)
	require.Equal(t, []string{"plain"}, victimNames(c))
	require.Zero(t, c.PDBViolations)
	// needing both, the guarded one is evicted and counted as a violation
	req = f.request(1000, 100)
	c, ok = preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), req.Budgets)
	require.True(t, ok)
	require.ElementsMatch(t, []string{"plain", "guarded"}, victimNames(c))
	require.Equal(t, 1, c.PDBViolations)
}

// The node choice criteria, one by one: each case has two nodes that tie
// on every earlier criterion and differ on one.
func TestPickOneCriteria(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fixture)
		want  string
	}{
		{"fewest budget violations", func(f *fixture) {
			f.pod("guarded", "n1", 1000, 1, 0, "app", "db").pod("free", "n2", 1000, 5, 0)
			require.NoError(t, f.cache.AddBudget(cluster.PodDisruptionBudget{Name: "db", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MinAvailable: &cluster.IntOrPercent{Value: 1}}))
		}, "n2"},
		{"lowest top victim priority", func(f *fixture) {
			f.pod("a", "n1", 500, 7, 0).pod("b", "n1", 500, 1, 0).pod("c", "n2", 500, 5, 0).pod("d", "n2", 500, 5, 0)
		}, "n2"},
		{"lowest priority sum", func(f *fixture) {
			f.pod("a", "n1", 500, 5, 0).pod("b", "n1", 500, 4, 0).pod("c", "n2", 500, 5, 0).pod("d", "n2", 500, 1, 0)
		}, "n2"},
		{"fewest victims", func(f *fixture) {
			// each victim adds priority+2^31 to the sum, so a second victim
			// of priority -2^31 adds nothing: the sums tie and the count
			// decides
			f.pod("a", "n1", 1000, 5, 0).pod("b", "n2", 500, 5, time.Minute).pod("c", "n2", 500, math.MinInt32, 0)
		}, "n1"},
		{"latest start among top victims", func(f *fixture) {
			f.pod("old", "n1", 1000, 5, time.Minute).pod("young", "n2", 1000, 5, 2*time.Minute)
		}, "n2"},
		{"first in order when all tie", func(f *fixture) {
			f.pod("a", "n1", 1000, 5, time.Minute).pod("b", "n2", 1000, 5, time.Minute)
		}, "n1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "n1", "n2")
			tc.build(f)
			req := f.request(1000, 100)
			cands := preemption.FindCandidates(req.Request)
			require.Len(t, cands, 2)
			best := preemption.PickOne(cands)
			require.Equal(t, tc.want, req.Snapshot.Node(cands[best].Node).Name())
		})
	}
}

func TestUnitImportanceOrder(t *testing.T) {
	pod := func(name string, prio int32, start time.Duration) *cluster.PodInfo {
		return cluster.NewPodInfo(cluster.Pod{Name: name, Priority: &prio, StartTime: start})
	}
	lone := preemption.NewPodUnit(pod("lone", 5, 0))
	member := &preemption.Unit{Key: "default/member", Kind: preemption.KindPodGroup, Priority: 5, Pods: []*cluster.PodInfo{pod("member", 5, time.Hour)}}
	gang := &preemption.Unit{Key: "podgroup/default/g", Kind: preemption.KindPodGroup, Priority: 5, Pods: []*cluster.PodInfo{pod("g-0", 5, time.Hour), pod("g-1", 5, time.Hour)}}
	comp := &preemption.Unit{Key: "compositepodgroup/default/c", Kind: preemption.KindCompositePodGroup, Priority: 5, Pods: []*cluster.PodInfo{pod("c-0", 5, 2*time.Hour)}}
	high := preemption.NewPodUnit(pod("high", 6, 3*time.Hour))
	older := preemption.NewPodUnit(pod("older", 5, -time.Second))
	units := []*preemption.Unit{lone, member, gang, comp, high, older}
	slices.SortFunc(units, preemption.Compare)
	var keys []string
	for _, u := range units {
		keys = append(keys, u.Key)
	}
	require.Equal(t, []string{"default/high", "compositepodgroup/default/c", "podgroup/default/g", "default/member", "default/older", "default/lone"}, keys)
}

// Property: the victims chosen on a node are minimal (putting any single
// one back leaves the preemptor without room) and all have lower priority.
func TestVictimsAreMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		f := newFixture(t, "node")
		for i := range 1 + rng.IntN(8) {
			f.pod(fmt.Sprintf("p%d", i), "node", 50*(1+rng.Int64N(5)), int32(rng.IntN(6)), time.Duration(rng.IntN(100))*time.Second)
		}
		prio := int32(rng.IntN(7))
		req := f.request(50*(1+rng.Int64N(20)), prio)
		c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, prio, req.Units(0), nil)
		if !ok {
			continue
		}
		snap := req.Snapshot
		cp := snap.Checkpoint()
		for _, v := range c.VictimPods() {
			require.Less(t, v.Priority(), prio, "trial %d", trial)
			require.NoError(t, snap.Remove(v.Key(), 0))
		}
		require.True(t, req.Fits(0), "trial %d: evicting the victims makes room", trial)
		for _, v := range c.VictimPods() {
			mark := snap.Checkpoint()
			snap.Reserve(v, 0)
			require.False(t, req.Fits(0), "trial %d: victim %s was not needed", trial, v.Key())
			snap.Rollback(mark)
		}
		snap.Rollback(cp)
	}
}

// BenchmarkPreemptionDecision is one pod's preemption decision on 5,000
// nodes, each full with 10 lower-priority pods.
func BenchmarkPreemptionDecision(b *testing.B) {
	c := cluster.NewCache()
	for n := range 5000 {
		name := fmt.Sprintf("node-%04d", n)
		if err := c.AddNode(cluster.Node{Name: name, Allocatable: cluster.NewResources(10000, 40<<30, 110)}); err != nil {
			b.Fatal(err)
		}
		for i := range 10 {
			p := cluster.Pod{Name: fmt.Sprintf("%s-p%d", name, i), NodeName: name, Priority: new(int32(i % 3)), StartTime: time.Duration(i) * time.Second,
				Requests: cluster.NewResources(1000, 4<<30, 0)}
			if err := c.AddPod(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	snap := c.Snapshot()
	pre := cluster.NewPodInfo(cluster.Pod{Name: "pre", Requests: cluster.NewResources(2500, 8<<30, 0), Priority: new(int32(100))})
	potential := make([]int, snap.Len())
	for i := range potential {
		potential[i] = i
	}
	fits := func(node int) bool {
		ni := snap.Node(node)
		free := ni.Allocatable().Sub(ni.Requested())
		return pre.Request().MilliCPU <= free.MilliCPU && pre.Request().Memory <= free.Memory
	}
	req := preemption.Request{
		PreemptorPriority: 100, Potential: potential,
		Units: func(node int) []*preemption.Unit {
			var out []*preemption.Unit
			for p := range snap.Node(node).Pods() {
				out = append(out, preemption.NewPodUnit(p))
			}
			return out
		},
		Sim: func(int) preemption.Sim { return snapSim{snap, fits} },
	}
	b.ReportAllocs()
	for b.Loop() {
		cands := preemption.FindCandidates(req)
		if preemption.PickOne(cands) < 0 {
			b.Fatal("no candidate")
		}
	}
}

// Units alike in everything but their key are ordered by key, whatever
// the input order: the victim order, and so the victims, never depend on
// how the units were listed.
func TestUnitOrderFinalTieBreakIsTheKey(t *testing.T) {
	pod := func(name string) *cluster.PodInfo {
		prio := int32(5)
		return cluster.NewPodInfo(cluster.Pod{Name: name, Priority: &prio, StartTime: time.Minute})
	}
	a, b := preemption.NewPodUnit(pod("a")), preemption.NewPodUnit(pod("b"))
	require.Negative(t, preemption.Compare(a, b))
	require.Positive(t, preemption.Compare(b, a))
	require.Zero(t, preemption.Compare(a, a))
	for _, order := range [][]string{{"a", "b", "c"}, {"c", "b", "a"}, {"b", "c", "a"}} {
		f := newFixture(t, "node")
		for _, n := range order {
			f.pod(n, "node", 300, 1, time.Minute)
		}
		req := f.request(300, 100)
		units := req.Units(0)
		c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, units, nil)
		require.True(t, ok)
		// reprieved in key order: a and b fit back, c is the victim
		require.Equal(t, []string{"c"}, victimNames(c), "input order %v", order)
	}
}

// A budget allowing exactly as many disruptions as there are victims is
// not violated; one more is.
func TestBudgetAllowanceSpentExactly(t *testing.T) {
	f := newFixture(t, "node").pod("db-0", "node", 400, 1, 0, "app", "db").pod("db-1", "node", 400, 1, time.Second, "app", "db")
	require.NoError(t, f.cache.AddBudget(cluster.PodDisruptionBudget{Name: "db", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MaxUnavailable: &cluster.IntOrPercent{Value: 1}}))
	req := f.request(500, 100)
	c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), req.Budgets)
	require.True(t, ok)
	require.Len(t, c.VictimPods(), 1)
	require.Zero(t, c.PDBViolations, "the one allowed disruption is spent exactly")
	req = f.request(1000, 100)
	c, ok = preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), req.Budgets)
	require.True(t, ok)
	require.Len(t, c.VictimPods(), 2)
	require.Equal(t, 1, c.PDBViolations, "the second one breaks the budget")
}

// Budget-violating units are reprieved before the others even when they
// are the less important ones: the guarded pod started later here, so
// importance alone would reprieve plain first and evict guarded.
func TestBudgetViolatorsReprievedBeforeMoreImportantUnits(t *testing.T) {
	f := newFixture(t, "node").pod("guarded", "node", 500, 1, time.Hour, "app", "db").pod("plain", "node", 500, 1, 0)
	require.NoError(t, f.cache.AddBudget(cluster.PodDisruptionBudget{Name: "db", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MinAvailable: &cluster.IntOrPercent{Value: 1}}))
	req := f.request(500, 100)
	c, ok := preemption.SelectVictimsOnNode(req.sim(), 0, 100, req.Units(0), req.Budgets)
	require.True(t, ok)
	require.Equal(t, []string{"plain"}, victimNames(c))
	require.Zero(t, c.PDBViolations)
}

// The dry run looks for 10% of the potential nodes as candidates, at
// least 100, at most all of them.
func TestNumCandidates(t *testing.T) {
	for _, tc := range []struct{ potential, want int }{
		{0, 0}, {50, 50}, {100, 100}, {999, 100}, {1000, 100}, {1500, 150}, {5000, 500}, {100_000, 10_000},
	} {
		require.Equal(t, tc.want, preemption.NumCandidates(tc.potential, preemption.DefaultMinCandidateNodesPercentage, preemption.DefaultMinCandidateNodesAbsolute), "%d potential nodes", tc.potential)
	}
}

// Above 100 potential nodes the dry run stops at 10% of them: with 300
// nodes whose victims would all do, it evaluates 100 candidates in order,
// not all 300.
func TestFindCandidatesStopsAtTheCount(t *testing.T) {
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("n%03d", i))
	}
	f := newFixture(t, names...)
	for _, n := range names {
		f.pod("low-"+n, n, 1000, 1, 0)
	}
	req := f.request(1000, 100)
	cands := preemption.FindCandidates(req.Request)
	require.Len(t, cands, 100)
	require.Equal(t, "n099", req.Snapshot.Node(cands[99].Node).Name())
}
