package gangsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// status returns a pod's status in the default namespace.
func (ts *testSched) status(name string) PodStatus {
	ts.t.Helper()
	st, ok := ts.Pod(cluster.MakePodKey("", name))
	require.True(ts.t, ok, name)
	return st
}

// A pod with scheduling gates is pending and never tried until the last
// gate goes; removing one gate keeps it held, with the gates left as its
// reason, in kube-scheduler's words.
func TestGatedPodIsHeldUntilItsLastGateGoes(t *testing.T) {
	var events []Event
	s, err := New(Config{CheckInvariants: true}, WithObserver(func(e Event) { events = append(events, e) }))
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	ts.nodes("n", 1, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("p").MilliCPU(1000).SchedulingGates("example.com/a", "b").Obj(), 0))
	ts.run()
	st := ts.status("p")
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, "waiting for scheduling gates: [example.com/a b]", st.Reason)
	require.Equal(t, []string{"example.com/a", "b"}, st.SchedulingGates)
	require.Zero(t, ts.Stats().Cycles, "a gated pod is never tried")
	_, _, _, gated := ts.queue.Counts()
	require.Equal(t, 1, gated, "it waits in the gated pool, out of activeQ")

	require.NoError(t, ts.AdvanceTo(5*time.Minute))
	require.NoError(t, ts.UngatePod(st.Key, "example.com/a"))
	ts.run()
	st = ts.status("p")
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, "waiting for scheduling gates: [b]", st.Reason)
	require.Zero(t, ts.Stats().Cycles)

	require.NoError(t, ts.UngatePod(st.Key))
	require.Empty(t, ts.status("p").Reason, "queued, not tried yet")
	ts.run()
	st = ts.status("p")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, 5*time.Minute, st.BoundAt, "placed when its gates went, at the time they went")
	require.Nil(t, st.SchedulingGates)

	var kinds []string
	for _, e := range events {
		if e.Pod != nil && e.Pod.Key() == st.Key {
			kinds = append(kinds, e.Kind.String()+" "+e.Reason)
		}
	}
	require.Equal(t, []string{
		"PodArrived ", "PodUnschedulable waiting for scheduling gates: [example.com/a b]",
		"PodUngated waiting for scheduling gates: [b]", "PodUngated ", "PodBound ", "Cycle ",
	}, kinds)
}

func TestUngatePodErrors(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("g").SchedulingGates("a").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("free").Obj(), 0))
	require.ErrorIs(t, ts.UngatePod(cluster.MakePodKey("", "g"), "b"), ErrUnknownGate)
	require.Equal(t, []string{"a"}, ts.status("g").SchedulingGates, "an error changes nothing")
	require.ErrorIs(t, ts.UngatePod(cluster.MakePodKey("", "nobody")), ErrUnknownPod)
	require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "free")), "a pod without gates is left as it is")
	require.NoError(t, ts.DeletePod(cluster.MakePodKey("", "g")))
	require.ErrorIs(t, ts.UngatePod(cluster.MakePodKey("", "g")), ErrUnknownPod)

	err := ts.AddPod(gangsimtest.MakePod("bound").NodeName("n-0").SchedulingGates("a").Obj(), 0)
	require.ErrorIs(t, err, cluster.ErrInvalidPod)
	require.ErrorContains(t, err, "nodeName: cannot be set until all schedulingGates have been cleared")
	for gates, want := range map[string][]string{
		`"-a" is not a qualified name`: {"-a"},
		`"a" is given twice`:           {"a", "a"},
		`"Bad_/x" is not a qualified`:  {"Bad_/x"},
	} {
		err := ts.AddPod(gangsimtest.MakePod("bad").SchedulingGates(want...).Obj(), 0)
		require.ErrorIs(t, err, cluster.ErrInvalidPod)
		require.ErrorContains(t, err, gates)
	}
}

