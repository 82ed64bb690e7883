package gangsim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
)

// A leaf's failures name its pods: by the record's own PodInfo (what a
// search of them gives), or by another PodInfo of the same pod (a result
// remembered from an earlier form of it); each pod gets its own failure
// either way, and the pods without one the leaf's message.
func TestExplainLeavesMatchesFailuresByPodOrKey(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		ts := newTestSched(t, Config{}).gang("g", 3).members("g", 3, 1000)
		leaves := ts.tracker.leafRecords(podgroup.Ref{Key: "default/g"})
		pending := ts.tracker.pending(ts.tracker.groupRecords.at(leaves[0]))
		require.Len(t, pending, 3)
		fitOf := func(r *podRecord) placement.PodFailure {
			info := r.info
			if foreign {
				c := *info.Pod()
				info = cluster.NewPodInfo(c) // the same pod, another PodInfo
			}
			return placement.PodFailure{Pod: info, Err: &fw.FitError{Pod: r.info.Key(), NumAllNodes: 0}}
		}
		out := placement.TreeResult{Leaves: []placement.LeafResult{{Key: "default/g", GroupResult: placement.GroupResult{
			Message:  "the leaf's message",
			Failures: []placement.PodFailure{fitOf(pending[2]), fitOf(pending[0])},
		}}}}
		ts.explainLeaves(leaves, out, "")
		for i, want := range []string{"no nodes available", "the leaf's message", "no nodes available"} {
			st, ok := ts.Pod(pending[i].info.Key())
			require.True(t, ok)
			require.Contains(t, st.Reason, want, "foreign PodInfos %v: pod %d", foreign, i)
		}
	}
}
