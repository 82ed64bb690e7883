package noderesources

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// BalancedAllocation favours nodes whose cpu and memory use stay balanced
// once the pod is added (kube-scheduler's NodeResourcesBalancedAllocation,
// default weight 1). It counts actual requests, not the non-zero defaults,
// and skips pods that request nothing.
type BalancedAllocation struct {
	Resources []cluster.ResourceName
	cpuMemory bool // Resources is exactly cpu, memory: the hot path
}

var (
	_ fw.ScorePlugin          = (*BalancedAllocation)(nil)
	_ fw.PreScorePlugin       = (*BalancedAllocation)(nil)
	_ fw.PreScoreIgnoresNodes = (*BalancedAllocation)(nil)
	_ fw.Signer               = (*BalancedAllocation)(nil)
)

// PreScoreIgnoresNodes marks PreScore as deciding on the pod alone.
func (b *BalancedAllocation) PreScoreIgnoresNodes() {}

// BalancedAllocationName is the NodeResourcesBalancedAllocation plugin's
// name in profiles.
const BalancedAllocationName = "CopiedNodeResourcesBalancedAllocation"

// NewBalancedAllocation builds the plugin, as the registry does; it takes
// no arguments.
func NewBalancedAllocation(any, fw.Handle) (fw.Plugin, error) { return NewBalancedCPUMemory(), nil }

// NewBalancedCPUMemory returns the plugin over cpu and memory.
func NewBalancedCPUMemory() *BalancedAllocation {
	return &BalancedAllocation{Resources: []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory}, cpuMemory: true}
}

// balancedCPUMemory is Score for the default resources, cpu and memory,
// on a node that has both, with the same floating-point operations in the same order as balance.
func balancedCPUMemory(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	alloc, used, req := &node.Node().Allocatable, node.RequestedRef(), &pod.Pod().Requests
	c, m := float64(alloc.MilliCPU), float64(alloc.Memory)
	fraction := func(v, capacity float64) float64 { return min(v/capacity, 1) }
	spread := func(fc, fm float64) int64 { return int64((1 - math.Abs((fc-fm)/2)) * float64(fw.MaxNodeScore)) }
	with := spread(fraction(float64(used.MilliCPU+req.MilliCPU), c), fraction(float64(used.Memory+req.Memory), m))
	without := spread(fraction(float64(used.MilliCPU), c), fraction(float64(used.Memory), m))
	return fw.MaxNodeScore/2 + (fw.MaxNodeScore/2+with-without)/2
}

// Name returns BalancedAllocationName.
func (b *BalancedAllocation) Name() string { return BalancedAllocationName }

var skipBestEffort = fw.NewStatus(fw.Skip)

// PreScore skips best-effort pods (no request for any of the resources).
func (b *BalancedAllocation) PreScore(_ *fw.CycleState, pod *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	for _, r := range b.Resources {
		if pod.Pod().Requests.Get(r) != 0 {
			return nil
		}
	}
	return skipBestEffort
}

// Sign appends the pod's requests.
func (b *BalancedAllocation) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return helper.AppendRequests(sig, &pod.Pod().Requests), true
}

// maxBalancedResources bounds the resources BalancedAllocation compares, so
// that its scratch space lives on the stack.
const maxBalancedResources = 8

// Score is 50 + (50 + balance(with pod) - balance(without pod)) / 2, where
// balance is (1 - standard deviation of the used fractions) * 100.
func (b *BalancedAllocation) Score(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	if alloc := &node.Node().Allocatable; b.cpuMemory && alloc.MilliCPU != 0 && alloc.Memory != 0 {
		return balancedCPUMemory(pod, node), nil
	}
	var with, without, capacity [maxBalancedResources]int64
	n := min(len(b.Resources), maxBalancedResources)
	var w resourceWalk
	w.readRequested(pod, node)
	for i, r := range b.Resources[:n] {
		used, want, c := w.cpuOrMemory(r)
		if c < 0 {
			used, want, c = w.extended(r, false)
		}
		if c != 0 {
			capacity[i], without[i], with[i] = c, used, used+want
		}
	}
	return fw.MaxNodeScore/2 + (fw.MaxNodeScore/2+balance(with[:n], capacity[:n])-balance(without[:n], capacity[:n]))/2, nil
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
	return int64((1 - std) * float64(fw.MaxNodeScore))
}
