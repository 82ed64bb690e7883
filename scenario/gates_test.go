package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// spec.schedulingGates of a Pod and of a workload's pod template are
// read, not warned about; a scenario file's event removes the gates of a
// pod an object made, at its time.
func TestKubeSchedulingGatesHoldUntilTheEvent(t *testing.T) {
	objects := File{Name: "objects.yaml", Data: []byte(`apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "8", memory: 8Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: ml}
spec:
  schedulingGates: [{name: example.com/admission}]
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      schedulingGates: [{name: example.com/wait}]
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
`)}
	sc, err := ParseFiles([]File{objects})
	require.NoError(t, err)
	require.Empty(t, sc.Warnings, "schedulingGates are modelled")
	require.Equal(t, []string{"example.com/admission"}, sc.Pods[0].Pod.SchedulingGates)
	res, err := sc.Run()
	require.NoError(t, err)
	for _, p := range res.Pods {
		require.Equal(t, gangsim.PhasePending, p.Phase, p.Name)
		require.Contains(t, p.Reason, "waiting for scheduling gates: [example.com/")
	}

	web0 := sc.Pods[1].Pod.Key().Display()
	events := File{Name: "events.yaml", Data: []byte("events: [{at: 2m, ungatePod: ml/gated}, {at: 3m, ungatePod: " + web0 + "}]\n")}
	sc, err = ParseFiles([]File{objects, events})
	require.NoError(t, err)
	res, err = sc.Run()
	require.NoError(t, err)
	require.Equal(t, []gangsim.Phase{gangsim.PhaseBound, gangsim.PhaseBound, gangsim.PhasePending},
		[]gangsim.Phase{res.Pods[0].Phase, res.Pods[1].Phase, res.Pods[2].Phase})
	require.Equal(t, "3m0s", res.Stats.SimulatedTime)
}
