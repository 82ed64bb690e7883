package gangsimtest

import "github.com/gangsim/gangsim/cluster"

// PodWrapper builds a cluster.Pod one field at a time; MakePod starts one
// and Obj returns it.
type PodWrapper struct {
	pod      cluster.Pod // its Priority is set by Obj, from priority
	priority priority
}

// MakePod starts a pod in the default namespace that requests nothing.
func MakePod(name string) *PodWrapper { return &PodWrapper{pod: cluster.Pod{Name: name}} }

// Namespace sets the namespace.
func (w *PodWrapper) Namespace(ns string) *PodWrapper {
	w.pod.Namespace = ns
	return w
}

// CPU sets the cpu request, a quantity such as "500m" or "2".
func (w *PodWrapper) CPU(q string) *PodWrapper { return w.Resource(cluster.ResourceCPU, q) }

// MilliCPU sets the cpu request in millicores, for amounts a test
// computes.
func (w *PodWrapper) MilliCPU(m int64) *PodWrapper {
	w.pod.Requests.MilliCPU = m
	return w
}

// Memory sets the memory request, a quantity such as "1Gi".
func (w *PodWrapper) Memory(q string) *PodWrapper { return w.Resource(cluster.ResourceMemory, q) }

// GPU sets how many GPUs (ResourceGPU) the pod requests.
func (w *PodWrapper) GPU(n int64) *PodWrapper {
	w.pod.Requests = w.pod.Requests.With(ResourceGPU, n)
	return w
}

// Resource sets the request of any resource, a quantity in Kubernetes
// notation. It panics on a malformed quantity, naming the pod.
func (w *PodWrapper) Resource(name cluster.ResourceName, q string) *PodWrapper {
	w.pod.Requests = w.pod.Requests.With(name, quantity("pod", w.pod.Name, name, q))
	return w
}

// Priority sets the priority as given (spec.priority).
func (w *PodWrapper) Priority(p int32) *PodWrapper {
	w.priority = priority{p, true}
	return w
}

// PriorityClass sets the priority class name.
func (w *PodWrapper) PriorityClass(name string) *PodWrapper {
	w.pod.PriorityClassName = name
	return w
}

// PreemptionPolicy sets the preemption policy.
func (w *PodWrapper) PreemptionPolicy(p cluster.PreemptionPolicy) *PodWrapper {
	w.pod.PreemptionPolicy = p
	return w
}

// Label sets a label.
func (w *PodWrapper) Label(key, value string) *PodWrapper {
	w.pod.Labels = setKey(w.pod.Labels, key, value)
	return w
}

// Group makes the pod a member of the named PodGroup (in its namespace).
func (w *PodWrapper) Group(name string) *PodWrapper {
	w.pod.PodGroup = name
	return w
}

// NodeSelector adds a key and value to the node selector.
func (w *PodWrapper) NodeSelector(key, value string) *PodWrapper {
	w.pod.NodeSelector = setKey(w.pod.NodeSelector, key, value)
	return w
}

// Toleration adds a toleration of the taint key=value:effect (operator
// Equal), the one NodeWrapper.Taint with the same arguments adds.
func (w *PodWrapper) Toleration(key, value string, effect cluster.TaintEffect) *PodWrapper {
	w.pod.Tolerations = append(w.pod.Tolerations, cluster.Toleration{Key: key, Operator: cluster.TolerationEqual, Value: value, Effect: effect})
	return w
}

// NodeName binds the pod to a node: it is added running there.
func (w *PodWrapper) NodeName(node string) *PodWrapper {
	w.pod.NodeName = node
	return w
}

// SchedulerName sets the scheduler name, which picks the profile.
func (w *PodWrapper) SchedulerName(name string) *PodWrapper {
	w.pod.SchedulerName = name
	return w
}

// ResourceClaims adds entries to the pod's spec.resourceClaims: claims of
// devices, named or made from templates.
func (w *PodWrapper) ResourceClaims(claims ...cluster.PodResourceClaim) *PodWrapper {
	w.pod.ResourceClaims = append(w.pod.ResourceClaims, claims...)
	return w
}

// SchedulingGates adds scheduling gates: the scheduler holds the pod
// until they are removed (Scheduler.UngatePod).
func (w *PodWrapper) SchedulingGates(names ...string) *PodWrapper {
	w.pod.SchedulingGates = append(w.pod.SchedulingGates, names...)
	return w
}

// Obj returns a deep copy of the pod built so far.
func (w *PodWrapper) Obj() cluster.Pod {
	p := w.pod.Clone()
	p.Priority = w.priority.given()
	return p
}
