package knowngroups

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The shortcut's decisions are held to the search without it by the root
// package's TestKnownGroupFailuresKeepDecisions and
// TestKnownGroupFailuresReplayTheScanStart, which need the scheduler;
// these check its bookkeeping alone.

// nominations nominates pods by snapshot index.
type nominations map[int][]*cluster.PodInfo

func (n nominations) Empty() bool                             { return len(n) == 0 }
func (n nominations) NominatedTo(node int) []*cluster.PodInfo { return n[node] }

// fourNodes is a snapshot of four nodes, placed in two racks.
func fourNodes(t *testing.T) (*cluster.Snapshot, []fw.Placement) {
	t.Helper()
	c := cluster.NewCache()
	for i := range 4 {
		require.NoError(t, c.AddNode(cluster.Node{Name: fmt.Sprintf("n%d", i), Allocatable: cluster.NewResources(4000, 8<<30, 10)}))
	}
	return c.Snapshot(), []fw.Placement{{Name: "rack-a", Nodes: []int{0, 1}}, {Name: "rack-b", Nodes: []int{2, 3}}}
}

// A remembered failure holds while its placement's nodes hold what they
// held with the same nominations, and only a failure whose scans visit
// every node is remembered.
func TestHolds(t *testing.T) {
	pod := cluster.NewPodInfo(cluster.Pod{Name: "p", Requests: cluster.NewResources(100, 0, 0)})
	for _, tc := range []struct {
		name     string
		failed   bool
		scansAll bool
		rename   string // the placement's name at the next search
		reserve  int    // a node of rack-a that changes after the search, or -1
		nominate int    // a node of rack-a a pod is nominated to after, or -1
		want     bool
	}{
		{name: "unchanged", failed: true, scansAll: true, reserve: -1, nominate: -1, want: true},
		{name: "feasible is not remembered", scansAll: true, reserve: -1, nominate: -1},
		{name: "a scan that stops early is not remembered", failed: true, reserve: -1, nominate: -1},
		{name: "another placement", failed: true, scansAll: true, rename: "rack-c", reserve: -1, nominate: -1},
		{name: "a node changed", failed: true, scansAll: true, reserve: 1, nominate: -1},
		{name: "a pod nominated", failed: true, scansAll: true, reserve: -1, nominate: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, placements := fourNodes(t)
			var g Groups[string]
			req := Request{Pods: []*cluster.PodInfo{pod}}
			kg := g.Start(snap, "default/g", &req, len(placements))
			res := "first"
			kg.Remember(snap, nil, 0, &placements[0], &res, tc.failed, tc.scansAll, true, true)
			kg.Searched(snap, placements)
			if tc.reserve >= 0 {
				snap.Reserve(cluster.NewPodInfo(cluster.Pod{Name: "q"}), tc.reserve)
			}
			noms := nominations{}
			if tc.nominate >= 0 {
				noms[tc.nominate] = []*cluster.PodInfo{pod}
			}
			p := placements[0]
			if tc.rename != "" {
				p.Name = tc.rename
			}
			again := g.Known(snap, "default/g", &req, len(placements))
			require.Same(t, kg, again, "the same request finds what is known")
			require.Equal(t, tc.want, again.Holds(snap, noms, 0, &p))
			if tc.want {
				require.Equal(t, "first", *again.First(), "the first placement's result is kept whole")
				require.True(t, again.Bounded(0))
			}
		})
	}
}

// Another request for the group forgets what was known.
func TestKnownForgetsAnotherRequest(t *testing.T) {
	snap, placements := fourNodes(t)
	var g Groups[string]
	req := Request{Scheduled: 1}
	g.Start(snap, "default/g", &req, len(placements))
	other := Request{Scheduled: 2}
	require.Nil(t, g.Known(snap, "default/g", &other, len(placements)))
	require.Nil(t, g.Known(snap, "default/g", &req, len(placements)), "forgotten")
}

// A placement passed over replays its scan's effect on the next start: a
// scan of all its nodes leaves the start at the old one modulo their
// count; one that ran no scan leaves it.
func TestPassReplaysTheScanStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		scanned bool
		want    int
	}{
		{name: "scanned", scanned: true, want: 7 % 2},
		{name: "no scan", want: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, placements := fourNodes(t)
			var g Groups[string]
			kg := g.Start(snap, "default/g", &Request{}, len(placements))
			res := ""
			kg.Remember(snap, nil, 1, &placements[1], &res, true, true, tc.scanned, true)
			next := 7
			kg.Pass(1, &next)
			require.Equal(t, tc.want, next)
		})
	}
}
