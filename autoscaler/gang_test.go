package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A gang of 8 pods of 3 cpu, min count 8, with the rack topology; nodes
// of 4 cpu take one pod each, so the gang needs 8 nodes, in one rack.
//   - rackSize 8, max 16: one scale-up of gpu-1..gpu-8, all in rack
//     gpu-rack-1, ready at 10s + 2m. The scheduler backs the gang off
//     (its failure, no node with a rack label, is retried after 1s, 2s,
//     4s ... then every 28s: 1m55s, 2m23s), so the gang is placed at
//     2m23s: the scan at 2m20s finds the new nodes empty (unneeded), the
//     one at 2m30s full (needed again); none is removed.
//   - max 7: 8 nodes are not allowed: nothing is requested (NoScaleUp).
//   - rackSize 4: a rack holds 4 of the 8: nothing.
func TestGangOneRackOrNothing(t *testing.T) {
	for _, tc := range []struct {
		name          string
		max, rackSize int
		want          string
	}{
		{"one rack", 16, 8, "10s ScaleUp gpu [gpu-1 gpu-2 gpu-3 gpu-4 gpu-5 gpu-6 gpu-7 gpu-8] 8 pods\n2m10s NodeReady gpu [gpu-1 gpu-2 gpu-3 gpu-4 gpu-5 gpu-6 gpu-7 gpu-8]\n" +
			"2m20s NodeUnneeded gpu [gpu-1]\n2m20s NodeUnneeded gpu [gpu-2]\n2m20s NodeUnneeded gpu [gpu-3]\n2m20s NodeUnneeded gpu [gpu-4]\n2m20s NodeUnneeded gpu [gpu-5]\n2m20s NodeUnneeded gpu [gpu-6]\n2m20s NodeUnneeded gpu [gpu-7]\n2m20s NodeUnneeded gpu [gpu-8]\n" +
			"2m30s NodeNeeded gpu [gpu-1]\n2m30s NodeNeeded gpu [gpu-2]\n2m30s NodeNeeded gpu [gpu-3]\n2m30s NodeNeeded gpu [gpu-4]\n2m30s NodeNeeded gpu [gpu-5]\n2m30s NodeNeeded gpu [gpu-6]\n2m30s NodeNeeded gpu [gpu-7]\n2m30s NodeNeeded gpu [gpu-8]\n"},
		{"max too small", 7, 8, "10s NoScaleUp  [] 8 pods\n"},
		{"rack too small", 16, 4, "10s NoScaleUp  [] 8 pods\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := group("gpu", "4", tc.max)
			g.RackSize = tc.rackSize
			w := newWorld(t, Config{}, g)
			require.NoError(t, w.s.AddPodGroup(gt.MakeGang("train", 8).Rack().Obj()))
			for i := range 8 {
				require.NoError(t, w.s.AddPod(owned(gt.MakePod(fmt.Sprintf("train-%d", i)).CPU("3").Memory("1Gi").Group("train"), "train"), 0))
			}
			w.run()
			require.Equal(t, tc.want, w.log())
			if tc.name != "one rack" {
				return
			}
			for i := 1; i <= 8; i++ {
				ni, ok := w.s.Node(fmt.Sprintf("gpu-%d", i))
				require.True(t, ok)
				require.Equal(t, "gpu-rack-1", ni.Node().Labels["rack"])
			}
			for p := range w.s.Pods() {
				require.Equal(t, 2*time.Minute+23*time.Second, p.BoundAt, p.Key)
			}
		})
	}
}

// A node not ready after max-node-provision-time is given up on. The
// priority expander prefers "slow" (delay 20m, more than the 15m
// allowed): requested at 10s, given up at 15m10s, and slow is backed off
// for 5m; the scan of that step takes "fast" (delay 1m): ready at
// 16m10s. Node-hours of slow-1: 10s to 15m10s, 0.25h.
func TestScaleUpTimeout(t *testing.T) {
	slow, fast := group("slow", "4", 5), group("fast", "4", 5)
	slow.ProvisioningDelay = Delay{Fixed: 20 * time.Minute}
	fast.ProvisioningDelay = Delay{Fixed: time.Minute}
	w := newWorld(t, Config{Expander: "priority", Priorities: map[int][]string{20: {"slow"}, 10: {"fast"}}}, slow, fast)
	w.addPods(1, "web", "1", 0)
	end := w.run()
	require.Equal(t, `10s ScaleUp slow [slow-1] 1 pods
15m10s ScaleUpTimeout slow [slow-1]
15m10s ScaleUp fast [fast-1] 1 pods
16m10s NodeReady fast [fast-1]
`, w.log())
	sum := w.a.Groups(end)
	require.InDelta(t, 0.25, sum[0].NodeHours, 1e-12)
	// the pod waited 10s for room, then 15m for slow-1 and 1m for fast-1
	pw := w.a.PodWaits(end)[0]
	require.Equal(t, 16*time.Minute, pw.ForNode)
	require.Equal(t, 10*time.Second, pw.ForRoom)
}

