package placement

import (
	"fmt"
	"math"

	"github.com/gangsim/gangsim/cluster"
)

// ScoringType is the NodeResourcesFit scoring strategy.
type ScoringType string

// The scoring strategies.
const (
	LeastAllocated ScoringType = "LeastAllocated"
	MostAllocated  ScoringType = "MostAllocated"
)

// ResourceWeight is a resource and its weight in a weighted score (1..100).
type ResourceWeight struct {
	Name   cluster.ResourceName
	Weight int64
}

// DefaultResourceWeights are kube-scheduler's: cpu 1, memory 1.
func DefaultResourceWeights() []ResourceWeight {
	return []ResourceWeight{{cluster.ResourceCPU, 1}, {cluster.ResourceMemory, 1}}
}

// NodeResourcesFit rejects nodes without room for a pod's requests and
// scores nodes by the configured strategy over the weighted resources.
type NodeResourcesFit struct {
	Strategy  ScoringType
	Resources []ResourceWeight
}

var (
	_ FilterPlugin = (*NodeResourcesFit)(nil)
	_ ScorePlugin  = (*NodeResourcesFit)(nil)
)

// NewNodeResourcesFit returns the plugin; an empty resources list means
// DefaultResourceWeights.
func NewNodeResourcesFit(strategy ScoringType, resources []ResourceWeight) *NodeResourcesFit {
	if len(resources) == 0 {
		resources = DefaultResourceWeights()
	}
	return &NodeResourcesFit{Strategy: strategy, Resources: resources}
}

// Name returns NodeResourcesFitName.
func (f *NodeResourcesFit) Name() string { return NodeResourcesFitName }

// The rejections for pods, cpu and memory shortages, indexed by a bit set
// (1 pods, 2 cpu, 4 memory) and resolvability, built once so that the
// common failures allocate nothing.
var fitRejections = func() (out [8][2]*Rejection) {
	for mask := 1; mask < 8; mask++ {
		var reasons []string
		if mask&1 != 0 {
			reasons = append(reasons, "Too many pods")
		}
		if mask&2 != 0 {
			reasons = append(reasons, "Insufficient cpu")
		}
		if mask&4 != 0 {
			reasons = append(reasons, "Insufficient memory")
		}
		out[mask][0] = NewRejection(NodeResourcesFitName, reasons...)
		out[mask][1] = NewUnresolvable(NodeResourcesFitName, reasons...)
	}
	return out
}()

// Filter rejects node when the pod's requests exceed what is left of its
// allocatable, resource by resource, with kube-scheduler's reasons ("Too
// many pods", "Insufficient cpu", "Insufficient memory", "Insufficient
// <name>"). The rejection is unresolvable when a request exceeds the
// node's whole allocatable, so that no eviction could help.
func (f *NodeResourcesFit) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	return Fits(pod, node)
}

