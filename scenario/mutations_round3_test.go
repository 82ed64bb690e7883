package scenario

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Kubernetes objects and scenario fields the loader must refuse, each at
// the first value out of range, with the message naming the field.
func TestInputsRefusedAtTheirBounds(t *testing.T) {
	job := func(spec string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {" + spec + "template: {spec: {containers: [{name: c}]}}}\n"
	}
	long := strings.Repeat("a", 64)
	for _, tt := range []struct{ name, text, want string }{
		{"a Job's activeDeadlineSeconds of -1", job("activeDeadlineSeconds: -1, "), "spec.activeDeadlineSeconds: -1 is negative"},
		{"a Deployment of -1 replicas", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: -1, selector: {matchLabels: {app: web}}, " +
			"template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}\n", "spec.replicas: -1 is negative"},
		{"a Kueue group name of 64 characters", kubePods(1, "{}", "{kueue.x-k8s.io/pod-group-name: "+long+", kueue.x-k8s.io/pod-group-total-count: \"1\"}"),
			"is longer than 63 characters, the most of a label value"},
		{"a Kueue total count of 0", kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", `{kueue.x-k8s.io/pod-group-total-count: "0"}`),
			`Invalid value: "0": group total count should be a whole number greater than zero`},
		{"a later pod giving a smaller total count", kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", `{kueue.x-k8s.io/pod-group-total-count: "3"}`) +
			strings.Replace(kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", `{kueue.x-k8s.io/pod-group-total-count: "2"}`), "p0", "p1", 1),
			"Pod default/p1: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: 2, where Pod default/p0 of the same pod group gives 3"},
		{"one bad minResources of a scheduler-plugins PodGroup", "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 2, minResources: {cpu: lots}}\n",
			"PodGroup default/g: spec.minResources.cpu"},
		{"a node group of max 0", "nodeGroups: [{name: cpu, template: {allocatable: {cpu: \"8\"}}, max: 0}]\n", "nodeGroups[0] (cpu).max: 0 is not in 1.."},
		{"a maxNodesTotal of 0", "nodeGroups: [{name: cpu, template: {allocatable: {cpu: \"8\"}}, max: 2}]\nautoscaler: {maxNodesTotal: 0}\n",
			"autoscaler.maxNodesTotal: 0 is not positive"},
		{"a claims' LimitRange on cpu", "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec: {limits: [{type: PersistentVolumeClaim, max: {cpu: \"1\"}}]}\n",
			`"cpu": a claim's limit is on storage`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("objects.yaml", []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// Inputs at the edge of what is allowed load: bounds that are inclusive,
// and forms that look like two gangs or need labels made from nothing.
func TestInputsTakenAtTheirBounds(t *testing.T) {
	group := func(fields string) string {
		return "nodeGroups: [{name: cpu, template: {allocatable: {cpu: \"8\"}}, " + fields + "}]\n"
	}
	for _, tt := range []struct {
		name, text string
		pods       int
	}{
		{"a node group of min equal to max", group("min: 2, max: 2"), 0},
		{"racks as large as the group", group("max: 4, rackSize: 4, rackLabel: rack"), 0},
		{"a scale-down threshold of 1", group("max: 2") + "autoscaler: {scaleDownUtilizationThreshold: 1, scaleDownGpuUtilizationThreshold: 1}\n", 0},
		{"a pod naming its Kueue group by both its label and its annotation",
			kubePods(1, "{kueue.x-k8s.io/pod-group-name: solo}", `{kueue.x-k8s.io/pod-group-name: solo, kueue.x-k8s.io/pod-group-total-count: "1"}`), 1},
		{"a Job the Job controller manages, said so", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n" +
			"spec: {managedBy: kubernetes.io/job-controller, template: {spec: {containers: [{name: c}]}}}\n", 1},
		{"a StatefulSet whose selector matches pods without labels", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n" +
			"spec: {replicas: 2, podManagementPolicy: Parallel, selector: {matchExpressions: [{key: app, operator: DoesNotExist}]}, template: {spec: {containers: [{name: c}]}}}\n", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("objects.yaml", []byte(tt.text))
			require.NoError(t, err)
			require.Len(t, sc.Pods, tt.pods)
		})
	}
}

// A scheduler-plugins PodGroup takes the priority of the first pod that
// joins it, as Coscheduling orders gangs by their pods' priority.
func TestPluginsGroupTakesItsPodsPriority(t *testing.T) {
	text := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n" + pluginsGroup +
		strings.ReplaceAll(kubePods(3, "{scheduling.x-k8s.io/pod-group: gang}", "{}"), "spec: {containers:", "spec: {priorityClassName: high, containers:")
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	g := groupOf(t, sc, "gang")
	require.Equal(t, "high", g.PriorityClassName)
}

// A generateName longer than 58 characters (59 here) is cut to 58 before the
// suffix, as the API server cuts it.
func TestGenerateNameCutTo58(t *testing.T) {
	prefix := strings.Repeat("w", 59)
	text := "apiVersion: v1\nkind: Pod\nmetadata: {generateName: " + prefix + "}\nspec: {containers: [{name: c}]}\n"
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	require.Equal(t, []string{prefix[:58] + "0"}, podNamesOf(sc))
}

// A Node's generated name skips the names of the nodes a scenario file
// defines: nodes have no namespace.
func TestGeneratedNodeNameSkipsScenarioNodes(t *testing.T) {
	a := File{Name: "a.yaml", Data: []byte("nodes: [{name: n-0, allocatable: {cpu: \"2\"}}]\n")}
	b := File{Name: "b.yaml", Data: []byte("apiVersion: v1\nkind: Node\nmetadata: {generateName: n-}\nstatus: {allocatable: {cpu: \"2\"}}\n")}
	sc, err := ParseFiles([]File{a, b})
	require.NoError(t, err)
	var names []string
	for _, n := range sc.Nodes {
		names = append(names, n.Name)
	}
	require.ElementsMatch(t, []string{"n-0", "n-1"}, names)
}

// jobPods counts the pods a loaded scenario holds of a Job.
func jobPods(sc *Scenario, job string) int {
	n := 0
	for _, p := range sc.Pods {
		if o := p.Pod.Owner; o != nil && o.Kind == "Job" && o.Name == job {
			n++
		}
	}
	return n
}

// A Job whose failed pods reach its backoffLimit, but do not pass it,
// still runs: it makes its pods.
func TestJobAtItsBackoffLimitRuns(t *testing.T) {
	text := kubeNodes(1, 1) + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {backoffLimit: 1, template: {spec: {containers: [{name: c}]}}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: j-a, ownerReferences: [{kind: Job, name: j, controller: true}]}\nspec: {containers: [{name: c}], nodeName: n0}\nstatus: {phase: Failed}\n"
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	require.Equal(t, 1, jobPods(sc, "j"))
}

// An Indexed Job counts only the succeeded pods of its indexes: one of
// index 2 in a Job of 2 completions is not a completion, so index 1 is
// still made.
func TestIndexedJobIgnoresIndexesBeyondCompletions(t *testing.T) {
	done := func(name, index string) string {
		return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: {batch.kubernetes.io/job-completion-index: \"" + index +
			"\"}, ownerReferences: [{kind: Job, name: j, controller: true}]}\nspec: {containers: [{name: c}], nodeName: n0}\nstatus: {phase: Succeeded}\n"
	}
	text := kubeNodes(1, 1) + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n" +
		"spec: {completions: 2, parallelism: 2, completionMode: Indexed, template: {spec: {containers: [{name: c}]}}}\n" + done("j-a", "0") + done("j-b", "2")
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	require.Equal(t, 1, jobPods(sc, "j"))
	require.Equal(t, []string{"j-1-0"}, podNamesOf(sc))
}

// A Job of podReplacementPolicy Failed replaces only its failed pods, not
// those still terminating: the controller is told so.
func TestJobReplaceFailedOnly(t *testing.T) {
	for _, tt := range []struct {
		policy string
		want   bool
	}{{"Failed", true}, {"TerminatingOrFailed", false}} {
		text := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {podReplacementPolicy: " + tt.policy + ", template: {spec: {containers: [{name: c}]}}}\n"
		sc, err := Parse("objects.yaml", []byte(text))
		require.NoError(t, err)
		require.Len(t, sc.Controllers, 1)
		require.Equal(t, tt.want, sc.Controllers[0].workload.Job.ReplaceFailedOnly, tt.policy)
	}
}

// When the autoscaler refuses its node groups at the start of a run, the
// error points at the first group's entry in its file (the scenario has
// no autoscaler section to point at).
func TestAutoscalerErrorPointsAtTheGroups(t *testing.T) {
	sc, err := Parse("groups.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"2\"}}]\nnodeGroups:\n  - {name: cpu, template: {allocatable: {cpu: \"8\"}}, max: 2}\n"))
	require.NoError(t, err)
	sc.NodeGroups = append(sc.NodeGroups, sc.NodeGroups[0]) // two groups of one name
	_, err = sc.Run()
	require.ErrorContains(t, err, "groups.yaml: line 3: ")
}

// A file of exactly the size limit is taken, from disk as from memory;
// one byte more is refused.
func TestFileOfExactlyTheSizeLimit(t *testing.T) {
	data := []byte("nodes:\n  - {name: n, allocatable: {cpu: \"1\"}}\n")
	path := t.TempDir() + "/exact.yaml"
	require.NoError(t, os.WriteFile(path, data, 0o644))
	size := int64(len(data))
	_, err := Load(path, WithLimits(Limits{FileSize: size}))
	require.NoError(t, err)
	_, err = Parse("exact.yaml", data, WithLimits(Limits{FileSize: size}))
	require.NoError(t, err)
	_, err = Load(path, WithLimits(Limits{FileSize: size - 1}))
	require.ErrorContains(t, err, "more than the limit")
}
