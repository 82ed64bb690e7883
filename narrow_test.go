package gangsim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// NarrowNodeSelection adds selector entries and tolerations to a gated
// pod, as the API server lets a gated pod's scheduling terms be narrowed:
// a key the pod sets to another value is refused, the same value is kept
// once, and a pod without gates is refused (ErrNotGated), as is one that
// does not exist or no longer waits (ErrUnknownPod). Node a (pool a) is
// tainted, b (pool b) is not: narrowed to pool a with the toleration, the
// pod goes to a; without the narrowing it would have gone to b.
func TestNarrowNodeSelection(t *testing.T) {
	s, err := New(Config{CheckInvariants: true})
	require.NoError(t, err)
	taint := cluster.Taint{Key: "k", Effect: cluster.TaintNoSchedule}
	require.NoError(t, s.AddNode(cluster.Node{Name: "a", Labels: map[string]string{"pool": "a", "zone": "z"}, Taints: []cluster.Taint{taint},
		Allocatable: cluster.Resources{MilliCPU: 1000, Memory: 1 << 30, Pods: 10}}))
	require.NoError(t, s.AddNode(cluster.Node{Name: "b", Labels: map[string]string{"pool": "b", "zone": "z"},
		Allocatable: cluster.Resources{MilliCPU: 1000, Memory: 1 << 30, Pods: 10}}))
	p := cluster.Pod{Namespace: "default", Name: "p", Requests: cluster.Resources{MilliCPU: 100}, NodeSelector: map[string]string{"zone": "z"},
		SchedulingGates: []string{"g"}}
	require.NoError(t, s.AddPod(p, 0))
	key := p.Key()
	require.ErrorContains(t, s.NarrowNodeSelection(key, map[string]string{"zone": "y"}, nil), "may only be narrowed")
	tol := cluster.Toleration{Key: "k", Operator: cluster.TolerationExists}
	require.NoError(t, s.NarrowNodeSelection(key, map[string]string{"zone": "z", "pool": "a"}, []cluster.Toleration{tol}))
	require.Equal(t, map[string]string{"zone": "z"}, p.NodeSelector, "the caller's map is not changed")
	require.NoError(t, s.UngatePod(key))
	require.NoError(t, s.Run())
	st, _ := s.Pod(key)
	require.Equal(t, "a", st.Node)
	require.ErrorIs(t, s.NarrowNodeSelection(key, nil, nil), ErrNotGated, "bound: no gates")
	require.ErrorIs(t, s.NarrowNodeSelection("default/none", nil, nil), ErrUnknownPod)
}
