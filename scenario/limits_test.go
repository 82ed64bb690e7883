package scenario

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A few kilobytes of anchors nested four deep stand for a billion values:
// the load refuses them at once, at the alias that goes past the limit.
func TestAliasBombRefusedQuickly(t *testing.T) {
	data, err := os.ReadFile("testdata/scenarios/bad/alias-bomb.yaml")
	require.NoError(t, err)
	_, err = Parse("bomb.yaml", data)
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, "alias *expr: aliases repeat more than")

	// the same bomb in a Kubernetes object stream
	kube := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  affinity:\n    podAffinity:\n" +
		"      requiredDuringSchedulingIgnoredDuringExecution:\n        - &term\n          topologyKey: zone\n          labelSelector:\n" +
		"            matchExpressions:\n              - &expr {key: app, operator: In, values: [" + strings.Repeat("v, ", 299) + "v]}\n" +
		strings.Repeat("              - *expr\n", 299) + strings.Repeat("        - *term\n", 299)
	_, err = Parse("bomb-objects.yaml", []byte(kube))
	require.ErrorContains(t, err, "bomb-objects.yaml: line ")
	require.ErrorContains(t, err, "Pod default/p: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[")
	require.ErrorContains(t, err, "aliases repeat more than")
}

// Pods given one label map through an alias share it: the load neither
// copies it for every pod nor counts it against the limit more than once.
func TestAliasSharedLabels(t *testing.T) {
	const pods, labels = 20_000, 100
	var b strings.Builder
	b.WriteString("nodes:\n  - {name: n, allocatable: {cpu: \"1\"}}\npods:\n  - name: p-0\n    labels: &labels\n")
	for i := range labels {
		fmt.Fprintf(&b, "      label-key-%d: value-%d\n", i, i)
	}
	for i := 1; i < pods; i++ {
		fmt.Fprintf(&b, "  - {name: p-%d, labels: *labels}\n", i)
	}
	sc, err := Parse("shared.yaml", []byte(b.String()))
	require.NoError(t, err)
	require.Len(t, sc.Pods, pods)
	first := reflect.ValueOf(sc.Pods[0].Pod.Labels).Pointer()
	for _, p := range sc.Pods {
		require.Len(t, p.Pod.Labels, labels)
		require.Equal(t, first, reflect.ValueOf(p.Pod.Labels).Pointer(), "pod %s has a copy of the labels", p.Pod.Name)
	}
}

// Values repeated through aliases into fields that are not shared (an
// affinity term, a toleration) are decoded each time and counted: ten
// times the file's own values, plus 10,000, is the limit.
func TestAliasLimitIsProportional(t *testing.T) {
	gen := func(pods int) []byte {
		var b strings.Builder
		b.WriteString("nodes:\n  - {name: n, allocatable: {cpu: \"1\"}}\npods:\n  - name: p-0\n    tolerations: &tol\n")
		for i := range 50 {
			fmt.Fprintf(&b, "      - {key: k%d, operator: Exists}\n", i)
		}
		for i := 1; i < pods; i++ {
			fmt.Fprintf(&b, "  - {name: p-%d, tolerations: *tol}\n", i)
		}
		return []byte(b.String())
	}
	// 200 pods repeat 50 tolerations of 5 values each: 50,000 values for a
	// file of about 1,300
	_, err := Parse("many.yaml", gen(200))
	require.ErrorContains(t, err, "many.yaml: line 204: pods[149] (p-149).tolerations: alias *tol: aliases repeat more than 22,630 values: "+
		"a file's aliases may repeat at most 10 times the 1,263 values it writes out, plus 10,000")
	// 20 pods stay within the allowance
	sc, err := Parse("few.yaml", gen(20))
	require.NoError(t, err)
	require.Len(t, sc.Pods[19].Pod.Tolerations, 50)
	// a smaller absolute limit applies first
	_, err = Parse("few.yaml", gen(20), WithLimits(Limits{AliasedValues: 100}))
	require.ErrorContains(t, err, "aliases repeat more than 100 values, the limit of a file")
}

