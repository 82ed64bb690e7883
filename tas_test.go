package gangsim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/podgrouppodscount"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
	"github.com/gangsim/gangsim/podgroup"
)

// rackNode adds one node labelled rack=name, with cpu and memory
// quantities.
func (ts *testSched) rackNode(name, cpu, memory string) *testSched {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddNode(gangsimtest.MakeNode(name).Rack(name).CPU(cpu).Memory(memory).Obj()))
	return ts
}

// running adds a pod running on node, requesting cpu and memory.
func (ts *testSched) running(name, node, cpu, memory string) *testSched {
	ts.t.Helper()
	require.NoError(ts.t, ts.AddPod(gangsimtest.MakePod(name).NodeName(node).CPU(cpu).Memory(memory).Obj(), 0))
	return ts
}

func (ts *testSched) nodeOf(pod string) string {
	st, ok := ts.Pod(cluster.MakePodKey("", pod))
	require.True(ts.t, ok)
	return st.Node
}

// Resource weights of the scoring strategy change the placement choice the
// way MostAllocated over the placement predicts.
//
// Rack a runs a cpu-heavy pod (3000m, no memory: 200Mi counted), rack b a
// memory-heavy one (100m, 12Gi); both nodes have 4 cpus and 16Gi. The gang
// is one pod of 500m and 1Gi. Per resource (requested*100/allocatable,
// truncated):
//
//	rack a: cpu (3000+500)*100/4000 = 87   memory (200Mi+1Gi)*100/16Gi = 7
//	rack b: cpu (100+500)*100/4000  = 15   memory (12Gi+1Gi)*100/16Gi  = 81
//
// PodGroupPodsCount is 100 for both (one pod each), so NodeResourcesFit
// decides:
//
//	cpu 1, memory 1: a (87+7)/2 = 47,      b (15+81)/2 = 48      -> b
//	cpu 3, memory 1: a (261+7)/4 = 67,     b (45+81)/4 = 31      -> a
//	cpu 1, memory 3: a (87+21)/4 = 27,     b (15+243)/4 = 64     -> b
func TestPlacementResourceWeightsChangeTheChoice(t *testing.T) {
	tests := []struct {
		name      string
		cpu, mem  int64
		wantRack  string
		wantScore [2]int64
	}{
		{"equal weights", 1, 1, "b", [2]int64{47, 48}},
		{"cpu heavy", 3, 1, "a", [2]int64{67, 31}},
		{"memory heavy", 1, 3, "b", [2]int64{27, 64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resources := []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: tc.cpu}, {Name: cluster.ResourceMemory, Weight: tc.mem}}
			cfg := Config{Profiles: []Profile{{PluginConfig: []PluginConfig{{Name: noderesources.Name,
				Args: &noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Resources: resources}}}}}}}
			ts := newTestSched(t, cfg).rackNode("a", "4", "16Gi").rackNode("b", "4", "16Gi")
			ts.running("cpu-hog", "a", "3", "0").running("mem-hog", "b", "100m", "12Gi")

			// the scorer itself gives the hand-computed numbers
			snap := ts.cache.Snapshot()
			pod := cluster.NewPodInfo(gangsimtest.MakePod("p").CPU("500m").Memory("1Gi").Obj())
			scorer := noderesources.NewFitStrategy(noderesources.LeastAllocated, resources)
			for i, rack := range []string{"a", "b"} {
				idx, _ := snap.Index(rack)
				got, st := scorer.ScorePlacement(snap, &fw.Group{}, &fw.Placement{Name: rack, Nodes: []int{idx}}, []fw.Assignment{{Pod: pod, Node: idx}})
				require.Nil(t, st)
				require.Equal(t, tc.wantScore[i], got, "rack %s", rack)
			}

			require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Rack().Obj()))
			require.NoError(t, ts.AddPod(gangsimtest.MakePod("p").Group("g").CPU("500m").Memory("1Gi").Obj(), 0))
			ts.run()
			require.Equal(t, tc.wantRack, ts.nodeOf("p"))
		})
	}
}

