package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runWithin runs sc and fails the test when the run takes more than limit
// of real time.
func runWithin(t *testing.T, sc *Scenario, limit time.Duration) (*Result, error) {
	t.Helper()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := sc.Run()
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(limit):
		t.Fatalf("the run did not end within %v", limit)
		return nil, nil
	}
}

const hugeIndexedJob = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: big}
spec:
  completionMode: Indexed
  completions: 2147483647
  parallelism: 4
  template:
    metadata: {annotations: {gangsim.io/duration: 1s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`

// An Indexed Job of 2^31-1 completions makes its pods during the run: they
// count against the load's limit of pods, and the run stops with an error
// naming the Job once past it.
func TestControllerPodsCountAgainstTheLimit(t *testing.T) {
	sc, err := Parse("job.yaml", []byte(hugeIndexedJob), WithLimits(Limits{Pods: 1000}))
	require.NoError(t, err)
	_, err = runWithin(t, sc, 30*time.Second)
	require.ErrorIs(t, err, ErrPodLimit)
	require.ErrorContains(t, err, "job.yaml")
	require.ErrorContains(t, err, "Job default/big")
}