// A node kept as it is and decoded later (a budget's selector, a plugin's
// arguments) is counted when it is read, and an anchor holding an alias to
// itself is an error, not an endless loop.
func TestAliasInKeptNodes(t *testing.T) {
	var b strings.Builder
	b.WriteString("podDisruptionBudgets:\n  - {name: b-0, selector: &sel {matchExpressions: &exprs [")
	for i := range 100 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{key: k%d, operator: Exists}", i)
	}
	b.WriteString("]}, minAvailable: \"1\"}\n")
	for i := 1; i < 200; i++ {
		fmt.Fprintf(&b, "  - {name: b-%d, selector: *sel, minAvailable: \"1\"}\n", i)
	}
	_, err := Parse("kept.yaml", []byte(b.String()))
	require.ErrorContains(t, err, "kept.yaml: line ")
	require.ErrorContains(t, err, ".selector: alias *sel: aliases repeat more than")

	_, err = Parse("cycle.yaml", []byte("podDisruptionBudgets:\n  - {name: b, selector: &s {matchLabels: {a: b}, x: [*s]}, minAvailable: \"1\"}\n"))
	require.ErrorContains(t, err, "cycle.yaml: line 2: podDisruptionBudgets[0] (b).selector: the value of anchor &s holds an alias to itself")
}

// A file above the size limit is refused before it is read or parsed.
func TestFileSizeLimit(t *testing.T) {
	data := []byte("nodes:\n  - {name: n, allocatable: {cpu: \"1\"}}\n# " + strings.Repeat("x", 2000) + "\n")
	_, err := Parse("big.yaml", data, WithLimits(Limits{FileSize: 1024}))
	require.ErrorIs(t, err, ErrScenario)
	require.EqualError(t, err, "invalid scenario: big.yaml: the file is 2049 bytes, more than the limit of 1024 (1 KiB)")
	path := t.TempDir() + "/big.yaml"
	require.NoError(t, os.WriteFile(path, data, 0o644))
	_, err = Load(path, WithLimits(Limits{FileSize: 1024}))
	require.EqualError(t, err, "invalid scenario: "+path+": the file is 2049 bytes, more than the limit of 1024 (1 KiB)")
	_, err = Load(path, WithLimits(Limits{FileSize: 4096}))
	require.NoError(t, err)
	require.Equal(t, int64(1<<30), DefaultLimits().FileSize)
}

// The pods and nodes of all inputs together are counted against the
// limits before anything is expanded: counts, Node objects, the pods a
// workload or a DaemonSet makes.
func TestPodAndNodeLimits(t *testing.T) {
	small := WithLimits(Limits{Nodes: 3, Pods: 4})
	nodes := "nodes:\n  - {name: n, allocatable: {cpu: \"1\"}, count: 3}\n"
	_, err := Parse("ok.yaml", []byte(nodes), small)
	require.NoError(t, err)
	_, err = ParseFiles([]File{{Name: "a.yaml", Data: []byte(nodes)},
		{Name: "b.json", Data: []byte(`{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "m"}, "status": {"allocatable": {"cpu": "1"}}}`)}}, small)
	require.EqualError(t, err, "invalid scenario: b.json: line 1: Node m: metadata.name: 1 more node would go past the limit of 3 nodes in all inputs")

	daemon := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n" +
		"  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}\n"
	_, err = ParseFiles([]File{{Name: "a.yaml", Data: []byte(nodes + "pods:\n  - {name: p, count: 2}\n")}, {Name: "d.yaml", Data: []byte(daemon)}}, small)
	require.EqualError(t, err, "invalid scenario: d.yaml: line 1: DaemonSet default/d: 1 more pod would go past the limit of 4 pods in all inputs")

	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 5\n  template: {spec: {containers: [{name: c}]}}\n"
	_, err = Parse("j.yaml", []byte(job), small)
	require.EqualError(t, err, "invalid scenario: j.yaml: line 5: Job default/j: spec.parallelism: 5 more pods would go past the limit of 4 pods in all inputs")

	_, err = Parse("c.yaml", []byte("pods:\n  - {name: p, count: 5}\n"), small)
	require.EqualError(t, err, "invalid scenario: c.yaml: line 2: pods[0] (p).count: 5 more pods would go past the limit of 4 pods in all inputs")
	// workload templates: replicas times the largest group, before anything is drawn
	_, err = Parse("w.yaml", []byte("pods: [{name: p}]\nworkloads:\n  - {name: w, replicas: 2, group: {pods: 2}, pod: {}}\n"), small)
	require.EqualError(t, err, "invalid scenario: w.yaml: line 3: workloads[0] (w).replicas: 4 more pods would go past the limit of 4 pods in all inputs")
	_, err = Parse("w.yaml", []byte("workloads:\n  - {name: w, replicas: 20000000, pod: {}}\n"))
	require.EqualError(t, err, "invalid scenario: w.yaml: line 2: workloads[0] (w).replicas: 20000000 is not in 1..10000000")
	d := DefaultLimits()
	require.Equal(t, []int{1_000_000, 10_000_000, 100_000_000}, []int{d.Nodes, d.Pods, d.AliasedValues})
}

