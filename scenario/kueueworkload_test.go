package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// kueueWL is a Kueue Workload of apiVersion with the given spec fields
// (indented two spaces under spec) and extra top-level text.
func kueueWL(apiVersion, name, meta, spec, extra string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/%s\nkind: Workload\nmetadata:\n  name: %s\n%sspec:\n%s%s", apiVersion, name, meta, spec, extra)
}

// kueueSet is one pod set of a 1-cpu container, with more fields.
func kueueSet(name string, count int, more string) string {
	return fmt.Sprintf("  - name: %s\n    count: %d\n%s    template:\n      spec:\n        containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]\n", name, count, more)
}

// podNames lists a scenario's pods by namespace/name.
func podNames(sc *Scenario) []string {
	var out []string
	for _, p := range sc.Pods {
		out = append(out, p.Pod.Namespace+"/"+p.Pod.Name)
	}
	return out
}

// The rules of a Kueue Workload in the inputs: with its owner there it
// adds nothing; without, each pod set makes count pods, its topology
// request read as Kueue's annotations on a job are.
func TestKueueWorkloadRules(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 2\n  completions: 2\n  template:\n    spec:\n" +
		"      restartPolicy: Never\n      containers: [{name: c, image: i}]\n---\n"
	owned := "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u, controller: true}]\n"
	tests := []struct {
		name     string
		text     string
		pods     []string
		groups   []string // name:minCount:topology
		warnings []string // kind and field
	}{
		{name: "owner in the inputs: the Job's pods only",
			text:     job + kueueWL("v1beta2", "job-j-1a2b3", owned, "  queueName: q\n  podSets:\n"+kueueSet("main", 2, ""), "status:\n  admission: {clusterQueue: cq}\n"),
			pods:     []string{"default/j-0", "default/j-1"},
			warnings: []string{"Workload metadata.ownerReferences"}},
		{name: "owner not in the inputs: the pod sets' pods",
			text:     kueueWL("v1beta2", "w", "  namespace: ml\n"+strings.ReplaceAll(owned, "Job", "RayJob"), "  podSets:\n"+kueueSet("driver", 1, "")+kueueSet("workers", 2, ""), ""),
			pods:     []string{"ml/w-driver-0", "ml/w-workers-0", "ml/w-workers-1"},
			warnings: []string{"Workload spec.podSets"}},
		{name: "count defaults to 1, name to main; count 0 makes none",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n  - template: {spec: {containers: [{name: c, image: i}]}}\n"+kueueSet("none", 0, ""), ""),
			pods: []string{"default/w-main-0"}, warnings: []string{"Workload spec.podSets"}},
		{name: "minCount below count: all count pods, partial admission warned",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 3, "    minCount: 1\n"), ""),
			pods: []string{"default/w-main-0", "default/w-main-1", "default/w-main-2"}, warnings: []string{"Workload spec.podSets[].minCount", "Workload spec.podSets"}},
		{name: "minCount equal to count: nothing partial",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, "    minCount: 2\n"), ""),
			pods: []string{"default/w-main-0", "default/w-main-1"}, warnings: []string{"Workload spec.podSets"}},
		{name: "required: each pod set a gang in one domain",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("a", 2, "    topologyRequest: {required: rack}\n")+
				kueueSet("b", 3, "    topologyRequest: {required: block, podIndexLabel: example.com/index}\n"), ""),
			pods:   []string{"default/w-a-0", "default/w-a-1", "default/w-b-0", "default/w-b-1", "default/w-b-2"},
			groups: []string{"workload-w-a:2:rack", "workload-w-b:3:block"},
			warnings: []string{"Workload spec.podSets", "Workload spec.podSets[0].topologyRequest.required",
				"Workload spec.podSets[1].topologyRequest.required"}},
		{name: "preferred: approximated, no constraint",
			text:     kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, "    topologyRequest: {preferred: rack}\n"), ""),
			pods:     []string{"default/w-main-0", "default/w-main-1"},
			warnings: []string{"Workload spec.podSets", "Workload spec.podSets[0].topologyRequest.preferred"}},
		{name: "unconstrained: no constraint",
			text:     kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 1, "    topologyRequest: {unconstrained: true}\n"), ""),
			pods:     []string{"default/w-main-0"},
			warnings: []string{"Workload spec.podSets", "Workload spec.podSets[0].topologyRequest.unconstrained"}},
		{name: "the topology request replaces the template's annotation",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+strings.Replace(kueueSet("main", 2, "    topologyRequest: {required: block}\n"), "      spec:",
				"      metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}\n      spec:", 1), ""),
			pods: []string{"default/w-main-0", "default/w-main-1"}, groups: []string{"workload-w-main:2:block"},
			warnings: []string{"Workload spec.podSets", "Workload spec.podSets[0].topologyRequest.required"}},
		{name: "the template's own annotation, without a request",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+strings.Replace(kueueSet("main", 2, ""), "      spec:",
				"      metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}\n      spec:", 1), ""),
			pods: []string{"default/w-main-0", "default/w-main-1"}, groups: []string{"workload-w-main:2:rack"},
			warnings: []string{"Workload spec.podSets", "Workload spec.podSets[0].template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]"}},
		{name: "finished: no pods",
			text:     kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, ""), "status:\n  conditions: [{type: Finished, status: \"True\", reason: Succeeded}]\n"),
			warnings: []string{"Workload status.conditions[Finished]"}},
		{name: "Finished False: still pods",
			text: kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 1, ""), "status:\n  conditions: [{type: Finished, status: \"False\"}]\n"),
			pods: []string{"default/w-main-0"}, warnings: []string{"Workload spec.podSets"}},
		{name: "inactive: no pods",
			text:     kueueWL("v1beta2", "w", "", "  active: false\n  podSets:\n"+kueueSet("main", 2, ""), ""),
			warnings: []string{"Workload spec.active"}},
		{name: "v1beta1: its pod priority class by name and source",
			text: kueueWL("v1beta1", "w", "", "  priorityClassName: high\n  priorityClassSource: scheduling.k8s.io/priorityclass\n  priority: 100\n  podSets:\n"+kueueSet("main", 1, ""), "") +
				"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 100\n",
			pods: []string{"default/w-main-0"}, warnings: []string{"Workload spec.podSets"}},
		{name: "v1beta2: a pod priority class by reference",
			text: kueueWL("v1beta2", "w", "", "  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: high}\n  priority: 100\n  podSets:\n"+kueueSet("main", 1, ""), "") +
				"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 100\n",
			pods: []string{"default/w-main-0"}, warnings: []string{"Workload spec.podSets"}},
		{name: "v1beta2: a WorkloadPriorityClass orders admission only",
			text: kueueWL("v1beta2", "w", "", "  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}\n  priority: 100\n  podSets:\n"+kueueSet("main", 1, ""), ""),
			pods: []string{"default/w-main-0"}, warnings: []string{"Workload spec.podSets", "Workload spec.priority"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("in.yaml", []byte(tt.text))
			require.NoError(t, err)
			require.Equal(t, tt.pods, podNames(sc))
			var groups []string
			for _, g := range sc.PodGroups {
				groups = append(groups, fmt.Sprintf("%s:%d:%s", g.Name, g.MinCount, g.TopologyKey))
			}
			require.Equal(t, tt.groups, groups)
			require.ElementsMatch(t, tt.warnings, warningKeys(sc))
			for _, p := range sc.Pods {
				if strings.HasPrefix(p.Pod.Name, "w-b-") {
					require.Equal(t, strings.TrimPrefix(p.Pod.Name, "w-b-"), p.Pod.Labels["example.com/index"], "the pod index label")
				}
				if strings.Contains(tt.name, "pod priority class") || strings.Contains(tt.name, "v1beta1") {
					require.Equal(t, "high", p.Pod.PriorityClassName)
				}
			}
		})
	}
}

