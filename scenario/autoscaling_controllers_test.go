package scenario

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Job of 6 completions, 6 at a time, each pod 1 cpu of the 8 of n1
// for 30m, next to a node group of 4-cpu nodes: two pods find no room at
// 0s, the scan at 10s asks for one node (two pods of 1 cpu fit a 4-cpu
// node), ready at 1m10s; the pods succeed at 30m and 31m10s; the group's
// node, empty from 31m10s, is unneeded at the scan of 31m10s (the Job
// controller's stop at that instant let the pods' ends come first,
// where without controllers they come after the scan of their instant)
// and leaves at 41m10s. The Job completes; the run ends.
func TestAutoscalerWithControllers(t *testing.T) {
	r := runObjects(t, map[string]string{
		"nodes.yaml": `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 32Gi}}
`,
		"job.yaml":    jobYAML("etl", "completions: 6, parallelism: 6", "30m"),
		"groups.yaml": "nodeGroups: [{name: extra, template: {allocatable: {cpu: \"4\", memory: 32Gi}}, max: 3, provisioningDelay: 1m, pricePerHour: 1}]\n",
	})
	assert.Equal(t, JobResult{Name: "etl", Status: "Complete", Succeeded: 6, FinishedAt: "31m10s"}, r.job("etl"))
	var kinds []string
	for _, e := range r.res.Autoscaler {
		kinds = append(kinds, fmt.Sprint(e.At, " ", e.Kind, " ", e.Nodes))
	}
	require.Equal(t, []string{"10s ScaleUp [extra-1]", "1m10s NodeReady [extra-1]", "31m10s NodeUnneeded [extra-1]", "41m10s ScaleDown [extra-1]"}, kinds)
	require.Len(t, r.res.NodeGroups, 1)
	assert.Equal(t, 1, r.res.NodeGroups[0].NodesAdded)
}

// A Deployment's pods run until deleted: the run with a node group still
// ends (as without one, once only the services' pods are left), after
// the group added what the replicas need. 3 replicas of 3 cpu: one fits
// n1 (4 cpu), the scan at 10s asks for two 4-cpu nodes for the other two.
func TestAutoscalerWithServicesEnds(t *testing.T) {
	r := runObjects(t, map[string]string{
		"nodes.yaml": `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 32Gi}}
`,
		"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
`,
		"groups.yaml": "nodeGroups: [{name: extra, template: {allocatable: {cpu: \"4\", memory: 32Gi}}, max: 3, provisioningDelay: 1m}]\n",
	})
	require.NotEmpty(t, r.res.Autoscaler)
	first := r.res.Autoscaler[0]
	assert.Equal(t, AutoscalerEventResult{At: "10s", Kind: "ScaleUp", Group: "extra", Nodes: []string{"extra-1", "extra-2"}, Pods: first.Pods, Reason: first.Reason}, first)
	bound := 0
	for _, p := range r.res.Pods {
		if p.Phase == "Bound" {
			bound++
		}
	}
	assert.Equal(t, 3, bound)
	assert.Equal(t, 2, r.res.NodeGroups[0].MaxNodes)
}
