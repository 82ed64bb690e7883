package memo

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
)

// When the memo is full, a new signature's table replaces the one least
// recently used, not the oldest: a shape in use keeps its answers however
// many shapes came after it.
func TestMemoForgetsTheLeastRecentlyUsedTable(t *testing.T) {
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("n").MilliCPU(1000)})
	m := New(Plugins{}, Options{})
	sig := func(i int) []byte { return fmt.Appendf(nil, "shape-%d", i) }
	get := func(i int) *table {
		if tb := m.table(snap, sig(i)); tb != nil {
			return tb
		}
		return m.table(snap, sig(i)) // a table on the second sighting
	}
	limit := capacity(snap.Len())
	first := get(0)
	require.NotNil(t, first)
	for i := 1; i < limit; i++ {
		require.NotNil(t, get(i))
	}
	require.Len(t, m.tables, limit)
	require.Same(t, first, get(0), "used again: the most recent")
	require.NotNil(t, get(limit))
	require.Len(t, m.tables, limit)
	require.Contains(t, m.tables, string(sig(0)))
	require.NotContains(t, m.tables, string(sig(1)), "the least recently used is forgotten")
	// the list holds every table once, newest first
	var keys []string
	for tb := m.recent.newest; tb != nil; tb = tb.older {
		keys = append(keys, tb.key)
	}
	require.Len(t, keys, limit)
	require.Equal(t, []string{string(sig(limit)), string(sig(0))}, keys[:2])
	require.Equal(t, string(sig(2)), keys[limit-1])
}

// An entry is one cache line: the memo tree's refresh of a changed node
// reads one line of its table, not two.
func TestEntryIsACacheLine(t *testing.T) {
	require.EqualValues(t, 64, unsafe.Sizeof(entry{}))
}

// skippingFilter is a remembered filter that says it passes every node for
// a pod naming no node.
type skippingFilter struct{}

func (skippingFilter) Name() string { return "Skipping" }
func (skippingFilter) Filter(*fw.CycleState, *cluster.PodInfo, *cluster.NodeInfo) *fw.Status {
	return nil
}
func (skippingFilter) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return append(sig, pod.Pod().NodeName...), true
}
func (skippingFilter) FilterSkips(pod *cluster.PodInfo) bool { return pod.Pod().NodeName == "" }

// A filter that skips the pod is neither run (not among the pod's
// remembered filters) nor signed; one that does not is both.
func TestFilterSkipperLeavesThePlan(t *testing.T) {
	m := New(Plugins{Filter: []fw.FilterPlugin{skippingFilter{}}, FilterPre: []int{-1}}, Options{})
	snap := cluster.NewCache().Snapshot()
	for _, tc := range []struct {
		node string
		runs bool
	}{{"", false}, {"n1", true}} {
		pod := cluster.NewPodInfo(cluster.Pod{Name: "p", NodeName: tc.node})
		m.lookup(fw.NewCycleState(), snap, pod)
		require.Equal(t, tc.runs, len(m.plan.memoFilters) == 1, "node %q", tc.node)
		sig, all := m.FilterSignature(fw.NewCycleState(), pod, nil)
		require.True(t, all)
		require.Equal(t, tc.runs, len(sig) > 1, "node %q: signed %q", tc.node, sig)
	}
}
