package noderesources

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ScoreIgnoresNodes marks the placement score as depending on the
// placement's nodes as a whole and the proposed pods, not on which node
// each pod takes.
func (f *Fit) ScoreIgnoresNodes() {}

// satAdd adds non-negative amounts, stopping at the largest int64: a
// placement of many huge nodes must not wrap around.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// placementResources is how many resources ScorePlacement scores in one
// pass; more fall back to one pass each.
const placementResources = 8

// ScorePlacement is kube-scheduler's scorePlacement: always MostAllocated,
// over the placement as a whole (requests summed over all its nodes plus
// the proposed pods, against allocatable summed over its nodes), with the
// profile's resource weights; cpu and memory counted non-zero, extended
// resources only when the group requests them, resources the placement
// lacks left out. It favours the placement the group fills most.
func (f *Fit) ScorePlacement(snap *cluster.Snapshot, _ *fw.Group, p *fw.Placement, proposed []fw.Assignment) (int64, *fw.Status) {
	if len(f.Resources) > placementResources {
		return f.scoreEach(snap, p, proposed), nil
	}
	var want, used, capacity [placementResources]int64
	var skip [placementResources]bool
	// cpu and memory, the usual resources, summed in one pass over the
	// pods (a gang's candidates are scored with the same pods, one after
	// the other: this loop ran once per pod, resource and candidate)
	var cpuWant, memWant int64
	for _, a := range proposed {
		c, m := a.Pod.NonZeroRequests()
		cpuWant, memWant = cpuWant+c, memWant+m
	}
	for i, r := range f.Resources {
		switch r.Name {
		case cluster.ResourceCPU:
			want[i] = cpuWant
		case cluster.ResourceMemory:
			want[i] = memWant
		default:
			for _, a := range proposed {
				want[i] += nonZeroRequest(a.Pod, r.Name)
			}
		}
		skip[i] = r.Name == cluster.ResourcePods || want[i] == 0 && isScalar(r.Name)
	}
	if p.Key != "" {
		// a whole domain: the snapshot keeps its sums
		t, d := snap.DomainTotals(p.Key), p.Domain
		for i, r := range f.Resources {
			if skip[i] {
				continue
			}
			capacity[i] = t.Allocatable(d, r.Name)
			switch r.Name {
			case cluster.ResourceCPU:
				used[i], _ = t.NonZeroRequested(d)
			case cluster.ResourceMemory:
				_, used[i] = t.NonZeroRequested(d)
			default:
				used[i] = t.Requested(d, r.Name)
			}
		}
		return f.placementScore(&capacity, &used, &want, &skip), nil
	}
	// one pass over the placement's nodes, cpu and memory read directly
	snap.VisitNodes(p.Nodes, func(ni *cluster.NodeInfo) {
		alloc := ni.Allocatable()
		cpu, mem := ni.NonZeroRequested()
		for i, r := range f.Resources {
			var c, u int64
			switch {
			case skip[i]:
				continue
			case r.Name == cluster.ResourceCPU:
				c, u = alloc.MilliCPU, cpu
			case r.Name == cluster.ResourceMemory:
				c, u = alloc.Memory, mem
			default:
				c, u = alloc.Get(r.Name), ni.Requested().Get(r.Name)
			}
			if c != 0 {
				capacity[i], used[i] = satAdd(capacity[i], c), satAdd(used[i], u)
			}
		}
	})
	return f.placementScore(&capacity, &used, &want, &skip), nil
}

// placementScore is the weighted MostAllocated mean over the resources.
func (f *Fit) placementScore(capacity, used, want *[placementResources]int64, skip *[placementResources]bool) int64 {
	var sum, weights int64
	for i, r := range f.Resources {
		if skip[i] || capacity[i] == 0 {
			continue
		}
		sum += MostAllocatedResource(satAdd(used[i], want[i]), capacity[i]) * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// scoreEach is ScorePlacement resource by resource, for long resource lists.
func (f *Fit) scoreEach(snap *cluster.Snapshot, p *fw.Placement, proposed []fw.Assignment) int64 {
	var sum, weights int64
	for _, r := range f.Resources {
		var want int64
		for _, a := range proposed {
			want += nonZeroRequest(a.Pod, r.Name)
		}
		if r.Name == cluster.ResourcePods || want == 0 && isScalar(r.Name) {
			continue
		}
		var used, capacity int64
		snap.VisitNodes(p.Nodes, func(ni *cluster.NodeInfo) {
			if c := ni.Allocatable().Get(r.Name); c != 0 {
				capacity, used = satAdd(capacity, c), satAdd(used, nodeNonZeroRequested(ni, r.Name))
			}
		})
		if capacity == 0 {
			continue
		}
		sum += MostAllocatedResource(satAdd(used, want), capacity) * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

func isScalar(name cluster.ResourceName) bool {
	return name != cluster.ResourceCPU && name != cluster.ResourceMemory && name != cluster.ResourcePods
}

func nonZeroRequest(pi *cluster.PodInfo, name cluster.ResourceName) int64 {
	cpu, mem := pi.NonZeroRequests()
	switch name {
	case cluster.ResourceCPU:
		return cpu
	case cluster.ResourceMemory:
		return mem
	}
	return pi.Pod().Requests.Get(name)
}

func nodeNonZeroRequested(ni *cluster.NodeInfo, name cluster.ResourceName) int64 {
	cpu, mem := ni.NonZeroRequested()
	switch name {
	case cluster.ResourceCPU:
		return cpu
	case cluster.ResourceMemory:
		return mem
	}
	return ni.Requested().Get(name)
}