// Placement plugin weights trade bin-packing against pod count. A basic
// group of three 1-cpu pods (1Gi each): rack a (3 cpus, 64Gi) holds all
// three, rack b (2 cpus, 4Gi) two.
//
//	NodeResourcesFit: a cpu 100, memory 3Gi*100/64Gi = 4 -> (100+4)/2 = 52
//	                  b cpu 100, memory 2Gi*100/4Gi = 50 -> (100+50)/2 = 75
//	PodGroupPodsCount: a 3 -> 100; b 2 -> 2*100/3 = 66
//
//	weights 1,1: a 52+100 = 152, b 75+66 = 141       -> a
//	weights 5,1: a 260+100 = 360, b 375+66 = 441     -> b
func TestPlacementPluginWeightsChangeTheChoice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fit, pods int32
		wantRack  string
		wantBound int
	}{
		{"defaults", 0, 0, "a", 3},
		{"bin-packing heavy", 5, 1, "b", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			if tc.fit != 0 {
				cfg.Profiles = []Profile{{Plugins: &Plugins{PlacementScore: PluginSet{Enabled: []PluginRef{
					{Name: noderesources.Name, Weight: tc.fit}, {Name: podgrouppodscount.Name, Weight: tc.pods}}}}}}
			}
			ts := newTestSched(t, cfg).rackNode("a", "3", "64Gi").rackNode("b", "2", "4Gi")
			require.NoError(t, ts.AddPodGroup(gangsimtest.MakeBasicGroup("g").Rack().Obj()))
			for _, n := range []string{"p0", "p1", "p2"} {
				require.NoError(t, ts.AddPod(gangsimtest.MakePod(n).Group("g").CPU("1").Memory("1Gi").Obj(), 0))
			}
			res := ts.scheduleOne()
			require.Len(t, res.Bound, tc.wantBound)
			for _, b := range res.Bound {
				require.Equal(t, tc.wantRack, b.Node)
			}
		})
	}
}

func TestTopologyGeneratorErrors(t *testing.T) {
	ts := newTestSched(t, Config{}).rackNode("a", "4", "8Gi").rackNode("b", "4", "8Gi")
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("bare").CPU("4").Memory("8Gi").Obj()))
	snap := ts.cache.Snapshot()
	gen := topologyplacement.NewTopologyPlacement()
	pg := &podgroup.PodGroup{Name: "g", TopologyKey: "rack"}
	for _, tc := range []struct {
		name      string
		scheduled []string
		err       string
		want      []string
	}{
		{"all domains, unlabelled node left out", nil, "", []string{"a", "b"}},
		{"pinned to the members' domain", []string{"b", "b"}, "", []string{"b"}},
		{"members in two domains", []string{"a", "b"}, `more than 1 domain found for key "rack": "a" and "b"`, nil},
		{"member on a node without the label", []string{"bare"}, `node "bare" of a scheduled member has no label "rack"`, nil},
		{"member on a missing node", []string{"gone"}, `node "gone" of a scheduled member is not in the snapshot`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, st := gen.GeneratePlacements(snap, &fw.Group{PodGroup: pg, ScheduledNodes: tc.scheduled}, fw.Placement{})
			if tc.err != "" {
				require.Equal(t, fw.Error, st.Code())
				require.Contains(t, st.Message(), tc.err)
				return
			}
			require.Nil(t, st)
			var names []string
			for _, p := range ps {
				names = append(names, p.Name)
			}
			require.Equal(t, tc.want, names)
		})
	}
}

// A topology error from the members' placement is a SchedulerError, not a
// verdict on room.
func TestGangSpreadOverTwoDomainsIsSchedulerError(t *testing.T) {
	ts := newTestSched(t, Config{}).rackNode("a", "4", "8Gi").rackNode("b", "4", "8Gi")
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Rack().Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("x").Group("g").NodeName("a").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("y").Group("g").NodeName("b").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("z").Group("g").Obj(), 0))
	res := ts.scheduleOne()
	require.Equal(t, Error, res.Status.Code())
	require.Equal(t, podgroup.ReasonSchedulerError, ts.condition("g").Reason)
}

// Domains are built once per node version: scheduling pods does not
// rebuild them, a label change does.
func TestTopologyDomainsCachedPerNodeVersion(t *testing.T) {
	ts := newTestSched(t, Config{}).rackNode("a", "4", "8Gi").rackNode("b", "4", "8Gi")
	gen := topologyplacement.NewTopologyPlacement()
	req := &fw.Group{PodGroup: &podgroup.PodGroup{Name: "g", TopologyKey: "rack"}}
	snap := ts.cache.Snapshot()
	first, st := gen.GeneratePlacements(snap, req, fw.Placement{})
	require.Nil(t, st)
	ts.running("filler", "a", "100m", "0")
	require.NoError(t, ts.cache.UpdateSnapshot(snap))
	again, st := gen.GeneratePlacements(snap, req, fw.Placement{})
	require.Nil(t, st)
	require.Same(t, &first[0].Nodes[0], &again[0].Nodes[0], "same cached domain slices")
	n, _ := ts.Node("b")
	relabelled := n.Node().Clone()
	relabelled.Labels = map[string]string{"rack": "a"}
	require.NoError(t, ts.UpdateNode(relabelled))
	require.NoError(t, ts.cache.UpdateSnapshot(snap))
	merged, st := gen.GeneratePlacements(snap, req, fw.Placement{})
	require.Nil(t, st)
	require.Len(t, merged, 1)
	require.Equal(t, []int{0, 1}, merged[0].Nodes)
}
