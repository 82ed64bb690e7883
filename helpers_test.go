package gangsim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// testSched is a scheduler with small builders for tests.
type testSched struct {
	*Scheduler
	t testing.TB
	// templates are the claim templates of the tests' stand-in for the
	// resourceclaim controller (AddPod), by name
	templates map[string]cluster.ResourceClaimSpec
}

// newTestSched makes a scheduler for a test, with the invariant checker on
// (off for benchmarks: they measure the engine, not the checker).
func newTestSched(t testing.TB, cfg Config) *testSched {
	t.Helper()
	_, bench := t.(*testing.B)
	cfg.CheckInvariants = !bench
	s, err := New(cfg)
	require.NoError(t, err)
	return &testSched{Scheduler: s, t: t}
}

// nodes adds count nodes "prefix-i" with cpu millicores and 64Gi memory.
func (ts *testSched) nodes(prefix string, count int, milliCPU int64) *testSched {
	ts.t.Helper()
	for i := range count {
		require.NoError(ts.t, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("%s-%d", prefix, i)).MilliCPU(milliCPU).Memory("64Gi").Obj()))
	}
	return ts
}

func (ts *testSched) gang(name string, minCount int32) *testSched {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddPodGroup(gangsimtest.MakeGang(name, minCount).Obj()))
	return ts
}

// members adds count pods "group-i" of the group requesting milliCPU.
func (ts *testSched) members(group string, count int, milliCPU int64) *testSched {
	ts.t.Helper()
	for i := range count {
		ts.member(fmt.Sprintf("%s-%d", group, i), group, milliCPU)
	}
	return ts
}

func (ts *testSched) member(name, group string, milliCPU int64) {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddPod(gangsimtest.MakePod(name).Group(group).MilliCPU(milliCPU).Obj(), 0))
}

// boundCount counts the group's members in phase Bound.
func (ts *testSched) boundCount(group string) int {
	n := 0
	for st := range ts.Pods() {
		if r := ts.tracker.record(st.Key); r.info.Pod().PodGroup == group && st.Phase == PhaseBound {
			n++
		}
	}
	return n
}

func (ts *testSched) condition(group string) podgroup.Condition {
	gs, ok := ts.PodGroup(podgroup.Key("", group))
	require.True(ts.t, ok)
	c, _ := gs.Conditions.Get(podgroup.ConditionInitiallyScheduled)
	return c
}

func (ts *testSched) scheduleOne() CycleResult {
	ts.t.Helper()
	res, ok, err := ts.ScheduleOne()
	require.NoError(ts.t, err)
	require.True(ts.t, ok, "expected a cycle")
	return res
}

func (ts *testSched) run() {
	ts.t.Helper()
	require.NoError(ts.t, ts.Run())
}

// filter runs the default profile's PreFilter and Filter plugins for pod on
// one node of snap.
func (ts *testSched) filter(snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *Status {
	p := ts.profiles.named(cluster.DefaultSchedulerName)
	state := fw.NewCycleState()
	if st := p.pods.PreFilter(state, snap, pod); st != nil {
		return st
	}
	return p.pods.FilterNode(state, snap, pod, node)
}
