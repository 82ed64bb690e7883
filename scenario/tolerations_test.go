package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gkeGPUs is a GKE node pool of GPU nodes, tainted as GKE taints them,
// and a Deployment of 2 pods of one GPU that does not tolerate the taint
// (manifests never do: GKE's API server adds it). nodes is the node's
// labels.
func gkeGPUs(labels string) string {
	return `apiVersion: v1
kind: Node
metadata: {name: gke-gpu-0, labels: ` + labels + `}
spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
status: {allocatable: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "4", pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  replicas: 2
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
`
}

func phases(t *testing.T, sc *Scenario) []string {
	t.Helper()
	res, err := sc.Run()
	require.NoError(t, err)
	var out []string
	for _, p := range res.Pods {
		out = append(out, p.Name+" "+string(p.Phase))
	}
	return out
}

// A GKE node turns the admission on: the pods tolerate the GPU taint and
// run; the warning says it was turned on. Off (by the option, or without
// GKE's label), they stay pending, and a warning says why and how to turn
// it on.
func TestExtendedResourceToleration(t *testing.T) {
	sc, err := Parse("gke.yaml", []byte(gkeGPUs("{cloud.google.com/gke-nodepool: gpu-pool}")))
	require.NoError(t, err)
	assert.True(t, sc.ExtendedResourceToleration)
	require.Len(t, sc.Warnings, 1)
	assert.Contains(t, sc.Warnings[0].String(), "Node metadata.labels[cloud.google.com/gke-nodepool]: GKE's nodes: its API server's ExtendedResourceToleration admission is on")
	assert.Equal(t, []string{"infer-69fdbbf6f7-0 Bound", "infer-69fdbbf6f7-1 Bound"}, phases(t, sc))

	for name, sc := range map[string]func() (*Scenario, error){
		"option": func() (*Scenario, error) {
			return Parse("gke.yaml", []byte(gkeGPUs("{cloud.google.com/gke-nodepool: gpu-pool}")), WithExtendedResourceToleration(false))
		},
		"not GKE": func() (*Scenario, error) {
			return Parse("eks.yaml", []byte(gkeGPUs("{eks.amazonaws.com/nodegroup: gpu}")))
		},
	} {
		s, err := sc()
		require.NoError(t, err, name)
		assert.False(t, s.ExtendedResourceToleration, name)
		require.Len(t, s.Warnings, 1, name)
		assert.Contains(t, s.Warnings[0].String(), "Pod spec.tolerations: does not tolerate the taint of the extended resource it requests (nvidia.com/gpu)", name)
		assert.Contains(t, s.Warnings[0].String(), "-extended-resource-toleration", name)
		assert.Contains(t, s.Warnings[0].String(), "Deployment default/infer", name)
		assert.Equal(t, []string{"infer-69fdbbf6f7-0 Pending", "infer-69fdbbf6f7-1 Pending"}, phases(t, s), name)
	}

	// the warning names the file the pod comes from, of several
	two, err := ParseFiles([]File{{Name: "ns.yaml", Data: []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n")},
		{Name: "eks.yaml", Data: []byte(gkeGPUs("{}"))}})
	require.NoError(t, err)
	require.Len(t, two.Warnings, 1)
	assert.Contains(t, two.Warnings[0].String(), "eks.yaml: Deployment default/infer")
	assert.NotContains(t, two.Warnings[0].String(), "ns.yaml", "the file of the pod, not the scenario of both")

	// a scenario file turns it on, and two files that disagree are an error
	on, err := ParseFiles([]File{{Name: "eks.yaml", Data: []byte(gkeGPUs("{}"))}, {Name: "a.yaml", Data: []byte("admission: {extendedResourceToleration: true}\n")}})
	require.NoError(t, err)
	assert.True(t, on.ExtendedResourceToleration)
	assert.Empty(t, on.Warnings)
	_, err = ParseFiles([]File{{Name: "a.yaml", Data: []byte("admission: {extendedResourceToleration: true}\n")},
		{Name: "b.yaml", Data: []byte("admission: {extendedResourceToleration: false}\n")}})
	require.EqualError(t, err, "invalid scenario: b.yaml: line 1: admission.extendedResourceToleration: false here, true in a.yaml")
}
