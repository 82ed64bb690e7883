package autoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// Six pods of 1.5 cpu on 4-cpu template nodes: two fit a node (3 <= 4,
// 4.5 > 4), so three nodes. The pods are first tried at 0 (no node: they
// are marked unschedulable), the scan at 10s requests cpu-1..3, which
// arrive at 10s+2m = 2m10s; the pods bind then and run 30m, to 32m10s.
// The nodes are empty from 32m10s; the scan at 32m10s finds them
// unneeded, and the one at 42m10s (10m later) removes them, in bulk.
// The run ends with the scan after that, at 42m20s, which finds nothing
// to do. Waits: 10s for room (0 to the scan), 2m for a node.
// Node-hours: each node from 10s to 42m10s = 42m = 0.7h; three: 2.1h,
// at 0.5 an hour 1.05.
func TestScaleUpAndDown(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 10))
	w.addPods(6, "web", "1500m", 30*time.Minute)
	end := w.run()
	require.Equal(t, `10s ScaleUp cpu [cpu-1 cpu-2 cpu-3] 6 pods
2m10s NodeReady cpu [cpu-1 cpu-2 cpu-3]
32m10s NodeUnneeded cpu [cpu-1]
32m10s NodeUnneeded cpu [cpu-2]
32m10s NodeUnneeded cpu [cpu-3]
42m10s ScaleDown cpu [cpu-1]
42m10s ScaleDown cpu [cpu-2]
42m10s ScaleDown cpu [cpu-3]
`, w.log())
	require.Equal(t, 42*time.Minute+20*time.Second, end)
	for _, pw := range w.a.PodWaits(end) {
		require.Equal(t, PodWait{Pod: pw.Pod, ForNode: 2 * time.Minute, ForRoom: 10 * time.Second, Bound: true}, pw)
	}
	g := w.a.Groups(end)
	require.Len(t, g, 1)
	require.Equal(t, 3, g[0].NodesAdded)
	require.Equal(t, 3, g[0].NodesRemoved)
	require.Equal(t, 3, g[0].MaxNodes)
	require.InDelta(t, 2.1, g[0].NodeHours, 1e-9)
	require.InDelta(t, 1.05, g[0].Cost, 1e-9)
}

// A pod no template fits gets NoScaleUp, each group saying why; a pod
// with a node selector only one group's template has scales that group.
func TestNoScaleUpAndSelectors(t *testing.T) {
	gpu := group("gpu", "8", 4)
	gpu.Template.Labels = map[string]string{"pool": "gpu"}
	w := newWorld(t, Config{}, group("cpu", "4", 4), gpu)
	require.NoError(t, w.s.AddPod(owned(gt.MakePod("huge").CPU("16").Memory("1Gi"), "huge"), 0))
	require.NoError(t, w.s.AddPod(owned(gt.MakePod("picky").CPU("1").Memory("1Gi").NodeSelector("pool", "gpu"), "picky"), 0))
	w.run()
	ev := w.a.Events()
	require.Equal(t, EventScaleUp, ev[0].Kind)
	require.Equal(t, "gpu", ev[0].Group)
	require.Equal(t, []cluster.PodKey{"default/picky"}, ev[0].Pods)
	require.Equal(t, EventNoScaleUp, ev[1].Kind)
	require.Equal(t, []cluster.PodKey{"default/huge"}, ev[1].Pods)
	require.Contains(t, ev[1].Reason, "no group can take them")
}

// A pod that fits on a node already on the way gets no node of its own,
// and waits for that node. a (1 cpu) arrives at 0: cpu-1 requested at
// 10s, ready at 2m10s. b (1 cpu) arrives at 30s: the scan at 40s finds
// room for it on cpu-1 (1+1 <= 4), so no second node. b waited from 30s
// to 2m10s, all of it for cpu-1 (in flight from 10s): 1m40s for a node.
func TestPodsFitOnUpcomingNodes(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 4))
	require.NoError(t, w.a.Start(w.s))
	w.addPods(1, "a", "1", 0)
	require.NoError(t, w.a.Advance(w.s, 30*time.Second))
	w.addPods(1, "b", "1", 0)
	end := w.run()
	require.Equal(t, "10s ScaleUp cpu [cpu-1] 1 pods\n2m10s NodeReady cpu [cpu-1]\n", w.log())
	waits := w.a.PodWaits(end)
	require.Equal(t, PodWait{Pod: "default/a-0", ForNode: 2 * time.Minute, ForRoom: 10 * time.Second, Bound: true}, waits[0])
	require.Equal(t, PodWait{Pod: "default/b-0", ForNode: 100 * time.Second, Bound: true}, waits[1])
}
