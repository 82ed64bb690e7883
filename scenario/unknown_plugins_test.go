package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// outOfTree is the configuration of a scheduler built with
// scheduler-plugins: an in-tree plugin the simulator has not
// (ImageLocality) before an out-of-tree one in the same list.
const outOfTree = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: ImageLocality
      - name: Coscheduling
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 2
  pluginConfig:
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 60}
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 10}
`

// From Go, a plugin the registry does not have is an error, at the
// file's own entry (enabled[1], not an index into the merged list).
func TestUnknownPluginIsAnErrorAtItsEntry(t *testing.T) {
	_, err := Parse("sched.yaml", []byte(outOfTree))
	require.ErrorContains(t, err, `sched.yaml: line 9: KubeSchedulerConfiguration: profiles[0].plugins.multiPoint.enabled[1].name: "Coscheduling" is not a registered plugin (known: [`)

	noPlugins := outOfTree[:len(outOfTree)-len("  pluginConfig:\n  - name: VolumeBinding\n    args: {bindTimeoutSeconds: 60}\n  - name: Coscheduling\n    args: {permitWaitingTimeSeconds: 10}\n")]
	_, err = Parse("sched.yaml", []byte(noPlugins+"  pluginConfig:\n  - name: VolumeBinding\n  - name: Coscheduling\n"))
	require.ErrorContains(t, err, "line 9: KubeSchedulerConfiguration: profiles[0].plugins.multiPoint.enabled[1].name")

	scenarioFile := `config:
  profiles:
  - plugins:
      score:
        enabled: [{name: NodeResourcesFit}, {name: TargetLoadPacking, weight: 3}]
`
	_, err = Parse("s.yaml", []byte(scenarioFile))
	require.ErrorContains(t, err, `s.yaml: line 5: config.profiles[0].plugins.score.enabled[1].name: "TargetLoadPacking" is not a registered plugin`)
}

// With SkipUnknownPlugins, as the command-line tools load, the plugin and
// its arguments are left out of the profile with a warning, and the
// profile runs with the rest.
func TestSkipUnknownPlugins(t *testing.T) {
	sc, err := Parse("sched.yaml", []byte(outOfTree), SkipUnknownPlugins())
	require.NoError(t, err)
	p := sc.Config.Profiles[0]
	require.Empty(t, p.Plugins.MultiPoint.Enabled)
	require.Len(t, p.Plugins.Score.Enabled, 1)
	require.Empty(t, p.PluginConfig)
	var got []string
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"KubeSchedulerConfiguration plugin Coscheduling: not a plugin the simulator has (out of tree, or misspelt): left out of the profile; " +
			"scheduler-plugins' gangs (scheduling.x-k8s.io PodGroups) are scheduled by the simulator's GangScheduling (1 object, first sched.yaml: KubeSchedulerConfiguration)",
		"KubeSchedulerConfiguration plugin ImageLocality: not modelled, left out of the profile (1 object, first sched.yaml: KubeSchedulerConfiguration)",
		"KubeSchedulerConfiguration pluginConfig Coscheduling: not a plugin the simulator has: its arguments are ignored (1 object, first sched.yaml: KubeSchedulerConfiguration)",
		"KubeSchedulerConfiguration pluginConfig VolumeBinding: plugin not modelled, its arguments are ignored (1 object, first sched.yaml: KubeSchedulerConfiguration)",
	}, got)
	_, err = sc.Run()
	require.NoError(t, err)

	sc, err = Parse("s.yaml", []byte("config:\n  profiles:\n  - plugins:\n      score:\n        enabled: [{name: TargetLoadPacking, weight: 3}]\n"+
		"    pluginConfig: [{name: TargetLoadPacking, args: {targetUtilization: 60}}]\n"), SkipUnknownPlugins())
	require.NoError(t, err)
	require.Empty(t, sc.Config.Profiles[0].Plugins.Score.Enabled)
	require.Empty(t, sc.Config.Profiles[0].PluginConfig)
	got = nil
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"config.profiles[].pluginConfig TargetLoadPacking: not a plugin the simulator has: its arguments are ignored (1 object, first s.yaml: config.profiles[0].pluginConfig[0])",
		"config.profiles[].plugins TargetLoadPacking: not a plugin the simulator has (out of tree, or misspelt): left out of the profile (1 object, first s.yaml: config.profiles[0].plugins.score.enabled[0])",
	}, got)
}

// A plugin the registry has is neither an error nor a warning, whatever
// the option.
func TestRegisteredOutOfTreePlugin(t *testing.T) {
	reg := fw.Registry{"Coscheduling": {New: func(any, fw.Handle) (fw.Plugin, error) { return coscheduling{}, nil },
		Args: func() any {
			return &struct {
				PermitWaitingTimeSeconds int `yaml:"permitWaitingTimeSeconds"`
			}{}
		}}}
	for _, opts := range [][]Option{{WithRegistry(reg)}, {WithRegistry(reg), SkipUnknownPlugins()}} {
		sc, err := Parse("sched.yaml", []byte(outOfTree), opts...)
		require.NoError(t, err)
		require.Equal(t, "Coscheduling", sc.Config.Profiles[0].Plugins.MultiPoint.Enabled[0].Name)
		for _, w := range sc.Warnings {
			require.NotContains(t, w.String(), "Coscheduling")
		}
	}
}

// coscheduling stands for a user's plugin of that name: it filters nothing.
type coscheduling struct{}

func (coscheduling) Name() string { return "Coscheduling" }

func (coscheduling) Filter(*fw.CycleState, *cluster.PodInfo, *cluster.NodeInfo) *fw.Status {
	return nil
}
