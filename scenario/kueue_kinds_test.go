package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A JobSet's Workload has a pod set per replicated job of every pod its
// Jobs run at once: replicas times min(parallelism, completions). Here
// "w" has 2 replicas of 3 pods (6) and "ps" 1 replica of 2 pods whose
// completions (1) bound it to 1. A queue of 6 cpu cannot hold the 7 pods
// of 1 cpu: the JobSet waits, making no pod.
func TestKueueJobSetPodSetsCountEveryReplica(t *testing.T) {
	js := `---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicatedJobs:
  - name: w
    replicas: 2
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          metadata: {annotations: {gangsim.io/duration: 10s}}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
  - name: ps
    template:
      spec:
        parallelism: 2
        completions: 1
        template:
          metadata: {annotations: {gangsim.io/duration: 10s}}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	res := runKueue(t, kueueQueues("7", "")+kubeNodes(4, 2)+js)
	w := kueueWorkload(t, res, "JobSet js")
	require.Len(t, w.PodSets, 2)
	require.Equal(t, "w", w.PodSets[0].Name)
	require.EqualValues(t, 6, w.PodSets[0].Count)
	require.Equal(t, "ps", w.PodSets[1].Name)
	require.EqualValues(t, 1, w.PodSets[1].Count)
	require.Equal(t, "Finished", w.Status)

	res = runKueue(t, kueueQueues("6", "")+kubeNodes(4, 2)+js)
	w = kueueWorkload(t, res, "JobSet js")
	require.NotEqual(t, "Finished", w.Status)
	require.Empty(t, res.Pods, "the JobSet makes no pod before its admission")
}

// A Job's Workload is one pod set "main" of min(parallelism, completions)
// pods: a Job of parallelism 4 and completions 2 runs 2 pods at once, so
// it asks for 2 cpu and is admitted by a queue of 2.
func TestKueueJobPodSetIsItsPodsAtOnce(t *testing.T) {
	job := `---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  parallelism: 4
  completions: 2
  template:
    metadata: {annotations: {gangsim.io/duration: 10s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	res := runKueue(t, kueueQueues("2", "")+kubeNodes(2, 2)+job)
	w := kueueWorkload(t, res, "Job j")
	require.Len(t, w.PodSets, 1)
	require.EqualValues(t, 2, w.PodSets[0].Count)
	require.Equal(t, "Finished", w.Status)
}
