package main

import (
	"cmp"
	"slices"
	"strings"
)

// NodeState is what the policies see of a node: its free CPU, memory and
// the free thousandths of each GPU, by device index. It is a comparable
// value: copying it is cheap and it can key a map.
type NodeState struct {
	CPU   int64 // free milli-CPU
	Mem   int64 // free memory, MiB
	Model string
	GPUs  int
	Free  [MaxGPUs]int32 // Free[i] is GPU i's free thousandths (0..1000); 0 past GPUs
	// Classes counts the node's GPU pods by kind, for GpuClustering:
	// Classes[0] the sharing pods, Classes[k] the pods of k whole GPUs.
	Classes [MaxGPUs + 1]int32
}

// NewNodeState is an empty node.
func NewNodeState(n *Node) NodeState {
	s := NodeState{CPU: n.MilliCPU, Mem: n.MemoryMiB, Model: n.Model, GPUs: n.GPUs}
	for i := range n.GPUs {
		s.Free[i] = milli
	}
	return s
}

// FreeGPUMilli is the node's free GPU thousandths, over all its GPUs.
func (s *NodeState) FreeGPUMilli() int64 {
	var t int64
	for i := range s.GPUs {
		t += int64(s.Free[i])
	}
	return t
}

// FullyFree is the number of GPUs nobody uses.
func (s *NodeState) FullyFree() int {
	k := 0
	for i := range s.GPUs {
		if s.Free[i] == milli {
			k++
		}
	}
	return k
}

// gpusWith is the number of GPUs with at least m thousandths free.
func (s *NodeState) gpusWith(m int64) int {
	k := 0
	for i := range s.GPUs {
		if int64(s.Free[i]) >= m {
			k++
		}
	}
	return k
}

// Accepts reports whether a pod asking one of models may use the node's
// GPUs (no models: any node, even one without GPUs).
func (s *NodeState) Accepts(models []string) bool {
	if len(models) == 0 {
		return true
	}
	return s.Model != "" && slices.Contains(models, s.Model)
}

// Fits is the filter: CPU, memory and, for a GPU pod, a GPU model it
// accepts and enough GPUs with its share free (a sharing pod one GPU, a
// whole-GPU pod NumGPU fully free GPUs).
func (s *NodeState) Fits(p *Pod) bool {
	if s.CPU < p.MilliCPU || s.Mem < p.MemoryMiB {
		return false
	}
	if p.NumGPU == 0 {
		return true
	}
	return s.GPUs > 0 && s.Accepts(p.Models) && s.gpusWith(p.GPUMilli) >= p.NumGPU
}

// Place takes the pod's resources, its GPU share from each GPU of gpus.
func (s *NodeState) Place(p *Pod, gpus GPUSet) {
	s.CPU -= p.MilliCPU
	s.Mem -= p.MemoryMiB
	for i := range s.GPUs {
		if gpus.Has(i) {
			s.Free[i] -= int32(p.GPUMilli)
		}
	}
	if p.NumGPU > 0 {
		s.Classes[class(p)]++
	}
}

// class is a GPU pod's kind for GpuClustering: 0 sharing, k whole GPUs.
func class(p *Pod) int {
	if p.Sharing() {
		return 0
	}
	return p.NumGPU
}

// GPUSet is a set of device indices.
type GPUSet uint16

// Has reports whether GPU i is in the set.
func (g GPUSet) Has(i int) bool { return g&(1<<i) != 0 }

// With is the set and GPU i.
func (g GPUSet) With(i int) GPUSet { return g | 1<<i }

// Indices lists the set, in index order.
func (g GPUSet) Indices() []int {
	var out []int
	for i := range MaxGPUs {
		if g.Has(i) {
			out = append(out, i)
		}
	}
	return out
}

// TaskType is one kind of pod of the target workload, with its share.
type TaskType struct {
	MilliCPU int64
	GPUMilli int64 // per GPU; 0 for a pod without GPUs
	NumGPU   int
	Models   string // "|"-joined, "" for any
	Weight   float64
}

// Workload is the target workload FGD measures fragmentation against: the
// most frequent pod kinds of the trace, each with its frequency.
type Workload []TaskType

// The artefact keeps the most frequent kinds until they cover this share
// of the trace's pods (its podPopularityThreshold, 95), adding one kind at
// a time, and counts pods without GPUs too.
const popularity = 95

// NewWorkload builds the target workload from the trace, as the artefact
// does: pods are grouped by (CPU, per-GPU share, GPU count, models) (not
// memory); the kinds are sorted by count, most first (ties: the larger
// kind first, comparing CPU, share, count, models); the first kinds that
// reach 95% of the pods are kept and their weights renormalised to sum
// to 1.
func NewWorkload(trace []Pod) Workload {
	counts := map[TaskType]float64{}
	for i := range trace {
		counts[kindOf(&trace[i])]++
	}
	kinds := make(Workload, 0, len(counts))
	for k, c := range counts {
		k.Weight = c
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b TaskType) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(b.MilliCPU, a.MilliCPU),
			cmp.Compare(b.GPUMilli, a.GPUMilli), cmp.Compare(b.NumGPU, a.NumGPU), cmp.Compare(b.Models, a.Models))
	})
	total := float64(len(trace))
	want := popularity * total / 100
	var cum float64
	i := 0
	for cum < want && i < len(kinds) {
		cum += kinds[i].Weight
		kinds[i].Weight /= total
		i++
	}
	if i == len(kinds) {
		return kinds
	}
	kinds = kinds[:i]
	for j := range kinds {
		kinds[j].Weight /= cum / total
	}
	return kinds
}

