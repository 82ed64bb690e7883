package autoscaler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A short day run twice gives the same decisions, summaries and waits.
func TestDeterministic(t *testing.T) {
	run := func() ([]Event, []GroupSummary, []PodWait) {
		a, err := New(Config{Expander: "random"}, dayGroups(), rand.New(rand.NewPCG(3, 3)))
		require.NoError(t, err)
		s, err := gangsim.New(gangsim.Config{}, a.Attach())
		require.NoError(t, err)
		end, err := runDay(s, a, dayPods(600, 2)[:600])
		require.NoError(t, err)
		return a.Events(), a.Groups(end), a.PodWaits(end)
	}
	e1, g1, w1 := run()
	e2, g2, w2 := run()
	require.NotEmpty(t, e1)
	require.Equal(t, e1, e2)
	require.Equal(t, g1, g2)
	require.Equal(t, w1, w2)
}

// On tiny random clusters, after every step: no group above its max or
// below its min; the scheduler's invariants hold; every pod a scale-down
// evicted is bound again at that instant (its move was simulated with
// the scheduler's filters, and nothing else arrives); node-hours add up
// to the nodes' lives.
func TestPropertyTinyClusters(t *testing.T) {
	evictions := 0
	defer func() { require.Positive(t, evictions, "no scale-down moved a pod: the property was not exercised") }()
	for seed := range uint64(80) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			var groups []NodeGroup
			for i := range 1 + rng.IntN(3) {
				g := group(fmt.Sprintf("g%d", i), fmt.Sprint(2+2*rng.IntN(3)), 1+rng.IntN(4))
				g.Min = rng.IntN(2)
				g.ProvisioningDelay.Fixed = time.Duration(rng.IntN(4)) * time.Minute
				groups = append(groups, g)
			}
			cfg := Config{Expander: Expanders[rng.IntN(4)], Priorities: map[int][]string{1: {"g0"}}, ScaleDownUnneededTime: time.Duration(1+rng.IntN(10)) * time.Minute}
			a, err := New(cfg, groups, rand.New(rand.NewPCG(seed, 1)))
			require.NoError(t, err)
			s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, a.Attach())
			require.NoError(t, err)
			for i := range 1 + rng.IntN(12) {
				p := owned(podOf(fmt.Sprintf("p%d", i), 250+rng.IntN(1750)), "rs")
				require.NoError(t, s.AddPod(p, time.Duration(rng.IntN(60))*time.Minute))
			}
			require.NoError(t, a.Start(s))
			stepToEnd(t, a, s, func(before int) {
				for _, g := range a.groups {
					require.LessOrEqual(t, g.live, g.Max, g.Name)
					require.GreaterOrEqual(t, g.live, g.Min, g.Name)
				}
				for _, e := range a.events[before:] {
					if e.Kind != EventScaleDown {
						continue
					}
					evictions += len(e.Pods)
					for _, k := range e.Pods {
						st, _ := s.Pod(k)
						require.Equal(t, gangsim.PhaseBound, st.Phase, "%s evicted from %v at %v", k, e.Nodes, e.At)
						require.Equal(t, e.At, st.BoundAt, k)
					}
				}
			})
			require.NoError(t, s.CheckInvariants())
			end := s.Now()
			var hours float64
			for _, n := range a.nodes {
				stop := end
				if n.gone {
					stop = n.goneAt
				}
				hours += (stop - n.requested).Hours()
			}
			var sum float64
			for _, g := range a.Groups(end) {
				sum += g.NodeHours
			}
			require.InDelta(t, hours, sum, 1e-9)
		})
	}
}

func podOf(name string, milli int) *gt.PodWrapper {
	return gt.MakePod(name).MilliCPU(int64(milli)).Memory("1Gi")
}
