package gangsim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

func (ts *testSched) composite(c podgroup.CompositePodGroup) *testSched {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddCompositePodGroup(c))
	return ts
}

func (ts *testSched) leaf(name, parent string, minCount, priority int32, topology string) *testSched {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddPodGroup(gangsimtest.MakeGang(name, minCount).Parent(parent).Priority(priority).TopologyKey(topology).Obj()))
	return ts
}

func (ts *testSched) leafPods(group string, n int, milliCPU int64, priority int32) *testSched {
	ts.t.Helper()
	for i := range n {
		require.NoError(ts.t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("%s-%d", group, i)).Group(group).Priority(priority).MilliCPU(milliCPU).Obj(), 0))
	}
	return ts
}

// The root waits until minGroupCount children are ready, then binds the
// whole hierarchy in one cycle.
func TestCompositeGatedUntilHierarchicalQuorum(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 4000)
	ts.composite(gangsimtest.MakeComposite("root", 2).Obj())
	ts.leaf("a", "root", 2, 0, "").leaf("b", "root", 2, 0, "")
	ts.leafPods("a", 2, 1000, 0).leafPods("b", 1, 1000, 0)
	_, ok, err := ts.ScheduleOne()
	require.NoError(t, err)
	require.False(t, ok, "b is short of members, so the root is not ready")
	st, _ := ts.Pod("default/a-0")
	require.Equal(t, "waiting for 1 more ready group of composite group root: minGroupCount 2", st.Reason)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b-1").Group("b").CPU("1").Obj(), 0))
	res := ts.scheduleOne()
	require.Equal(t, "compositepodgroup/default/root", res.Item)
	require.Len(t, res.Bound, 4)
	require.Equal(t, podgroup.ConditionTrue, ts.condition("a").Status)
	require.Equal(t, podgroup.ConditionTrue, ts.condition("b").Status)
}

// A root that cannot meet minGroupCount binds nothing, even for children
// that fit.
func TestCompositeAllOrNothing(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	ts.composite(gangsimtest.MakeComposite("root", 2).Obj())
	ts.leaf("small", "root", 2, 0, "").leaf("huge", "root", 2, 0, "")
	ts.leafPods("small", 2, 1000, 0).leafPods("huge", 2, 3000, 0)
	res := ts.scheduleOne()
	require.Equal(t, Unschedulable, res.Status.Code())
	require.Empty(t, res.Bound)
	require.Equal(t, 0, ts.boundCount("small"))
	require.Equal(t, podgroup.ConditionFalse, ts.condition("small").Status, "a leaf that fit is not scheduled when its root fails")
	ni, _ := ts.Node("n-0")
	require.Equal(t, 0, ni.PodCount())
}

func TestCompositeValidationNamesThePod(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	ts.composite(gangsimtest.MakeBasicComposite("root").Priority(10).Obj())
	ts.leaf("a", "root", 1, 10, "")
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("odd").Group("a").Priority(3).Obj(), 0))
	res := ts.scheduleOne()
	require.Equal(t, Error, res.Status.Code())
	require.Contains(t, res.Status.Message(), "pod odd has priority 3, but composite pod group root has priority 10")
	require.Equal(t, podgroup.ReasonSchedulerError, ts.condition("a").Reason)
}

// A composite root preempts as one workload, and a composite with
// disruptionMode All is evicted as one unit.
func TestCompositePreemptionAndCompositeVictims(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 2000)
	ts.composite(gangsimtest.MakeBasicComposite("old").Priority(5).DisruptAll().Obj())
	ts.leaf("old-a", "old", 1, 5, "").leaf("old-b", "old", 1, 5, "")
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("old-a-0").Group("old-a").Priority(5).NodeName("n-0").CPU("2").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("old-b-0").Group("old-b").Priority(5).NodeName("n-1").CPU("1").Obj(), 0))
	ts.composite(gangsimtest.MakeComposite("new", 1).Priority(50).Obj())
	ts.leaf("new-a", "new", 1, 50, "").leafPods("new-a", 1, 2000, 50)
	res := ts.scheduleOne()
	require.Equal(t, "compositepodgroup/default/new", res.Item)
	var victims []string
	for _, e := range res.Evicted {
		victims = append(victims, string(e.Pod))
		require.Equal(t, Ref{Kind: KindCompositePodGroup, Key: "default/new"}, e.By)
	}
	require.ElementsMatch(t, []string{"default/old-a-0", "default/old-b-0"}, victims, "the All composite goes whole")
	require.Len(t, res.Nominated, 1)
	ts.run()
	require.Equal(t, 1, ts.boundCount("new-a"))
}

// BenchmarkScheduleComposites places 200 roots, each a zone composite of 4
// rack gangs of 8 pods, on 10,000 nodes in 4 zones of 25 racks; it reports
// roots/s.
func BenchmarkScheduleComposites(b *testing.B) {
	b.ReportAllocs()
	var roots int
	for b.Loop() {
		b.StopTimer()
		ts := newTestSched(b, Config{})
		for i := range 10000 {
			rack := i / 100
			require.NoError(b, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("node-%05d", i)).CPU("32").Memory("128Gi").
				Label("zone", fmt.Sprintf("zone-%d", rack/25)).Rack(fmt.Sprintf("rack-%03d", rack)).Obj()))
		}
		for r := range 200 {
			root := fmt.Sprintf("job-%03d", r)
			ts.composite(gangsimtest.MakeComposite(root, 4).TopologyKey("zone").Obj())
			for c := range 4 {
				leaf := fmt.Sprintf("%s-g%d", root, c)
				ts.leaf(leaf, root, 8, 0, "rack").leafPods(leaf, 8, 2000, 0)
			}
		}
		b.StartTimer()
		require.NoError(b, ts.Run())
		b.StopTimer()
		for r := range 200 {
			if ts.boundCount(fmt.Sprintf("job-%03d-g0", r)) == 8 {
				roots++
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(roots)/b.Elapsed().Seconds(), "roots/s")
}

// BenchmarkCompositeChildren is one gang composite of n children (each a
// PodGroup of one pod), defined and filled child by child, then placed:
// the cost per child must not grow with n.
func BenchmarkCompositeChildren(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprintf("children=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ts := newTestSched(b, Config{})
				for i := range n / 100 {
					require.NoError(b, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("node-%04d", i)).CPU("110").Memory("512Gi").Obj()))
				}
				ts.composite(gangsimtest.MakeComposite("big", int32(n)).Obj())
				for c := range n {
					leaf := fmt.Sprintf("c-%05d", c)
					ts.leaf(leaf, "big", 1, 0, "").leafPods(leaf, 1, 100, 0)
				}
				require.NoError(b, ts.Run())
				if got := ts.Stats().Scheduled; got != n {
					b.Fatalf("%d of %d scheduled", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/child")
		})
	}
}
