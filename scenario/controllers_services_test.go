package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/controllers"
)

// deploymentYAML is a Deployment of two replicas whose pods run an hour.
const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {gangsim.io/duration: 1h}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`

// batchPod is a bare pod that runs 90 minutes: work that keeps the run
// going while services replace their pods.
const batchPod = `apiVersion: v1
kind: Pod
metadata: {name: batch, annotations: {gangsim.io/duration: 90m}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`

// A Deployment's pod that ends is replaced by a new pod, the next name;
// one deleted too. Its pods ending do not keep the run going: it stops
// when the rest of the work is done.
func TestDeploymentReplacesItsPods(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "web.yaml": deploymentYAML, "batch.yaml": batchPod,
		"events.yaml": "events: [{at: 10m, deletePod: web-76955f9899-1}]\n"})
	rs := "default/web-76955f9899-"
	require.Equal(t, []string{
		"0s PodBound default/batch", "0s PodBound " + rs + "0", "0s PodBound " + rs + "1",
		"10m0s PodDeleted " + rs + "1", "10m0s PodBound " + rs + "2",
		"1h0m0s PodSucceeded " + rs + "0", "1h0m0s PodBound " + rs + "3",
		"1h10m0s PodSucceeded " + rs + "2", "1h10m0s PodBound " + rs + "4",
		"1h30m0s PodSucceeded default/batch",
	}, r.named("PodBound", "PodSucceeded", "PodDeleted"))
	require.Equal(t, "1h30m0s", r.res.Stats.SimulatedTime, "the run stops when the batch pod ends, not at 2h when web-3 would")
	ph := r.phases()
	require.Equal(t, map[string]string{"web-76955f9899-0": "Succeeded n1", "web-76955f9899-1": "Deleted ",
		"batch": "Succeeded n1", "web-76955f9899-2": "Succeeded n1", "web-76955f9899-3": "Bound n1", "web-76955f9899-4": "Bound n1"}, ph)
	require.Empty(t, r.res.Jobs)
}

// A StatefulSet makes the pod of an ordinal again under the same name,
// with the same labels.
func TestStatefulSetKeepsItsOrdinals(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "batch.yaml": batchPod, "db.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}, annotations: {gangsim.io/duration: 40m}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`})
	require.Equal(t, []string{
		"0s PodArrived default/batch", "0s PodArrived default/db-0", "0s PodArrived default/db-1",
		// the controller acts on each pod as it ends
		"40m0s PodSucceeded default/db-0", "40m0s PodArrived default/db-0",
		"40m0s PodSucceeded default/db-1", "40m0s PodArrived default/db-1",
		"1h20m0s PodSucceeded default/db-0", "1h20m0s PodArrived default/db-0",
		"1h20m0s PodSucceeded default/db-1", "1h20m0s PodArrived default/db-1",
		"1h30m0s PodSucceeded default/batch",
	}, r.named("PodArrived", "PodSucceeded"))
	require.Len(t, r.res.Pods, 3, "db-0 and db-1 are listed once, as they are at the end")
	require.Equal(t, map[string]string{"db-0": "Bound n1", "db-1": "Bound n1", "batch": "Succeeded n1"}, r.phases())
}

// A DaemonSet makes a new pod on the node of one that ends, and lets go
// of the pod of a node that is removed.
func TestDaemonSetKeepsOnePodPerNode(t *testing.T) {
	r := runObjects(t, map[string]string{"batch.yaml": batchPod, "nodes.yaml": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "8"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b}, status: {allocatable: {cpu: "8"}}}
`, "agent.yaml": `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}, annotations: {gangsim.io/duration: 1h}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
`, "events.yaml": "events: [{at: 10m, removeNode: b}]\n"})
	require.Equal(t, []string{
		"0s PodBound default/agent-a node=a", "0s PodBound default/agent-b node=b",
		"1h0m0s PodBound default/agent-a-1 node=a",
	}, nodeBindings(r))
	require.Contains(t, r.named("PodDeleted"), "10m0s PodDeleted default/agent-b")
	ph := r.phases()
	require.Equal(t, "Deleted ", ph["agent-b"], "not pending for ever on a node that is gone")
	require.Equal(t, "Succeeded a", ph["agent-a"])
	require.Equal(t, "Bound a", ph["agent-a-1"])
}

// nodeBindings are the PodBound events of pods other than batch, with
// their node.
func nodeBindings(r ctlResult) []string {
	var out []string
	for _, e := range r.events {
		if f := splitEvent(e); len(f) == 4 && f[1] == "PodBound" && f[2] != "default/batch" {
			out = append(out, e)
		}
	}
	return out
}

// Services alone keep nothing going: a Deployment whose pods run an hour,
// with nothing else to do, is settled at time 0, its pods bound.
func TestServicesAloneDoNotKeepTheRunGoing(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "web.yaml": deploymentYAML})
	require.Equal(t, "0s", r.res.Stats.SimulatedTime)
	require.Equal(t, map[string]string{"web-76955f9899-0": "Bound n1", "web-76955f9899-1": "Bound n1"}, r.phases())
}

// A ReplicaSet's replacement pods take the next name: with a name of 251
// characters, <name>-9 is 253 characters long, Kubernetes' limit, and is
// made; <name>-10, one more, is not: the run stops there and says why.
func TestReplicaSetStopsAtTheLongestPodName(t *testing.T) {
	name := strings.Repeat("r", 251)
	rs := `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ` + name + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {gangsim.io/duration: 1m}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`
	sc, err := ParseFiles([]File{{Name: "nodes.yaml", Data: []byte(ctlNodes)}, {Name: "rs.yaml", Data: []byte(rs)}, {Name: "batch.yaml", Data: []byte(batchPod)}})
	require.NoError(t, err)
	var arrived []string
	_, err = sc.Run(gangsim.WithObserver(func(e gangsim.Event) {
		if e.Kind == gangsim.EventPodArrived {
			arrived = append(arrived, string(e.PodKey()))
		}
	}))
	require.ErrorIs(t, err, controllers.ErrNameTooLong)
	require.Contains(t, err.Error(), "(pod "+name+"-10): at 10m0s: the name is longer than 253 characters")
	require.Equal(t, "default/"+name+"-9", arrived[len(arrived)-1])
	require.Len(t, name+"-9", 253)
}