func kindOf(p *Pod) TaskType {
	return TaskType{MilliCPU: p.MilliCPU, GPUMilli: p.GPUMilli, NumGPU: p.NumGPU, Models: strings.Join(p.Models, "|")}
}

// The artefact sorts each (node, task) pair into one of seven quadrants
// and sums the fragment milli-GPUs into them; the fragmentation is the sum
// of all but q3 (the part of a fitting node the task can use), in this
// order, which the floating-point sum keeps.
const (
	q1LackBoth  = iota // the task lacks GPU and CPU
	q2LackGPU          // the task lacks GPU (or the GPUs too small for it, on a node it fits)
	q3Satisfied        // the GPUs the task could use
	q4LackCPU          // the GPUs fit the task, the CPU does not
	xlSatisfied        // a task without GPUs that fits
	xrLackCPU          // a task without GPUs that does not fit
	noAccess           // a task that asks other GPU models
	quadrants
)

// Frag is the node's fragmentation under the workload, in milli-GPUs: the
// expected free GPU milli a task drawn from the workload cannot use.
// For a task of weight w:
//   - a task without GPUs, or one asking another GPU model: all the free
//     GPU milli is fragment (it will never use them);
//   - a GPU task that fits the node (NumGPU GPUs with its share free and
//     its CPU free): the free milli of each GPU with less than its share;
//   - a GPU task that does not fit (lack of GPU or of CPU): all of it.
//
// Memory is not considered (the artefact's node state has none). An
// empty node of GPUs lacks nothing: only the tasks without GPUs, or
// those too big for it, count; a node with no free GPU has 0.
func Frag(s *NodeState, w Workload) float64 {
	var q [quadrants]float64
	free := float64(s.FreeGPUMilli())
	for i := range w {
		t := &w[i]
		cpuOK := s.CPU >= t.MilliCPU
		switch {
		case t.GPUMilli == 0 && cpuOK:
			q[xlSatisfied] += t.Weight * free
		case t.GPUMilli == 0:
			q[xrLackCPU] += t.Weight * free
		case !s.acceptsJoined(t.Models):
			q[noAccess] += t.Weight * free
		case s.gpusWith(t.GPUMilli) >= t.NumGPU && cpuOK:
			small := float64(s.smallGPUs(t.GPUMilli))
			q[q2LackGPU] += t.Weight * small
			q[q3Satisfied] += t.Weight * (free - small)
		case s.gpusWith(t.GPUMilli) >= t.NumGPU:
			q[q4LackCPU] += t.Weight * free
		case cpuOK:
			q[q2LackGPU] += t.Weight * free
		default:
			q[q1LackBoth] += t.Weight * free
		}
	}
	var f float64
	for k, v := range q {
		if k != q3Satisfied {
			f += v
		}
	}
	return f
}

// smallGPUs is the free milli of the GPUs with less than m free.
func (s *NodeState) smallGPUs(m int64) int64 {
	var t int64
	for i := range s.GPUs {
		if int64(s.Free[i]) < m {
			t += int64(s.Free[i])
		}
	}
	return t
}

// acceptsJoined is Accepts of models joined by "|" (TaskType.Models),
// without splitting them.
func (s *NodeState) acceptsJoined(models string) bool {
	if models == "" {
		return true
	}
	if s.Model == "" {
		return false
	}
	for m := range strings.SplitSeq(models, "|") {
		if m == s.Model {
			return true
		}
	}
	return false
}

// fragKey is a node state as fragmentation sees it: the GPUs' free milli
// sorted (fragmentation does not depend on which GPU is which), the free
// CPU and the model.
type fragKey struct {
	cpu   int64
	model string
	free  [MaxGPUs]int32
}

func keyOf(s *NodeState) fragKey {
	k := fragKey{cpu: s.CPU, model: s.Model, free: s.Free}
	slices.SortFunc(k.free[:], func(a, b int32) int { return cmp.Compare(b, a) })
	return k
}

// FragMemo remembers Frag by node state: states repeat across nodes
// (every empty node of a model and size is one state) and across pods.
// It is not safe for concurrent use.
type FragMemo struct {
	w    Workload
	seen map[fragKey]float64
}

// NewFragMemo is an empty memo for a workload.
func NewFragMemo(w Workload) *FragMemo { return &FragMemo{w: w, seen: map[fragKey]float64{}} }

// Frag is Frag(s, m's workload), remembered.
func (m *FragMemo) Frag(s *NodeState) float64 {
	k := keyOf(s)
	if f, ok := m.seen[k]; ok {
		return f
	}
	f := Frag(s, m.w)
	m.seen[k] = f
	return f
}

// ClusterFragRatio is the share of the cluster's free GPU milli that is
// fragment (the paper's fragmentation ratio, Fig. 7), in 0..1; 0 when no
// GPU is free.
func ClusterFragRatio(nodes []NodeState, m *FragMemo) float64 {
	var frag, free float64
	for i := range nodes {
		frag += m.Frag(&nodes[i])
		free += float64(nodes[i].FreeGPUMilli())
	}
	if free == 0 {
		return 0
	}
	return frag / free
}
