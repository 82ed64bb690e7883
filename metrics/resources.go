package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// resourceIndex numbers resources as the stream shows them: cpu, memory
// and pods first, extended resources in the order they appear. Amounts
// are kept as vectors over these numbers.
type resourceIndex struct {
	names []cluster.ResourceName
	index map[cluster.ResourceName]int
}

func newResourceIndex() resourceIndex {
	ri := resourceIndex{index: map[cluster.ResourceName]int{}}
	for _, n := range []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory, cluster.ResourcePods} {
		ri.id(n)
	}
	return ri
}

// id returns the number of a resource, adding it when new.
func (ri *resourceIndex) id(name cluster.ResourceName) int {
	if i, ok := ri.index[name]; ok {
		return i
	}
	ri.index[name] = len(ri.names)
	ri.names = append(ri.names, name)
	return len(ri.names) - 1
}

// vector returns an amount as a vector over the resources.
func (ri *resourceIndex) vector(r cluster.Resources) []int64 {
	for s := range r.Scalars() {
		ri.id(s.Name)
	}
	v := make([]int64, len(ri.names))
	v[0], v[1], v[2] = r.MilliCPU, r.Memory, r.Pods
	for s := range r.Scalars() {
		v[ri.index[s.Name]] = s.Value
	}
	return v
}

// order returns the resource numbers in report order: cpu, memory, the
// extended resources by name, then pods.
func (ri *resourceIndex) order() []int {
	out := make([]int, len(ri.names))
	for i := range out {
		out[i] = i
	}
	rank := func(i int) int {
		switch ri.names[i] {
		case cluster.ResourceCPU:
			return 0
		case cluster.ResourceMemory:
			return 1
		case cluster.ResourcePods:
			return 3
		}
		return 2
	}
	slices.SortFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(ri.names[a], ri.names[b]))
	})
	return out
}

// at reads element i of a vector, which may be shorter than the index
// (resources seen after it was made are 0 in it).
func at(v []int64, i int) int64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// addTo adds sign*v to *dst, growing it as needed.
func addTo(dst *[]int64, v []int64, sign int64) {
	if len(*dst) < len(v) {
		*dst = append(*dst, make([]int64, len(v)-len(*dst))...)
	}
	for i, x := range v {
		(*dst)[i] += sign * x
	}
}

// Unit returns the unit a resource is reported in and how many of the
// resource's own amounts make one: cpu in cores (1000 millicores); the
// byte quantities (memory, ephemeral-storage, hugepages-<size>) in GiB;
// pods as a count; GPUs (a name ending in /gpu) as GPUs; and any other
// extended resource as a count of its own items ("count"), as the API
// server counts them.
func Unit(name cluster.ResourceName) (unit string, scale float64) {
	switch name {
	case cluster.ResourceCPU:
		return "cores", 1000
	case cluster.ResourceMemory, resourceEphemeralStorage:
		return "GiB", 1 << 30
	case cluster.ResourcePods:
		return "pods", 1
	}
	n := strings.ToLower(string(name))
	switch {
	case strings.HasPrefix(n, hugePagesPrefix):
		return "GiB", 1 << 30
	case n == "gpu" || strings.HasSuffix(n, "/gpu"):
		return "GPUs", 1
	}
	return "count", 1
}

// The standard resources measured in bytes besides memory: local
// ephemeral storage and huge pages of each size (hugepages-2Mi).
const (
	resourceEphemeralStorage cluster.ResourceName = "ephemeral-storage"
	hugePagesPrefix                               = "hugepages-"
)
