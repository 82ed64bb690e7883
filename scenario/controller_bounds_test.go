package scenario

import (
	"fmt"
	"strings"
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

// An Indexed Job of 2^31-1 completions must make that many pods: it is
// refused at load, naming the Job and the field, against the load's limit
// of pods (it ran for hours before that limit stopped it).
func TestJobCompletionsCountAgainstThePodLimit(t *testing.T) {
	_, err := Parse("job.yaml", []byte(hugeIndexedJob))
	require.Error(t, err)
	require.ErrorContains(t, err, "job.yaml")
	require.ErrorContains(t, err, "Job default/big: spec.completions: 2,147,483,647 more pods would go past the limit of 10,000,000 pods")
}

// Pods the controllers make during a run count against the same limit:
// two Jobs of 600 completions each fit the limit of 1,000 alone, not
// together; the run stops with an error naming the Job whose pod goes
// past it.
func TestControllerPodsCountAgainstTheLimit(t *testing.T) {
	job := func(name string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `}
spec:
  completions: 600
  parallelism: 4
  template:
    metadata: {annotations: {gangsim.io/duration: 1s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	}
	sc, err := Parse("jobs.yaml", []byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
`+job("a")+"---\n"+job("b")), WithLimits(Limits{Pods: 1000}))
	require.NoError(t, err)
	_, err = runWithin(t, sc, 30*time.Second)
	require.ErrorIs(t, err, ErrPodLimit)
	require.ErrorContains(t, err, "jobs.yaml")
	require.ErrorContains(t, err, "Job default/")
}

// A load holds at most Limits.Objects Kubernetes objects: a file of many
// tiny documents (65 MB of one-line Namespaces took 2.7 GB and more) is
// refused, naming the file, in a stream or in a List alike.
func TestObjectsLimit(t *testing.T) {
	var b strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns%d}\n", i)
	}
	_, err := Parse("ns.yaml", []byte(b.String()), WithLimits(Limits{Objects: 1000}))
	require.Error(t, err)
	require.ErrorContains(t, err, "ns.yaml: more than 1,000 Kubernetes objects in all inputs, the limit of a load")
	_, err = Parse("ns.yaml", []byte(b.String()), WithLimits(Limits{Objects: 1001}))
	require.NoError(t, err)

	var items []string
	for i := range 1001 {
		items = append(items, fmt.Sprintf(`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns%d"}}`, i))
	}
	list := `{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(items, ",\n") + "]}\n"
	_, err = Parse("list.json", []byte(list), WithLimits(Limits{Objects: 1000}))
	require.ErrorContains(t, err, "list.json: more than 1,000 Kubernetes objects")
	require.Equal(t, 1_000_000, DefaultLimits().Objects)
}
