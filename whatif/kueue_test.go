package whatif_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// kueueJobs is a ClusterQueue of 4 cores and two Jobs naming its
// LocalQueue: a (3 pods at a time, 6 in all, 10m each) and b (2 pods,
// 5m): b waits for a's last pods to end, at 20m.
const kueueJobs = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: a, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  parallelism: 3
  completions: 6
  template:
    metadata: {annotations: {gangsim.io/duration: 10m}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: b, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  parallelism: 2
  template:
    metadata: {annotations: {gangsim.io/duration: 5m}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`

// A run with Kueue has its section: Kueue's numbers from the run's record.
func TestRunKueue(t *testing.T) {
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "k.yaml", Data: []byte(kueueJobs)}})
	require.NoError(t, err)
	rep, err := whatif.Run(sc, nil)
	require.NoError(t, err)
	k := rep.Kueue
	require.NotNil(t, k)
	assert.Equal(t, 2, k.Workloads)
	assert.Equal(t, 2, k.Admitted)
	require.Len(t, k.ClusterQueues, 1)
	require.Len(t, k.LocalQueues, 1)
	assert.Equal(t, "default/lq", k.LocalQueues[0].Name)
	assert.Equal(t, 2, k.LocalQueues[0].Workloads, "the workloads found their LocalQueue")
	// b waits for quota until a's second wave ends (20m and a few
	// milliseconds of Kueue's reaction); both pods sets bound at once
	assert.InDelta(t, (20 * time.Minute).Seconds(), k.TimeToAdmission.Max.Seconds(), 1)
	assert.Equal(t, 2, k.WaitForNodes.Count)
	assert.Less(t, k.WaitForNodes.Max, time.Second)
	assert.InDelta(t, 4, k.ClusterQueues[0].Quota[0].Nominal, 0)
	assert.InDelta(t, 3, k.ClusterQueues[0].Quota[0].UsedPeak, 0)
	assert.GreaterOrEqual(t, rep.End, 25*time.Minute)
}