// A value nested a million deep where a field is skipped does not take
// the stack: the direct decoder gives up and the node tree's reader says
// the file is too deep.
func TestJSONDirectDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	data := []byte(`{"pods": [{"name": "p", "tolerations": [{"key": "k", "tolerationSeconds": ` + deep + `}]}]}`)
	require.False(t, schema.DecodeJSONDirect(data, &schema.File{}))
	_, err := Parse("deep.json", data)
	require.ErrorContains(t, err, "deep.json: line 1: lists and objects nested more than 10000 deep")
	// YAML in flow style is bounded by the YAML reader
	_, err = Parse("deep.yaml", []byte("pods: "+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)))
	require.ErrorContains(t, err, "deep.yaml")
}

// Kubernetes objects read as kubectl reads them: aliases for apiVersion,
// kind, metadata and whole List items, and merge keys (one mapping or a
// list of them; the mapping's own keys win, then the earlier source).
func TestKubeAliasesAndMergeKeys(t *testing.T) {
	objects := `apiVersion: v1
kind: List
items:
- &node
  apiVersion: &v v1
  kind: &k Node
  metadata: &meta
    name: n1
    labels: &labels {zone: a, tier: gold}
  status:
    allocatable: &alloc {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: *v
  kind: *k
  metadata:
    <<: *meta
    name: n2
  status:
    allocatable:
      <<: [{cpu: "2"}, *alloc]
      memory: 4Gi
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, labels: *labels}
  spec:
    containers:
    - &c
      name: c
      resources: {requests: {cpu: "1"}}
- *node
`
	_, err := Parse("objects.yaml", []byte(objects))
	// the repeated item is n1 again: refused as a duplicate, at its line
	require.ErrorContains(t, err, `objects.yaml: line 29`)
	require.ErrorContains(t, err, `node n1 is defined twice`)

	sc, err := Parse("objects.yaml", []byte(strings.TrimSuffix(objects, "- *node\n")))
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 2)
	n2 := sc.Nodes[1]
	require.Equal(t, "n2", n2.Name)
	require.Equal(t, "gold", n2.Labels["tier"], "labels merged from n1's metadata")
	require.EqualValues(t, 2000, n2.Allocatable.MilliCPU, "the first source wins over the second")
	require.EqualValues(t, 4<<30, n2.Allocatable.Memory, "the mapping's own key wins")
	require.Equal(t, "a", sc.Pods[0].Pod.Labels["zone"])
}

// Merge keys work in scenario files too; a quoted "<<" is a plain key
// (an unknown field), and a merge of a scalar or a merge cycle is an
// error at its line.
func TestScenarioMergeKeys(t *testing.T) {
	sc, err := Parse("m.yaml", []byte("nodes:\n  - &base {name: a, allocatable: {cpu: \"4\"}, labels: {rack: r1}}\n  - {<<: *base, name: b}\n"))
	require.NoError(t, err)
	require.Equal(t, "r1", sc.Nodes[1].Labels["rack"])
	require.EqualValues(t, 4000, sc.Nodes[1].Allocatable.MilliCPU)

	_, err = Parse("m.yaml", []byte("nodes:\n  - {name: a, \"<<\": {}}\n"))
	require.ErrorContains(t, err, "<<")
	_, err = Parse("m.yaml", []byte("nodes:\n  - name: a\n    <<: 3\n"))
	require.ErrorContains(t, err, "m.yaml: line 3")
	require.ErrorContains(t, err, "a merge key takes a mapping or a list of mappings, not a value")

	// a mapping merging a large one, many times: refused at the limit
	var b strings.Builder
	b.WriteString("x: &big {")
	for i := range 2000 {
		fmt.Fprintf(&b, "k%d: v, ", i)
	}
	b.WriteString("z: v}\nnodes:\n")
	for range 2000 {
		b.WriteString("  - {<<: *big}\n")
	}
	_, err = Parse("merges.yaml", []byte(b.String()))
	require.ErrorContains(t, err, "merge keys repeat more entries than the file's alias limit allows")
}

