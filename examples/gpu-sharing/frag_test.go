package main

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// handWorkload: a 500-milli share with 4 CPUs (half of the pods), one
// whole GPU with 8 CPUs (30%), 2 CPUs without GPUs (20%).
var handWorkload = Workload{
	{MilliCPU: 4000, GPUMilli: 500, NumGPU: 1, Weight: 0.5},
	{MilliCPU: 8000, GPUMilli: 1000, NumGPU: 1, Weight: 0.3},
	{MilliCPU: 2000, Weight: 0.2},
}

func TestFragByHand(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    NodeState
		want float64
	}{
		// The share fits, but not on the 300 left: 0.5*300. The whole GPU
		// lacks CPU: all 1300 free, 0.3*1300. No GPU is of use to a pod
		// without GPUs: 0.2*1300.
		{"used", state(6000, 1000, 300), 150 + 390 + 260},
		// Enough CPU: the whole GPU fits on GPU 0, the 300 left is of no
		// use to it either: 0.3*300.
		{"used, CPU to spare", state(16000, 1000, 300), 150 + 90 + 260},
		// An empty node: only the pods without GPUs leave GPUs idle.
		{"empty", state(16000, 1000, 1000), 0.2 * 2000},
		// No GPU free: nothing to fragment.
		{"full", state(16000, 0, 0), 0},
		// No CPU: every task lacks something, all free milli is fragment.
		{"no CPU", state(0, 1000, 500), 1500},
		// Shares of 400 and 200: both too small for either GPU task.
		{"slivers", state(16000, 400, 200), 600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, Frag(&tc.s, handWorkload), 1e-9)
		})
	}
}

func TestFragModels(t *testing.T) {
	w := Workload{{MilliCPU: 1000, GPUMilli: 500, NumGPU: 1, Models: "V100M16|V100M32", Weight: 1}}
	s := state(8000, 1000, 1000)
	require.InDelta(t, 2000.0, Frag(&s, w), 1e-9, "a T4 node is of no use to a V100 task")
	s = s.model("V100M32")
	require.InDelta(t, 0.0, Frag(&s, w), 1e-9)
}

// randomState is a node of 1, 2, 4 or 8 GPUs with random free shares.
func randomState(r *rand.Rand) NodeState {
	n := []int{1, 2, 4, 8}[r.Intn(4)]
	s := NodeState{CPU: int64(r.Intn(64)) * 1000, GPUs: n, Model: "T4"}
	for i := range n {
		s.Free[i] = int32([]int{0, 100, 250, 500, 700, 1000}[r.Intn(6)])
	}
	return s
}

func TestFragProperties(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	w := Workload{
		{MilliCPU: 4000, GPUMilli: 500, NumGPU: 1, Weight: 0.4},
		{MilliCPU: 6000, GPUMilli: 250, NumGPU: 1, Weight: 0.2},
		{MilliCPU: 16000, GPUMilli: 1000, NumGPU: 2, Weight: 0.2},
		{MilliCPU: 8000, GPUMilli: 1000, NumGPU: 1, Weight: 0.1},
		{MilliCPU: 2000, Weight: 0.1},
	}
	memo := NewFragMemo(w)
	for range 2000 {
		s := randomState(r)
		f := Frag(&s, w)
		require.GreaterOrEqual(t, f, 0.0)
		require.LessOrEqual(t, f, float64(s.FreeGPUMilli())+1e-9, "at most the free milli is fragment")
		more := s
		more.CPU += 8000
		require.LessOrEqual(t, Frag(&more, w), f+1e-9, "more CPU never fragments more")
		shuffled := s
		r.Shuffle(s.GPUs, func(i, j int) { shuffled.Free[i], shuffled.Free[j] = shuffled.Free[j], shuffled.Free[i] })
		require.InDelta(t, f, Frag(&shuffled, w), 1e-9, "which GPU is which does not matter")
		require.Equal(t, f, memo.Frag(&shuffled), "the memo gives the same")
		full := s
		clear(full.Free[:])
		require.Zero(t, Frag(&full, w))
	}
	// An empty node fragments only for the pods without GPUs (10%).
	empty := state(64000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)
	require.InDelta(t, 800.0, Frag(&empty, w), 1e-9)
}

func TestNewWorkload(t *testing.T) {
	var trace []Pod
	add := func(n int, p *Pod) {
		for range n {
			trace = append(trace, *p)
		}
	}
	add(10, share(4000, 500)) // 50%
	add(3, cpuOnly(2000))     // 15%, tied with the next one: the larger CPU first
	add(3, whole(8000, 1))
	add(3, whole(1000, 1)) // 15%: with it the kinds reach 95%
	add(1, whole(1000, 8)) // 5%: left out
	w := NewWorkload(trace)
	want := Workload{
		{MilliCPU: 4000, GPUMilli: 500, NumGPU: 1, Weight: 10.0 / 19},
		{MilliCPU: 8000, GPUMilli: 1000, NumGPU: 1, Weight: 3.0 / 19},
		{MilliCPU: 2000, Weight: 3.0 / 19},
		{MilliCPU: 1000, GPUMilli: 1000, NumGPU: 1, Weight: 3.0 / 19},
	}
	require.Len(t, w, len(want))
	for i := range want {
		require.Equal(t, want[i].MilliCPU, w[i].MilliCPU, i)
		require.Equal(t, want[i].NumGPU, w[i].NumGPU, i)
		require.InDelta(t, want[i].Weight, w[i].Weight, 1e-12, i)
	}
}

func TestWorkloadOfTheTrace(t *testing.T) {
	_, pods := openb(t)
	w := NewWorkload(pods)
	require.Len(t, w, 35, "the default trace's 35 most frequent of 91 kinds cover 95%")
	var sum float64
	for _, k := range w {
		sum += k.Weight
	}
	require.InDelta(t, 1.0, sum, 1e-9)
	require.True(t, slices.IsSortedFunc(w, func(a, b TaskType) int { return -cmpFloat(a.Weight, b.Weight) }))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestClusterFragRatio(t *testing.T) {
	m := NewFragMemo(handWorkload)
	nodes := []NodeState{state(6000, 1000, 300), state(16000, 0, 0)}
	require.InDelta(t, 800.0/1300, ClusterFragRatio(nodes, m), 1e-12)
	require.Zero(t, ClusterFragRatio(nodes[1:], m))
}
