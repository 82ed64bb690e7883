package scenario

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// runFiles loads and runs inputs and returns the result's JSON without
// its warnings, which name the files.
func runFiles(t *testing.T, paths ...string) string {
	t.Helper()
	sc, err := LoadFiles(paths)
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	res.Warnings = nil
	out, err := res.JSON()
	require.NoError(t, err)
	return string(out)
}

// A kubectl dump, as JSON and as YAML, gives the simulation of the
// scenario file written by hand for it: nodes with their allocatable,
// taints and cordon; running pods bound where they run; pending pods
// arriving, in order of creation; a sidecar and an init container summed
// as Kubernetes sums them; the built-in system classes; namespaced groups
// and budgets; finished pods left out.
func TestKubectlDumpsGiveTheScenario(t *testing.T) {
	want := runFiles(t, "testdata/kube/cluster-equivalent.yaml")
	require.Contains(t, want, `"name": "shop/train"`)
	for _, dump := range []string{"testdata/kube/cluster.json", "testdata/kube/cluster.yaml"} {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			require.Equal(t, want, runFiles(t, dump))
		})
	}
}

func TestKubectlDumpEntries(t *testing.T) {
	sc, err := Load("testdata/kube/cluster.json")
	require.NoError(t, err)
	byName := map[string]Pod{}
	for _, p := range sc.Pods {
		byName[p.Pod.Name] = p
	}
	require.Len(t, sc.Pods, 12, "the Succeeded and the Failed pod are left out")
	db := byName["db-0"].Pod
	require.Equal(t, cluster.NewResources(2100, 2112<<20, 0), db.Requests)
	require.Equal(t, &cluster.Owner{Kind: "StatefulSet", Name: "db"}, db.Owner)
	require.Equal(t, "shop-worker-1", db.NodeName)
	web := byName["web-6d8f7b9c5d-abcde"].Pod
	require.Equal(t, "ReplicaSet", web.Owner.Kind)
	require.Equal(t, "train", byName["train-0"].Pod.PodGroup)
	require.Equal(t, Source{File: "testdata/kube/cluster.json", Line: 2995, Path: "Pod shop/train-0"}, byName["train-0"].Source)

	require.Equal(t, []string{cluster.SystemClusterCritical, cluster.SystemNodeCritical, "shop-high"}, classNames(sc))
	require.Len(t, sc.Budgets, 2)
	require.Equal(t, "app In \"[db]\"", sc.Budgets[0].Selector.String())
	require.Equal(t, "shop", sc.PodGroups[0].Namespace)
	require.Equal(t, 4, len(sc.Nodes))
	require.True(t, sc.Nodes[3].Unschedulable)
	require.Equal(t, []cluster.Namespace{
		{Name: "default", Labels: map[string]string{"kubernetes.io/metadata.name": "default"}},
		{Name: "kube-system", Labels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
		{Name: "shop", Labels: map[string]string{"kubernetes.io/metadata.name": "shop", "team": "shop"}},
	}, sc.Namespaces)
}

func classNames(sc *Scenario) []string {
	var out []string
	for _, pc := range sc.PriorityClasses {
		out = append(out, pc.Name)
	}
	return out
}

// What a dump holds that is not modelled is listed once per kind and
// field, in order, with a count; metadata, status and fields without a
// meaning for scheduling say nothing.
func TestKubectlDumpWarnings(t *testing.T) {
	sc, err := Load("testdata/kube/cluster.yaml")
	require.NoError(t, err)
	var got []string
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"Pod spec.hostNetwork: not modelled: host ports are not checked (4 objects, first testdata/kube/cluster.yaml: Pod kube-system/kube-proxy-4kz8s)",
		"Pod spec.tolerations[].tolerationSeconds: not modelled, ignored (12 objects, first testdata/kube/cluster.yaml: Pod kube-system/coredns-674b8bbfcf-8tq2v)",
		"Pod spec.volumes[].persistentVolumeClaim: not modelled, ignored (1 object, first testdata/kube/cluster.yaml: Pod shop/db-0)",
	}, got)
	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, got, res.Warnings, "the result repeats them")
}

func TestKubeBadFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/kube/bad/*")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, ".err") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrScenario)
			msg := err.Error()
			require.Contains(t, msg, f, "the error names the file")
			golden(t, strings.TrimSuffix(f, filepath.Ext(f))+".err", []byte(msg+"\n"))
		})
	}
}

// Errors name the file, the line of the field, the object and the field
// path, and keep their cause.
func TestKubeErrorsAreFieldErrors(t *testing.T) {
	_, err := Load("testdata/kube/bad/memroy.yaml")
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "testdata/kube/bad/memroy.yaml", fe.File)
	require.Equal(t, 14, fe.Line)
	require.Equal(t, "Pod shop/api: spec.containers[0] (api).resources.requests.memroy", fe.Path)

	_, err = Load("testdata/kube/bad/unknown-class.yaml")
	require.ErrorIs(t, err, gangsim.ErrAdmission)
	_, err = Load("testdata/kube/bad/huge-class.yaml")
	require.ErrorIs(t, err, cluster.ErrPriorityClass)
}

func TestKubeInlineErrors(t *testing.T) {
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {containers: [{name: c, image: i" + spec
	}
	tests := []struct{ name, text, want string }{
		{"negative quantity", pod(", resources: {requests: {cpu: -1}}}]}"), `Pod ns/p: spec.containers[0] (c).resources.requests.cpu: "-1" is not a valid quantity: negative`},
		{"bad quantity", pod(", resources: {requests: {memory: 1.2.3}}}]}"), `Pod ns/p: spec.containers[0] (c).resources.requests.memory:`},
		{"extended resource in parts", pod(", resources: {limits: {example.com/fpga: 500m}}}]}"), `limits.example.com/fpga: "500m": example.com/fpga is counted in whole units`},
		{"pod-level storage", pod("}], resources: {requests: {ephemeral-storage: 1Gi}}}"), `Pod ns/p: spec.resources.requests.ephemeral-storage: pod-level resources are cpu and memory only`},
		{"bad overhead name", pod("}], overhead: {cpus: 1}}"), `Pod ns/p: spec.overhead.cpus: "cpus" is not a standard resource name`},
		{"no containers", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}", `Pod default/p: spec.containers: required`},
		{"running without node", pod("}]}\nstatus: {phase: Running}"), `Pod ns/p: spec.nodeName: required: a Running pod is bound to a node`},
		{"odd phase", pod("}]}\nstatus: {phase: Lost}"), `Pod ns/p: status.phase: "Lost" is not`},
		{"bad toleration", pod("}], tolerations: [{key: k, effect: Sometimes}]}"), `Pod ns/p: spec.tolerations[0].effect: "Sometimes" is not NoSchedule`},
		{"unknown node", pod("}], nodeName: n9}"), `Pod ns/p: spec.nodeName: node "n9" is not defined`},
		{"wrong type", pod("}], priority: high}"), `Pod ns/p: spec.priority: "high" is not a valid int32`},
		{"namespaced node", "apiVersion: v1\nkind: Node\nmetadata: {name: n, namespace: x}\nstatus: {allocatable: {cpu: 1}}", `Node n: metadata.namespace: Node is not namespaced`},
		{"node without resources", "apiVersion: v1\nkind: Node\nmetadata: {name: n}", `Node n: status.allocatable: required`},
		{"node resource typo", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: 1, memroy: 1Gi}}", `Node n: status.allocatable.memroy: "memroy" is not a standard resource name`},
		{"two topology keys", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: b}]}}", `PodGroup default/g: spec.schedulingConstraints.topology: at most one`},
		{"gang without count", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {}}}", `PodGroup default/g: spec.schedulingPolicy.gang.minCount: required`},
		{"unknown parent", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, parentCompositePodGroupName: top}", `PodGroup default/g: spec.parentCompositePodGroupName`},
		{"composite union", "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {schedulingPolicy: {gang: {minGroupCount: 0}}}", `CompositePodGroup default/c: spec.schedulingPolicy.gang.minGroupCount: 0 is below 1`},
		{"both disruption modes", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}, all: {}}}", `spec.disruptionMode: exactly one of single and all`},
		{"budget both", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {selector: {matchLabels: {a: b}}, minAvailable: 1, maxUnavailable: 1}", `PodDisruptionBudget default/b: exactly one of minAvailable and maxUnavailable`},
		{"budget operator", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {selector: {matchExpressions: [{key: a, operator: Near}]}, minAvailable: 1}", `PodDisruptionBudget default/b: spec.selector.matchExpressions[0].operator`},
		{"list of scalars", "apiVersion: v1\nkind: List\nitems: [3]", `items[0]: expected a Kubernetes object (a mapping), got a value`},
		{"bad timestamp", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: yesterday}\nspec: {containers: [{name: c}]}", `Pod default/p: metadata.creationTimestamp: "yesterday" is not a time`},
		{"statefulset policy", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {podManagementPolicy: Random, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}", `StatefulSet default/s: spec.podManagementPolicy: "Random"`},
		{"indexed job", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {completionMode: Indexed, template: {spec: {containers: [{name: c}]}}}", `Job default/j: spec.completions: required when completionMode is Indexed`},
		{"empty selector", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {selector: {}, template: {spec: {containers: [{name: c}]}}}", `ReplicaSet default/r: spec.selector: empty`},
		{"template error", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}], priorityClassName: gold}}}", `ReplicaSet default/r (pod r-0): spec.template.spec.priorityClassName: priority class "gold" is not defined`},
		{"configuration plugin", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{plugins: {score: {enabled: [{name: NodeResourcesFitt}]}}}]", `KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[0].name: "NodeResourcesFitt" is not a registered plugin`},
		{"configuration args kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{pluginConfig: [{name: NodeResourcesFit, args: {kind: FitArgs}}]}]", `KubeSchedulerConfiguration: pluginConfig (NodeResourcesFit).args.kind: "FitArgs" is not "NodeResourcesFitArgs"`},
		{"mixed file", "nodes: []\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}", `a file holds a scenario or Kubernetes objects, not both`},
		{"two scenarios", "nodes: []\n---\npods: []", `a scenario file is a single YAML document`},
		{"bad JSON", `{"apiVersion": "v1", "kind": "Node",` + "\n" + `"metadata": {"name": "n"}`, `line 2: unexpected EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("in.yaml", []byte(tt.text))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrScenario)
			require.Contains(t, err.Error(), "in.yaml")
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// Files merge: an object of one file may name what another defines, and
// an object defined twice is an error naming both files.
func TestFilesMerge(t *testing.T) {
	nodes := File{Name: "nodes.json", Data: []byte(`{"apiVersion": "v1", "kind": "List", "items": [
		{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"rack": "a"}}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}},
		{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2", "labels": {"rack": "b"}}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}]}`)}
	classes := File{Name: "classes.yaml", Data: []byte("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 100\n")}
	group := File{Name: "group.yaml", Data: []byte("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\n" +
		"spec: {schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: [{key: rack}]}, priorityClassName: gold}\n")}
	pods := File{Name: "pods.yaml", Data: []byte("pods:\n  - {name: w, namespace: ml, podGroup: g, priorityClassName: gold, requests: {cpu: \"2\"}, count: 2}\n" +
		"  - {name: pinned, requests: {cpu: \"1\"}, nodeName: n2}\n")}
	sc, err := ParseFiles([]File{pods, group, nodes, classes})
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	for _, p := range res.Pods[:2] {
		require.Equal(t, gangsim.PhaseBound, p.Phase)
		require.Equal(t, "n1", p.Node, "the gang keeps to one rack, the one pinned leaves room in")
	}

	again := File{Name: "more.yaml", Data: []byte("nodes:\n  - {name: n2, allocatable: {cpu: \"1\"}}\n")}
	_, err = ParseFiles([]File{nodes, again})
	require.EqualError(t, err, `invalid scenario: more.yaml: line 2: nodes[0] (n2).name: node n2 is defined twice: first in nodes.json, line 3 (Node n2)`)
	more := File{Name: "more.yaml", Data: []byte("pods: [{name: x, count: 2}, {name: w-1, namespace: ml}]\n")}
	_, err = ParseFiles([]File{pods, group, nodes, classes, more})
	require.ErrorContains(t, err, "more.yaml: line 1: pods[1] (w-1).name: pod ml/w-1 is defined twice: first in pods.yaml, line 2 (pods[0] (w))")
	_, err = ParseFiles([]File{classes, classes})
	require.ErrorContains(t, err, "classes.yaml: line 1: PriorityClass gold: metadata.name: priority class gold is defined twice: first in classes.yaml, line 1 (PriorityClass gold)")
	_, err = ParseFiles(nil)
	require.ErrorIs(t, err, ErrScenario)
}

func TestSecondConfigurationNamesTheFirst(t *testing.T) {
	a := File{Name: "a.yaml", Data: []byte("config: {percentageOfNodesToScore: 50}\n")}
	b := File{Name: "b.yaml", Data: []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")}
	_, err := ParseFiles([]File{a, b})
	require.EqualError(t, err, "invalid scenario: b.yaml: line 1: KubeSchedulerConfiguration: a second configuration: a.yaml gave one already")
}

// The system classes are there as in every cluster; a dump listing them
// again is fine.
func TestSystemClassesAreBuiltIn(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\npods: [{name: p, priorityClassName: system-node-critical}]\n"+
		"priorityClasses: [{name: system-cluster-critical, value: 2000000000}]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{cluster.SystemClusterCritical, cluster.SystemNodeCritical}, classNames(sc))
	s, err := sc.NewScheduler()
	require.NoError(t, err)
	require.NoError(t, s.AddPod(sc.Pods[0].Pod, 0))
	st, _ := s.Pod(sc.Pods[0].Pod.Key())
	require.Equal(t, int32(cluster.SystemNodeCriticalValue), st.Priority)
}

func TestScenarioFilesTakeKubernetesShapes(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`
podGroups: [{name: g, namespace: ml, minCount: 1}]
compositePodGroups: [{name: c, namespace: ml}]
podDisruptionBudgets:
  - {name: b, selector: {matchLabels: {app: x}, matchExpressions: [{key: tier, operator: Exists}]}, minAvailable: 1}
  - {name: c, selector: {app: y}, maxUnavailable: "10%"}
pods: [{name: p, namespace: ml, podGroup: g, tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]}]
`))
	require.NoError(t, err)
	require.Equal(t, "ml/g", sc.PodGroups[0].Key())
	require.Equal(t, "ml/c", sc.CompositePodGroups[0].Key())
	require.Equal(t, "app=x,tier Exists \"[]\"", sc.Budgets[0].Selector.String())
	require.Equal(t, "app=y", sc.Budgets[1].Selector.String())
	require.Len(t, sc.Warnings, 1)
	require.Equal(t, "pods[].tolerations[].tolerationSeconds: not modelled, ignored (1 object, first s.yaml: pods[0] (p))", sc.Warnings[0].String())

	_, err = Parse("s.yaml", []byte("pods: [{name: p, requests: {memroy: 1Gi}}]\n"))
	require.ErrorContains(t, err, `s.yaml: line 1: pods[0] (p).requests.memroy: "memroy" is not a standard resource name`)
	_, err = Parse("s.yaml", []byte("nodes: [{name: n, allocatable: {gpu: 1}}]\n"))
	require.ErrorContains(t, err, `nodes[0] (n).allocatable.gpu: "gpu" is not a standard resource name`)
}

// A typed list (as the API returns it) may leave out its items' kind;
// JSON as kubectl prints it and flow-style YAML that starts with a brace
// both load; unknown kinds warn.
func TestKubeDocumentShapes(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "2"}}}]}`
	sc, err := Parse("nodes.json", []byte(list))
	require.NoError(t, err)
	require.Equal(t, "n", sc.Nodes[0].Name)

	flow := "{nodes: [{name: n, allocatable: {cpu: \"1\"}}]}"
	sc, err = Parse("flow.yaml", []byte(flow))
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 1)

	stream := "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"
	sc, err = Parse("stream.yaml", []byte(stream))
	require.NoError(t, err)
	require.Equal(t, []Warning{
		{Kind: "ConfigMap (2), Service", Detail: "kinds that never affect scheduling, objects skipped", Objects: 3, First: "stream.yaml: ConfigMap a"},
	}, sc.Warnings)
}

func TestKubeErrorsNeverPanic(t *testing.T) {
	for _, text := range []string{"", "---", "[]", "{}", "null", "apiVersion: [1]", "kind: List\napiVersion: v1\nitems: {}",
		`{"kind": "Pod", "apiVersion": "v1", "metadata": []}`, "kind: Pod\napiVersion: v1\nmetadata: {name: [x]}"} {
		_, err := Parse("x", []byte(text))
		if err != nil && !errors.Is(err, ErrScenario) {
			t.Fatalf("%q: %v does not wrap ErrScenario", text, err)
		}
	}
}

// Empty documents in a YAML stream (a trailing "---", a template that
// rendered nothing) say nothing and are skipped, in object streams and
// scenario files alike; a second document that says something is an error.
func TestEmptyDocuments(t *testing.T) {
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"1\"}}\n"
	for name, text := range map[string]string{
		"trailing separator": node + "---\n",
		"rendered nothing":   "---\n# Source: chart/templates/empty.yaml\n---\n" + node + "---\n~\n---\nnull\n",
		"scenario":           "nodes: [{name: n, allocatable: {cpu: \"1\"}}]\n---\n# nothing\n",
	} {
		sc, err := Parse(name+".yaml", []byte(text))
		require.NoError(t, err, name)
		require.Len(t, sc.Nodes, 1, name)
	}
	_, err := Parse("two.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\n---\npods: [{name: p}]\n"))
	require.EqualError(t, err, "invalid scenario: two.yaml: line 3: a scenario file is a single YAML document")
}
