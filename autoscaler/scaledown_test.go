package autoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// Three pods on 4-cpu nodes: p1 (1 cpu, label app=db, runs for ever), p2
// (big cpu, for ever) and p3 (3 cpu, 20m). The estimate packs p2 alone
// and p3 with p1 (3+1 = 4): 2 nodes at 10s, ready at 2m10s. The
// scheduler places p1 on cpu-1 (both empty, the first by name), p2 on
// cpu-2 (the emptier), p3 on cpu-1 (1+3 = 4; cpu-2 has no room).
// p3 ends at 22m10s: cpu-1 holds p1 alone, 1/4 = 0.25 under 0.5.
//   - moves: p2 is 3 cpu, p1 fits beside it (3+1 = 4): cpu-1 is unneeded
//     from 22m10s and removed at 32m10s, p1 evicted (and placed on
//     cpu-2 again at once).
//   - no room: p2 is 3.5 cpu, p1 does not fit beside it (4.5 > 4): cpu-1
//     stays.
//   - budget: as "moves", with a budget of minAvailable 1 over app=db:
//     p1 may not be evicted, cpu-1 stays.
func TestScaleDownRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p2     string
		budget bool
		want   string
	}{
		{"moves", "3", false, `10s ScaleUp cpu [cpu-1 cpu-2] 3 pods
2m10s NodeReady cpu [cpu-1 cpu-2]
22m10s NodeUnneeded cpu [cpu-1]
32m10s ScaleDown cpu [cpu-1] 1 pods
`},
		{"no room", "3500m", false, `10s ScaleUp cpu [cpu-1 cpu-2] 3 pods
2m10s NodeReady cpu [cpu-1 cpu-2]
`},
		{"budget", "3", true, `10s ScaleUp cpu [cpu-1 cpu-2] 3 pods
2m10s NodeReady cpu [cpu-1 cpu-2]
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, Config{}, group("cpu", "4", 10))
			if tc.budget {
				one := cluster.IntOrPercent{Value: 1}
				require.NoError(t, w.s.AddPodDisruptionBudget(cluster.PodDisruptionBudget{Name: "db",
					Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, MinAvailable: &one}))
			}
			require.NoError(t, w.s.AddPod(owned(gt.MakePod("p1").CPU("1").Memory("1Gi").Label("app", "db"), "db"), 0))
			require.NoError(t, w.s.AddPod(owned(gt.MakePod("p2").CPU(tc.p2).Memory("1Gi"), "big"), 0))
			require.NoError(t, w.s.AddPod(owned(gt.MakePod("p3").CPU("3").Memory("1Gi"), "job"), 20*time.Minute))
			w.run()
			require.Equal(t, tc.want, w.log())
			if tc.name == "moves" {
				st, _ := w.s.Pod(cluster.MakePodKey("", "p1"))
				require.Equal(t, "cpu-2", st.Node)
				require.Equal(t, 2, st.Binds)
			}
		})
	}
}

// A node leaves ScaleDownUnneededTime after it became unneeded, not
// before: with 15m, the removal moves from 10m to 15m after.
func TestUnneededTime(t *testing.T) {
	w := newWorld(t, Config{ScaleDownUnneededTime: 15 * time.Minute}, group("cpu", "4", 10))
	w.addPods(2, "web", "1500m", 30*time.Minute)
	w.run()
	// one node (1.5+1.5 = 3 <= 4) at 10s, ready 2m10s; the pods end at
	// 32m10s, the node is unneeded then and goes 15m later, at 47m10s
	require.Equal(t, `10s ScaleUp cpu [cpu-1] 2 pods
2m10s NodeReady cpu [cpu-1]
32m10s NodeUnneeded cpu [cpu-1]
47m10s ScaleDown cpu [cpu-1]
`, w.log())
}

// Min nodes are created at the start and never removed.
func TestMinNodes(t *testing.T) {
	g := group("cpu", "4", 3)
	g.Min = 2
	w := newWorld(t, Config{}, g)
	end := w.run()
	require.Equal(t, "0s NodeReady cpu [cpu-1 cpu-2]\n", w.log())
	// the scan at 0 finds nothing to do: the run ends there; over an
	// hour the two nodes make 2 node-hours, at 0.5 an hour 1.0
	require.Equal(t, time.Duration(0), end)
	sum := w.a.Groups(time.Hour)[0]
	require.InDelta(t, 2.0, sum.NodeHours, 1e-12)
	require.InDelta(t, 1.0, sum.Cost, 1e-12)
	require.Equal(t, 0, sum.NodesAdded)
	require.Equal(t, 2, sum.MaxNodes)
}

// The delay after a scale-up holds removals back, not the unneeded
// time: two pods of 1.5 cpu running 10m get cpu-1 (requested at 10s,
// ready 2m10s); they end at 12m10s and cpu-1 is unneeded from then, due
// at 17m10s (5m), but the delay after add (30m) lasts to 30m10s: it goes
// then. A group without delay: its node joins in the scan's own step.
func TestDelayAfterAdd(t *testing.T) {
	w := newWorld(t, Config{ScaleDownUnneededTime: 5 * time.Minute, ScaleDownDelayAfterAdd: 30 * time.Minute}, group("cpu", "4", 10))
	w.addPods(2, "web", "1500m", 10*time.Minute)
	w.run()
	require.Equal(t, `10s ScaleUp cpu [cpu-1] 2 pods
2m10s NodeReady cpu [cpu-1]
12m10s NodeUnneeded cpu [cpu-1]
30m10s ScaleDown cpu [cpu-1]
`, w.log())

	g := group("now", "4", 10)
	g.ProvisioningDelay = Delay{}
	w = newWorld(t, Config{}, g)
	w.addPods(1, "web", "1", 0)
	w.run()
	require.Equal(t, "10s ScaleUp now [now-1] 1 pods\n10s NodeReady now [now-1]\n", w.log())
}
