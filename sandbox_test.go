package gangsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// A sandbox answers with the pod's own filters: a 5-cpu pod fits an
// 8-cpu template node, not a 4-cpu one, nor a tainted one it does not
// tolerate; what is placed counts for the next pod; Revert forgets it.
func TestSandboxFits(t *testing.T) {
	s := newTestSched(t, Config{}).nodes("n", 2, 4000)
	require.NoError(t, s.AddPod(gt.MakePod("big").CPU("5").Obj(), 0))
	require.NoError(t, s.Run())
	b, err := s.NewSandbox()
	require.NoError(t, err)
	pod, ok := b.Pod(cluster.MakePodKey("", "big"))
	require.True(t, ok)
	require.Equal(t, 2, b.Len())
	_, found := b.FindNode(pod, []int{0, 1})
	require.False(t, found, "5 cpu on 4-cpu nodes")

	m := b.Mark()
	small, err := b.AddNode(gt.MakeNode("t-small").CPU("4").Obj(), nil)
	require.NoError(t, err)
	large, err := b.AddNode(gt.MakeNode("t-large").CPU("8").Obj(), nil)
	require.NoError(t, err)
	tainted, err := b.AddNode(gt.MakeNode("t-tainted").CPU("8").Taint("gpu", "", cluster.TaintNoSchedule).Obj(), nil)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3, 4}, []int{small, large, tainted})
	require.False(t, b.Fits(pod, small))
	require.Contains(t, b.Why(pod, small), "Insufficient cpu")
	require.True(t, b.Fits(pod, large))
	require.Contains(t, b.Why(pod, tainted), "untolerated taint")
	b.Place(pod, large)
	require.False(t, b.Fits(pod, large), "5+5 > 8")
	b.Revert(m)
	require.Equal(t, 2, b.Len())
	_, ok = b.Index("t-large")
	require.False(t, ok)
	// the scheduler saw none of it
	require.Equal(t, 2, len(collect(s.Nodes())))
	st, _ := s.Pod(cluster.MakePodKey("", "big"))
	require.True(t, st.Unschedulable)
}

func collect[T any](seq func(func(T) bool)) []T {
	var out []T
	for v := range seq {
		out = append(out, v)
	}
	return out
}

// The scheduler's event stream is the same with a sandbox asking
// questions between its steps (template nodes added, pods placed and
// removed, filters run with spread and affinity) as without.
func TestSandboxLeavesSchedulerAlone(t *testing.T) {
	stream := func(withSandbox bool) []string {
		var got []string
		s, err := New(Config{CheckInvariants: true}, WithObserver(func(e Event) { got = append(got, e.String()) }))
		require.NoError(t, err)
		for i := range 4 {
			require.NoError(t, s.AddNode(gt.MakeNode(fmt.Sprintf("n%d", i)).CPU("4").Memory("16Gi").Zone(fmt.Sprintf("z%d", i%2)).Obj()))
		}
		var sb *Sandbox
		if withSandbox {
			sb, err = s.NewSandbox()
			require.NoError(t, err)
		}
		for step := range 12 {
			for j := range 3 {
				p := gt.MakePod(fmt.Sprintf("p%d-%d", step, j)).CPU("1").Label("app", "web").Obj()
				p.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: gt.LabelZone,
					WhenUnsatisfiable: "DoNotSchedule", LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
				require.NoError(t, s.AddPod(p, time.Duration(1+j)*time.Minute))
			}
			require.NoError(t, s.RunUntil(time.Duration(step+1)*30*time.Second))
			if sb != nil {
				poke(t, s, sb)
			}
		}
		require.NoError(t, s.Run())
		return got
	}
	require.Equal(t, stream(false), stream(true))
}

// poke asks the sandbox everything it can be asked.
func poke(t *testing.T, s *Scheduler, sb *Sandbox) {
	require.NoError(t, sb.Sync())
	idx, err := sb.AddNode(gt.MakeNode("tmpl").CPU("4").Memory("16Gi").Zone("z9").Obj(), nil)
	require.NoError(t, err)
	for st := range s.Pods() {
		pi, _ := sb.Pod(st.Key)
		if st.Phase == PhaseBound {
			i, _ := sb.Index(st.Node)
			require.NoError(t, sb.RemovePod(st.Key, i))
		}
		if n, ok := sb.FindNode(pi, []int{idx, 0, 1, 2, 3}); ok {
			sb.Place(pi, n)
		}
	}
}

