package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gangsim/gangsim/controllers"
)

// workloadObjects are n nodes of 32 cpu, a Deployment of replicas pods and
// a Job of completions pods, parallelism at a time, whose pods run
// duration ("" for none).
func workloadObjects(nodes, replicas, completions, parallelism int, duration string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range nodes {
		fmt.Fprintf(&b, "- {apiVersion: v1, kind: Node, metadata: {name: n%d}, status: {allocatable: {cpu: \"32\", memory: 128Gi}}}\n", i)
	}
	annotations := ""
	if duration != "" {
		annotations = fmt.Sprintf(", annotations: {gangsim.io/duration: %s}", duration)
	}
	fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: %d
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}%s}
      spec: {containers: [{name: c, resources: {requests: {cpu: 500m, memory: 1Gi}}}]}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: etl}
  spec:
    completions: %d
    parallelism: %d
    template:
      metadata: {labels: {app: etl}%s}
      spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1", memory: 2Gi}}}]}
`, replicas, annotations, completions, parallelism, annotations)
	return []byte(b.String())
}

// BenchmarkRunWorkloads runs 1,000 nodes with a Deployment and a Job of
// 20,000 completions, 1,000 at a time. Without run times (20,000
// replicas) the controllers have nothing to do: plain is the same run
// without them. With run times of 10m (2,000 replicas) the Job runs twenty
// rounds while the Deployment's pods are replaced as they end: 60,000
// pods made in all.
func BenchmarkRunWorkloads(b *testing.B) {
	for _, bc := range []struct {
		name     string
		replicas int
		duration string
		plain    bool
	}{{"plain", 20_000, "", true}, {"controllers", 20_000, "", false}, {"controllers-10m", 2000, "10m", false}} {
		b.Run(bc.name, func(b *testing.B) {
			sc, err := Parse("bench.yaml", workloadObjects(1000, bc.replicas, 20_000, 1000, bc.duration))
			if err != nil {
				b.Fatal(err)
			}
			if bc.plain {
				sc.Controllers = nil
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := sc.Run()
				if err != nil {
					b.Fatal(err)
				}
				if bc.duration != "" && res.Jobs[0].Status != string(controllers.JobComplete) {
					b.Fatalf("the Job is %s", res.Jobs[0].Status)
				}
			}
		})
	}
}
