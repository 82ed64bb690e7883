package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/plugins/noderesources"
)

// schedulerConfigMap is how clusters ship a scheduler's configuration: a
// ConfigMap mounted into its pod, the configuration under a key of data.
const schedulerConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: scheduler-config
  namespace: kube-system
data:
  notes.txt: deployed by the platform team
  scheduler-config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    leaderElection:
      leaderElect: false
    profiles:
    - schedulerName: default-scheduler
      pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
`

// A ConfigMap whose data holds a KubeSchedulerConfiguration is read as
// that configuration, whatever its key; its other keys are ignored.
func TestConfigMapHoldsTheConfiguration(t *testing.T) {
	sc, err := Parse("cm.yaml", []byte(schedulerConfigMap))
	require.NoError(t, err)
	require.Len(t, sc.Config.Profiles, 1)
	args := sc.Config.Profiles[0].PluginConfig[0].Args.(*noderesources.FitArgs)
	require.Equal(t, noderesources.MostAllocated, args.ScoringStrategy.Type)
	require.Empty(t, sc.Warnings, "the ConfigMap is read, not skipped")

	other := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {app.properties: \"color=blue\"}\n"
	sc, err = Parse("cm.yaml", []byte(other))
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	require.Equal(t, "ConfigMap: a kind that never affects scheduling, objects skipped (1 object, first cm.yaml: ConfigMap app)", sc.Warnings[0].String())
}

// Errors inside the embedded configuration name the ConfigMap and its
// key, and the line of the file (a literal block's lines are the file's);
// in a JSON dump, where the document is one quoted string, the line is
// the key's.
func TestConfigMapErrors(t *testing.T) {
	literal := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched, namespace: kube-system}\ndata:\n  config.yaml: |\n" +
		"    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n\n    percentageOfNodesToScore: 120\n"
	json := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sched", "namespace": "kube-system"},
 "data": {
  "config.yaml": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: a\n"}}`
	for _, tt := range []struct{ name, text, want string }{
		{"a literal block keeps the file's lines", literal,
			"cm.yaml: line 9: ConfigMap kube-system/sched data[config.yaml]: KubeSchedulerConfiguration: percentageOfNodesToScore: 120 is not in 0..100"},
		{"a JSON string gives its key's line", json,
			`cm.json: line 3: ConfigMap kube-system/sched data[config.yaml]: KubeSchedulerConfiguration: profiles[1].schedulerName: "a" is used by two profiles`},
		{"an unknown field", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched}\ndata:\n  c: |\n    kind: KubeSchedulerConfiguration\n    apiVersion: kubescheduler.config.k8s.io/v1\n    profile: []\n",
			"cm.yaml: line 8: ConfigMap default/sched data[c]: KubeSchedulerConfiguration: profile: unknown field"},
		{"a version the simulator does not read", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched}\ndata:\n  c: |\n    apiVersion: kubescheduler.config.k8s.io/v1beta3\n    kind: KubeSchedulerConfiguration\n",
			`cm.yaml: line 6: ConfigMap default/sched data[c]: KubeSchedulerConfiguration: apiVersion: "kubescheduler.config.k8s.io/v1beta3" is not a version`},
		{"not YAML", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched}\ndata:\n  c: |\n    kind: KubeSchedulerConfiguration\n    profiles: [\n",
			"cm.yaml: line 5: ConfigMap sched: data[c]: holds a KubeSchedulerConfiguration that is not YAML:"},
		{"aliases are refused", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sched}\ndata:\n  c: |\n    kind: KubeSchedulerConfiguration\n    apiVersion: kubescheduler.config.k8s.io/v1\n    a: &x 1\n    b: *x\n",
			"cm.yaml: line 9: ConfigMap sched: data[c]: aliases are not read in a document inside a ConfigMap"},
		{"a second configuration", schedulerConfigMap + "---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
			"a second configuration in the file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := "cm.yaml"
			if tt.text[0] == '{' {
				name = "cm.json"
			}
			_, err := Parse(name, []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// A configuration without a default-scheduler profile (a second
// scheduler's, as scheduler-plugins ships one) leaves the pods that name
// no scheduler pending: a warning says so.
func TestNoDefaultProfileWarns(t *testing.T) {
	text := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: second\n"
	sc, err := Parse("ksc.yaml", []byte(text))
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	require.Equal(t, "KubeSchedulerConfiguration profiles[].schedulerName", sc.Warnings[0].Kind+" "+sc.Warnings[0].Field)
	require.Contains(t, sc.Warnings[0].Detail, "no profile is default-scheduler: pods that name no scheduler stay pending")
	sc, err = Parse("ksc.yaml", []byte(text+"- schedulerName: default-scheduler\n"))
	require.NoError(t, err)
	require.Empty(t, sc.Warnings)
}
