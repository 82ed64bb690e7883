package autoscaler

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Four pods of 1 cpu and 1Gi, two groups (big listed first):
//   - small, 2 cpu 16Gi at 0.1 an hour: 2 pods a node, 2 nodes. Waste:
//     cpu 1 - 4/(2*2) = 0, memory 1 - 4/(2*16) = 0.875: 0.875. Price per
//     pod: 2*0.1/4 = 0.05.
//   - big, 8 cpu 16Gi at 1.0 an hour: 1 node. Waste: cpu 1 - 4/8 = 0.5,
//     memory 1 - 4/16 = 0.75: 1.25. Price per pod: 1*1.0/4 = 0.25.
//
// least-waste and price pick small; most-pods ties (4 and 4) and takes
// the first group, big; priority takes big (10 over 5).
func TestExpanders(t *testing.T) {
	for _, tc := range []struct {
		expander string
		group    string
		nodes    int
	}{
		{"least-waste", "small", 2},
		{"price", "small", 2},
		{"most-pods", "big", 1},
		{"priority", "big", 1},
	} {
		t.Run(tc.expander, func(t *testing.T) {
			big, small := group("big", "8", 10), group("small", "2", 10)
			big.PricePerHour, small.PricePerHour = 1.0, 0.1
			cfg := Config{Expander: tc.expander, Priorities: map[int][]string{10: {"^big$"}, 5: {"sm.*"}}}
			w := newWorld(t, cfg, big, small)
			w.addPods(4, "web", "1", 0)
			w.run()
			up := w.a.Events()[0]
			require.Equal(t, EventScaleUp, up.Kind)
			require.Equal(t, tc.group, up.Group)
			require.Len(t, up.Nodes, tc.nodes)
			require.Len(t, up.Pods, 4)
		})
	}
}

// The random expander draws from the seeded rand: the same seed, the same
// group, run after run; over seeds, both groups come up.
func TestRandomExpanderIsSeeded(t *testing.T) {
	pick := func() string {
		w := newWorld(t, Config{Expander: "random"}, group("a", "4", 10), group("b", "4", 10))
		w.addPods(2, "web", "1", 0)
		w.run()
		return w.a.Events()[0].Group
	}
	first := pick()
	for range 3 {
		require.Equal(t, first, pick())
	}
	seen := map[int]bool{}
	a, err := New(Config{Expander: "random"}, nil, nil)
	require.NoError(t, err)
	opts := []option{{g: &groupState{NodeGroup: NodeGroup{Name: "a"}, index: 0}}, {g: &groupState{NodeGroup: NodeGroup{Name: "b"}, index: 1}}}
	for range 50 {
		seen[a.expand(opts).g.index] = true
	}
	require.Len(t, seen, 2)
}

// Group max and the cluster's limits bound a scale-up. Six pods of 1.5
// cpu want 3 nodes of 4 cpu (two pods a node):
//   - max 2: 2 nodes for 4 pods; the other 2 pods get NoScaleUp.
//   - maxNodesTotal 1 (no other node): 1 node for 2 pods.
//   - cores 8: 8 cores / 4 a node = 2 nodes.
//   - memory 40Gi: 40 / 16 = 2 nodes (2.5 rounded down).
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		max   int
		nodes int
	}{
		{"group max", Config{}, 2, 2},
		{"max nodes total", Config{MaxNodesTotal: 1}, 10, 1},
		{"max cores", Config{MaxCoresTotal: 8}, 10, 2},
		{"max memory", Config{MaxMemoryTotal: 40 << 30}, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.cfg, group("cpu", "4", tc.max))
			w.addPods(6, "web", "1500m", 0)
			w.run()
			ev := w.a.Events()
			require.Equal(t, EventScaleUp, ev[0].Kind)
			require.Len(t, ev[0].Nodes, tc.nodes)
			require.Len(t, ev[0].Pods, 2*tc.nodes)
			require.Equal(t, EventNoScaleUp, ev[1].Kind)
			require.Len(t, ev[1].Pods, 6-2*tc.nodes)
			for _, g := range w.a.Groups(w.s.Now()) {
				require.Equal(t, tc.nodes, g.MaxNodes)
			}
		})
	}
}