// Fits is the NodeResourcesFit filter as a plain function.
func Fits(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	req, alloc, used := pod.Pod().Requests, node.Allocatable(), node.Requested()
	mask, unresolvable := 0, false
	if int64(node.PodCount())+1 > alloc.Pods {
		mask |= 1
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		mask |= 2
		unresolvable = unresolvable || req.MilliCPU > alloc.MilliCPU
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		mask |= 4
		unresolvable = unresolvable || req.Memory > alloc.Memory
	}
	var extra []string
	if req.HasScalars() {
		for s := range req.Scalars() {
			have := alloc.Get(s.Name)
			if s.Value > have-used.Get(s.Name) {
				extra = append(extra, fmt.Sprintf("Insufficient %s", s.Name))
				unresolvable = unresolvable || s.Value > have
			}
		}
	}
	if extra == nil {
		if mask == 0 {
			return nil
		}
		return fitRejections[mask][boolIndex(unresolvable)]
	}
	reasons := []string{}
	if mask != 0 {
		reasons = append(reasons, fitRejections[mask][0].Reasons...)
	}
	return &Rejection{Plugin: NodeResourcesFitName, Reasons: append(reasons, extra...), Unresolvable: unresolvable}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Score scores node for pod by the strategy (see AllocationScore).
func (f *NodeResourcesFit) Score(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	return AllocationScore(f.Strategy, f.Resources, pod, node)
}

// AllocationScore is NodeResourcesFit's node score: for each weighted
// resource, the requested amount after adding the pod (cpu and memory
// counted non-zero: 100m and 200Mi for zero requests) against the node's
// allocatable, scored by LeastAllocatedResource or MostAllocatedResource,
// then the weighted mean. Extended resources the pod does not request and
// resources the node does not have are left out, weight included. Integer
// arithmetic truncates as kube-scheduler's does.
func AllocationScore(strategy ScoringType, resources []ResourceWeight, pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	score := LeastAllocatedResource
	if strategy == MostAllocated {
		score = MostAllocatedResource
	}
	// the hot path of pod scoring: cpu and memory read directly, not
	// through the per-resource helpers placement scoring uses
	podCPU, podMem := pod.NonZeroRequests()
	nodeCPU, nodeMem := node.NonZeroRequested()
	alloc := node.Allocatable()
	var sum, weights int64
	for _, r := range resources {
		var want, used, capacity int64
		switch r.Name {
		case cluster.ResourceCPU:
			want, used, capacity = podCPU, nodeCPU, alloc.MilliCPU
		case cluster.ResourceMemory:
			want, used, capacity = podMem, nodeMem, alloc.Memory
		case cluster.ResourcePods:
			continue // not a scored resource in kube-scheduler
		default:
			want = pod.Pod().Requests.Get(r.Name)
			if want == 0 {
				continue
			}
			used, capacity = node.Requested().Get(r.Name), alloc.Get(r.Name)
		}
		if capacity == 0 {
			continue
		}
		sum += score(used+want, capacity) * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// LeastAllocatedResource scores free room: (capacity-requested)*100/capacity,
// 0 when requested exceeds capacity or capacity is 0.
func LeastAllocatedResource(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}

// MostAllocatedResource scores use: min(requested, capacity)*100/capacity,
// 0 when capacity is 0.
func MostAllocatedResource(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	return min(requested, capacity) * MaxNodeScore / capacity
}

// BalancedAllocation favours nodes whose cpu and memory use stay balanced
// once the pod is added (kube-scheduler's NodeResourcesBalancedAllocation,
// default weight 1). It counts actual requests, not the non-zero defaults,
// and skips pods that request nothing.
type BalancedAllocation struct {
	Resources []cluster.ResourceName
	cpuMemory bool // Resources is exactly cpu, memory: the hot path
}

var (
	_ ScorePlugin  = (*BalancedAllocation)(nil)
	_ ScoreSkipper = (*BalancedAllocation)(nil)
)

// NewBalancedAllocation returns the plugin over cpu and memory.
func NewBalancedAllocation() *BalancedAllocation {
	return &BalancedAllocation{Resources: []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory}, cpuMemory: true}
}

// balancedCPUMemory is Score for the default resources, cpu and memory,
// on a node that has both, with the same floating-point operations in the same order as balance.
func balancedCPUMemory(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	alloc, used, req := node.Allocatable(), node.Requested(), &pod.Pod().Requests
	c, m := float64(alloc.MilliCPU), float64(alloc.Memory)
	fraction := func(v, capacity float64) float64 { return min(v/capacity, 1) }
	spread := func(fc, fm float64) int64 { return int64((1 - math.Abs((fc-fm)/2)) * float64(MaxNodeScore)) }
	with := spread(fraction(float64(used.MilliCPU+req.MilliCPU), c), fraction(float64(used.Memory+req.Memory), m))
	without := spread(fraction(float64(used.MilliCPU), c), fraction(float64(used.Memory), m))
	return MaxNodeScore/2 + (MaxNodeScore/2+with-without)/2
}

// Name returns BalancedAllocationName.
func (b *BalancedAllocation) Name() string { return BalancedAllocationName }

// SkipScore skips best-effort pods (no request for any of the resources).
func (b *BalancedAllocation) SkipScore(pod *cluster.PodInfo) bool {
	for _, r := range b.Resources {
		if pod.Pod().Requests.Get(r) != 0 {
			return false
		}
	}
	return true
}

// maxBalancedResources bounds the resources BalancedAllocation compares, so
// that its scratch space lives on the stack.
const maxBalancedResources = 8

// Score is 50 + (50 + balance(with pod) - balance(without pod)) / 2, where
// balance is (1 - standard deviation of the used fractions) * 100.
func (b *BalancedAllocation) Score(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	if alloc := node.Allocatable(); b.cpuMemory && alloc.MilliCPU != 0 && alloc.Memory != 0 {
		return balancedCPUMemory(pod, node)
	}
	var with, without, capacity [maxBalancedResources]int64
	n := min(len(b.Resources), maxBalancedResources)
	alloc, used, req := node.Allocatable(), node.Requested(), pod.Pod().Requests
	for i, r := range b.Resources[:n] {
		want := req.Get(r)
		if want == 0 && r != cluster.ResourceCPU && r != cluster.ResourceMemory {
			continue
		}
		if c := alloc.Get(r); c != 0 && r != cluster.ResourcePods {
			capacity[i], without[i], with[i] = c, used.Get(r), used.Get(r)+want
		}
	}
	return MaxNodeScore/2 + (MaxNodeScore/2+balance(with[:n], capacity[:n])-balance(without[:n], capacity[:n]))/2
}

// balance is kube-scheduler's balancedResourceScore: fractions capped at 1,
// standard deviation (half the difference for two resources).
func balance(requested, capacity []int64) int64 {
	var fractions [maxBalancedResources]float64
	n := 0
	total := 0.0
	for i := range requested {
		if capacity[i] == 0 {
			continue
		}
		f := min(float64(requested[i])/float64(capacity[i]), 1)
		fractions[n] = f
		total += f
		n++
	}
	std := 0.0
	switch {
	case n == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case n > 2:
		mean := total / float64(n)
		var sum float64
		for _, f := range fractions[:n] {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(MaxNodeScore))
}
