package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// policy is the profile a policy author tests: the default plugins plus
// the three of this module.
func policy(extra ...gangsim.PluginRef) gangsim.Config {
	enabled := append([]gangsim.PluginRef{{Name: "ZoneExclusive"}, {Name: "PreferLabel", Weight: 5}, {Name: "GoldRacks", Weight: 10}}, extra...)
	return gangsim.Config{Profiles: []gangsim.Profile{{
		Plugins:      &gangsim.Plugins{MultiPoint: gangsim.PluginSet{Enabled: enabled}},
		PluginConfig: []gangsim.PluginConfig{{Name: "PreferLabel", Args: &PreferLabelArgs{Label: "disk", Value: "ssd"}}},
	}}}
}

func newScheduler(t *testing.T, cfg gangsim.Config) *gangsim.Scheduler {
	t.Helper()
	s, err := gangsim.New(cfg, gangsim.WithRegistry(Registry()))
	require.NoError(t, err)
	return s
}

func addNode(t *testing.T, s *gangsim.Scheduler, name, zone, rack string, labels ...string) {
	t.Helper()
	l := map[string]string{"zone": zone, "rack": rack}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	require.NoError(t, s.AddNode(cluster.Node{Name: name, Labels: l, Allocatable: cluster.NewResources(4000, 16<<30, 110)}))
}

func nodeOf(t *testing.T, s *gangsim.Scheduler, pod string) string {
	t.Helper()
	st, ok := s.Pod(cluster.MakePodKey("", pod))
	require.True(t, ok)
	return st.Node
}

func exclusivePod(name string, cpu int64, prio int32) cluster.Pod {
	return cluster.Pod{Name: name, Labels: map[string]string{"exclusive": "db"}, Priority: &prio, Requests: cluster.NewResources(cpu, 0, 0)}
}

// The score plugin moves a pod: without it the pod takes the first of two
// equal nodes, with it the ssd one.
func TestPreferLabelMovesAPod(t *testing.T) {
	for _, tc := range []struct {
		cfg  gangsim.Config
		want string
	}{{gangsim.Config{}, "n1"}, {policy(), "n2"}} {
		s := newScheduler(t, tc.cfg)
		addNode(t, s, "n1", "a", "r1")
		addNode(t, s, "n2", "a", "r1", "disk", "ssd")
		require.NoError(t, s.AddPod(cluster.Pod{Name: "p", Requests: cluster.NewResources(1000, 0, 0)}, 0))
		require.NoError(t, s.Run())
		assert.Equal(t, tc.want, nodeOf(t, s, "p"))
	}
}

// The cross-node filter acts inside a gang's cycle: the members see each
// other's tentative placements, so a gang of exclusive pods needs one zone
// each, and a gang wanting more members than zones binds nothing.
func TestZoneExclusiveInGangCycles(t *testing.T) {
	for _, tc := range []struct {
		size  int
		bound bool
	}{{2, true}, {3, false}} {
		s := newScheduler(t, policy())
		addNode(t, s, "a1", "a", "r1")
		addNode(t, s, "a2", "a", "r1")
		addNode(t, s, "b1", "b", "r2")
		require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "db", Policy: podgroup.Gang, MinCount: int32(tc.size)}))
		zones := map[string]bool{}
		for i := range tc.size {
			p := exclusivePod(fmt.Sprintf("db-%d", i), 500, 0)
			p.PodGroup = "db"
			require.NoError(t, s.AddPod(p, 0))
		}
		require.NoError(t, s.Run())
		for i := range tc.size {
			node := nodeOf(t, s, fmt.Sprintf("db-%d", i))
			assert.Equal(t, tc.bound, node != "", "gang of %d", tc.size)
			if node != "" {
				zones[node[:1]] = true
			}
		}
		if tc.bound {
			assert.Len(t, zones, tc.size, "one zone per member")
		}
	}
}

