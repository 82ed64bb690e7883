package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A pod's own activeDeadlineSeconds is checked as the API server checks
// every pod spec: from 1 to 2147483647 (a Job's spec.activeDeadlineSeconds
// may be 0, a pod's may not). A Pod, and the pod template of every owner,
// with 0, a negative value or one past MaxInt32 is refused, naming the
// field; a valid one loads, with a warning (the kubelet's deadline is not
// modelled).
func TestPodActiveDeadlineSecondsAsTheAPIServer(t *testing.T) {
	owners := map[string]struct{ object, field string }{
		"Pod": {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {activeDeadlineSeconds: %s, containers: [{name: c}]}\n", "Pod default/p: spec.activeDeadlineSeconds"},
		"StatefulSet": {"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 2, selector: {matchLabels: {app: db}},\n" +
			"  template: {metadata: {labels: {app: db}}, spec: {activeDeadlineSeconds: %s, containers: [{name: c}]}}}\n", "StatefulSet default/db: spec.template.spec.activeDeadlineSeconds"},
		"Deployment": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}},\n" +
			"  template: {metadata: {labels: {app: web}}, spec: {activeDeadlineSeconds: %s, containers: [{name: c}]}}}\n", "Deployment default/web: spec.template.spec.activeDeadlineSeconds"},
		"Job": {"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {activeDeadlineSeconds: %s, restartPolicy: Never, containers: [{name: c}]}}}\n",
			"Job default/j: spec.template.spec.activeDeadlineSeconds"},
	}
	for _, kind := range []string{"Pod", "StatefulSet", "Deployment", "Job"} {
		for _, tc := range []struct{ value, err string }{
			{"0", "Invalid value: 0: must be between 1 and 2147483647, inclusive"},
			{"-1", "Invalid value: -1: must be between 1 and 2147483647, inclusive"},
			{"2147483648", "Invalid value: 2147483648: must be between 1 and 2147483647, inclusive"},
			{"1", ""},
			{"2147483647", ""},
		} {
			t.Run(kind+" "+tc.value, func(t *testing.T) {
				o := owners[kind]
				sc, err := ParseFiles([]File{{Name: "n.yaml", Data: []byte(ctlNodes)}, {Name: "o.yaml", Data: []byte(fmt.Sprintf(o.object, tc.value))}})
				if tc.err != "" {
					require.ErrorContains(t, err, "o.yaml: line ")
					require.ErrorContains(t, err, o.field+": "+tc.err)
					return
				}
				require.NoError(t, err)
				found := false
				for _, w := range warningsOf(sc) {
					found = found || strings.Contains(w, ".activeDeadlineSeconds: not modelled")
				}
				require.True(t, found, "%v", warningsOf(sc))
			})
		}
	}
}

// A JobSet's child Job of activeDeadlineSeconds 0 fails as it starts,
// as a Job does (DeadlineExceeded at 0s, no pod made, none failed), and
// its JobSet fails with it (no restarts): no pod of the JobSet ever runs.
func TestJobSetChildJobActiveDeadlineOfZero(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "js.yaml": jobSetWithDeadline("0")})
	require.Empty(t, r.phases())
	for _, name := range []string{"js-w-0", "js-w-1"} {
		require.Equal(t, JobResult{Name: name, Status: "Failed", Reason: "DeadlineExceeded", FinishedAt: "0s"}, r.job(name))
	}
	require.Equal(t, "Failed", r.res.Workloads[0].Status)
	// a deadline of 1 second runs its pods for that second
	r = runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "js.yaml": jobSetWithDeadline("1")})
	require.Len(t, r.phases(), 4)
}

// jobSetWithDeadline is JobSet js of two Jobs (w-0, w-1) of two pods of
// an hour, each Job of the activeDeadlineSeconds given.
func jobSetWithDeadline(seconds string) string {
	return `apiVersion: jobset.x-k8s.io/v1alpha2
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
        activeDeadlineSeconds: ` + seconds + `
        template:
          metadata: {annotations: {gangsim.io/duration: 1h}}
          spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`
}
