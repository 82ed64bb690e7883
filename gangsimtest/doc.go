// Package gangsimtest helps write tests of scheduling policies against
// gangsim, as net/http/httptest helps test HTTP handlers.
//
// Its builders are in the style of kube-scheduler's testing wrappers:
// MakeNode, MakePod, MakeGang, MakeBasicGroup, MakeComposite and
// MakeBasicComposite start an object, each method sets one field and
// returns the wrapper, and Obj returns the object, so that one line
// builds one object:
//
//	gangsimtest.MakeNode("n1").CPU("8").Memory("32Gi").Rack("r1").Obj()
//	gangsimtest.MakePod("p").CPU("500m").Memory("1Gi").Group("g").Obj()
//	gangsimtest.MakeGang("g", 4).Rack().Priority(10).Obj()
//
// Its checks say where pods ended: Placements, RequireOn, RequireNotPlaced
// and NodeLabels read a Cluster, which *gangsim.Scheduler is. The package
// does not import gangsim, so that gangsim's own tests use it too.
//
// For a test of one plugin, NodeInfo builds a node with pods running on
// it as the plugin's Filter or Score receives it, without a scheduler;
// FilterAll and ScoreAll run a plugin's filtering or scoring points over
// a snapshot as one attempt does, and return the verdicts or final scores
// by node.
//
// # Quantities and mistakes
//
// Quantities are Kubernetes quantity strings ("500m", "2", "1Gi"), parsed
// as the scheduler parses them (cluster.ParseResourceQuantity). A
// malformed one is a mistake in the test, so the method given it panics
// at once, naming the object, the resource and the text, as
// kube-scheduler's wrappers do through resource.MustParse. Obj checks
// nothing else: the scheduler does, so that a test of a refusal can build
// the refused object. A field no method sets (affinity, spread
// constraints, an owner) is set on the value Obj returns.
//
// # Defaults and copies
//
// A new node has room for 110 pods (the kubelet's default) and nothing
// else; a new pod requests nothing, in the default namespace. Obj returns
// a deep copy, so a wrapper may be changed and built again without
// changing what it built before.
//
// # Determinism
//
// The same calls build equal objects. The checks read the cluster in node
// name order and report in pod key order, so that their output and their
// failure messages are the same from run to run.
package gangsimtest

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
)

// The label keys the rest of the project uses for topology domains.
const (
	// LabelRack is the node label naming racks in the scenario files,
	// examples and metrics of the project.
	LabelRack = "rack"
	// LabelZone is the Kubernetes well-known label of zones.
	LabelZone = "topology.kubernetes.io/zone"
)

// ResourceGPU is the extended resource GPU sets on nodes and pods.
const ResourceGPU cluster.ResourceName = "nvidia.com/gpu"

// quantity parses text as an amount of the named resource, or panics
// naming the object (kind and name) it was for: a malformed quantity in a
// test is the test's mistake, found when the object is built.
func quantity(kind, object string, name cluster.ResourceName, text string) int64 {
	v, err := cluster.ParseResourceQuantity(name, text)
	if err != nil {
		panic(fmt.Sprintf("gangsimtest: %s %q: %s: %v", kind, object, name, err))
	}
	return v
}
