package main

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
)

// The paper's artefact draws everything random of a run from Go's
// math/rand (v1) global source, seeded once with the run's seed. A
// *rand.Rand made with rand.NewSource(seed) gives the same stream, so
// drawing in the same order gives the same pods in the same order, and
// the same tie-break ranks of the nodes:
//
//  1. one Int, drawn and thrown away (it is logged);
//  2. the pods, sorted by name, are shuffled (Shuffle);
//  3. the list is brought to Ratio times the cluster's GPUs: while the
//     requests are short, a pod drawn (Intn) from the name-sorted trace is
//     cloned and appended, until the first draw whose per-GPU share would
//     pass the target (that draw is dropped; the test is on GPUMilli, not
//     on NumGPU*GPUMilli, so a multi-GPU clone may overshoot a little);
//     while they are over, a pod drawn (Intn) from the list is removed;
//  4. ExtraDraws Float64 draws (see SampleConfig.ExtraDraws);
//  5. a permutation (Perm) of the name-sorted nodes: node i's name gets
//     the prefix Perm[i], and the scheduler breaks a tie between equal
//     scores by the smallest name, that is the smallest prefix.
//
// A pod that does not fit is not retried and no pod is ever deleted.

// DefaultExtraDraws is SampleConfig.ExtraDraws matched to the artefact.
const DefaultExtraDraws = 10

// SampleConfig says how a run's pod list is drawn.
type SampleConfig struct {
	// Seed seeds the run's random stream (the paper's runs: 42..51).
	Seed int64
	// Ratio is the target of the pods' GPU requests, as a fraction of the
	// cluster's GPUs (the paper: 1.3). 0 keeps the shuffled trace as it is.
	Ratio float64
	// ExtraDraws is the number of Float64 draws between the pod list and
	// the node permutation. In the artefact, the informers' reflectors of
	// the Kubernetes client share the global source and draw one watch
	// timeout each when the scheduler starts, just before the node
	// permutation. The number is written nowhere; with 10 (the default)
	// the pure driver reproduces the artefact's published per-seed results
	// of the five deterministic policies to the last digit, on all ten
	// seeds, and no other value near it does.
	ExtraDraws int
}

// Run is one run's input: the arrivals in order, the nodes in name order
// with their tie-break ranks, and the random stream, positioned where the
// artefact's scheduling starts (the Random policy keeps drawing from it).
type Run struct {
	Pods  []Pod
	Nodes []Node
	Rank  []int // Rank[i] is node i's prefix: a tie goes to the smallest
	Rand  *rand.Rand
}

// Sample draws a run from the trace's pods (any order) and nodes.
func Sample(trace []Pod, nodes []Node, cfg SampleConfig) (*Run, error) {
	if cfg.Ratio < 0 || cfg.ExtraDraws < 0 {
		return nil, fmt.Errorf("gpu-sharing: sample: negative ratio or draws (%+v)", cfg)
	}
	r := rand.New(rand.NewSource(cfg.Seed))
	_ = r.Int()
	byName := slices.SortedFunc(slices.Values(trace), func(a, b Pod) int { return cmp.Compare(a.Name, b.Name) })
	pods := slices.Clone(byName)
	r.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	if cfg.Ratio > 0 {
		target := cfg.Ratio * float64(clusterGPUMilli(nodes))
		pods = tune(r, pods, byName, target)
	}
	for range cfg.ExtraDraws {
		_ = r.Float64()
	}
	sorted := slices.SortedFunc(slices.Values(nodes), func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	return &Run{Pods: pods, Nodes: sorted, Rank: r.Perm(len(sorted)), Rand: r}, nil
}

// tune brings the pods' GPU requests to the target, as the artefact does.
func tune(r *rand.Rand, pods, byName []Pod, target float64) []Pod {
	var total int64
	for i := range pods {
		total += pods[i].TotalGPUMilli()
	}
	if float64(total) > target {
		for float64(total) > target && len(pods) > 0 {
			i := r.Intn(len(pods))
			total -= pods[i].TotalGPUMilli()
			pods = slices.Delete(pods, i, i+1)
		}
		return pods
	}
	if float64(total) == target || len(byName) == 0 {
		return pods
	}
	for n := 0; ; n++ {
		p := byName[r.Intn(len(byName))]
		if float64(total+p.GPUMilli) > target {
			return pods
		}
		p.Name = fmt.Sprintf("%s-tuned-%d", p.Name, n)
		total += p.TotalGPUMilli()
		pods = append(pods, p)
	}
}

// clusterGPUMilli is the cluster's GPUs in thousandths.
func clusterGPUMilli(nodes []Node) int64 {
	var s int64
	for i := range nodes {
		s += int64(nodes[i].GPUs) * milli
	}
	return s
}
