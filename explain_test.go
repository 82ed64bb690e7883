package gangsim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
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

// A pod's node by node rejections (a status for every node) are kept
// while it waits, for Diagnosis, and dropped once it binds: a bound pod's
// last attempt succeeded, and on a long run the rejections of every pod
// that ever failed would otherwise stay on the heap. Evicted later, it has
// no diagnosis until it fails again.
func TestBoundPodForgetsItsRejections(t *testing.T) {
	ts := newTestSched(t, Config{})
	ts.nodes("small", 2, 1000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("big").MilliCPU(4000).Obj(), 0))
	ts.run()
	key := cluster.MakePodKey("", "big")
	require.NotNil(t, ts.Diagnosis(key), "waiting: its rejections are kept")

	ts.nodes("large", 1, 8000)
	ts.run()
	r := ts.tracker.record(key)
	require.Equal(t, PhaseBound, r.phase)
	require.Nil(t, r.lastFit, "bound: its rejections are dropped")

	require.NoError(t, ts.RemoveNode("large-0"))
	require.Equal(t, PhasePending, ts.tracker.record(key).phase)
	require.Nil(t, ts.Diagnosis(key), "its last attempt bound it")
	ts.run()
	require.NotNil(t, ts.Diagnosis(key), "failed again: rejected by the small nodes")
}
