package whatif_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// Jobs of activeDeadlineSeconds 0, one alone and the two Jobs of a
// JobSet's replicated job, fail as they start in every variant of a
// comparison, as in the base: no variant runs a pod of them, nodes added
// or not. A Job of a deadline of an hour beside them runs its 2 pods.
func TestVariantsOfJobsFailingAtStart(t *testing.T) {
	const objects = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: now}
spec: {activeDeadlineSeconds: 0, parallelism: 2, completions: 4,
  template: {metadata: {annotations: {gangsim.io/duration: 1h}}, spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: later}
spec: {activeDeadlineSeconds: 3600, parallelism: 2, completions: 2,
  template: {metadata: {annotations: {gangsim.io/duration: 10m}}, spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs:
  - name: w
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        activeDeadlineSeconds: 0
        template:
          metadata: {annotations: {gangsim.io/duration: 1h}}
          spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "objects.yaml", Data: []byte(objects)}})
	require.NoError(t, err)
	c, err := whatif.Compare(sc, variants(t, "base", "add:n1:2", "remove:n1:1"), whatif.Options{Workers: 1})
	require.NoError(t, err)
	require.Len(t, c.Variants, 3)
	for _, v := range c.Variants {
		want := 2 // later's pods
		if v.Variant == "remove:n1:1" {
			want = 0 // no node
		}
		require.Equal(t, want, v.Summary.PodsPlaced, v.Variant)
		require.Equal(t, 2, v.Summary.Pods, v.Variant)
	}
}
