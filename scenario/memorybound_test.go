package scenario

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

const bigStatefulSet = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: default}
spec:
  replicas: 10000000
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
`

// A StatefulSet of ten million replicas is within the pod limit but not
// within the memory a load may take: the load fails at once, naming the
// object and the field, instead of exhausting the machine's memory (a
// pod needs about 3 KiB at a run's peak). The bound is set here: the
// default is the machine's memory.
func TestLoadNeedingMoreMemoryThanAllowedFails(t *testing.T) {
	_, err := Parse("web.yaml", []byte(bigStatefulSet), WithLimits(Limits{Memory: 4 << 30}))
	require.Error(t, err)
	require.Contains(t, err.Error(), "web.yaml")
	require.Contains(t, err.Error(), "StatefulSet default/web")
	require.Contains(t, err.Error(), "spec.replicas")
	require.Contains(t, err.Error(), "10,000,000 more pods would make 10,000,000 pods and 1 nodes in all inputs, which need about 28.6 GiB of memory at a run's peak")
	require.Contains(t, err.Error(), "more than the 4.0 GiB the load may take")
}

// Nodes count against the memory bound too, and what stays within it
// loads.
func TestMemoryBoundCountsNodesAndPods(t *testing.T) {
	nodes := "nodes:\n- {name: n, count: 1000, allocatable: {cpu: \"8\", memory: 32Gi}}\n"
	_, err := Parse("n.yaml", []byte(nodes), WithLimits(Limits{Memory: 1000*4<<10 - 1}))
	require.ErrorContains(t, err, "1,000 more nodes would make 0 pods and 1,000 nodes")
	_, err = Parse("n.yaml", []byte(nodes), WithLimits(Limits{Memory: 1000 * 4 << 10}))
	require.NoError(t, err)
}

// The default bound is the machine's memory where the system says it.
func TestDefaultMemoryBoundIsTheMachines(t *testing.T) {
	if runtime.GOOS != "linux" {
		require.Zero(t, DefaultLimits().Memory)
		return
	}
	m := DefaultLimits().Memory
	require.Positive(t, m)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	require.Greater(t, m, int64(ms.Sys), "the machine has more memory than this process holds")
}
