package gangsim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

func TestGangsCompetingForOneGangsRoom(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 2000).gang("first", 3).gang("second", 3)
	ts.members("first", 3, 1000).members("second", 3, 1000)
	ts.run()
	require.Equal(t, 3, ts.boundCount("first"))
	require.Equal(t, 0, ts.boundCount("second"), "never 3+3 or a partial gang")
	require.Equal(t, podgroup.ConditionTrue, ts.condition("first").Status)
	c := ts.condition("second")
	require.Equal(t, podgroup.ConditionFalse, c.Status)
	require.Equal(t, podgroup.ReasonUnschedulable, c.Reason)
	require.Contains(t, c.Message, "minCount (3) cannot be satisfied")
}

func TestGangBindsAllThatFitAndRetriesLeftoversWithoutBackoff(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 3000).gang("w", 2).members("w", 4, 1000)
	first := ts.scheduleOne()
	require.Nil(t, first.Status)
	require.Len(t, first.Bound, 3)
	// the leftover is back in activeQ at once: the next cycle runs at the
	// same instant, for the same group
	second := ts.scheduleOne()
	require.Equal(t, first.Item, second.Item)
	require.Equal(t, first.At, second.At)
	require.Equal(t, Unschedulable, second.Status.Code())
	require.Empty(t, second.Bound)
	// that failure backs the group off: nothing is active now
	_, ok, err := ts.ScheduleOne()
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, podgroup.ConditionTrue, ts.condition("w").Status, "never back from True")
	st, _ := ts.Pod(cluster.MakePodKey("", "w-3"))
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, "0/1 nodes are available: 1 Insufficient cpu.", st.Reason)
}

func TestGangValidationFailureIsSchedulerError(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 2).Priority(10).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("a").Group("g").Priority(10).Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b").Group("g").Priority(7).Obj(), 0))
	res := ts.scheduleOne()
	require.Equal(t, Error, res.Status.Code())
	require.Contains(t, res.Status.Message(), "pod b has priority 7, but pod group g has priority 10")
	require.Empty(t, res.Bound)
	require.Equal(t, podgroup.ReasonSchedulerError, ts.condition("g").Reason)
	require.Equal(t, 0, ts.boundCount("g"))
	ni, _ := ts.Node("n-0")
	require.Equal(t, 0, ni.PodCount())
}

func TestGangMemberArrivingLaterCountsBoundMembers(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000).gang("job", 3).members("job", 3, 1000)
	ts.run()
	require.Equal(t, 3, ts.boundCount("job"))
	require.NoError(t, ts.AdvanceTo(time.Minute))
	ts.member("job-late", "job", 1000) // one pod, far below minCount alone
	res := ts.scheduleOne()
	require.Nil(t, res.Status)
	require.Equal(t, []Binding{{Pod: "default/job-late", Node: "n-0"}}, res.Bound)
}

func TestGangGatedUntilMinCountKnown(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000).gang("g", 3).members("g", 2, 100)
	_, ok, err := ts.ScheduleOne()
	require.NoError(t, err)
	require.False(t, ok, "a gang short of members is not tried")
	st, _ := ts.Pod(cluster.MakePodKey("", "g-0"))
	require.Equal(t, "waiting for 1 more pod of group g: minCount 3", st.Reason)
	ts.member("g-2", "g", 100)
	res := ts.scheduleOne()
	require.Len(t, res.Bound, 3)
}

func TestPodsBeforeTheirGroupWaitForIt(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	ts.member("early", "later", 100)
	st, _ := ts.Pod(cluster.MakePodKey("", "early"))
	require.Equal(t, "pod group later does not exist: the pod waits until it is created", st.Reason)
	ts.gang("later", 1)
	ts.run()
	require.Equal(t, 1, ts.boundCount("later"))
}

func TestFailedGangBacksOffBySize(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 1000).gang("g", 4).members("g", 4, 1000)
	ts.scheduleOne()
	it, ok := ts.queue.Get(ts.tracker.rootItemKey(podgroup.Ref{Key: "default/g"}))
	require.True(t, ok)
	require.Equal(t, 4, it.Size)
	require.Equal(t, 1, it.UnschedulableCount)
	require.NoError(t, ts.RunUntil(10*time.Minute))
	// 1s, 2s, 4s, 8s, 16s, then capped at 10s*sqrt(4) = 20s
	require.Greater(t, it.UnschedulableCount, 20)
	require.Less(t, it.UnschedulableCount, 40)
}

// bruteForceFits reports whether count identical pods of req can be placed
// on nodes with the given free cpu and pod slots: every assignment of
// every pod to a node (or to nowhere) is tried.
func bruteForceFits(free []int64, slots []int, req int64, pods, need int) bool {
	var try func(i, placed int) bool
	try = func(i, placed int) bool {
		if placed >= need {
			return true
		}
		if i == pods || placed+(pods-i) < need {
			return false
		}
		for n := range free {
			if free[n] >= req && slots[n] > 0 {
				free[n] -= req
				slots[n]--
				ok := try(i+1, placed+1)
				free[n] += req
				slots[n]++
				if ok {
					return true
				}
			}
		}
		return try(i+1, placed)
	}
	return try(0, 0)
}

