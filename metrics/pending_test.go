package metrics_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// A run that ends where it starts (a cluster dump: every pod running,
// none ending) reports the state at that instant: 99 of 112 cores are
// 88.4% utilised, not 0.
func TestReportOfOneInstant(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, count: 2, labels: {rack: r1}, allocatable: {cpu: "56", memory: 64Gi}}]
pods:
  - {name: big, requests: {cpu: "50", memory: 32Gi}}
  - {name: small, requests: {cpu: "49"}}
`, 0, "rack")
	require.Equal(t, rep.Start, rep.End)
	cpu := resource(t, rep, cluster.ResourceCPU)
	assert.Equal(t, 112.0, cpu.Capacity)
	assert.Equal(t, 99.0, cpu.Allocated)
	assert.InDelta(t, 99.0/112, cpu.Utilization, 1e-12)
	assert.Zero(t, cpu.AllocatedHours, "no time passed")
	assert.InDelta(t, 0.25, resource(t, rep, cluster.ResourceMemory).Utilization, 1e-12)
	require.NotEmpty(t, rep.Domains)
	assert.InDelta(t, 99.0/112, rep.Domains[0].Utilization, 1e-12, "rack=r1 cpu")
	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	assert.Contains(t, table.String(), "88.4%")
}

// Every kind of resource is reported in its own unit.
func TestUnits(t *testing.T) {
	tests := []struct {
		name  cluster.ResourceName
		unit  string
		scale float64
	}{
		{"cpu", "cores", 1000},
		{"memory", "GiB", 1 << 30},
		{"ephemeral-storage", "GiB", 1 << 30},
		{"hugepages-2Mi", "GiB", 1 << 30},
		{"hugepages-1Gi", "GiB", 1 << 30},
		{"pods", "pods", 1},
		{"nvidia.com/gpu", "GPUs", 1},
		{"amd.com/gpu", "GPUs", 1},
		{"example.com/fpga", "count", 1},
		{"nvidia.com/mig-1g.5gb", "count", 1},
	}
	for _, tt := range tests {
		unit, scale := metrics.Unit(tt.name)
		assert.Equal(t, tt.unit, unit, tt.name)
		assert.Equal(t, tt.scale, scale, tt.name)
	}
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "4", ephemeral-storage: 100Gi, example.com/fpga: "2"}}]
pods: [{name: p, requests: {cpu: "1", ephemeral-storage: 10Gi, example.com/fpga: "1"}}]
`, 0)
	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	assert.Contains(t, table.String(), "ephemeral-storage (GiB)   100")
	assert.Contains(t, table.String(), "example.com/fpga (count)  2")
	assert.NotContains(t, table.String(), "units")
}

// pendingCluster leaves pods pending for each cause an explanation names.
const pendingCluster = `
nodes:
  - {name: cpu, count: 2, allocatable: {cpu: "8", memory: 16Gi}}
  - {name: gpu, allocatable: {cpu: "8", memory: 16Gi, nvidia.com/gpu: "4"}, taints: [{key: gpu, effect: NoSchedule}]}
podGroups:
  - {name: gang, minCount: 3}
pods:
  - {name: fill, requests: {cpu: "7"}, count: 2}
  - {name: gpu-fill, requests: {cpu: "6", memory: 2Gi}, tolerations: [{key: gpu, operator: Exists}]}
  - {name: huge, requests: {cpu: "32"}}
  - {name: gpus, requests: {cpu: "1", nvidia.com/gpu: "8"}, tolerations: [{key: gpu, operator: Exists}]}
  - {name: wait, requests: {cpu: "4"}, preemptionPolicy: Never}
  - {name: split, requests: {cpu: "2", memory: 15Gi}, tolerations: [{key: gpu, operator: Exists}]}
  - {name: picky, requests: {cpu: "1"}, nodeSelector: {zone: x}}
  - {name: member, podGroup: gang, requests: {cpu: "1"}, count: 3}
`

func pendingNamed(t *testing.T, rep *metrics.Report, name string) metrics.PendingPod {
	t.Helper()
	for _, p := range rep.Pending {
		if p.Pod == name {
			return p
		}
	}
	t.Fatalf("%s is not pending", name)
	return metrics.PendingPod{}
}

