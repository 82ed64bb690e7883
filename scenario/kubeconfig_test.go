package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// A KubeSchedulerConfiguration gives the profiles, their plugins, weights
// and arguments, the node sampling and the queue's backoffs; plugins and
// arguments the simulator does not have are left out with a warning.
func TestKubeSchedulerConfiguration(t *testing.T) {
	sc, err := Load("testdata/kube/scheduler-config.yaml")
	require.NoError(t, err)
	cfg := sc.Config
	require.Equal(t, int32(50), cfg.PercentageOfNodesToScore)
	require.Equal(t, 2*time.Second, cfg.PodInitialBackoff)
	require.Equal(t, 20*time.Second, cfg.PodMaxBackoff)
	require.Len(t, cfg.Profiles, 2)
	p := cfg.Profiles[0]
	require.Equal(t, "default-scheduler", p.SchedulerName)
	require.Equal(t, []gangsim.PluginRef{{Name: "NodeResourcesBalancedAllocation"}}, p.Plugins.Score.Disabled)
	require.Equal(t, []gangsim.PluginRef{{Name: "NodeResourcesFit", Weight: 5}}, p.Plugins.Score.Enabled)
	require.Len(t, p.PluginConfig, 2)
	args := p.PluginConfig[0].Args.(*noderesources.FitArgs)
	require.Equal(t, noderesources.MostAllocated, args.ScoringStrategy.Type)
	require.Equal(t, gangsim.PluginConfig{Name: "DefaultPreemption"}, p.PluginConfig[1], "its arguments are not modelled")
	require.Equal(t, "spread-scheduler", cfg.Profiles[1].SchedulerName)
	require.Empty(t, cfg.Profiles[1].Plugins.MultiPoint.Enabled)

	var got []string
	for _, w := range sc.Warnings {
		got = append(got, w.Kind+" "+w.Field+": "+w.Detail)
	}
	require.Equal(t, []string{
		"KubeSchedulerConfiguration plugin ImageLocality: not modelled, left out of the profile",
		"KubeSchedulerConfiguration pluginConfig DefaultPreemption args.minCandidateNodesAbsolute: not modelled, ignored",
		"KubeSchedulerConfiguration pluginConfig DefaultPreemption args.minCandidateNodesPercentage: not modelled, ignored",
		"KubeSchedulerConfiguration pluginConfig NodeResourcesFit args.ignoredResources: not modelled, ignored",
		"KubeSchedulerConfiguration pluginConfig VolumeBinding: plugin not modelled, its arguments are ignored",
		"KubeSchedulerConfiguration profiles[].plugins.queueSort: not modelled, ignored",
	}, got)
	_, err = sc.Run()
	require.NoError(t, err)
}

func TestKubeSchedulerConfigurationErrors(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	for _, tt := range []struct{ text, want string }{
		{"percentageOfNodesToScore: 120\n", "KubeSchedulerConfiguration: percentageOfNodesToScore: 120 is not in 0..100"},
		{"podMaxBackoffSeconds: 0\n", "line 3: KubeSchedulerConfiguration: podMaxBackoffSeconds: 0 is not a positive number of seconds"},
		{"profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: Most}}}]}]\n", "line 3: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Most\""},
		{"profiles: [{schedulerName: a}, {schedulerName: a}]\n", `KubeSchedulerConfiguration: profiles[1].schedulerName: "a" is used by two profiles`},
		{"profile: []\n", "KubeSchedulerConfiguration: profile: unknown field"},
		{"---\n" + head, "a second configuration in the file"},
	} {
		_, err := Parse("ksc.yaml", []byte(head+tt.text))
		require.ErrorContains(t, err, tt.want)
	}
}

// NodeResourcesFit's RequestedToCapacityRatio strategy is read with its
// shape and resources, and scores as kube-scheduler does: a rising shape
// packs the pod onto the busier node, a falling one spreads it.
func TestKubeSchedulerConfigurationRequestedToCapacityRatio(t *testing.T) {
	config := func(shape string) string {
		return `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]
        requestedToCapacityRatio:
          shape: ` + shape + `
`
	}
	objects := `---
apiVersion: v1
kind: Node
metadata: {name: busy}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: idle}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec: {nodeName: busy, containers: [{name: c, resources: {requests: {cpu: "2", memory: 4Gi}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: incoming}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
`
	for _, tt := range []struct {
		name, shape, node string
	}{
		{"packing", "[{utilization: 0, score: 0}, {utilization: 100, score: 10}]", "busy"},
		{"spreading", "[{utilization: 0, score: 10}, {utilization: 100, score: 0}]", "idle"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("ksc.yaml", []byte(config(tt.shape)+objects))
			require.NoError(t, err)
			args := sc.Config.Profiles[0].PluginConfig[0].Args.(*noderesources.FitArgs)
			require.Equal(t, noderesources.RequestedToCapacityRatio, args.ScoringStrategy.Type)
			require.Len(t, args.ScoringStrategy.RequestedToCapacityRatio.Shape, 2)
			res, err := sc.Run()
			require.NoError(t, err)
			require.Equal(t, tt.node, res.Pods[1].Node)
		})
	}
	_, err := Parse("ksc.yaml", []byte(config("[{utilization: 50, score: 1}, {utilization: 20, score: 2}]")))
	require.ErrorContains(t, err, "line 15: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 20: values must be sorted in increasing order")
}
