package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gangsim/gangsim/examples/internal/clusterstate"
)

// newJob is a Job of 4 pods of 16 cores in team-03's queue, for 2h.
const newJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: my-training
  namespace: team-03
  labels: {kueue.x-k8s.io/queue-name: team-03}
spec:
  parallelism: 4
  completions: 4
  template:
    metadata: {annotations: {gangsim.io/duration: 2h}}
    spec:
      restartPolicy: Never
      containers: [{name: train, image: trainer, resources: {requests: {cpu: "16", memory: 64Gi}}}]
`

// BenchmarkWhen is "when will it start?" as the command answers it, on a
// dump of 1,000 nodes, 5,000 running Jobs (their pods and admitted
// Workloads) and 1,000 pending ones, as kubectl indents it: reading the
// dump, the run, the answer.
func BenchmarkWhen(b *testing.B) {
	dir := b.TempDir()
	data, err := clusterstate.JSON(clusterstate.Defaults(), "    ")
	if err != nil {
		b.Fatal(err)
	}
	state, job := filepath.Join(dir, "state.json"), filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(state, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(job, []byte(newJob), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := run([]string{"-out", "", "-quiet", "-when", job, state}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
