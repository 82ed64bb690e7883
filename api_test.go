package gangsim

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// A Scheduler not made by New refuses work with an error instead of
// panicking; its read methods return nothing.
func TestZeroValueSchedulerDoesNotPanic(t *testing.T) {
	for _, s := range []*Scheduler{{}, nil} {
		require.ErrorIs(t, s.AddNode(cluster.Node{Name: "n"}), ErrNotInitialized)
		require.ErrorIs(t, s.AddPod(cluster.Pod{Name: "p"}, 0), ErrNotInitialized)
		require.ErrorIs(t, s.AddPodGroup(podgroup.PodGroup{Name: "g"}), ErrNotInitialized)
		require.ErrorIs(t, s.AddCompositePodGroup(podgroup.CompositePodGroup{Name: "c"}), ErrNotInitialized)
		require.ErrorIs(t, s.AddPodDisruptionBudget(cluster.PodDisruptionBudget{Name: "b"}), ErrNotInitialized)
		require.ErrorIs(t, s.SetNamespace(cluster.Namespace{Name: "ns"}), ErrNotInitialized)
		require.ErrorIs(t, s.UpdateNode(cluster.Node{Name: "n"}), ErrNotInitialized)
		require.ErrorIs(t, s.CordonNode("n"), ErrNotInitialized)
		require.ErrorIs(t, s.UncordonNode("n"), ErrNotInitialized)
		require.ErrorIs(t, s.RemoveNode("n"), ErrNotInitialized)
		require.ErrorIs(t, s.DrainNode("n"), ErrNotInitialized)
		require.ErrorIs(t, s.DeletePod("default/p"), ErrNotInitialized)
		require.ErrorIs(t, s.Run(), ErrNotInitialized)
		require.ErrorIs(t, s.RunUntil(0), ErrNotInitialized)
		require.ErrorIs(t, s.AdvanceTo(0), ErrNotInitialized)
		_, _, err := s.ScheduleOne()
		require.ErrorIs(t, err, ErrNotInitialized)
		if s != nil {
			_, ok := s.Node("n")
			require.False(t, ok)
			for range s.Nodes() {
				t.Fatal("no nodes")
			}
			_, ok = s.Pod("default/p")
			require.False(t, ok)
		}
	}
}

// Node and Nodes hand out copies: changing one changes nothing in the
// scheduler; nodes may be added and removed while iterating.
func TestNodesAreCopies(t *testing.T) {
	s, err := New(Config{})
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).CPU("1").Memory("1Gi").Pods(10).Obj()))
	}
	ni, ok := s.Node("n0")
	require.True(t, ok)
	ni.Node().Unschedulable = true
	ni.Node().Labels["x"] = "y"
	again, _ := s.Node("n0")
	require.False(t, again.Node().Unschedulable)
	require.NotContains(t, again.Node().Labels, "x")
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("100m").Obj(), 0))
	require.NoError(t, s.Run())
	st, _ := s.Pod("default/p")
	require.Equal(t, PhaseBound, st.Phase, "the caller's change did not cordon n0")

	var seen []string
	for ni := range s.Nodes() {
		seen = append(seen, ni.Name())
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(ni.Name()+"-new").CPU("1").Memory("1Gi").Pods(10).Obj()))
		require.NoError(t, s.RemoveNode(ni.Name()))
	}
	require.Equal(t, []string{"n0", "n1", "n2"}, seen)
	var after []string
	for ni := range s.Nodes() {
		after = append(after, ni.Name())
	}
	require.Equal(t, []string{"n0-new", "n1-new", "n2-new"}, after)
}

