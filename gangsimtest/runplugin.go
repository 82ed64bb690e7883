package gangsimtest

import (
	"slices"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// FilterPlugin is a plugin with PreFilter and Filter, as FilterAll runs it.
type FilterPlugin interface {
	fw.PreFilterPlugin
	fw.FilterPlugin
}

// ScorePlugin is a plugin with PreScore, Score and NormalizeScore, as
// ScoreAll runs it.
type ScorePlugin interface {
	fw.PreScorePlugin
	fw.ScorePlugin
	fw.ScoreNormalizer
}

// FilterAll runs pl's PreFilter for pod on snap, then its Filter on every
// node, as one attempt does (one CycleState), and returns the rejections
// by node name: a node that passes is absent. A PreFilter that returns
// Skip passes every node; any other PreFilter status fails the test
// through t.
func FilterAll(t require.TestingT, pl FilterPlugin, pod cluster.Pod, snap *cluster.Snapshot) map[string]*fw.Status {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	pi := cluster.NewPodInfo(pod)
	state := fw.NewCycleState()
	got := map[string]*fw.Status{}
	if st := pl.PreFilter(state, pi, snap); st != nil {
		require.Equal(t, fw.Skip, st.Code(), "PreFilter: %v", st)
		return got
	}
	for i := range snap.Len() {
		ni := snap.Node(i)
		if st := pl.Filter(state, pi, ni); st != nil {
			got[ni.Node().Name] = st
		}
	}
	return got
}

// ScoreAll runs pl's PreScore for pod over the feasible nodes of snap
// (every node when none is named), its Score on each and its
// NormalizeScore, as one attempt does, and returns the final scores by
// node name. A PreScore that returns Skip scores every node 0; any other
// status fails the test through t.
func ScoreAll(t require.TestingT, pl ScorePlugin, pod cluster.Pod, snap *cluster.Snapshot, feasible ...string) map[string]int64 {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	pi := cluster.NewPodInfo(pod)
	var nodes []*cluster.NodeInfo
	for i := range snap.Len() {
		if ni := snap.Node(i); len(feasible) == 0 || slices.Contains(feasible, ni.Node().Name) {
			nodes = append(nodes, ni)
		}
	}
	state := fw.NewCycleState()
	got := map[string]int64{}
	if st := pl.PreScore(state, pi, nodes); st != nil {
		require.Equal(t, fw.Skip, st.Code(), "PreScore: %v", st)
		for _, ni := range nodes {
			got[ni.Node().Name] = 0
		}
		return got
	}
	scores := make([]fw.NodeScore, len(nodes))
	for i, ni := range nodes {
		s, st := pl.Score(state, pi, ni)
		require.Nil(t, st, "Score on %s", ni.Node().Name)
		scores[i] = fw.NodeScore{Node: ni.Index(), Score: s}
	}
	require.Nil(t, pl.NormalizeScore(state, pi, scores))
	for i, ni := range nodes {
		got[ni.Node().Name] = scores[i].Score
	}
	return got
}
