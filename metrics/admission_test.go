package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Pods admission refuses never arrive: they are counted apart, not as
// pending; a gated pod is pending with its gates as the reason.
func TestRejectedAndGatedPods(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "8", memory: 8Gi}}]
resourceQuotas: [{name: q, hard: {pods: "3"}}]
pods:
  - {name: web, requests: {cpu: "1"}, count: 4}
  - {name: held, requests: {cpu: "1"}, schedulingGates: [{name: example.com/wait}]}
`, 0)
	assert.Equal(t, 3, rep.Pods.Arrived)
	assert.Equal(t, 2, rep.Pods.Rejected, "web-3 and held are over the quota")
	assert.Equal(t, 0, rep.Pods.PendingAtEnd)

	rep = record(t, `
nodes: [{name: n, allocatable: {cpu: "8", memory: 8Gi}}]
pods: [{name: held, requests: {cpu: "1"}, schedulingGates: [{name: example.com/wait}]}]
`, 0)
	assert.Equal(t, 1, rep.Pods.PendingAtEnd)
	assert.Equal(t, []string{"held"}, rep.PendingPods)
	found := false
	for _, r := range rep.Unschedulable {
		found = found || r.Reason == "waiting for scheduling gates: [example.com/wait]"
	}
	assert.True(t, found, "%+v", rep.Unschedulable)
}
