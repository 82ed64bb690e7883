package main

import (
	"math"
	"strconv"
	"strings"
)

// This file is the pure driver: a greedy loop that replays a run without
// the scheduler (filter CPU, memory and GPUs; score with the policy; the
// best score wins, the smallest rank on a tie; pick the GPUs). It
// validates the policies against the paper's numbers and times them; the
// example itself runs gangsim's Scheduler.

// Outcome is a run's GPU use after each arrival.
type Outcome struct {
	ClusterGPUs int     // GPUs of the cluster
	Arrived     []int64 // Arrived[k]: milli-GPUs asked by pods 0..k, placed or not
	Used        []int64 // Used[k]: milli-GPUs allocated after pod k
	Failed      int     // pods that fitted no node
	Node        []int   // Node[k]: the index in Run.Nodes pod k went to, -1 if none
}

// shape is what a score depends on in a pod.
type shape struct {
	cpu      int64
	gpuMilli int64
	numGPU   int
	models   string
}

// Simulate replays the run under the policy. Scores are remembered per
// node and pod shape until the node changes (a policy's score depends on
// the node's state and the pod's shape only).
func Simulate(run *Run, pol Policy) Outcome {
	states := make([]NodeState, len(run.Nodes))
	cache := make([]map[shape]int64, len(run.Nodes))
	for i := range run.Nodes {
		states[i] = NewNodeState(&run.Nodes[i])
		cache[i] = map[shape]int64{}
	}
	out := Outcome{ClusterGPUs: int(clusterGPUMilli(run.Nodes) / milli)}
	var arrived, used int64
	feasible, scores := make([]int, 0, len(states)), make([]int64, 0, len(states))
	for k := range run.Pods {
		p := &run.Pods[k]
		arrived += p.TotalGPUMilli()
		feasible = feasible[:0]
		for i := range states {
			if states[i].Fits(p) {
				feasible = append(feasible, i)
			}
		}
		node := -1
		if len(feasible) == 0 {
			out.Failed++
		} else {
			sh := shape{p.MilliCPU, p.GPUMilli, p.NumGPU, strings.Join(p.Models, "|")}
			best := choose(run, pol, states, cache, feasible, scores[:0], p, sh)
			gpus := pol.Pick(&states[best], p, run.Rand)
			states[best].Place(p, gpus)
			clear(cache[best])
			used += p.TotalGPUMilli()
			node = best
		}
		out.Node = append(out.Node, node)
		out.Arrived = append(out.Arrived, arrived)
		out.Used = append(out.Used, used)
	}
	return out
}

// choose is the node the pod goes to. The scheduler takes a single
// feasible node without scoring; Random draws one of two or more.
func choose(run *Run, pol Policy, states []NodeState, cache []map[shape]int64, feasible []int, scores []int64, p *Pod, sh shape) int {
	if len(feasible) == 1 {
		return feasible[0]
	}
	if pol.Score == nil {
		return feasible[run.Rand.Intn(len(feasible))]
	}
	for _, i := range feasible {
		sc, ok := cache[i][sh]
		if !ok {
			sc = pol.Score(&states[i], p)
			cache[i][sh] = sc
		}
		scores = append(scores, sc)
	}
	if pol.Normalize {
		Normalize(scores)
	}
	best := 0
	for j := 1; j < len(feasible); j++ {
		if scores[j] > scores[best] || scores[j] == scores[best] && run.Rank[feasible[j]] < run.Rank[feasible[best]] {
			best = j
		}
	}
	return feasible[best]
}

// AllocRatio is the GPU allocation ratio (%) at pct% of the cluster's
// GPUs arrived, as the artefact's analysis reports it: each arrival's
// ratio of arrived and of allocated milli-GPUs to the cluster's, in
// percent; the arrivals whose arrived percent rounds (half to even) to
// pct are averaged (each allocated percent rounded to 2 decimals first),
// or, when there are none, those rounding to pct-1..pct+1; the mean is
// rounded to 2 decimals. NaN when there is no arrival near pct.
func (o Outcome) AllocRatio(pct int) float64 {
	for _, window := range []float64{0, 1} {
		var sum float64
		n := 0
		for k := range o.Arrived {
			a := math.RoundToEven(o.percent(o.Arrived[k]))
			if math.Abs(a-float64(pct)) <= window {
				sum += round2(o.percent(o.Used[k]))
				n++
			}
		}
		if n > 0 {
			return round2(sum / float64(n))
		}
	}
	return math.NaN()
}

// percent is milli-GPUs as a percentage of the cluster's GPUs.
func (o Outcome) percent(m int64) float64 { return float64(m) / float64(o.ClusterGPUs) / 10 }

// round2 rounds to 2 decimals the way Python's round does (the exact
// binary value, half to even), which strconv's formatting also does.
func round2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	return v
}
