package placement

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// quorumBound is a necessary condition for a placement to hold a group's
// quorum: the free cpu, memory and pod slots summed over its nodes must
// cover the k smallest requests of the pending pods, resource by
// resource, where k is how many pods the quorum still needs. A placement
// failing it cannot pass the sequential algorithm, so it is skipped
// without simulating each pod; one passing it is simulated as usual.
type quorumBound struct {
	need  int
	cpu   int64
	mem   int64
	valid bool
}

func newQuorumBound(req *GroupRequest, need int) quorumBound {
	pods := req.Group.Pods
	if need <= 0 || need > len(pods) {
		return quorumBound{}
	}
	cpus := make([]int64, len(pods))
	mems := make([]int64, len(pods))
	for i, p := range pods {
		cpus[i], mems[i] = p.Pod().Requests.MilliCPU, p.Pod().Requests.Memory
	}
	slices.Sort(cpus)
	slices.Sort(mems)
	b := quorumBound{need: need, valid: true}
	for i := range need {
		b.cpu += cpus[i]
		b.mem += mems[i]
	}
	return b
}

// mayFit reports whether the placement's free room could hold the quorum.
func (b quorumBound) mayFit(snap *cluster.Snapshot, nodes []int) bool {
	if !b.valid {
		return true
	}
	var cpu, mem, slots int64
	forNodes(snap, nodes, func(ni *cluster.NodeInfo) {
		alloc, used := ni.Allocatable(), ni.Requested()
		cpu += max(0, alloc.MilliCPU-used.MilliCPU)
		mem += max(0, alloc.Memory-used.Memory)
		slots += max(0, alloc.Pods-used.Pods)
	})
	return cpu >= b.cpu && mem >= b.mem && slots >= int64(b.need)
}