// A Workload is checked as Kueue's validation checks it: the error names
// the file, the object and the field.
func TestKueueWorkloadErrors(t *testing.T) {
	one := kueueSet("main", 1, "")
	for _, tt := range []struct{ name, text, want string }{
		{"no pod set", kueueWL("v1beta2", "w", "", "  queueName: q\n", ""), "Workload default/w: spec.podSets: Required value"},
		{"nine pod sets", kueueWL("v1beta2", "w", "", "  podSets:\n"+strings.Repeat(one, 9), ""), "spec.podSets: Too many: 9: must have at most 8 items"},
		{"duplicate names", kueueWL("v1beta2", "w", "", "  podSets:\n"+one+one, ""), `spec.podSets[1].name: Duplicate value: "main"`},
		{"bad name", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("Main", 1, ""), ""), "spec.podSets[0].name"},
		{"negative count", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", -1, ""), ""), "spec.podSets[0].count: Invalid value: -1"},
		{"minCount above count", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, "    minCount: 3\n"), ""),
			"spec.podSets[0].minCount: Invalid value: 3: minCount should be positive and less or equal to count (2)"},
		{"two topology kinds", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, "    topologyRequest: {required: rack, preferred: rack}\n"), ""),
			"spec.podSets[0].topologyRequest: Invalid value: must not contain more than one of required, preferred and unconstrained"},
		{"bad topology level", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 2, "    topologyRequest: {required: \"a b\"}\n"), ""),
			"spec.podSets[0].topologyRequest.required"},
		{"v1beta1 field in v1beta2", kueueWL("v1beta2", "w", "", "  priorityClassName: high\n  priority: 1\n  podSets:\n"+one, ""),
			"spec.priorityClassName: a field of v1beta1"},
		{"v1beta2 field in v1beta1", kueueWL("v1beta1", "w", "", "  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: high}\n  priority: 1\n  podSets:\n"+one, ""),
			"spec.priorityClassRef: a field of v1beta2"},
		{"priority class without priority", kueueWL("v1beta2", "w", "", "  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: high}\n  podSets:\n"+one, ""),
			"spec.priority: Required value"},
		{"wrong kind for the group", kueueWL("v1beta2", "w", "", "  priorityClassRef: {group: scheduling.k8s.io, kind: WorkloadPriorityClass, name: high}\n  priority: 1\n  podSets:\n"+one, ""),
			"spec.priorityClassRef.kind: Invalid value"},
		{"an unknown field", kueueWL("v1beta2", "w", "", "  podSets:\n"+kueueSet("main", 1, "    replicas: 3\n"), ""), "replicas"},
		{"an unread version", kueueWL("v1alpha1", "w", "", "  podSets:\n"+one, ""), `"kueue.x-k8s.io/v1alpha1" is not a version of Workload`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("in.yaml", []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, "in.yaml")
		})
	}
}