// One gated pod holds its whole group, as kube-scheduler's queue gates a
// pod-group entity when any of its pods is gated: the gated member counts
// as known for minCount, but no member is placed without it, even where
// the others would make the quorum on their own.
func TestGatedMemberHoldsItsGroup(t *testing.T) {
	tests := []struct {
		name     string
		minCount int32
		members  int // ungated members, besides the gated one
	}{
		{"the gated pod completes the quorum", 3, 2},
		{"the others make the quorum alone", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestSched(t, Config{}).nodes("n", 2, 4000).gang("g", tt.minCount).members("g", tt.members, 1000)
			require.NoError(t, ts.AddPod(gangsimtest.MakePod("gated").Group("g").MilliCPU(1000).SchedulingGates("wait").Obj(), 0))
			ts.run()
			require.Zero(t, ts.boundCount("g"))
			require.Zero(t, ts.Stats().Cycles)
			require.Equal(t, "waiting for scheduling gates: [wait]", ts.status("gated").Reason)
			require.Equal(t, "waiting for the scheduling gates of 1 pod of group g to be removed", ts.status("g-0").Reason)
			gs, _ := ts.PodGroup(podgroup.Key("", "g"))
			require.Equal(t, tt.members+1, gs.Known, "known for minCount, as kube's AllPodsCount")

			require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "gated")))
			ts.run()
			require.Equal(t, tt.members+1, ts.boundCount("g"))
			ni, ok := ts.Node(ts.status("gated").Node)
			require.True(t, ok)
			for p := range ni.Pods() {
				require.Empty(t, p.Pod().SchedulingGates, "%s is bound as it is now, without gates", p.Key())
			}
		})
	}
}

// A gang short of members says so first; the gates of a pod count once
// the quorum is there.
func TestGatedGroupReasons(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 8000).gang("g", 3).members("g", 1, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("gated").Group("g").SchedulingGates("wait").Obj(), 0))
	ts.run()
	require.Equal(t, "waiting for 1 more pod of group g: minCount 3", ts.status("g-0").Reason)
	ts.member("g-1", "g", 1000)
	ts.run()
	require.Equal(t, "waiting for the scheduling gates of 1 pod of group g to be removed", ts.status("g-0").Reason)

	// deleting the gated member lets the rest go, now that they are enough
	ts.member("g-2", "g", 1000)
	require.NoError(t, ts.DeletePod(cluster.MakePodKey("", "gated")))
	ts.run()
	require.Equal(t, 3, ts.boundCount("g"))
}

// A gated pod under a composite holds the whole hierarchy; its reason is
// the composite's.
func TestGatedPodHoldsItsHierarchy(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 8000)
	require.NoError(t, ts.AddCompositePodGroup(podgroup.CompositePodGroup{Name: "job", Policy: podgroup.Gang, MinGroupCount: 2}))
	for _, g := range []string{"a", "b"} {
		require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang(g, 1).Parent("job").Obj()))
	}
	ts.members("a", 2, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b-0").Group("b").MilliCPU(1000).SchedulingGates("wait").Obj(), 0))
	ts.run()
	require.Zero(t, ts.boundCount("a"))
	require.Equal(t, "waiting for the scheduling gates of 1 pod of composite group job to be removed", ts.status("a-0").Reason)

	f, err := ts.Fork()
	require.NoError(t, err)
	require.NoError(t, f.UngatePod(cluster.MakePodKey("", "b-0")))
	require.NoError(t, f.Run())
	st, _ := f.Pod(cluster.MakePodKey("", "a-0"))
	require.Equal(t, PhaseBound, st.Phase, "the fork goes on without the gate")
	require.Equal(t, []string{"wait"}, ts.status("b-0").SchedulingGates, "the original keeps it")
	require.NoError(t, ts.CheckInvariants())
}

// A gated member whose group is not defined yet gives its gates as its
// reason; ungated, it waits for the group.
func TestGatedOrphan(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("p").Group("later").SchedulingGates("wait").Obj(), 0))
	require.Equal(t, "waiting for scheduling gates: [wait]", ts.status("p").Reason)
	require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "p")))
	require.Equal(t, "pod group later does not exist: the pod waits until it is created", ts.status("p").Reason)
	ts.gang("later", 1)
	ts.run()
	require.Equal(t, PhaseBound, ts.status("p").Phase)
}

// holdLabel is a user's PreEnqueue plugin: it holds every pod labelled
// hold=yes out of the queue.
type holdLabel struct{}

func (holdLabel) Name() string { return "HoldLabel" }

func (holdLabel) PreEnqueue(pod *cluster.PodInfo) *fw.Status {
	if pod.Pod().Labels["hold"] == "yes" {
		return fw.NewStatus(fw.UnschedulableAndUnresolvable, "held by label")
	}
	return nil
}