// Each pending pod has the scheduler's reason and an explanation of what
// the nodes leave it.
func TestPendingExplained(t *testing.T) {
	for _, attached := range []bool{false, true} {
		var rep *metrics.Report
		if attached {
			sc, err := scenario.Parse("test.yaml", []byte(pendingCluster))
			require.NoError(t, err)
			rec := metrics.NewRecorder(metrics.Options{})
			_, err = sc.Run(rec.Attach())
			require.NoError(t, err)
			rep = rec.Report()
		} else {
			rep = record(t, pendingCluster, 0)
		}
		var names []string
		for _, p := range rep.Pending {
			names = append(names, p.Pod)
		}
		require.Equal(t, rep.PendingPods, names, "the same pods, in the same order")
		tests := []struct{ pod, reason, explanation string }{
			{"huge", "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.",
				"no node could hold it even empty: of 3 nodes, 1 has a taint it does not tolerate, 2 have less allocatable than it requests (32 cores of cpu); more nodes of these kinds would not place it"},
			{"gpus", "", "no node could hold it even empty: of 3 nodes, 3 have less allocatable than it requests (8 nvidia.com/gpu); more nodes of these kinds would not place it"},
			{"wait", "", "waits for room: 2 nodes could hold it empty, but none has 4 cores of cpu free; it may not preempt (preemptionPolicy Never)"},
			{"split", "", "waits for room: 3 nodes could hold it empty, but the free room is split: each resource it requests is free on some node, all of them on none"},
			{"picky", "", "no node could hold it even empty: of 3 nodes, 3 do not match its node selector or affinity; more nodes of these kinds would not place it"},
			{"member-0", "", "2 nodes have its request free now, but its PodGroup gang is placed whole or not at all, and the group finds no placement (see the reason)"},
		}
		for _, tt := range tests {
			p := pendingNamed(t, rep, tt.pod)
			assert.Equal(t, tt.explanation, p.Explanation, tt.pod)
			assert.NotEmpty(t, p.Reason, tt.pod)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, p.Reason, tt.pod)
			}
		}
		assert.Equal(t, "gang", pendingNamed(t, rep, "member-2").Group)
		assert.Equal(t, "gang", pendingNamed(t, rep, "member-2").Workload, "its PodGroup")
	}
}

// The pending pods are grouped by workload and explanation, most first.
func TestPendingCauses(t *testing.T) {
	rep := record(t, pendingCluster, 0)
	causes := rep.PendingCauses()
	require.NotEmpty(t, causes)
	assert.Equal(t, metrics.PendingCause{Workload: "gang", Pods: 3, Example: "member-0",
		Explanation: pendingNamed(t, rep, "member-0").Explanation}, causes[0])
	assert.Len(t, causes, 6)
	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	assert.Contains(t, table.String(), "PENDING AT THE END")
	assert.Contains(t, table.String(), "gang                3     2 nodes have its request free now")
}

// A pod evicted and waiting again says why, from its eviction.
func TestPendingSinceEviction(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "4"}}]
pods:
  - {name: low, requests: {cpu: "4"}, priority: 1}
  - {name: high, requests: {cpu: "4"}, priority: 100, at: 10m}
