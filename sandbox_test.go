package gangsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
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