// The homogeneous-group guarantee (S5a): whenever some placement exists
// for a gang of identical pods, the sequential algorithm finds one; and a
// gang is never partly bound.
func TestHomogeneousGangMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	found := 0
	for trial := range 3000 {
		nodes := 1 + rng.IntN(5)
		pods := 1 + rng.IntN(6)
		minCount := int32(1 + rng.IntN(pods))
		req := int64(100 * (1 + rng.IntN(8)))
		ts := newTestSched(t, Config{})
		free, slots := make([]int64, nodes), make([]int, nodes)
		for n := range nodes {
			capacity := int64(100 * rng.IntN(20))
			maxPods := 1 + rng.IntN(4)
			require.NoError(t, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", n)).MilliCPU(capacity).Memory("1Gi").Pods(int64(maxPods)).Obj()))
			used := int64(100 * rng.IntN(5))
			if used > 0 && used <= capacity && maxPods > 1 {
				require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("busy%d", n)).NodeName(fmt.Sprintf("n%d", n)).MilliCPU(used).Obj(), 0))
				capacity -= used
				maxPods--
			}
			free[n], slots[n] = capacity, maxPods
		}
		ts.gang("g", minCount).members("g", pods, req)
		ts.run()
		bound := ts.boundCount("g")
		want := bruteForceFits(free, slots, req, pods, int(minCount))
		if want {
			found++
		}
		require.Equal(t, want, bound >= int(minCount), "trial %d: free %v slots %v, %d pods of %dm, minCount %d: bound %d", trial, free, slots, pods, req, minCount, bound)
		require.True(t, bound == 0 || bound >= int(minCount), "trial %d: gang partly bound (%d of minCount %d)", trial, bound, minCount)
	}
	require.Greater(t, found, 500, "the generator must produce feasible cases too")
}

// A group that gains a member after a failed cycle is tried again even
// when nothing else changes: the new member may complete its quorum. Also
// through AddPod after Run, and inside a composite.
func TestGroupGainingMemberIsRetried(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000).gang("g", 2)
	ts.member("huge", "g", 64000)
	ts.member("ok1", "g", 1000)
	ts.run()
	require.Equal(t, 0, ts.boundCount("g"))
	ts.member("ok2", "g", 1000)
	ts.run()
	require.Equal(t, 2, ts.boundCount("g"), "ok1 and ok2 make the quorum")
	st, _ := ts.Pod(cluster.MakePodKey("", "huge"))
	require.Equal(t, "0/1 nodes are available: 1 Insufficient cpu.", st.Reason)

	ts = newTestSched(t, Config{}).nodes("n", 1, 4000).
		composite(gangsimtest.MakeComposite("job", 1).Obj()).
		leaf("a", "job", 2, 0, "")
	ts.member("huge", "a", 64000)
	ts.member("ok1", "a", 1000)
	ts.run()
	require.Equal(t, 0, ts.boundCount("a"))
	ts.member("ok2", "a", 1000)
	ts.run()
	require.Equal(t, 2, ts.boundCount("a"))
}

// A PodGroup the hierarchy refuses (its parent is not defined) leaves no
// record behind: the next group takes its place in the table and works.
func TestRefusedGroupLeavesNoRecord(t *testing.T) {
	ts := newTestSched(t, Config{CheckInvariants: true})
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("n").CPU("8").Memory("8Gi").Obj()))
	require.ErrorIs(t, ts.AddPodGroup(gangsimtest.MakeGang("orphan", 1).Parent("missing").Obj()), podgroup.ErrHierarchy)
	_, ok := ts.PodGroup("default/orphan")
	require.False(t, ok)
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 2).Obj()))
	require.Equal(t, groupID(1), ts.tracker.groups["default/g"], "the refused group's ID is taken again")
	for i := range 2 {
		require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("g-%d", i)).Group("g").CPU("100m").Memory("1Mi").Obj(), 0))
	}
	require.NoError(t, ts.Run())
	gs, _ := ts.PodGroup("default/g")
	require.Equal(t, 2, gs.Scheduled)
	require.NoError(t, ts.CheckInvariants())
}

// Members that arrive in the same instant are tried in the order they
// entered the queue, as kube's queue timestamps order them, not by name:
// w-9 before w-10, so the one left out is the last added.
func TestGangMembersOfOneInstantTriedInInputOrder(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 10_000).gang("w", 1).members("w", 11, 1000)
	ts.run()
	require.Equal(t, 10, ts.boundCount("w"))
	late, _ := ts.Pod(cluster.MakePodKey("", "w-10"))
	require.Equal(t, PhasePending, late.Phase, "the last added waits")
	nine, _ := ts.Pod(cluster.MakePodKey("", "w-9"))
	require.Equal(t, PhaseBound, nine.Phase)
}

// A member that arrives already running counts toward its gang's quorum:
// the member waiting for it is scheduled without any other change.
func TestGangQuorumReachedByRunningMember(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000).gang("g", 2).members("g", 1, 1000)
	ts.run()
	st, _ := ts.Pod(cluster.MakePodKey("", "g-0"))
	require.Equal(t, "waiting for 1 more pod of group g: minCount 2", st.Reason)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("running").Group("g").MilliCPU(1000).NodeName("n-0").Obj(), 0))
	ts.run()
	require.Equal(t, 2, ts.boundCount("g"))
}