// The invariant checker finds each kind of corruption it looks for.
func TestInvariantCheckerCatches(t *testing.T) {
	build := func() *testSched {
		ts := newTestSched(t, Config{}).nodes("n", 2, 2000).gang("g", 2).members("g", 2, 500)
		ts.run()
		require.NoError(t, ts.CheckInvariants())
		return ts
	}
	key := cluster.MakePodKey("", "g-0")

	ts := build()
	ts.tracker.record(key).phase = PhasePending
	require.ErrorContains(t, ts.CheckInvariants(), "but the cache has it")

	ts = build()
	ts.tracker.record(key).node = "elsewhere"
	require.ErrorContains(t, ts.CheckInvariants(), "the cache has it on")

	ts = build()
	ts.tracker.group("default/g").conditions[0].Status = podgroup.ConditionFalse
	require.ErrorContains(t, ts.CheckInvariants(), "went back from True")

	ts = build()
	ts.evictions = append(ts.evictions, Eviction{Pod: key, By: PodRef(cluster.MakePodKey("", "g-1"))})
	require.ErrorContains(t, ts.CheckInvariants(), "was evicted by")

	ts = build()
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("lost").CPU("100m").Obj(), 0))
	lost := ts.tracker.record(cluster.MakePodKey("", "lost"))
	require.NoError(t, ts.queue.DeleteItem(lost.item))
	require.ErrorContains(t, ts.CheckInvariants(), "pending pod default/lost is not queued")
	require.NoError(t, ts.queue.Put(&queue.Item[entry]{Key: podItemKey(cluster.MakePodKey("", "lost")), Value: entry{pod: lost.id}, Size: 1, Attempts: 1}))
	require.ErrorContains(t, ts.CheckQuiescent(), "fits node")
}

// A running member that arrived before its group must have the group's
// priority; the group is refused otherwise, and nothing changes.
func TestGroupRefusedWhenARunningMemberHasAnotherPriority(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 1, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("early").NodeName("n-0").Group("g").Priority(5).CPU("100m").Obj(), 0))
	err := ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Priority(7).Obj())
	require.ErrorIs(t, err, ErrAdmission)
	require.ErrorContains(t, err, "running member default/early")
	_, ok := ts.PodGroup("default/g")
	require.False(t, ok)
	require.NoError(t, ts.CheckInvariants())
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Priority(5).Obj()))
	require.NoError(t, ts.CheckInvariants())
}

// An update that leaves a node less than its pods request is refused and
// changes nothing: the pods would overcommit it (found by FuzzSchedulerAPI:
// a GPU node updated without its GPU while a GPU pod ran there).
func TestUpdateNodeBelowItsPods(t *testing.T) {
	s := newTestSched(t, Config{})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("4").Memory("8Gi").GPU(1).Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("2").GPU(1).Obj(), 0))
	s.run()
	err := s.UpdateNode(gangsimtest.MakeNode("n").CPU("4").Memory("8Gi").Obj())
	require.ErrorIs(t, err, cluster.ErrInvalidNode)
	require.ErrorContains(t, err, "allocatable")
	ni, _ := s.Node("n")
	require.Equal(t, int64(1), ni.Allocatable().Get(gangsimtest.ResourceGPU), "the refused update changed nothing")
	require.NoError(t, s.CheckInvariants())
	// room for what runs there is fine
	require.NoError(t, s.UpdateNode(gangsimtest.MakeNode("n").CPU("2").Memory("1Gi").Pods(1).GPU(1).Obj()))
	require.NoError(t, s.CheckInvariants())
}

