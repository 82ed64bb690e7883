package gangsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// Behaviours that hand-made mutations of the engine once left unbroken
// (issue 31's survivors): each test fails under its mutation.

// Pods alike but for their tolerations are told apart by every shortcut:
// a tolerating pod binds on a tainted node after pods that do not
// tolerate it failed there (tolerations are part of the filter memo's
// signature and of the known-failure shape).
func TestTolerationsTellPodsApartInTheMemos(t *testing.T) {
	ts := newTestSched(t, Config{})
	for i := range 3 {
		require.NoError(t, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("gpu-%d", i)).MilliCPU(4000).Memory("16Gi").
			Taint("gpu", "yes", cluster.TaintNoSchedule).Obj()))
	}
	for i := range 4 {
		require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("plain-%d", i)).MilliCPU(1000).Obj(), 0))
	}
	ts.run()
	for i := range 4 {
		require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("tolerant-%d", i)).MilliCPU(1000).
			Toleration("gpu", "yes", cluster.TaintNoSchedule).Obj(), 0))
	}
	ts.run()
	for i := range 4 {
		st, _ := ts.Pod(cluster.MakePodKey("", fmt.Sprintf("tolerant-%d", i)))
		require.Equal(t, PhaseBound, st.Phase, "tolerant-%d: %s", i, st.Reason)
		st, _ = ts.Pod(cluster.MakePodKey("", fmt.Sprintf("plain-%d", i)))
		require.Equal(t, PhasePending, st.Phase)
		require.Contains(t, st.Reason, "untolerated taint")
	}
}

// Preemptors alike but for their priority do not share what preemption
// found: after a preemptor found that evicting what it may evict leaves
// too little room, one 256 above it (the same low byte) evicts both pods.
func TestPreemptorsOfOtherPrioritiesDoNotShareDryRuns(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("below").MilliCPU(500).Priority(50).Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("between").MilliCPU(500).Priority(200).Obj(), 0))
	ts.run()
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("low").MilliCPU(1000).Priority(100).Obj(), 0))
	ts.run()
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("high").MilliCPU(1000).Priority(356).Obj(), 0))
	ts.run()
	st, _ := ts.Pod(cluster.MakePodKey("", "high"))
	require.Equal(t, PhaseBound, st.Phase, st.Reason)
	st, _ = ts.Pod(cluster.MakePodKey("", "low"))
	require.Equal(t, PhasePending, st.Phase)
}

// The default spreading selects the pods of a pod's ReplicaSet,
// StatefulSet or ReplicationController: their replicas go to different
// nodes even where the bigger node has more room for both. A Job's pods
// get no default spreading and both take the bigger node.
func TestDefaultSpreadingFollowsTheOwner(t *testing.T) {
	for kind, spread := range map[string]bool{"ReplicaSet": true, "StatefulSet": true, "ReplicationController": true, "Job": false} {
		ts := newTestSched(t, Config{})
		require.NoError(t, ts.AddNode(gangsimtest.MakeNode("big").CPU("64").Memory("256Gi").Obj()))
		require.NoError(t, ts.AddNode(gangsimtest.MakeNode("small").CPU("8").Memory("32Gi").Obj()))
		sel := &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
		nodes := map[string]bool{}
		for i := range 2 {
			p := gangsimtest.MakePod(fmt.Sprintf("db-%d", i)).MilliCPU(100).Label("app", "db").Obj()
			p.Owner = &cluster.Owner{Kind: kind, Name: "db", Selector: sel}
			require.NoError(t, ts.AddPod(p, 0))
			ts.run()
			st, _ := ts.Pod(p.Key())
			nodes[st.Node] = true
		}
		require.Equal(t, spread, len(nodes) == 2, "%s: %v", kind, nodes)
	}
}

// A preemptor nominated to a node drops the nominations there of every
// pod below it, the one just one priority below included: the lower pod
// holds no room on that node any more.
func TestNominationDropsPodsJustBelow(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("victim").MilliCPU(1000).Priority(10).Obj(), 0))
	ts.run()
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("first").MilliCPU(1000).Priority(100).Obj(), 0))
	ts.scheduleOne()
	require.Equal(t, "n-0", ts.tracker.record(cluster.MakePodKey("", "first")).nominated, "first preempts the victim")
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("second").MilliCPU(1000).Priority(101).Obj(), 0))
	ts.scheduleOne()
	require.Equal(t, "n-0", ts.tracker.record(cluster.MakePodKey("", "second")).nominated)
	require.Empty(t, ts.tracker.record(cluster.MakePodKey("", "first")).nominated, "one priority below the preemptor")
	ts.run()
	st, _ := ts.Pod(cluster.MakePodKey("", "second"))
	require.Equal(t, PhaseBound, st.Phase)
}

