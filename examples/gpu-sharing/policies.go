package main

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
)

// The six policies of the paper, as its artefact scores them. Each is a
// Score plugin of weight 1000 and the only score plugin on; a score is an
// integer in 0..100 (BestFit's after min-max normalisation over the
// feasible nodes); the node with the highest score wins, a tie going to
// the node with the smallest tie-break rank (Run.Rank).
//
// On the chosen node the pod's GPUs are picked by the policy's GPUPick:
// a pod of whole GPUs always takes the lowest-indexed fully free GPUs; a
// sharing pod takes the best-fitting GPU (the least free that fits, the
// lowest index on a tie), except under FGD (the GPU whose use lowers the
// fragmentation most) and Random (a uniformly random GPU that fits).

// Policy is a scheduling policy: how it scores a node for a pod and which
// GPUs the pod then takes there. Score and Pick are called only on nodes
// the pod fits.
type Policy struct {
	Name string
	// Score is the node's score for the pod, before normalisation. It
	// depends on the node's state and the pod's shape only (not on the
	// pod's memory), so a caller may remember it until the node changes.
	// Random has none: it draws the node (see Random).
	Score func(s *NodeState, p *Pod) int64
	// Normalize, when set, maps the scores of the feasible nodes to
	// 0..100 (see Normalize).
	Normalize bool
	// Pick chooses the GPUs on the chosen node (r: the run's stream).
	Pick func(s *NodeState, p *Pod, r *rand.Rand) GPUSet
}

// Policies returns the six policies in the paper's order; FGD measures
// fragmentation against the workload, with the memo.
func Policies(m *FragMemo) []Policy {
	return []Policy{Random(), DotProd(), GpuClustering(), GpuPacking(), BestFit(), FGD(m)}
}

// PolicyByName finds one of Policies by name.
func PolicyByName(name string, m *FragMemo) (Policy, error) {
	all := Policies(m)
	if i := slices.IndexFunc(all, func(p Policy) bool { return p.Name == name }); i >= 0 {
		return all[i], nil
	}
	return Policy{}, fmt.Errorf("gpu-sharing: no policy %q (Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD)", name)
}

// Score bounds of the framework.
const (
	minScore = 0
	maxScore = 100
)

// Normalize maps scores to 0..100 by min-max, in integers (so that near
// scores may become equal); all-equal scores all become 0.
func Normalize(scores []int64) {
	if len(scores) == 0 {
		return
	}
	lo, hi := slices.Min(scores), slices.Max(scores)
	for i, v := range scores {
		if hi == lo {
			scores[i] = minScore
		} else {
			scores[i] = (v-lo)*(maxScore-minScore)/(hi-lo) + minScore
		}
	}
}

// Random chooses a feasible node uniformly (its PreScore draws one index
// of the feasible list with Intn, when there are at least two) and a
// random fitting GPU for a sharing pod. The artefact's feasible list is
// built by parallel filters in no fixed order, so its runs cannot be
// replayed draw for draw; only the distribution is the same.
func Random() Policy {
	return Policy{Name: "Random", Pick: pickRandom}
}

// DotProd is Tetris's alignment score: the dot product of the node's free
// (CPU, total GPU) and the pod's request, each divided by the largest node
// (128 CPUs, 8 GPUs), halved; the score is 100*(1 - that), so the node
// whose free resources align least with the request wins.
func DotProd() Policy {
	return Policy{Name: "DotProd", Score: dotProdScore, Pick: pickBestFit}
}

// The largest node of the trace, which DotProd and BestFit divide by.
const (
	maxSpecCPU = 128000
	maxSpecGPU = 8000
)

func dotProdScore(s *NodeState, p *Pod) int64 {
	node := [2]float64{float64(s.CPU) / maxSpecCPU, float64(s.FreeGPUMilli()) / maxSpecGPU}
	pod := [2]float64{float64(p.MilliCPU) / maxSpecCPU, float64(p.TotalGPUMilli()) / maxSpecGPU}
	var dot float64
	for i := range node {
		dot += node[i] * pod[i]
	}
	return int64(maxScore * (1 - dot/2))
}

// GpuClustering packs pods of one GPU kind together (sharing, or k whole
// GPUs): a node holding only the pod's kind scores 75..100, one holding
// its kind among others 50..75, an empty node 25..50, a node of other
// kinds 0..25; within a band, the fuller node (fewer free milli-GPUs out
// of 8000) scores higher. A pod without GPUs scores 0 everywhere.
func GpuClustering() Policy {
	return Policy{Name: "GpuClustering", Score: gpuClusteringScore, Pick: pickBestFit}
}

func gpuClusteringScore(s *NodeState, p *Pod) int64 {
	if p.NumGPU == 0 {
		return minScore
	}
	kinds := 0
	for _, c := range s.Classes {
		if c > 0 {
			kinds++
		}
	}
	band := int64(0)
	switch {
	case s.Classes[class(p)] > 0 && kinds == 1:
		band = maxScore * 3 / 4
	case s.Classes[class(p)] > 0:
		band = maxScore * 2 / 4
	case kinds == 0:
		band = maxScore / 4
	}
	return maxScore/4*(maxSpecGPU-s.FreeGPUMilli())/maxSpecGPU + band
}

