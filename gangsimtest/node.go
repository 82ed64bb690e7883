package gangsimtest

import "github.com/gangsim/gangsim/cluster"

// NodeWrapper builds a cluster.Node one field at a time; MakeNode starts
// one and Obj returns it.
type NodeWrapper struct{ node cluster.Node }

// MakeNode starts a node with room for 110 pods and nothing else.
func MakeNode(name string) *NodeWrapper {
	return &NodeWrapper{cluster.Node{Name: name, Allocatable: cluster.NewResources(0, 0, 110)}}
}

// CPU sets the allocatable cpu, a quantity such as "8" or "7500m".
func (w *NodeWrapper) CPU(q string) *NodeWrapper { return w.Resource(cluster.ResourceCPU, q) }

// MilliCPU sets the allocatable cpu in millicores, for amounts a test
// computes.
func (w *NodeWrapper) MilliCPU(m int64) *NodeWrapper {
	w.node.Allocatable.MilliCPU = m
	return w
}

// Memory sets the allocatable memory, a quantity such as "32Gi".
func (w *NodeWrapper) Memory(q string) *NodeWrapper { return w.Resource(cluster.ResourceMemory, q) }

// Pods sets how many pods the node holds (110 unless set).
func (w *NodeWrapper) Pods(n int64) *NodeWrapper {
	w.node.Allocatable.Pods = n
	return w
}

// GPU sets how many GPUs (ResourceGPU) the node has.
func (w *NodeWrapper) GPU(n int64) *NodeWrapper {
	w.node.Allocatable = w.node.Allocatable.With(ResourceGPU, n)
	return w
}

// Resource sets the allocatable amount of any resource, a quantity in
// Kubernetes notation ("2", "500m", "1Gi"). It panics on a malformed
// quantity, naming the node.
func (w *NodeWrapper) Resource(name cluster.ResourceName, q string) *NodeWrapper {
	w.node.Allocatable = w.node.Allocatable.With(name, quantity("node", w.node.Name, name, q))
	return w
}

// Label sets a label.
func (w *NodeWrapper) Label(key, value string) *NodeWrapper {
	w.node.Labels = setKey(w.node.Labels, key, value)
	return w
}

// Rack sets the LabelRack label: the rack the node stands in.
func (w *NodeWrapper) Rack(rack string) *NodeWrapper { return w.Label(LabelRack, rack) }

// Zone sets the LabelZone label: the zone the node is in.
func (w *NodeWrapper) Zone(zone string) *NodeWrapper { return w.Label(LabelZone, zone) }

// Taint adds a taint.
func (w *NodeWrapper) Taint(key, value string, effect cluster.TaintEffect) *NodeWrapper {
	w.node.Taints = append(w.node.Taints, cluster.Taint{Key: key, Value: value, Effect: effect})
	return w
}

// Unschedulable cordons the node.
func (w *NodeWrapper) Unschedulable() *NodeWrapper {
	w.node.Unschedulable = true
	return w
}

// Obj returns a deep copy of the node built so far.
func (w *NodeWrapper) Obj() cluster.Node { return w.node.Clone() }

// setKey sets key in m, making m when it is nil.
func setKey(m map[string]string, key, value string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[key] = value
	return m
}
