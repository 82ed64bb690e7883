package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skippedKinds holds one object of each class of kind not read, worked
// out by hand: a JobSet of 2 Jobs of 4 pods and 1 of 1 pod (9), a
// LeaderWorkerSet of 2 groups of 4 (8), a RayCluster's head and 2 groups
// of 2 hosts (5), an MPIJob's launcher and 4 workers (5), a Volcano Job
// of tasks 1 and 3 (4), a CronJob (pods on a schedule: uncounted); a
// HorizontalPodAutoscaler (skipped, may matter) and a Service and a Role
// (never matter).
const skippedKinds = `
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template: {spec: {parallelism: 4, completions: 4, template: {spec: {containers: [{name: c}]}}}}
    - name: driver
      template: {spec: {template: {spec: {containers: [{name: c}]}}}}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec: {replicas: 2, leaderWorkerTemplate: {size: 4}}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
  headGroupSpec: {}
  workerGroupSpecs: [{groupName: gpu, replicas: 2, minReplicas: 1, numOfHosts: 2}]
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpi}
spec: {mpiReplicaSpecs: {Launcher: {replicas: 1}, Worker: {replicas: 4}}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vc}
spec: {minAvailable: 4, tasks: [{name: ps, replicas: 1}, {name: worker, replicas: 3}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec: {schedule: "0 0 * * *"}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
  containers: [{name: c}]
`

func TestSkippedWorkloads(t *testing.T) {
	sc, err := Parse("gpu.yaml", []byte(skippedKinds))
	require.NoError(t, err)
	assert.Equal(t, []SkippedWorkload{
		{Kind: "CronJob", Objects: 1, Pods: 0, Uncounted: 1, First: "gpu.yaml: CronJob nightly"},
		{Kind: "Job (batch.volcano.sh)", Objects: 1, Pods: 4, First: "gpu.yaml: Job vc"},
		{Kind: "JobSet", Objects: 1, Pods: 9, First: "gpu.yaml: JobSet train"},
		{Kind: "LeaderWorkerSet", Objects: 1, Pods: 8, First: "gpu.yaml: LeaderWorkerSet vllm"},
		{Kind: "MPIJob", Objects: 1, Pods: 5, First: "gpu.yaml: MPIJob mpi"},
		{Kind: "RayCluster", Objects: 1, Pods: 5, First: "gpu.yaml: RayCluster ray"},
	}, sc.Skipped)
	assert.Equal(t, "6 objects that make pods were skipped, not read by the simulator (CronJob 1, Job (batch.volcano.sh) 1, JobSet 1, "+
		"LeaderWorkerSet 1, MPIJob 1, RayCluster 1): at least 31 pods missing from the figures, and those of 1 object that do not say how many",
		SkippedNote(sc.Skipped))

	// the warnings in three groups: pods missing, approximations, and
	// the kinds that never matter in one line
	var lines []string
	for _, w := range sc.Warnings {
		lines = append(lines, w.String())
	}
	require.Len(t, lines, 9, "%q", lines)
	assert.Equal(t, "CronJob: makes pods that the simulation leaves out: kind not read, objects skipped (1 object, first gpu.yaml: CronJob nightly)", lines[0])
	assert.Contains(t, lines[5], "RayCluster: makes pods")
	assert.Equal(t, "HorizontalPodAutoscaler: kind not modelled, objects skipped (1 object, first gpu.yaml: HorizontalPodAutoscaler web)", lines[6])
	assert.Contains(t, lines[7], "Pod spec.volumes[].persistentVolumeClaim")
	assert.Equal(t, "Role, Service: kinds that never affect scheduling, objects skipped (2 objects, first gpu.yaml: Role reader)", lines[8])
}

// The same objects in a List, which is read item by item and pruned as
// it goes, count the same.
func TestSkippedWorkloadsInAList(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "a"}, "spec": {"replicas": 3, "leaderWorkerTemplate": {"size": 2}}},
 {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}, "spec": {"rayClusterSpec": {"workerGroupSpecs": [{"replicas": 1}]}}},
 {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "pt"}, "spec": {"pytorchReplicaSpecs": {"Master": {}, "Worker": {"replicas": "x"}}}}
]}`
	sc, err := Parse("dump.json", []byte(list))
	require.NoError(t, err)
	assert.Equal(t, []SkippedWorkload{
		{Kind: "LeaderWorkerSet", Objects: 1, Pods: 6, First: "dump.json: LeaderWorkerSet a"},
		{Kind: "PyTorchJob", Objects: 1, Pods: 1, Uncounted: 1, First: "dump.json: PyTorchJob pt"},
		{Kind: "RayJob", Objects: 1, Pods: 3, First: "dump.json: RayJob j"}, // head, a worker, the submitter
	}, sc.Skipped)
	assert.Empty(t, SkippedNote(nil))
}
