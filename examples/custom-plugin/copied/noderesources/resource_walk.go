package noderesources

import "github.com/gangsim/gangsim/cluster"

// resourceWalk is what the node scorers compare, resource by resource: a
// node's requested amount, the pod's request and the node's allocatable.
// The scorers differ in how they score a resource and sum the scores, not
// in which amounts they read, so they read them here: cpu and memory
// (every pod-scoring call reads them) are taken once per node, the
// extended resources from the requests when asked for.
//
// It is a plain value on the scorer's stack, filled in place and read
// through an inlined method for cpu and memory: no closure, no allocation,
// no call on the hot path (BenchmarkScore measures the scorers; with the
// walk, the default cpu-memory scoring is faster than the switch each
// scorer had, as the node's allocatable is read in place, not copied).
//
// The loop every scorer writes over it:
//
//	used, want, capacity := w.cpuOrMemory(r)
//	if capacity < 0 {
//		used, want, capacity = w.extended(r, false)
//	}
//	if capacity == 0 {
//		continue // not scored
//	}
type resourceWalk struct {
	podCPU, podMemory     int64
	nodeCPU, nodeMemory   int64
	allocCPU, allocMemory int64
	pod                   *cluster.Pod // its Requests, for extended resources
	node                  *cluster.NodeInfo
}

// readNonZero reads the amounts Fit's strategies score: cpu and memory
// counted non-zero (100m and 200Mi for a request of 0), as kube-scheduler
// counts them for scoring. The walk is filled in place, not returned, so
// that it is not copied on every Score call.
func (w *resourceWalk) readNonZero(pod *cluster.PodInfo, node *cluster.NodeInfo) {
	alloc := &node.Node().Allocatable // not Allocatable(), which copies the Resources
	w.pod, w.node, w.allocCPU, w.allocMemory = pod.Pod(), node, alloc.MilliCPU, alloc.Memory
	w.podCPU, w.podMemory = pod.NonZeroRequests()
	w.nodeCPU, w.nodeMemory = node.NonZeroRequested()
}

// readRequested reads the amounts as requested, zero included, as
// BalancedAllocation compares them.
func (w *resourceWalk) readRequested(pod *cluster.PodInfo, node *cluster.NodeInfo) {
	alloc, used := &node.Node().Allocatable, node.RequestedRef()
	w.pod, w.node, w.allocCPU, w.allocMemory = pod.Pod(), node, alloc.MilliCPU, alloc.Memory
	w.podCPU, w.podMemory = w.pod.Requests.MilliCPU, w.pod.Requests.Memory
	w.nodeCPU, w.nodeMemory = used.MilliCPU, used.Memory
}

// cpuOrMemory returns, for cpu and memory, what the node has requested,
// what the pod requests and the node's allocatable; for any other
// resource, which extended reads, a capacity of -1. The two are apart so
// that this one, which every pod-scoring call reads, is inlined into the
// scorers' loops: a method that also called extended would not be (the
// call alone exceeds the inliner's budget), and a call per resource and
// node costs the pod-scoring path several percent.
func (w *resourceWalk) cpuOrMemory(name cluster.ResourceName) (used, want, capacity int64) {
	switch name {
	case cluster.ResourceCPU:
		return w.nodeCPU, w.podCPU, w.allocCPU
	case cluster.ResourceMemory:
		return w.nodeMemory, w.podMemory, w.allocMemory
	}
	return 0, 0, -1
}

// extended returns the amounts of any other resource than cpu and memory.
// A capacity of 0 leaves the resource out of the score, weight included:
// the node does not have it, it is the pod count (which kube-scheduler
// does not score), or it is an extended resource the pod does not
// request, unless always (RequestedToCapacityRatio scores ephemeral
// storage whatever the pod asks).
func (w *resourceWalk) extended(name cluster.ResourceName, always bool) (used, want, capacity int64) {
	if name == cluster.ResourcePods {
		return 0, 0, 0
	}
	want = w.pod.Requests.Get(name)
	if want == 0 && !always {
		return 0, 0, 0
	}
	return w.node.Requested().Get(name), want, w.node.Node().Allocatable.Get(name)
}