// A gang no group can help holds no other back. big (12 pods of 3 cpu,
// rack topology) arrives first: a new rack holds 8 nodes of 4 cpu, one
// pod each, so it is told NoScaleUp at every scan; small (8 such pods)
// gets its rack gpu-1..gpu-8 at the first scan (10s), ready at 2m10s.
func TestGangThatCannotScaleHoldsNoOtherBack(t *testing.T) {
	g := group("gpu", "4", 32)
	g.RackSize = 8
	w := newWorld(t, Config{}, g)
	for _, gang := range []struct {
		name string
		size int
	}{{"big", 12}, {"small", 8}} {
		require.NoError(t, w.s.AddPodGroup(gt.MakeGang(gang.name, int32(gang.size)).Rack().Obj()))
		for i := range gang.size {
			require.NoError(t, w.s.AddPod(owned(gt.MakePod(fmt.Sprintf("%s-%d", gang.name, i)).CPU("3").Memory("1Gi").Group(gang.name), gang.name), 0))
		}
	}
	w.run()
	events := w.a.Events()
	require.Equal(t, EventNoScaleUp, events[0].Kind)
	require.Len(t, events[0].Pods, 12)
	require.Equal(t, "gpu: gang default/big needs more than the 8 node(s) one new rack domain holds", events[0].Reason)
	require.Equal(t, EventScaleUp, events[1].Kind)
	require.Equal(t, 10*time.Second, events[1].At)
	require.Equal(t, []string{"gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7", "gpu-8"}, events[1].Nodes)
	for i := range 8 {
		st, _ := w.s.Pod(cluster.PodKey(fmt.Sprintf("default/small-%d", i)))
		require.EqualValues(t, "Bound", st.Phase, st.Key)
	}
}

// A gang is packed whole or not at all, the estimate's budget of checks
// included: 8 pods that each need a node of their own cost 1 check for
// the first and 2 for each after, so the eighth starts after 13; with a
// budget of 14 the gang gets its 8 nodes, with 13 or fewer no node at
// all (part of a gang cannot run), and the reason names the bound. The
// same pods without a gang get the nodes the budget packed.
func TestGangPastTheChecksBudgetGetsNoNode(t *testing.T) {
	for _, tc := range []struct {
		budget int
		gang   bool
		want   string
	}{
		{budget: 14, gang: true, want: "10s ScaleUp cpu [cpu-1 cpu-2 cpu-3 cpu-4 cpu-5 cpu-6 cpu-7 cpu-8] 8 pods\n"},
		{budget: 13, gang: true, want: "10s NoScaleUp  [] 8 pods\n"},
		{budget: 5, gang: true, want: "10s NoScaleUp  [] 8 pods\n"},
		{budget: 5, want: "10s ScaleUp cpu [cpu-1 cpu-2 cpu-3] 3 pods\n10s NoScaleUp  [] 5 pods\n"},
	} {
		t.Run(fmt.Sprintf("budget %d gang %v", tc.budget, tc.gang), func(t *testing.T) {
			w := newWorld(t, Config{MaxBinpackingChecks: tc.budget}, group("cpu", "4", 16))
			if tc.gang {
				require.NoError(t, w.s.AddPodGroup(gt.MakeGang("train", 8).Obj()))
			}
			for i := range 8 {
				p := gt.MakePod(fmt.Sprintf("train-%d", i)).CPU("3").Memory("1Gi")
				if tc.gang {
					p = p.Group("train")
				}
				require.NoError(t, w.s.AddPod(owned(p, "train"), 0))
			}
			require.NoError(t, w.a.Advance(w.s, 10*time.Second))
			require.Equal(t, tc.want, w.log())
			if ev := w.a.Events()[0]; ev.Kind == EventNoScaleUp {
				require.Equal(t, fmt.Sprintf("cpu: gang default/train: the estimate stopped after %d checks (max-binpacking-checks)", tc.budget), ev.Reason)
			}
		})
	}
}