// AddPod keeps a copy of the pod's maps and slices, so the caller may
// change its own afterwards; under WithSharedPods it keeps the caller's
// own, stored once, and nothing the scheduler does to the pod (binding,
// preemption, eviction, returning it to the queue) writes to them.
func TestAddPodCopiesUnlessShared(t *testing.T) {
	newPod := func(name string, prio int32) cluster.Pod {
		return cluster.Pod{Name: name, Labels: map[string]string{"app": name}, Priority: &prio,
			NodeSelector: map[string]string{"pool": "a"},
			Tolerations:  []cluster.Toleration{{Key: "k", Operator: cluster.TolerationExists}},
			Affinity: &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{{
				TopologyKey: LabelHostname, LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": name}}}}}},
			Requests: cluster.NewResources(600, 1<<20, 0)}
	}
	arrived := map[cluster.PodKey]*cluster.PodInfo{}
	s, err := New(Config{}, WithObserver(func(e Event) {
		if e.Kind == EventPodArrived {
			arrived[e.Pod.Key()] = e.Pod
		}
	}))
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n0").Label("pool", "a").Label(LabelHostname, "n0").CPU("1").Memory("1Gi").Pods(10).Obj()))

	copied := newPod("copied", 0)
	require.NoError(t, s.AddPod(copied, 0))
	copied.Labels["app"] = "changed"
	copied.NodeSelector["pool"] = "b"
	copied.Tolerations[0].Key = "other"
	require.Equal(t, "copied", arrived["default/copied"].Pod().Labels["app"])
	require.Equal(t, "a", arrived["default/copied"].Pod().NodeSelector["pool"])
	require.Equal(t, "k", arrived["default/copied"].Pod().Tolerations[0].Key)
	require.NoError(t, s.Run())
	st, _ := s.Pod("default/copied")
	require.Equal(t, PhaseBound, st.Phase, "the caller's changes did not reach the scheduler")

	// the same cluster under WithSharedPods, copied's run replayed
	s, err = New(Config{}, WithSharedPods(), WithObserver(func(e Event) {
		if e.Kind == EventPodArrived {
			arrived[e.Pod.Key()] = e.Pod
		}
	}))
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n0").Label("pool", "a").Label(LabelHostname, "n0").CPU("1").Memory("1Gi").Pods(10).Obj()))
	require.NoError(t, s.AddPod(newPod("copied", 0), 0))
	require.NoError(t, s.Run())
	adopted := newPod("adopted", 100)
	before := adopted.Clone()
	require.NoError(t, s.AddPod(adopted, 0))
	got := arrived["default/adopted"].Pod()
	require.Equal(t, reflect.ValueOf(adopted.Labels).UnsafePointer(), reflect.ValueOf(got.Labels).UnsafePointer(), "WithSharedPods keeps the caller's map")
	require.Equal(t, &adopted.Tolerations[0], &got.Tolerations[0], "and the caller's slice")
	require.NoError(t, s.Run()) // preempts copied
	st, _ = s.Pod("default/adopted")
	require.Equal(t, PhaseBound, st.Phase)
	require.NoError(t, s.DrainNode("n0")) // evicts adopted: back to the queue
	require.NoError(t, s.Run())
	require.Equal(t, before, adopted, "nothing the scheduler did wrote to the adopted pod")
}

// AddSharedPod keeps the caller's pod itself only when admission leaves it
// as it is; otherwise it holds the admitted copy, as AddPod does, and the
// caller's pod is never changed.
func TestAddSharedPodKeepsOnlyWhatAdmissionLeaves(t *testing.T) {
	prio := func(v int32) *int32 { return &v }
	base := func() cluster.Pod {
		return cluster.Pod{Namespace: "default", Name: "p", Priority: prio(5), Labels: map[string]string{"app": "a"},
			Requests: cluster.NewResources(100, 1<<20, 0)}
	}
	for _, tc := range []struct {
		name string
		edit func(*cluster.Pod)
		kept bool
	}{
		{"as admitted", func(*cluster.Pod) {}, true},
		{"its own preemption policy", func(p *cluster.Pod) { p.PreemptionPolicy = cluster.PreemptNever }, true},
		{"the default policy given", func(p *cluster.Pod) { p.PreemptionPolicy = cluster.PreemptLowerPriority }, true},
		{"a class of the same value", func(p *cluster.Pod) { p.PriorityClassName = "five" }, true},
		{"a class whose policy differs", func(p *cluster.Pod) { p.PriorityClassName = "five-never" }, false},
		{"no namespace", func(p *cluster.Pod) { p.Namespace = "" }, false},
		{"no priority", func(p *cluster.Pod) { p.Priority = nil }, false},
		{"label keys to fold", func(p *cluster.Pod) {
			p.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{{TopologyKey: LabelHostname,
				LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"x": "y"}}, MatchLabelKeys: []string{"app"}}}}}
		}, false},
		{"a namespace with LimitRange defaults", func(p *cluster.Pod) { p.Namespace = "limited" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newSched := func() *Scheduler {
				s, err := New(Config{})
				require.NoError(t, err)
				require.NoError(t, s.AddPriorityClass(cluster.PriorityClass{Name: "five", Value: 5}))
				require.NoError(t, s.AddPriorityClass(cluster.PriorityClass{Name: "five-never", Value: 5, PreemptionPolicy: cluster.PreemptNever}))
				require.NoError(t, s.SetLimitRange(cluster.LimitRange{Namespace: "limited", Name: "lr", Limits: []cluster.LimitRangeItem{{Type: cluster.LimitTypeContainer,
					Default: cluster.ResourceList{cluster.ResourceMemory: 1 << 30}}}}))
				require.NoError(t, s.AddNode(gangsimtest.MakeNode("n0").Label(LabelHostname, "n0").CPU("1").Memory("4Gi").Pods(10).Obj()))
				return s
			}
			s := newSched()
			p := base()
			tc.edit(&p)
			given := p
			require.NoError(t, s.AddSharedPod(&p, 0))
			require.Equal(t, given, p, "the caller's pod is never changed")
			held := s.tracker.record(p.Key()).info.Pod()
			if tc.kept {
				require.Same(t, &p, held)
			} else {
				require.NotSame(t, &p, held)
			}
			require.NoError(t, s.Run())
			st, ok := s.Pod(p.Key())
			require.True(t, ok)
			require.Equal(t, PhaseBound, st.Phase)
			// the same pod through AddPod is admitted alike
			s2 := newSched()
			require.NoError(t, s2.AddPod(given, 0))
			copied := s2.tracker.record(given.Key()).info
			require.Equal(t, copied.Priority(), s.tracker.record(p.Key()).info.Priority())
			require.Equal(t, copied.Pod().EffectivePreemptionPolicy(), held.EffectivePreemptionPolicy())
			require.Equal(t, copied.Pod().Namespace, held.Namespace)
			require.Equal(t, copied.Request(), s.tracker.record(p.Key()).info.Request())
			require.Equal(t, copied.Pod().Affinity, held.Affinity)
		})
	}
	s, err := New(Config{})
	require.NoError(t, err)
	require.ErrorIs(t, s.AddSharedPod(nil, 0), cluster.ErrInvalidPod)
}