// A namespace's labels changed after a pod failed are what its next
// attempt reads: a pod whose affinity selects pods by their namespace's
// labels binds once the namespace gets them. As in kube, no namespace
// event requeues it: the unschedulable pods' five-minute flush does.
func TestNamespaceLabelsChangeReachesAffinity(t *testing.T) {
	ts := newTestSched(t, Config{})
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("n-0").CPU("4").Memory("16Gi").Label("kubernetes.io/hostname", "n-0").Obj()))
	require.NoError(t, ts.SetNamespace(cluster.Namespace{Name: "data"}))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("db").Namespace("data").MilliCPU(100).Label("app", "db").Obj(), 0))
	ts.run()
	p := gangsimtest.MakePod("client").MilliCPU(100).Obj()
	p.Affinity = &cluster.Affinity{PodAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{{
		LabelSelector:     &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		NamespaceSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"tier": "data"}},
		TopologyKey:       "kubernetes.io/hostname",
	}}}}
	require.NoError(t, ts.AddPod(p, 0))
	ts.run()
	st, _ := ts.Pod(p.Key())
	require.Equal(t, PhasePending, st.Phase, "no namespace has the label yet")
	require.NoError(t, ts.SetNamespace(cluster.Namespace{Name: "data", Labels: map[string]string{"tier": "data"}}))
	require.NoError(t, ts.RunUntil(10*time.Minute))
	st, _ = ts.Pod(p.Key())
	require.Equal(t, PhaseBound, st.Phase, st.Reason)
}

// A pod's victim unit is the highest group above it that disrupts as a
// whole: evicting one pod of a DisruptAll group under a DisruptAll
// composite evicts the composite's other child too, not only its group.
func TestVictimUnitIsTheHighestDisruptAllGroup(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 1000)
	require.NoError(t, ts.AddCompositePodGroup(gangsimtest.MakeBasicComposite("job").DisruptAll().Priority(1).Obj()))
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeBasicGroup("workers").Parent("job").DisruptAll().Priority(1).Obj()))
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeBasicGroup("driver").Parent("job").Priority(1).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("worker").Group("workers").MilliCPU(1000).Priority(1).NodeName("n-0").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("driver").Group("driver").MilliCPU(1000).Priority(1).NodeName("n-1").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("urgent").MilliCPU(1000).Priority(100).Obj(), 0))
	ts.run()
	for _, name := range []string{"worker", "driver"} {
		st, _ := ts.Pod(cluster.MakePodKey("", name))
		evicted := st.Phase != PhaseBound || st.Binds > 1 // it may come back on the node left free
		require.True(t, evicted, "%s is evicted with its composite: %+v", name, st)
	}
	st, _ := ts.Pod(cluster.MakePodKey("", "urgent"))
	require.Equal(t, PhaseBound, st.Phase)
}

// The placement memo holds 512 signatures; a table reused for a new one
// forgets the old one's failure. A pod binds, 513 shapes that fit nowhere
// fail twice each (a table each from their second pod on, the least
// recently used forgotten), and then a second pod of the first pod's
// shape, which gets a reused table, binds too: nothing changed since the
// forgotten shape failed, so a failure kept with the table would answer
// for it. Known failures are off so that each shape reaches the memo
// twice.
func TestReusedMemoTableForgetsItsFailure(t *testing.T) {
	s, err := New(Config{CheckInvariants: true}, WithoutShortcuts(KnownFailures))
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	ts.nodes("n", 1, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("fit-a").MilliCPU(500).Obj(), 0))
	for i := range 513 {
		for _, copy := range []string{"a", "b"} {
			require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("big-%d-%s", i, copy)).MilliCPU(int64(1001+i)).Obj(), 0))
		}
	}
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("fit-b").MilliCPU(500).Obj(), 0))
	ts.run()
	for _, name := range []string{"fit-a", "fit-b"} {
		st, _ := ts.Pod(cluster.MakePodKey("", name))
		require.Equal(t, PhaseBound, st.Phase, "%s: %s", name, st.Reason)
	}
}
