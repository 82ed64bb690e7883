package autoscaler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The cases of the cluster autoscaler's scale-up orchestrator tests
// (core/scaleup/orchestrator), run through the whole autoscaler: each
// node group has one node at the start (its min) whose size is the
// case's node, the case's running pods run there (named by NodeName), the extra pods
// come a second later; the option the upstream test forces on its
// expander is made the only choice here by the priority expander. Sizes
// are millicores and bytes.
func TestScaleUpCasesFromClusterAutoscaler(t *testing.T) {
	type ng struct {
		name       string
		milli, mem int64
	}
	type pod struct {
		name       string
		milli, mem int64
		node       string // where a running pod runs
	}
	cases := []struct {
		name    string
		groups  []ng
		running []pod
		extra   []pod
		cfg     Config
		prefer  string   // the group the upstream test's expander picks
		want    []string // the events of the scans at 10s and 20s: "ScaleUp g n pods..." / "NoScaleUp pods..."
	}{
		// cluster autoscaler: TestScaleUpOK
		{name: "TestScaleUpOK", groups: []ng{{"ng1", 100, 1000}, {"ng2", 1000, 1000}},
			running: []pod{{"p1", 80, 0, "ng1-1"}, {"p2", 800, 0, "ng2-1"}}, extra: []pod{{"p-new", 500, 0, ""}}, prefer: "ng2",
			want: []string{"ScaleUp ng2 1 p-new"}},
		// cluster autoscaler: TestMixedScaleUp (the awaiting pod, which only
		// ng1 takes, waits for the next scan: one group a scan; p1 takes
		// 900 of n1's memory so that the awaiting pod does not fit there,
		// where upstream hands the pod to the orchestrator directly)
		{name: "TestMixedScaleUp", groups: []ng{{"ng1", 100, 1000}, {"ng2", 1000, 100}},
			running: []pod{{"p1", 80, 900, "ng1-1"}, {"p2", 800, 0, "ng2-1"}},
			extra:   []pod{{"triggering", 900, 0, ""}, {"remaining", 2000, 0, ""}, {"awaiting", 0, 200, ""}}, prefer: "ng2",
			want: []string{"ScaleUp ng2 1 triggering", "NoScaleUp remaining", "ScaleUp ng1 1 awaiting", "NoScaleUp remaining"}},
		// cluster autoscaler: TestScaleUpMaxCoresLimitHit (9 cores: 6 run, a
		// node of 2 more fits, not 2; upstream lists both pods as
		// triggering, its option's pods before the cap, where the estimate
		// here stops at the cap and counts the pod the one node holds)
		{name: "TestScaleUpMaxCoresLimitHit", groups: []ng{{"ng1", 2000, 100}, {"ng2", 4000, 1000}},
			running: []pod{{"p1", 1000, 0, "ng1-1"}, {"p2", 3000, 0, "ng2-1"}}, extra: []pod{{"p-new-1", 2000, 0, ""}, {"p-new-2", 2000, 0, ""}},
			cfg: Config{MaxCoresTotal: 9}, prefer: "ng1",
			want: []string{"ScaleUp ng1 1 p-new-1", "NoScaleUp p-new-2", "NoScaleUp p-new-2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var groups []NodeGroup
			for _, g := range tc.groups {
				groups = append(groups, NodeGroup{Name: g.name, Min: 1, Max: 10, ProvisioningDelay: Delay{Fixed: time.Minute},
					Template: gt.MakeNode("t").MilliCPU(g.milli).Memory(fmt.Sprint(g.mem)).Pods(110).Obj()})
			}
			cfg := tc.cfg
			cfg.Expander, cfg.Priorities = "priority", map[int][]string{10: {"^" + tc.prefer + "$"}}
			w := newWorld(t, cfg, groups...)
			require.NoError(t, w.a.Start(w.s))
			for _, p := range tc.running {
				require.NoError(t, w.s.AddPod(owned(gt.MakePod(p.name).MilliCPU(p.milli).Memory(fmt.Sprint(p.mem)).NodeName(p.node), p.name), time.Hour))
			}
			require.NoError(t, w.a.Advance(w.s, time.Second))
			for _, p := range tc.extra {
				require.NoError(t, w.s.AddPod(owned(gt.MakePod(p.name).MilliCPU(p.milli).Memory(fmt.Sprint(p.mem)), p.name), time.Hour))
			}
			require.NoError(t, w.a.Advance(w.s, 25*time.Second))
			var got []string
			for _, e := range w.a.Events() {
				var pods []string
				for _, k := range e.Pods {
					pods = append(pods, strings.TrimPrefix(string(k), "default/"))
				}
				switch e.Kind {
				case EventScaleUp:
					got = append(got, fmt.Sprintf("ScaleUp %s %d %s", e.Group, len(e.Nodes), strings.Join(pods, " ")))
				case EventNoScaleUp:
					got = append(got, "NoScaleUp "+strings.Join(pods, " "))
				}
			}
			require.Equal(t, tc.want, got, w.log())
		})
	}
}