`, 0)
	require.Len(t, rep.Pending, 1)
	p := rep.Pending[0]
	assert.Equal(t, "low", p.Pod)
	assert.Equal(t, int32(1), p.Priority)
	assert.Equal(t, 630.0, p.Since.Seconds(), "pending again since it left its node, 30s after its eviction")
	assert.Contains(t, p.Reason, "Insufficient cpu", "its retry's reason")
}

func TestWorkloadNames(t *testing.T) {
	tests := []struct {
		pod  cluster.Pod
		want string
	}{
		{cluster.Pod{Name: "web-12"}, "web"},
		{cluster.Pod{Name: "web"}, "web"},
		{cluster.Pod{Name: "web-"}, "web-"},
		{cluster.Pod{Name: "12"}, "12"},
		{cluster.Pod{Name: "web-1a"}, "web-1a"},
		{cluster.Pod{Name: "train-5-3", PodGroup: "train-5"}, "train"},
		{cluster.Pod{Name: "w-0", PodGroup: "workers"}, "workers"},
		{cluster.Pod{Name: "web-5d4f9-x2b4z", Owner: &cluster.Owner{Kind: "ReplicaSet", Name: "web-5d4f9"}}, "ReplicaSet/web-5d4f9"},
		// a Deployment's ReplicaSet: the pods carry its hash, the name ends in it
		{cluster.Pod{Name: "web-5d4f9-0", Labels: map[string]string{"pod-template-hash": "5d4f9"},
			Owner: &cluster.Owner{Kind: "ReplicaSet", Name: "web-5d4f9"}}, "Deployment/web"},
		{cluster.Pod{Name: "r-0", Labels: map[string]string{"pod-template-hash": "abc"},
			Owner: &cluster.Owner{Kind: "ReplicaSet", Name: "r"}}, "ReplicaSet/r"},
		{cluster.Pod{Name: "db-0", Owner: &cluster.Owner{Kind: "StatefulSet", Name: "db"}, PodGroup: "g"}, "StatefulSet/db"},
		{cluster.Pod{Namespace: "team-a", Name: "job-3", Owner: &cluster.Owner{Kind: "Job", Name: "train-7"}}, "team-a/Job/train-7"},
		{cluster.Pod{Namespace: "default", Name: "x-1"}, "x"},
		// the pods of workloads that run others, by their controllers' labels
		{cluster.Pod{Name: "train-w-0-0-0", Labels: map[string]string{"jobset.sigs.k8s.io/jobset-name": "train"},
			Owner: &cluster.Owner{Kind: "Job", Name: "train-w-0"}}, "JobSet/train"},
		{cluster.Pod{Name: "vllm-0-1", Labels: map[string]string{"leaderworkerset.sigs.k8s.io/name": "vllm"},
			Owner: &cluster.Owner{Kind: "StatefulSet", Name: "vllm-0"}}, "LeaderWorkerSet/vllm"},
		{cluster.Pod{Name: "rc-head-0", Labels: map[string]string{"ray.io/cluster": "rc"}}, "RayCluster/rc"},
		{cluster.Pod{Namespace: "ml", Name: "v-ps-0", Labels: map[string]string{"volcano.sh/job-name": "v"}}, "ml/Job.batch.volcano.sh/v"},
		{cluster.Pod{Name: "m-worker-0", Labels: map[string]string{"training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-name": "m"}}, "MPIJob/m"},
		{cluster.Pod{Name: "p-master-0", Labels: map[string]string{"training.kubeflow.org/operator-name": "pytorchjob-controller", "training.kubeflow.org/job-name": "p"}}, "PyTorchJob/p"},
		{cluster.Pod{Name: "t-0", Labels: map[string]string{"training.kubeflow.org/operator-name": "tf-operator", "training.kubeflow.org/job-name": "t"}}, "t"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, metrics.Workload(&tt.pod), tt.pod.Name)
	}
}

// Waits by workload: a workload template's pods, a count's copies and a
// gang workload's groups each count as one workload.
func TestWaitsByWorkload(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "4"}}]
pods:
  - {name: a, requests: {cpu: "4"}, duration: 1h}
  - {name: b, requests: {cpu: "2"}, duration: 1h, count: 2}
  - {name: never, requests: {cpu: "8"}}
workloads:
  - name: gang
    replicas: 2
    arrival: {every: 1m}
    duration: 30m
    group: {pods: 2, minCount: 2}
    pod: {requests: {cpu: "1"}}
`, 0)
	byName := map[string]metrics.WorkloadWait{}
	var names []string
	for _, w := range rep.Pods.WaitByWorkload {
		byName[w.Workload] = w
		names = append(names, w.Workload)
	}
	assert.Equal(t, []string{"a", "b", "gang", "never"}, names, "in name order")
	assert.Equal(t, 2, byName["b"].Wait.Count)
	assert.Equal(t, 4, byName["gang"].Wait.Count)
	assert.Equal(t, 0, byName["never"].Wait.Count)
	assert.Equal(t, 1, byName["never"].Pending)
	assert.Equal(t, "never", rep.WorstWaits()[0].Workload, "pending pods first")

	out, err := rep.JSON(true)
	require.NoError(t, err)
	var got struct {
		Pods struct {
			WaitByWorkload []struct {
				Workload string
				Pending  int
			}
		}
		Pending []struct {
			Pod, Workload, Reason, Explanation string
			SinceSeconds                       float64
		}
		Warnings []string
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Len(t, got.Pods.WaitByWorkload, 4)
	require.Len(t, got.Pending, 1)
	assert.Equal(t, "never", got.Pending[0].Pod)
	assert.Contains(t, got.Pending[0].Explanation, "no node could hold it even empty")
	assert.Nil(t, got.Warnings, "no warnings, no key")

	rep.Warnings = []string{"pods[0].spec.hostPort: not modelled"}
	out, err = rep.JSON(false)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"warnings": [`+"\n"+`    "pods[0].spec.hostPort: not modelled"`)
}
