package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const hugeIndexedJob = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: big}
spec:
  completionMode: Indexed
  completions: 2147483647
  parallelism: 4
  template:
    metadata: {annotations: {gangsim.io/duration: 1s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`

// An Indexed Job of 2^31-1 completions must make that many pods: it is
// refused at load, naming the Job and the field, against the load's limit
// of pods (it ran for hours before that limit stopped it).
func TestJobCompletionsCountAgainstThePodLimit(t *testing.T) {
	_, err := Parse("job.yaml", []byte(hugeIndexedJob))
	require.Error(t, err)
	require.ErrorContains(t, err, "job.yaml")
	require.ErrorContains(t, err, "Job default/big: spec.completions: 2,147,483,647 more pods would go past the limit of 10,000,000 pods")
}

// Pods the controllers make during a run count against the same limit:
// two Jobs of 600 completions each fit the limit of 1,000 alone, not
// together; the run stops with an error naming the Job whose pod goes
// past it.
func TestControllerPodsCountAgainstTheLimit(t *testing.T) {
	job := func(name string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `}
spec:
  completions: 600
  parallelism: 4
  template:
    metadata: {annotations: {gangsim.io/duration: 1s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	}
	sc, err := Parse("jobs.yaml", []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
`+job("a")+"---\n"+job("b")), WithLimits(Limits{Pods: 1000}))
	require.NoError(t, err)
	_, err = sc.Run()
	require.ErrorIs(t, err, ErrPodLimit)
	require.ErrorContains(t, err, "jobs.yaml")
	require.ErrorContains(t, err, "Job default/")
}

// A load holds at most Limits.Objects Kubernetes objects: a file of many
// tiny documents (65 MB of one-line Namespaces took 2.7 GB and more) is
// refused, naming the file, in a stream or in a List alike.
func TestObjectsLimit(t *testing.T) {
	var b strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns%d}\n", i)
	}
	_, err := Parse("ns.yaml", []byte(b.String()), WithLimits(Limits{Objects: 1000}))
	require.Error(t, err)
	require.ErrorContains(t, err, "ns.yaml: more than 1,000 Kubernetes objects in all inputs, the limit of a load")
	_, err = Parse("ns.yaml", []byte(b.String()), WithLimits(Limits{Objects: 1001}))
	require.NoError(t, err)

	var items []string
	for i := range 1001 {
		items = append(items, fmt.Sprintf(`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns%d"}}`, i))
	}
	list := `{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(items, ",\n") + "]}\n"
	_, err = Parse("list.json", []byte(list), WithLimits(Limits{Objects: 1000}))
	require.ErrorContains(t, err, "list.json: more than 1,000 Kubernetes objects")
	require.Equal(t, 1_000_000, DefaultLimits().Objects)
}

// A JobSet's Jobs make their pods over the run, as a Job does: each Job
// makes its completions (one at least, with the webhook's defaults), so
// replicas times completions count against the limit of pods at load,
// naming the JobSet and the field (a suspended JobSet of 2^31-1 replicas
// made that many Jobs and ran out of memory; a child Job of 2^31-1
// completions listed every index first). The pods its Jobs make at once
// name the template's parallelism, not a Job's own spec.parallelism.
func TestJobSetJobsCountAgainstThePodLimit(t *testing.T) {
	jobSet := func(spec string, replicas int, job string) string {
		return fmt.Sprintf("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec: {%sreplicatedJobs: [{name: w, replicas: %d, "+
			"template: {spec: {%stemplate: {spec: {containers: [{name: c}]}}}}}]}\n", spec, replicas, job)
	}
	const at = "js.yaml: line 4: JobSet default/js: spec.replicatedJobs[0]."
	for _, tt := range []struct{ in, want string }{
		{jobSet("suspend: true, ", 1001, ""), at + "replicas: 1,001 more pods would go past the limit of 1,000 pods"},
		{jobSet("", 1001, "completions: 0, parallelism: 0, "), at + "replicas: 1,001 more pods"},
		{jobSet("", 501, "parallelism: 2, completions: 2, "), at + "template.spec.completions: 1,002 more pods"},
		{jobSet("", 1, "completionMode: Indexed, parallelism: 2147483647, completions: 2147483647, "), at + "template.spec.completions: 2,147,483,647 more pods"},
		{jobSet("", 65536, "parallelism: 65537, completions: 65537, "), at + "template.spec.completions: 4,295,032,832 more pods"},
		{jobSet("", 1, "completionMode: NonIndexed, parallelism: 1001, "), at + "template.spec.parallelism: 1,001 more pods"},
		{jobSet("suspend: true, ", 2147483647, ""), at + "replicas: 2,147,483,647 more pods"},
	} {
		_, err := Parse("js.yaml", []byte(tt.in), WithLimits(Limits{Pods: 1000}))
		require.ErrorContains(t, err, tt.want, tt.in)
	}
	// within the limit, the same JobSets load
	for _, in := range []string{jobSet("suspend: true, ", 1000, ""), jobSet("", 500, "parallelism: 2, completions: 2, "),
		jobSet("", 1, "completionMode: NonIndexed, parallelism: 1000, ")} {
		_, err := Parse("js.yaml", []byte(in), WithLimits(Limits{Pods: 1000}))
		require.NoError(t, err, in)
	}
}

// The pods a Kubeflow job's replicas make at once go past the limit of
// pods naming the replica spec's replicas, not the whole spec.
func TestKubeflowReplicasNameTheirField(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m}\nspec: {mpiReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l}]}}}, " +
			"Worker: {replicas: 1001, template: {spec: {containers: [{name: w}]}}}}}\n",
			"k.yaml: line 4: MPIJob default/m: spec.mpiReplicaSpecs.Worker.replicas: 1,001 more pods would go past the limit of 1,000 pods"},
		{"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec: {pytorchReplicaSpecs: {Master: {replicas: 1, template: {spec: {containers: [{name: pytorch}]}}}, " +
			"Worker: {replicas: 1000, template: {spec: {containers: [{name: pytorch}]}}}}}\n",
			"k.yaml: line 4: PyTorchJob default/p: spec.pytorchReplicaSpecs.Worker.replicas: 1,000 more pods would go past the limit of 1,000 pods"},
	} {
		_, err := Parse("k.yaml", []byte(tt.in), WithLimits(Limits{Pods: 1000}))
		require.ErrorContains(t, err, tt.want, tt.in)
	}
}

// A TrainJob's nodes past the limit of pods are an error naming
// spec.trainer.numNodes (or the runtime's spec.mlPolicy.numNodes, when
// the TrainJob gives none), not the template of the runtime's JobSet.
func TestTrainJobNodesNameTheirField(t *testing.T) {
	runtime := "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata: {name: rt}\nspec: {mlPolicy: {numNodes: %d, torch: {}}, template: {spec: {replicatedJobs: " +
		"[{name: node, template: {metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}, spec: {template: {spec: {containers: [{name: node}]}}}}}]}}}\n" +
		"---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj}\nspec: {runtimeRef: {kind: TrainingRuntime, name: rt}%s}\n"
	for _, tt := range []struct{ in, want string }{
		{fmt.Sprintf(runtime, 2, ", trainer: {numNodes: 2147483647}"), "t.yaml: line 9: TrainJob default/tj: spec.trainer.numNodes: 2,147,483,647 more pods would go past the limit of 1,000 pods"},
		{fmt.Sprintf(runtime, 1001, ""), "t.yaml: line 4: TrainingRuntime default/rt: spec.mlPolicy.numNodes: 1,001 more pods would go past the limit of 1,000 pods"},
	} {
		_, err := Parse("t.yaml", []byte(tt.in), WithLimits(Limits{Pods: 1000}))
		require.ErrorContains(t, err, tt.want, tt.in)
	}
	_, err := Parse("t.yaml", []byte(fmt.Sprintf(runtime, 2, ", trainer: {numNodes: 1000}")), WithLimits(Limits{Pods: 1000}))
	require.NoError(t, err)
}