// GpuPacking prefers, in order: a node where the pod uses GPUs already in
// use (50..100, fewer free tenths on those GPUs first), a used node where
// it needs fully free GPUs (33..50, fewer of them first), an idle node
// (0..33, fewer GPUs first). A pod without GPUs scores 0 everywhere.
func GpuPacking() Policy {
	return Policy{Name: "GpuPacking", Score: gpuPackingScore, Pick: pickBestFit}
}

func gpuPackingScore(s *NodeState, p *Pod) int64 {
	if p.TotalGPUMilli() == 0 {
		return minScore
	}
	free := int64(s.FullyFree())
	if free == int64(s.GPUs) {
		return max(maxScore/3-free, free)
	}
	need, fresh, tenths := p.NumGPU, int64(0), int64(0)
	for _, i := range s.leastFreeFirst() {
		if need == 0 {
			break
		}
		if f := int64(s.Free[i]); p.GPUMilli <= f {
			need--
			tenths += f * 100 / milli
			if f == milli {
				fresh++
			}
		}
	}
	if need != 0 {
		return minScore // cannot happen on a node the pod fits
	}
	if fresh > 0 {
		return max(maxScore/2-fresh, maxScore/3)
	}
	return max(maxScore-tenths/10, maxScore/2)
}

// leastFreeFirst lists the GPU indices by free milli, ascending, keeping
// index order among equals.
func (s *NodeState) leastFreeFirst() []int {
	idx := make([]int, s.GPUs)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(s.Free[a]) - int(s.Free[b]) })
	return idx
}

// BestFit scores how little the node has left after the pod: 100 minus
// the mean of the free CPU and free GPU left over, each divided by the
// largest node; the scores are then normalised over the feasible nodes.
func BestFit() Policy {
	return Policy{Name: "BestFit", Score: bestFitScore, Normalize: true, Pick: pickBestFit}
}

func bestFitScore(s *NodeState, p *Pod) int64 {
	free := [2]float64{float64(s.CPU), float64(s.FreeGPUMilli())}
	req := [2]float64{float64(p.MilliCPU), float64(p.TotalGPUMilli())}
	spec := [2]float64{maxSpecCPU, maxSpecGPU}
	var left float64
	for i := range free {
		left += (free[i] - req[i]) / spec[i] * 0.5
	}
	return int64((1.0 - left) * maxScore)
}

// FGD is Fragmentation Gradient Descent: the score is
// 100*sigmoid((Frag(before) - Frag(after))/1000), truncated to an
// integer, where "after" is the node with the pod placed: on each GPU
// that fits a sharing pod (the best GPU gives the score and is the one
// picked; the lowest index wins a tie of the truncated scores), on the
// lowest-indexed fully free GPUs for a whole-GPU pod, on the CPU only
// for a pod without GPUs. Scores are not normalised.
func FGD(m *FragMemo) Policy {
	return Policy{
		Name:  "FGD",
		Score: func(s *NodeState, p *Pod) int64 { sc, _ := fgd(m, s, p); return sc },
		Pick:  func(s *NodeState, p *Pod, _ *rand.Rand) GPUSet { _, g := fgd(m, s, p); return g },
	}
}

func fgd(m *FragMemo, s *NodeState, p *Pod) (int64, GPUSet) {
	before := m.Frag(s)
	if !p.Sharing() {
		gpus := firstFree(s, p)
		after := *s
		after.Place(p, gpus)
		return fgdScore(before, m.Frag(&after)), gpus
	}
	best, pick := int64(-1), GPUSet(0)
	for i := range s.GPUs {
		if int64(s.Free[i]) < p.GPUMilli {
			continue
		}
		after := *s
		after.Place(p, GPUSet(0).With(i))
		if sc := fgdScore(before, m.Frag(&after)); sc > best {
			best, pick = sc, GPUSet(0).With(i)
		}
	}
	return best, pick
}

func fgdScore(before, after float64) int64 {
	return int64(sigmoid((before-after)/1000) * maxScore)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// firstFree is the GPUs a pod of whole GPUs takes: the lowest-indexed
// fully free ones (none for a pod without GPUs).
func firstFree(s *NodeState, p *Pod) GPUSet {
	var g GPUSet
	need := p.NumGPU
	for i := 0; i < s.GPUs && need > 0; i++ {
		if s.Free[i] == milli {
			g, need = g.With(i), need-1
		}
	}
	return g
}

// pickBestFit: whole GPUs first free; a share on the least free GPU that
// fits, the lowest index on a tie.
func pickBestFit(s *NodeState, p *Pod, _ *rand.Rand) GPUSet {
	if !p.Sharing() {
		return firstFree(s, p)
	}
	best := -1
	for i := range s.GPUs {
		if int64(s.Free[i]) >= p.GPUMilli && (best < 0 || s.Free[i] < s.Free[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	return GPUSet(0).With(best)
}

// pickRandom: whole GPUs first free; a share on a fitting GPU drawn by
// reservoir sampling in index order (one Intn per fitting GPU).
func pickRandom(s *NodeState, p *Pod, r *rand.Rand) GPUSet {
	if !p.Sharing() {
		return firstFree(s, p)
	}
	var g GPUSet
	seen := 0
	for i := range s.GPUs {
		if int64(s.Free[i]) >= p.GPUMilli {
			seen++
			if r.Intn(seen) == 0 {
				g = GPUSet(0).With(i)
			}
		}
	}
	return g
}