func TestMergeCycleRefused(t *testing.T) {
	_, err := Parse("cycle.yaml", []byte("nodes:\n  - &a\n    name: a\n    labels: {<<: *a}\n"))
	require.ErrorContains(t, err, "cycle.yaml: line 4")
	require.ErrorContains(t, err, "alias cycle")
}

// A broken flow collection is reported at the line where it breaks, not
// the line before the collection (what the YAML parser says).
func TestFlowCollectionErrorAtTheFaultyLine(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"missing comma", "nodes:\n  - {name: a,\n     allocatable: {cpu: \"4\"}\n     labels: {a: b}}\n",
			"f.yaml: line 4: did not find expected ',' or '}' (in the flow collection of line 2)"},
		{"missing brace", "nodes:\n  - name: a\n    labels: {a: b, c: d\n    allocatable: {cpu: \"4\"}\n",
			"f.yaml: line 4: did not find expected ',' or '}' (in the flow collection of line 3)"},
		{"list", "nodes: [{name: a}\n  {name: b}]\n", "f.yaml: line 2: did not find expected ',' or ']' (in the flow collection of line 1)"},
		{"quoted brackets", "nodes:\n  - {name: a, labels: {a: \"}{\", b: '[x'},\n     allocatable: {cpu: \"4\"}\n     x: 1}\n",
			"f.yaml: line 4: did not find expected ',' or '}' (in the flow collection of line 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.text))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A pipe is read up to the limit, and refused past it.
func TestReadChunksStopsAtTheLimit(t *testing.T) {
	data, err := readChunks(strings.NewReader(strings.Repeat("x", 10<<20)), 5<<20+1)
	require.NoError(t, err)
	require.Len(t, data, 5<<20+1)
	_, err = checkLimit("p", data, 5<<20)
	require.ErrorContains(t, err, "the file is more than")
}

// Labels, node selectors and taints are checked as the API server checks
// them, in scenario files and in Kubernetes objects alike, with the file,
// line, entry and field.
func TestLabelsCheckedAsTheAPIServer(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"key with a space", "nodes:\n  - {name: a, labels: {\"my key\": v}, allocatable: {cpu: \"1\"}}\n",
			`f.yaml: line 2: nodes[0] (a).labels[my key]: "my key" is not a label key`},
		{"10 kB value", "nodes:\n  - {name: a, labels: {a: " + strings.Repeat("v", 10_000) + "}, allocatable: {cpu: \"1\"}}\n",
			`nodes[0] (a).labels[a]: a label value of 10000 characters is longer than 63`},
		{"duplicate taint", "nodes:\n  - {name: a, allocatable: {cpu: \"1\"}, taints: [{key: g, effect: NoSchedule}, {key: g, value: x, effect: NoSchedule}]}\n",
			`nodes[0] (a).taints[1]: taint g:NoSchedule is given twice (taints[0])`},
		{"empty node selector key", "nodes:\n  - {name: a, allocatable: {cpu: \"1\"}}\npods:\n  - {name: p, nodeSelector: {\"\": x}}\n",
			`f.yaml: line 4: pods[0] (p).nodeSelector[]: "" is not a label key`},
		{"Kubernetes Node", "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: \"a b\"}}\nstatus: {allocatable: {cpu: \"1\"}}\n",
			`f.yaml: line 3: Node n1: metadata.labels[zone]: "a b" is not a label value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.text))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
