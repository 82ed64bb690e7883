package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// A run holds the scenario's own pods where admission leaves them as they
// are (a pod with its priority given), and copies the others: the loader
// names each pod's namespace so that a file's pods qualify, and the
// scenario's pods are the same after the run.
func TestRunHoldsTheScenariosPods(t *testing.T) {
	sc, err := Parse("shared.yaml", []byte(`
nodes:
  - {name: n, allocatable: {cpu: "4", memory: 4Gi, pods: 10}}
pods:
  - {name: given, priority: 0, requests: {cpu: 100m}}
  - {name: resolved, requests: {cpu: 100m}}
  - {name: elsewhere, namespace: team, priority: 5, requests: {cpu: 100m}}
`))
	require.NoError(t, err)
	for _, p := range sc.Pods {
		require.NotEmpty(t, p.Pod.Namespace, "pod %s", p.Pod.Name)
	}
	require.Equal(t, cluster.DefaultNamespace, sc.Pods[0].Pod.Namespace)
	require.Equal(t, "team", sc.Pods[2].Pod.Namespace)
	before := make([]cluster.Pod, len(sc.Pods))
	for i := range sc.Pods {
		before[i] = sc.Pods[i].Pod
	}
	held := map[string]*cluster.Pod{}
	res, err := sc.Run(gangsim.WithObserverOf(func(e gangsim.Event) { held[e.Pod.Pod().Name] = e.Pod.Pod() }, gangsim.EventPodBound))
	require.NoError(t, err)
	require.Len(t, res.Pods, 3)
	require.Same(t, &sc.Pods[0].Pod, held["given"], "a pod with its priority given is held as the scenario has it")
	require.Same(t, &sc.Pods[2].Pod, held["elsewhere"])
	require.NotSame(t, &sc.Pods[1].Pod, held["resolved"], "a pod whose priority admission resolves is a copy")
	require.NotNil(t, held["resolved"].Priority)
	require.Nil(t, sc.Pods[1].Pod.Priority, "and the scenario's stays as given")
	for i := range sc.Pods {
		require.Equal(t, before[i], sc.Pods[i].Pod, "a run never changes the scenario's pods")
	}
}
