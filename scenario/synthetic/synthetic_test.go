package synthetic_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/scenario/synthetic"
)

func load(t *testing.T, c synthetic.Config) (*scenario.Scenario, []byte) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, synthetic.Write(&buf, c))
	sc, err := scenario.Parse(fmt.Sprintf("synthetic-%d.json", c.Seed), buf.Bytes())
	require.NoError(t, err)
	return sc, buf.Bytes()
}

// TestLargeHasTheMix checks the composition of the reference size on
// three seeds against the mix docs/synthetic.md describes: the counts
// of the cluster (50,006 pods, 12,836 in 1,436 gangs, 20
// budgets, 267 node events) within a few percent.
func TestLargeHasTheMix(t *testing.T) {
	if testing.Short() {
		t.Skip("three 50,000-pod files")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sc, _ := load(t, synthetic.Config{Seed: seed})
			require.Len(t, sc.Nodes, 2000)
			require.InDelta(t, 50000, len(sc.Pods), 20)
			inGangs, topo := 0, map[string]int{}
			for _, p := range sc.Pods {
				if p.Pod.PodGroup != "" {
					inGangs++
				}
			}
			for _, g := range sc.PodGroups {
				topo[g.TopologyKey]++
				require.Contains(t, []int32{4, 8, 16}, g.MinCount, g.Name)
			}
			require.InEpsilon(t, 12836, inGangs, 0.08)
			require.InEpsilon(t, 1436, len(sc.PodGroups), 0.08)
			require.InEpsilon(t, 0.25, float64(topo["rack"])/float64(len(sc.PodGroups)), 0.15)
			require.InEpsilon(t, 0.25, float64(topo["block"])/float64(len(sc.PodGroups)), 0.15)
			require.Len(t, sc.Budgets, 20)
			require.Equal(t, 80+53+67+67, len(sc.Events))
			kinds := map[scenario.EventKind]int{}
			for _, e := range sc.Events {
				kinds[e.Kind]++
			}
			require.Equal(t, map[scenario.EventKind]int{scenario.RemoveNode: 80, scenario.AddNode: 53, scenario.DrainNode: 67, scenario.UncordonNode: 67}, kinds)
			last := sc.Pods[len(sc.Pods)-1].At
			require.InDelta(t, float64(72*time.Hour), float64(last), float64(3*time.Hour))
			require.Equal(t, 30*time.Second, *sc.Config.TerminationGracePeriod)
		})
	}
}

// TestSameConfigSameBytes: a file is a function of its Config.
func TestSameConfigSameBytes(t *testing.T) {
	_, a := load(t, synthetic.Config{Nodes: 100, Pods: 2500, Seed: 9})
	_, b := load(t, synthetic.Config{Nodes: 100, Pods: 2500, Seed: 9})
	_, c := load(t, synthetic.Config{Nodes: 100, Pods: 2500, Seed: 10})
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
}

// TestSmallRuns runs the small size to its end on two seeds: the file
// is valid, the cluster oversubscribed (gangs and pods found no room,
// higher classes evicted lower ones, the backlog outlasted the arrivals
// by more than a day), the gangs placed somewhere.
func TestSmallRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-day run")
	}
	for _, seed := range []uint64{1, 2} {
		c := synthetic.Small
		c.Seed = seed
		sc, _ := load(t, c)
		groupsFailed := 0
		res, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) {
			if e.Kind == gangsim.EventGroupFailed {
				groupsFailed++
			}
		}))
		require.NoError(t, err)
		require.Positive(t, res.Stats.Evictions)
		require.Positive(t, groupsFailed)
		end, err := time.ParseDuration(res.Stats.SimulatedTime)
		require.NoError(t, err)
		require.Greater(t, end, 96*time.Hour, "the backlog outlasts the 72 hours of arrivals")
		bound := 0
		for _, g := range res.PodGroups {
			for _, c := range g.Conditions {
				if c.Type == "PodGroupInitiallyScheduled" && c.Status == "True" {
					bound++
				}
			}
		}
		require.Positive(t, bound)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []synthetic.Config{{Nodes: -1}, {Pods: -5}, {Hours: -1}, {Services: -0.1}, {Services: 0.95}} {
		require.ErrorIs(t, synthetic.Write(&bytes.Buffer{}, c), synthetic.ErrConfig)
	}
	_, err := synthetic.Sized("huge", 1)
	require.ErrorContains(t, err, `size "huge"`)
}
