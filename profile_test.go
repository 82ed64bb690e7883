package gangsim

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
)

func names(refs []PluginRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

// The default profile puts kube-scheduler's default plugins at the points
// each implements, in kube-scheduler's order, with its weights.
func TestDefaultProfilePoints(t *testing.T) {
	p := DefaultProfile()
	rp, err := resolveProfile(&p, DefaultRegistry(), "profiles[0]")
	require.NoError(t, err)
	require.Equal(t, []string{"NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", "DynamicResources"}, names(rp.points["filter"]))
	require.Equal(t, []string{"PodTopologySpread", "InterPodAffinity", "DynamicResources"}, names(rp.points["preFilter"]))
	require.Equal(t, []PluginRef{{"TaintToleration", 3}, {"NodeAffinity", 2}, {"NodeResourcesFit", 1}, {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 2}, {"NodeResourcesBalancedAllocation", 1}}, rp.points["score"])
	require.Equal(t, []string{"NodeAffinity", "PodTopologySpread", "InterPodAffinity", "DynamicResources", "NodeResourcesBalancedAllocation"}, names(rp.points["preScore"]))
	require.Equal(t, []string{"DynamicResources"}, names(rp.points["reserve"]))
	require.Equal(t, []string{"DefaultPreemption"}, names(rp.points["postFilter"]))
	require.Equal(t, []string{"DefaultPreemption"}, names(rp.points["podGroupPostFilter"]))
	require.Equal(t, []string{"GangScheduling"}, names(rp.points["placementFeasible"]))
	require.Equal(t, []string{"TopologyPlacementGenerator"}, names(rp.points["placementGenerate"]))
	require.Equal(t, []PluginRef{{"NodeResourcesFit", 1}, {"PodGroupPodsCount", 1}}, rp.points["placementScore"])
}

// Enabling and disabling merge onto the defaults as kube-scheduler merges
// them: a point's own entries first, then the MultiPoint plugins not
// disabled there; "*" disables every default at a point.
func TestProfileMerging(t *testing.T) {
	reg := DefaultRegistry()
	tests := []struct {
		name    string
		plugins Plugins
		point   string
		want    []PluginRef
	}{
		{"disable one score plugin", Plugins{Score: PluginSet{Disabled: []PluginRef{{Name: "NodeResourcesBalancedAllocation"}}}},
			"score", []PluginRef{{"TaintToleration", 3}, {"NodeAffinity", 2}, {"NodeResourcesFit", 1}, {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 2}}},
		{"a point's own entry comes first and sets the weight", Plugins{Score: PluginSet{Enabled: []PluginRef{{Name: "NodeResourcesFit", Weight: 7}}}},
			"score", []PluginRef{{"NodeResourcesFit", 7}, {"TaintToleration", 3}, {"NodeAffinity", 2}, {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 2}, {"NodeResourcesBalancedAllocation", 1}}},
		{"* disables every default there", Plugins{PlacementScore: PluginSet{Disabled: []PluginRef{{Name: "*"}}, Enabled: []PluginRef{{Name: "PodGroupPodsCount"}}}},
			"placementScore", []PluginRef{{"PodGroupPodsCount", 1}}},
		{"disabled in MultiPoint: gone everywhere", Plugins{MultiPoint: PluginSet{Disabled: []PluginRef{{Name: "TaintToleration"}}}},
			"score", []PluginRef{{"NodeAffinity", 2}, {"NodeResourcesFit", 1}, {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 2}, {"NodeResourcesBalancedAllocation", 1}}},
		{"disabled at filter only", Plugins{Filter: PluginSet{Disabled: []PluginRef{{Name: "TaintToleration"}}}},
			"filter", []PluginRef{{"NodeName", 0}, {"NodeUnschedulable", 0}, {"NodeAffinity", 2}, {"NodeResourcesFit", 1}, {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Profile{Plugins: &tt.plugins}
			rp, err := resolveProfile(&p, reg, "profiles[0]")
			require.NoError(t, err)
			require.Equal(t, tt.want, rp.points[tt.point])
		})
	}
}

func TestProfileErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		reg  fw.Registry
		want string
	}{
		{"unknown plugin, listing the known", Config{Profiles: []Profile{{Plugins: &Plugins{Score: PluginSet{Enabled: []PluginRef{{Name: "PreferLabel"}}}}}}}, nil,
			`profiles[0].plugins.score.enabled[0].name: "PreferLabel" is not a registered plugin (known: [DefaultPreemption DynamicResources GangScheduling`},
		{"a plugin at a point it does not extend", Config{Profiles: []Profile{{Plugins: &Plugins{Filter: PluginSet{Enabled: []PluginRef{{Name: "PodGroupPodsCount"}}}}}}}, nil,
			`plugin "PodGroupPodsCount" does not extend the filter extension point`},
		{"negative weight", Config{Profiles: []Profile{{Plugins: &Plugins{Score: PluginSet{Enabled: []PluginRef{{Name: "NodeResourcesFit", Weight: -1}}}}}}}, nil,
			`plugin "NodeResourcesFit" weight -1 is negative (0 means 1)`},
		{"two generators", Config{Profiles: []Profile{{Plugins: &Plugins{PlacementGenerate: PluginSet{Enabled: []PluginRef{{Name: "Second"}}}}}}},
			fw.Registry{"Second": {New: func(any, fw.Handle) (fw.Plugin, error) { return topologyplacement.NewTopologyPlacement(), nil }}},
			"at most one placement generate plugin is allowed, got 2"},
		{"bad arguments name their field", Config{Profiles: []Profile{{PluginConfig: []PluginConfig{{Name: "NodeResourcesFit",
			Args: &noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: "Fancy"}}}}}}}, nil,
			`profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Fancy": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`},
		{"arguments of the wrong type", Config{Profiles: []Profile{{PluginConfig: []PluginConfig{{Name: "NodeResourcesFit", Args: 42}}}}}, nil,
			"arguments of type int"},
		{"a user plugin may not take a built-in name", Config{}, fw.Registry{"NodeName": {New: func(any, fw.Handle) (fw.Plugin, error) { return nil, nil }}},
			`plugin "NodeName" is built in`},
		{"two profiles, one name", Config{Profiles: []Profile{{}, {SchedulerName: cluster.DefaultSchedulerName}}}, nil,
			`profiles[1].schedulerName: "default-scheduler" is used by two profiles`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, WithRegistry(tt.reg))
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrConfig), "%v", err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// A pod picks its profile by schedulerName; a pod naming none stays
// pending, and so does a group whose first pod names none.
func TestPodsPickTheirProfile(t *testing.T) {
	most := Profile{SchedulerName: "packer", PluginConfig: []PluginConfig{{Name: "NodeResourcesFit",
		Args: &noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: noderesources.MostAllocated}}}}}
	ts := newTestSched(t, Config{Profiles: []Profile{DefaultProfile(), most}}).nodes("n", 2, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("seed").NodeName("n-0").CPU("2").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("spread").CPU("1").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("pack").SchedulerName("packer").CPU("500m").Obj(), 0))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("lost").SchedulerName("nobody").Obj(), 0))
	ts.run()
	require.Equal(t, "n-1", ts.nodeOf("spread"), "LeastAllocated spreads")
	require.Equal(t, "n-0", ts.nodeOf("pack"), "MostAllocated packs: n-0 holds 2000m, n-1 1000m")
	lost, _ := ts.Pod(cluster.MakePodKey("", "lost"))
	require.Equal(t, PhasePending, lost.Phase)
	require.Contains(t, lost.Reason, `names scheduler "nobody", which no profile has`)
}