// A shared pod admission keeps as it is reaches the cache as the very
// PodInfo the scheduler validated on arrival: it is checked once, not
// again at binding (PodInfo.Validate). The pod's labels changed below
// break AddSharedPod's contract on purpose, to see the second check
// skipped; a pod admission copies (no priority given: the copy shares
// the labels) is checked again at binding.
func TestSharedPodValidatedOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		priority *int32
		checked  bool // checked again at binding
	}{
		{"kept as it is", new(int32(3)), false},
		{"copied by admission", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{})
			require.NoError(t, err)
			require.NoError(t, s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(4000, 8<<30, 10)}))
			labels := map[string]string{"app": "a"}
			p := &cluster.Pod{Namespace: "default", Name: "p", Priority: tc.priority, Labels: labels, Requests: cluster.NewResources(100, 1<<20, 0)}
			require.NoError(t, s.AddSharedPod(p, 0))
			labels["not a key!"] = "x" // after the check on arrival; admission's copy shares the map
			err = s.Run()
			if tc.checked {
				require.ErrorIs(t, err, cluster.ErrInvalidPod)
				return
			}
			require.NoError(t, err)
			st, ok := s.Pod(cluster.MakePodKey("default", "p"))
			require.True(t, ok)
			require.Equal(t, PhaseBound, st.Phase)
		})
	}
}

// A shared pod added twice is a duplicate, whether admission keeps it as
// it is (its priority given: its key is the wrapper's) or copies it.
func TestSharedPodAddedTwice(t *testing.T) {
	for _, priority := range []*int32{new(int32(3)), nil} {
		s, err := New(Config{})
		require.NoError(t, err)
		p := &cluster.Pod{Namespace: "default", Name: "p", Priority: priority, Requests: cluster.NewResources(100, 1<<20, 0)}
		require.NoError(t, s.AddSharedPod(p, 0))
		require.ErrorIs(t, s.AddSharedPod(p, 0), ErrDuplicate)
		other := &cluster.Pod{Namespace: "other", Name: "p", Priority: priority, Requests: cluster.NewResources(100, 1<<20, 0)}
		require.NoError(t, s.AddSharedPod(other, 0), "the same name in another namespace")
	}
}