// The placement scorer picks the gang's rack: NodeResourcesFit's
// bin-packing prefers the busier rack r2, GoldRacks outweighs it.
func TestGoldRacksPicksTheGangsRack(t *testing.T) {
	for _, tc := range []struct {
		cfg  gangsim.Config
		want string
	}{{gangsim.Config{}, "r2"}, {policy(), "r1"}} {
		s := newScheduler(t, tc.cfg)
		addNode(t, s, "g1", "a", "r1", "tier", "gold")
		addNode(t, s, "g2", "a", "r1", "tier", "gold")
		addNode(t, s, "s1", "b", "r2")
		addNode(t, s, "s2", "b", "r2")
		require.NoError(t, s.AddPod(cluster.Pod{Name: "busy", NodeName: "s1", Requests: cluster.NewResources(3000, 0, 0)}, 0))
		require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "train", Policy: podgroup.Gang, MinCount: 2, TopologyKey: "rack"}))
		for i := range 2 {
			require.NoError(t, s.AddPod(cluster.Pod{Name: fmt.Sprintf("w%d", i), PodGroup: "train", Requests: cluster.NewResources(1000, 0, 0)}, 0))
		}
		require.NoError(t, s.Run())
		for i := range 2 {
			node := nodeOf(t, s, fmt.Sprintf("w%d", i))
			assert.Equal(t, tc.want, map[string]string{"g1": "r1", "g2": "r1", "s1": "r2", "s2": "r2"}[node])
		}
	}
}

// Preemption with a cross-node filter: an urgent exclusive gang finds zone
// a blocked by a low-priority peer on a2 and zone b full. Workload-aware
// preemption removes every lower-priority pod, places the gang on a1, then
// puts pods back where the gang still fits. The peer on a2 shares no node
// with the gang, yet keeping it would block the gang through its zone: a
// correct search evicts it and reprieves the filler. (A search assuming
// filters read only their own node would reprieve the peer and evict
// nothing useful.)
//
// The simulator requeues victims, as if a controller recreated them; here
// the peer would come back to its free node before the gang's backoff
// ends and block the zone again (a nominated pod counts only on its own
// node, in kube-scheduler too). The test deletes it instead, as a
// controller that does not recreate it would.
func TestCrossNodeFilterGetsTheRightVictims(t *testing.T) {
	cfg := policy()
	cfg.TerminationGracePeriod = new(time.Duration(0))
	s := newScheduler(t, cfg)
	addNode(t, s, "a1", "a", "r1")
	addNode(t, s, "a2", "a", "r1")
	addNode(t, s, "b1", "b", "r2")
	peer := exclusivePod("peer", 500, 1)
	peer.NodeName = "a2"
	require.NoError(t, s.AddPod(peer, 0))
	filler := cluster.Pod{Name: "filler", NodeName: "b1", Priority: new(int32(1)), Requests: cluster.NewResources(4000, 0, 0)}
	require.NoError(t, s.AddPod(filler, 0))
	require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "urgent", Policy: podgroup.Gang, MinCount: 1, Priority: new(int32(100))}))
	p := exclusivePod("urgent-0", 500, 100)
	p.PodGroup = "urgent"
	require.NoError(t, s.AddPod(p, 0))

	res, ok, err := s.ScheduleOne()
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, res.Evicted, 1)
	assert.Equal(t, cluster.PodKey("default/peer"), res.Evicted[0].Pod, "the peer in the gang's zone goes")
	assert.Equal(t, gangsim.Ref{Kind: gangsim.KindPodGroup, Key: "default/urgent"}, res.Evicted[0].By)
	assert.Equal(t, []gangsim.Binding{{Pod: "default/urgent-0", Node: "a1"}}, res.Nominated)

	require.NoError(t, s.DeletePod(cluster.MakePodKey("", "peer")))
	require.NoError(t, s.Run())
	assert.Equal(t, "a1", nodeOf(t, s, "urgent-0"))
	assert.Equal(t, "b1", nodeOf(t, s, "filler"), "the filler is reprieved")
}