// PlaceGroup runs the scheduler's own placement of a hierarchy on the
// copy: a composite needing both its gangs (two pods of 3 cpu each, on
// nodes of 4) does not fit two nodes, fits four template nodes added to
// the copy, and the copy is as it was afterwards. Asking for a group
// that is not a root, or is not defined, is an answer too, not a panic.
func TestSandboxPlaceGroup(t *testing.T) {
	s := newTestSched(t, Config{}).nodes("n", 2, 4000)
	require.NoError(t, s.AddCompositePodGroup(gt.MakeComposite("job", 2).Obj()))
	for _, g := range []string{"a", "b"} {
		require.NoError(t, s.AddPodGroup(gt.MakeGang(g, 2).Parent("job").Obj()))
		for i := range 2 {
			require.NoError(t, s.AddPod(gt.MakePod(fmt.Sprintf("%s-%d", g, i)).CPU("3").Group(g).Obj(), 0))
		}
	}
	require.NoError(t, s.Run())
	b, err := s.NewSandbox()
	require.NoError(t, err)
	root := s.GroupRoot(podgroup.Ref{Key: "default/a"})
	require.Equal(t, podgroup.Ref{Composite: true, Key: "default/job"}, root)

	placed, why := b.PlaceGroup(root)
	require.Empty(t, placed)
	require.Contains(t, why, "minCount (2) cannot be satisfied")

	m := b.Mark()
	for i := range 2 {
		_, err := b.AddNode(gt.MakeNode(fmt.Sprintf("t-%d", i)).CPU("4").Obj(), nil)
		require.NoError(t, err)
	}
	tentative := b.snap.Tentative()
	placed, why = b.PlaceGroup(root)
	require.Empty(t, why)
	require.Len(t, placed, 4)
	nodes := map[int]bool{}
	for _, p := range placed {
		nodes[p.Node] = true
	}
	require.Len(t, nodes, 4, "one pod a node")
	require.Equal(t, tentative, b.snap.Tentative(), "the placement is taken back")
	for i := range b.Len() {
		require.Zero(t, b.Node(i).PodCount(), b.Node(i).Name())
	}
	b.Revert(m)

	// a hierarchy the scheduler does not try yet: a gate on one pod
	require.NoError(t, s.AddCompositePodGroup(gt.MakeComposite("gated", 1).Obj()))
	require.NoError(t, s.AddPodGroup(gt.MakeBasicGroup("g").Parent("gated").Obj()))
	require.NoError(t, s.AddPod(gt.MakePod("g-0").CPU("1").Group("g").SchedulingGates("wait").Obj(), 0))
	require.NoError(t, b.Sync())
	_, why = b.PlaceGroup(podgroup.Ref{Composite: true, Key: "default/gated"})
	require.Contains(t, why, "scheduling gates")
	// and one short of its quorum: a gang of minCount 3 with one pod known
	require.NoError(t, s.AddCompositePodGroup(gt.MakeComposite("short", 1).Obj()))
	require.NoError(t, s.AddPodGroup(gt.MakeGang("s", 3).Parent("short").Obj()))
	require.NoError(t, s.AddPod(gt.MakePod("s-0").CPU("1").Group("s").Obj(), 0))
	require.NoError(t, b.Sync())
	_, why = b.PlaceGroup(podgroup.Ref{Composite: true, Key: "default/short"})
	require.Contains(t, why, "too few of its pods or groups are known")

	_, why = b.PlaceGroup(podgroup.Ref{Key: "default/a"})
	require.Equal(t, "default/a is not the root of its hierarchy", why)
	_, why = b.PlaceGroup(podgroup.Ref{Composite: true, Key: "default/nope"})
	require.Equal(t, "default/nope is not defined", why)
	for p := range s.Pods() {
		require.Equal(t, PhasePending, p.Phase, "the scheduler saw none of it")
	}
}