// newHoldSched makes a scheduler whose default profile runs holdLabel
// beside the defaults, with the plugins named in disabled off.
func newHoldSched(t *testing.T, disabled ...string) *testSched {
	t.Helper()
	reg := fw.Registry{"HoldLabel": {New: func(any, fw.Handle) (fw.Plugin, error) { return holdLabel{}, nil }}}
	set := PluginSet{Enabled: []PluginRef{{Name: "HoldLabel"}}}
	for _, name := range disabled {
		set.Disabled = append(set.Disabled, PluginRef{Name: name})
	}
	s, err := New(Config{CheckInvariants: true, Profiles: []Profile{{Plugins: &Plugins{PreEnqueue: set}}}}, WithRegistry(reg))
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	ts.nodes("n", 2, 4000)
	return ts
}

// A user's PreEnqueue plugin holds the pods it refuses, pending with its
// message and never tried, as the built-in SchedulingGates holds gated
// pods; the others are placed.
func TestPreEnqueuePluginHoldsWhatItRefuses(t *testing.T) {
	ts := newHoldSched(t)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("held").MilliCPU(1000).Label("hold", "yes").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("free").MilliCPU(1000).Obj(), 0))
	ts.run()
	st := ts.status("held")
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, "held by label", st.Reason)
	require.Equal(t, PhaseBound, ts.status("free").Phase)
	require.Equal(t, 1, ts.Stats().Cycles, "the held pod is never tried")
	_, _, _, gated := ts.queue.Counts()
	require.Equal(t, 1, gated)
	require.NoError(t, ts.CheckQuiescent())
}

// The plugins run in the profile's order, a plugin enabled at the point
// itself before the MultiPoint ones (as kube-scheduler orders them); the
// first refusal is the reason. Ungating runs them again: the gates are
// gone, the other plugin still holds the pod.
func TestPreEnqueuePluginsRunInOrderAndAgainOnUngate(t *testing.T) {
	ts := newHoldSched(t)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("both").MilliCPU(1000).Label("hold", "yes").SchedulingGates("g").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("gated").MilliCPU(1000).SchedulingGates("g").Obj(), 0))
	ts.run()
	require.Equal(t, "held by label", ts.status("both").Reason, "HoldLabel, enabled at PreEnqueue, runs first")
	require.Equal(t, "waiting for scheduling gates: [g]", ts.status("gated").Reason)
	require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "both")))
	require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "gated")))
	ts.run()
	st := ts.status("both")
	require.Equal(t, PhasePending, st.Phase)
	require.Empty(t, st.SchedulingGates)
	require.Equal(t, "held by label", st.Reason)
	require.Equal(t, PhaseBound, ts.status("gated").Phase)
	require.Equal(t, 1, ts.Stats().Cycles)
}

// With SchedulingGates disabled, as a kube-scheduler profile may disable
// it, a gated pod is queued and placed like any other.
func TestSchedulingGatesDisabledQueuesGatedPods(t *testing.T) {
	ts := newHoldSched(t, "SchedulingGates")
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("p").MilliCPU(1000).SchedulingGates("g").Obj(), 0))
	ts.run()
	require.Equal(t, PhaseBound, ts.status("p").Phase)
}

// A gang member held by a PreEnqueue plugin holds its whole group, as a
// gated member does.
func TestPreEnqueueRefusalHoldsTheGang(t *testing.T) {
	ts := newHoldSched(t)
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 2).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("a").MilliCPU(1000).Group("g").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b").MilliCPU(1000).Group("g").Label("hold", "yes").Obj(), 0))
	ts.run()
	require.Equal(t, PhasePending, ts.status("a").Phase)
	require.Equal(t, "waiting for the scheduling gates of 1 pod of group g to be removed", ts.status("a").Reason)
	require.Equal(t, "held by label", ts.status("b").Reason)
	require.Zero(t, ts.Stats().Cycles)
}

// With SchedulingGates disabled, removing the gates of a gang member that
// nothing held changes no count: the gang is placed and the invariants
// (the gate counts among them) hold.
func TestUngateWhatNoPluginHeld(t *testing.T) {
	ts := newHoldSched(t, "SchedulingGates")
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 2).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("a").MilliCPU(1000).Group("g").SchedulingGates("x").Obj(), 0))
	require.NoError(t, ts.UngatePod(cluster.MakePodKey("", "a")))
	require.NoError(t, ts.CheckInvariants())
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b").MilliCPU(1000).Group("g").Obj(), 0))
	ts.run()
	require.Equal(t, PhaseBound, ts.status("a").Phase)
	require.Equal(t, PhaseBound, ts.status("b").Phase)
}
