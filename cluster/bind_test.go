package cluster

import (
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// BindPod leaves the cache as AssumePod then FinishBinding do: the pod
// bound on its node from now, the node's totals, the budgets' counts.
func TestBindPodIsAssumeAndFinish(t *testing.T) {
	build := func(oneStep bool) *Cache {
		c := NewCache()
		require.NoError(t, c.AddNode(Node{Name: "n", Allocatable: NewResources(4000, 8<<30, 10)}))
		require.NoError(t, c.AddBudget(PodDisruptionBudget{Name: "b", Selector: &LabelSelector{MatchLabels: map[string]string{"app": "a"}}, MinAvailable: &IntOrPercent{Value: 1}}))
		for _, name := range []string{"p1", "p2"} {
			pi := NewPodInfo(Pod{Namespace: "default", Name: name, Labels: map[string]string{"app": "a"}, Requests: NewResources(1000, 1<<30, 0)})
			if oneStep {
				bound, err := c.BindPod(pi, "n", 5*time.Second)
				require.NoError(t, err)
				got, _ := c.Pod(pi.Key())
				require.Same(t, got, bound, "BindPod returns the copy the cache holds")
			} else {
				require.NoError(t, c.AssumePod(pi, "n"))
				require.NoError(t, c.FinishBinding(pi.Key(), 5*time.Second))
			}
		}
		require.NoError(t, c.CheckConsistency())
		return c
	}
	a, b := build(false), build(true)
	na, _ := a.Node("n")
	nb, _ := b.Node("n")
	require.Equal(t, na.Requested(), nb.Requested())
	for i, pa := range na.PodList() {
		pb := nb.PodList()[i]
		require.Equal(t, pa.Key(), pb.Key())
		require.Equal(t, PodBound, pb.State())
		require.Equal(t, *pa.Pod(), *pb.Pod())
	}
	require.Equal(t, slices.Collect(a.Budgets()), slices.Collect(b.Budgets()))
	// and refuses what AssumePod refuses
	_, err := b.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p1"}), "n", 0)
	require.ErrorIs(t, err, ErrPodExists)
	_, err = b.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p3"}), "gone", 0)
	require.ErrorIs(t, err, ErrNodeNotFound)
}

// Grow keeps the pods the cache holds and takes more.
func TestCacheGrowKeepsPods(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "n", Allocatable: NewResources(4000, 8<<30, 10)}))
	_, err := c.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p1"}), "n", 0)
	require.NoError(t, err)
	c.Grow(1000)
	c.Grow(0)
	got, ok := c.Pod("default/p1")
	require.True(t, ok)
	require.Equal(t, PodBound, got.State())
	_, err = c.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p1"}), "n", 0)
	require.ErrorIs(t, err, ErrPodExists, "the grown index still knows the pod")
	_, err = c.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p2"}), "n", 0)
	require.NoError(t, err)
	require.NoError(t, c.CheckConsistency())
}

// A PodInfo's pod is checked once for every form of it: Validate
// remembers a pod that passed (its pod never changes once handed over),
// and BindPod and AssumePod take such a pod without checking it again; a
// pod that failed is checked, and refused, every time. (The pod changed
// below breaks the hand-over contract on purpose, to see the check
// skipped.)
func TestPodInfoValidatedOnce(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(node("n").cpu(8).mem(8*gi).obj()))

	good := pod("good").milli(100).p
	good.Priority = new(int32(0)) // NewPodInfoOf wraps the pod itself
	pi := NewPodInfoOf(&good)
	require.NoError(t, pi.Validate())
	good.Name = "Not A Name" // after the check: no one checks it again
	require.NoError(t, pi.Validate())
	_, err := c.BindPod(pi, "n", 0)
	require.NoError(t, err, "a validated pod is bound without a second check")

	assumed := pod("assumed").milli(100).p
	assumed.Priority = new(int32(0))
	ai := NewPodInfoOf(&assumed)
	require.NoError(t, ai.Validate())
	assumed.Requests = NewResources(-1, 0, 0)
	require.NoError(t, c.AssumePod(ai, "n"), "a validated pod is assumed without a second check")

	bad := pod("bad").milli(100).p
	bad.Requests = NewResources(-1, 0, 0)
	bi := NewPodInfoOf(&bad)
	require.ErrorIs(t, bi.Validate(), ErrInvalidPod)
	require.ErrorIs(t, bi.Validate(), ErrInvalidPod, "a failure is not remembered as a pass")
	_, err = c.BindPod(bi, "n", 0)
	require.ErrorIs(t, err, ErrInvalidPod)
	require.ErrorIs(t, c.AssumePod(bi, "n"), ErrInvalidPod)

	// the mark sits in the PodInfo's padding: a pod's first form and its
	// spec stay one allocation of 144 bytes (the next size class is 160: 16 MB
	// more on a million pods)
	require.EqualValues(t, 144, unsafe.Sizeof(PodInfo{})+unsafe.Sizeof(podSpec{}))

	// the cache checks without recording: forks of one cache may bind
	// the same PodInfo on several goroutines
	plain := pod("plain").milli(100).p
	plain.Priority = new(int32(0))
	qi := NewPodInfoOf(&plain)
	_, err = c.BindPod(qi, "n", 0)
	require.NoError(t, err)
	require.False(t, qi.valid, "BindPod writes nothing into the PodInfo it is given")

	unchecked := pod("unchecked").milli(100).p
	unchecked.Priority = new(int32(0))
	unchecked.Name = "Not A Name"
	_, err = c.BindPod(NewPodInfoOf(&unchecked), "n", 0)
	require.ErrorIs(t, err, ErrInvalidPod, "a pod never checked is checked at binding")
}

// A pod refused as already there leaves the one there as it was, in the
// index and on its node, whichever node the second asks for; a pod already
// there is told before a node that does not exist.
func TestBindPodRefusedKeepsThePodThere(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "a", Allocatable: NewResources(4000, 8<<30, 10)}))
	require.NoError(t, c.AddNode(Node{Name: "b", Allocatable: NewResources(4000, 8<<30, 10)}))
	first, err := c.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p", Requests: NewResources(1000, 0, 0)}), "a", 5)
	require.NoError(t, err)
	for _, node := range []string{"a", "b", "gone"} {
		_, err = c.BindPod(NewPodInfo(Pod{Namespace: "default", Name: "p", Requests: NewResources(2000, 0, 0)}), node, 9)
		require.ErrorIs(t, err, ErrPodExists, node)
		require.ErrorContains(t, err, `is Bound on node "a"`)
		got, ok := c.Pod("default/p")
		require.True(t, ok)
		require.Same(t, first, got, "the index holds the first pod")
		na, _ := c.Node("a")
		nb, _ := c.Node("b")
		require.Equal(t, []*PodInfo{first}, na.PodList())
		require.Empty(t, nb.PodList())
		require.Equal(t, int64(1000), na.Requested().MilliCPU)
		require.NoError(t, c.CheckConsistency())
	}
}
