package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skippedKinds holds one object of each class of kind not read, worked
// out by hand: a TFJob's PS and 4 workers (5), a RayService's head and
// 2 groups of 2 hosts (5), a PaddleJob's master and 3 workers (4), a
// SparkApplication's driver and 2 executors (3), a CronJob (pods on a
// schedule: uncounted); a HorizontalPodAutoscaler (skipped, may matter)
// and a Service and a Role (never matter).
const skippedKinds = `
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf}
spec: {tfReplicaSpecs: {PS: {replicas: 1}, Worker: {replicas: 4}}}
---
apiVersion: ray.io/v1
kind: RayService
metadata: {name: serve}
spec:
  rayClusterConfig:
    headGroupSpec: {}
    workerGroupSpecs: [{groupName: gpu, replicas: 2, minReplicas: 1, numOfHosts: 2}]
---
apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata: {name: pd}
spec: {paddleReplicaSpecs: {Master: {}, Worker: {replicas: 3}}}
---
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: spark}
spec: {executor: {instances: 2}}
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
		{Kind: "PaddleJob", Objects: 1, Pods: 4, First: "gpu.yaml: PaddleJob pd"},
		{Kind: "RayService", Objects: 1, Pods: 5, First: "gpu.yaml: RayService serve"},
		{Kind: "SparkApplication", Objects: 1, Pods: 3, First: "gpu.yaml: SparkApplication spark"},
		{Kind: "TFJob", Objects: 1, Pods: 5, First: "gpu.yaml: TFJob tf"},
	}, sc.Skipped)
	assert.Equal(t, "5 objects that make pods were skipped, not read by the simulator (CronJob 1, PaddleJob 1, RayService 1, "+
		"SparkApplication 1, TFJob 1): at least 17 pods missing from the figures, and those of 1 object that do not say how many",
		SkippedNote(sc.Skipped))

	// the warnings in three groups: pods missing, approximations, and
	// the kinds that never matter in one line
	var lines []string
	for _, w := range sc.Warnings {
		lines = append(lines, w.String())
	}
	require.Len(t, lines, 8, "%q", lines)
	assert.Equal(t, "CronJob: makes pods that the simulation leaves out: kind not read, objects skipped (1 object, first gpu.yaml: CronJob nightly)", lines[0])
	assert.Contains(t, lines[4], "TFJob: makes pods")
	assert.Equal(t, "HorizontalPodAutoscaler: kind not modelled, objects skipped (1 object, first gpu.yaml: HorizontalPodAutoscaler web)", lines[5])
	assert.Contains(t, lines[6], "Pod spec.volumes[].persistentVolumeClaim")
	assert.Equal(t, "Role, Service: kinds that never affect scheduling, objects skipped (2 objects, first gpu.yaml: Role reader)", lines[7])
}

// The same objects in a List, which is read item by item and pruned as
// it goes, count the same.
func TestSkippedWorkloadsInAList(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "a"}, "spec": {"tfReplicaSpecs": {"PS": {}, "Worker": {"replicas": 3}}}},
 {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "j"}, "spec": {"rayClusterConfig": {"workerGroupSpecs": [{"replicas": 1}]}}},
 {"apiVersion": "kubeflow.org/v1", "kind": "PaddleJob", "metadata": {"name": "pt"}, "spec": {"paddleReplicaSpecs": {"Master": {}, "Worker": {"replicas": "x"}}}}
]}`
	sc, err := Parse("dump.json", []byte(list))
	require.NoError(t, err)
	assert.Equal(t, []SkippedWorkload{
		{Kind: "PaddleJob", Objects: 1, Pods: 1, Uncounted: 1, First: "dump.json: PaddleJob pt"},
		{Kind: "RayService", Objects: 1, Pods: 2, First: "dump.json: RayService j"}, // the head and a worker
		{Kind: "TFJob", Objects: 1, Pods: 4, First: "dump.json: TFJob a"},
	}, sc.Skipped)
	assert.Empty(t, SkippedNote(nil))
}
