package memo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// plainScheduler is a Scheduler for plugins the memo answers alone.
type plainScheduler struct{}

func (plainScheduler) FilterNominated(*fw.CycleState, *cluster.Snapshot, *cluster.PodInfo, int) *fw.Status {
	return nil
}

func (plainScheduler) ScoreLive(*cluster.Snapshot, *cluster.PodInfo, []int, []bool) ([]int64, bool) {
	return nil, false
}

func (plainScheduler) FitError(*cluster.PodInfo, []int, int, []fw.NodeStatus) *fw.FitError {
	return &fw.FitError{}
}

// A table settles on the index that costs less and then answers its pods
// from it, scanning only while an index is being paid for: on a thousand
// nodes and a score of pod shapes (a score of changes a use, a range of
// 420 nodes) the column; on 20,000 nodes and three shapes (three changes,
// a range of 1,000) the tree. A choice that weighed the lagging index's
// catch-up kept each table on whichever it built first, and one that let
// the other index's answers reset the scans paid towards the kept one
// left the tables scanning (the million pods took 64 s instead of 10).
func TestTablesSettleOnTheCheaperIndex(t *testing.T) {
	for _, tc := range []struct {
		nodes, shapes, want int
		column              bool
	}{
		{1000, 20, 420, true},
		{20_000, 3, 1000, false},
	} {
		c := cluster.NewCache()
		for i := range tc.nodes {
			require.NoError(t, c.AddNode(cluster.Node{Name: fmt.Sprintf("n%05d", i), Allocatable: cluster.NewResources(int64(8+8*(i%3))*1000, 64<<30, 110)}))
		}
		snap := c.Snapshot()
		fit := noderesources.NewFitStrategy(noderesources.LeastAllocated, nil)
		m := New(Plugins{Filter: []fw.FilterPlugin{fit}, FilterPre: []int{-1}, Score: []fw.ScorePlugin{fit}, Weight: []int64{1}, ScorePre: []int{-1}}, Options{})
		var next, scans int
		pods := 200 * tc.shapes // a tree or column is built after about 4n / want scans
		scansBefore := 0
		for i := range pods {
			if i == pods/2 {
				scansBefore = scans
			}
			shape := i % tc.shapes
			pod := cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(int64(100*(1+shape)), int64(1+shape)<<26, 0)}
			p := &Pod{State: fw.NewCycleState(), Snap: snap, Pod: cluster.NewPodInfo(pod), N: tc.nodes, Find: tc.want, Next: &next, Scans: &scans}
			idx, fit, ok := m.Schedule(plainScheduler{}, p)
			if !ok { // a shape's first sighting
				idx = i % tc.nodes
			}
			require.Nil(t, fit)
			pod.NodeName = snap.Node(idx).Name()
			require.NoError(t, c.AddPod(pod))
			require.NoError(t, c.UpdateSnapshot(snap))
		}
		require.Zero(t, scans-scansBefore, "%d nodes: the second half's pods scanned", tc.nodes)
		require.Len(t, m.tables, tc.shapes)
		for _, tb := range m.tables {
			if tc.column {
				require.LessOrEqual(t, tb.col.pending(snap), tc.shapes, "%d nodes: the column is kept up to date", tc.nodes)
				require.Nil(t, tb.tree, "%d nodes: no tree is built", tc.nodes)
			} else {
				require.LessOrEqual(t, treePending(snap, tb), tc.shapes, "%d nodes: the tree is kept up to date", tc.nodes)
				require.Greater(t, tb.col.pending(snap), tc.shapes, "%d nodes: the column lags or is not built", tc.nodes)
			}
		}
	}
}
