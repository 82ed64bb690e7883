package main

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScoresByHand(t *testing.T) {
	oneShare := NodeState{CPU: 64000, Mem: 1, GPUs: 8, Model: "T4"}
	for i := range 8 {
		oneShare.Free[i] = milli
	}
	oneShare.Free[0] = 500
	oneShare.Classes[0] = 1
	mixed := oneShare
	mixed.Classes[1] = 1
	mixed.Free[1] = 0

	for _, tc := range []struct {
		name  string
		score func(*NodeState, *Pod) int64
		s     NodeState
		p     *Pod
		want  int64
	}{
		// Node (64000/128000, 2000/8000) . pod (8000/128000, 500/8000) =
		// 0.046875; 100*(1 - 0.046875/2) = 97.66.
		{"DotProd", dotProdScore, state(64000, 1000, 1000), share(8000, 500), 97},
		// Left over: 56000/128000/2 + 1500/8000/2 = 0.3125: 68.75.
		{"BestFit", bestFitScore, state(64000, 1000, 1000), share(8000, 500), 68},
		{"BestFit, exact fit", bestFitScore, state(8000, 500), share(8000, 500), 100},
		// Two whole GPUs on a used node: both fully free, 50-2.
		{"GpuPacking, fresh GPUs", gpuPackingScore, state(1000, 200, 1000, 1000, 500), whole(100, 2), 48},
		// An idle node: 33 minus its GPUs (but at least that many).
		{"GpuPacking, idle 4", gpuPackingScore, state(1000, 1000, 1000, 1000, 1000), whole(100, 2), 29},
		{"GpuPacking, idle 8", gpuPackingScore, state(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000), whole(100, 2), 25},
		// Shares of used GPUs: the 200 and the 500, 20+50 tenths: 100-7.
		{"GpuPacking, used GPUs", gpuPackingScore, state(1000, 200, 1000, 1000, 500), &Pod{MilliCPU: 100, NumGPU: 2, GPUMilli: 200}, 93},
		{"GpuPacking, no GPU", gpuPackingScore, state(1000, 200), cpuOnly(100), 0},
		// An empty node: band 25, no use yet.
		{"GpuClustering, empty", gpuClusteringScore, state(64000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000), share(1000, 500), 25},
		// Sharing pods only: band 75, plus 25*500/8000.
		{"GpuClustering, same kind", gpuClusteringScore, oneShare, share(1000, 500), 76},
		{"GpuClustering, among others", gpuClusteringScore, mixed, share(1000, 500), 50 + 25*1500/8000},
		{"GpuClustering, other kind", gpuClusteringScore, oneShare, whole(1000, 1), 1},
		{"GpuClustering, no GPU", gpuClusteringScore, oneShare, cpuOnly(1000), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.score(&tc.s, tc.p))
		})
	}
}

func TestFGDByHand(t *testing.T) {
	m := NewFragMemo(Workload{{MilliCPU: 1000, GPUMilli: 500, NumGPU: 1, Weight: 1}})
	fgd := FGD(m)
	for _, tc := range []struct {
		name  string
		s     NodeState
		p     *Pod
		score int64
		gpus  GPUSet
	}{
		// On GPU 0 the node keeps two GPUs of 500 and more: no fragment,
		// sigmoid(0) = 0.5. On GPU 1 (what best fit would take), 100 is
		// left that no task can use: sigmoid(-0.1) = 0.475.
		{"share", state(8000, 1000, 600), share(1000, 500), 50, 1 << 0},
		// 300 on GPU 1 would leave 300 of no use: sigmoid(-0.3) = 0.43.
		{"small share", state(8000, 1000, 600), share(1000, 300), 50, 1 << 0},
		// A whole GPU: the 400 sliver is fragment before and after.
		{"whole", state(8000, 1000, 1000, 400), whole(1000, 1), 50, 1 << 0},
		// A pod without GPUs that takes the last CPU: every GPU becomes
		// fragment, 2000 more: sigmoid(-2) = 0.119.
		{"last CPU", state(1000, 1000, 1000), cpuOnly(1000), 11, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.score, fgd.Score(&tc.s, tc.p))
			require.Equal(t, tc.gpus, fgd.Pick(&tc.s, tc.p, nil))
		})
	}
	// Taking a whole GPU's CPU and GPU from a fitting node: two shares
	// fitted on [1000, 1000] (0 fragment); on [0, 1000] with no CPU left,
	// the other GPU is fragment: sigmoid(-1) = 0.269.
	s := state(1000, 1000, 1000)
	require.Equal(t, int64(26), fgd.Score(&s, whole(1000, 1)))
}

func TestPicks(t *testing.T) {
	s := state(8000, 1000, 600, 550, 550)
	require.Equal(t, GPUSet(1<<2), pickBestFit(&s, share(1, 500), nil), "the least free that fits, the lowest index among equals")
	small := state(8000, 300)
	require.Equal(t, GPUSet(0), pickBestFit(&small, share(1, 500), nil), "nothing fits: none")
	two := state(8000, 500, 1000, 1000, 1000)
	require.Equal(t, GPUSet(1<<1|1<<2), pickBestFit(&two, whole(1, 2), nil), "whole GPUs: the lowest-indexed fully free")
	require.Equal(t, []int{1, 2}, GPUSet(1<<1|1<<2).Indices())
	r := rand.New(rand.NewSource(7))
	seen := map[GPUSet]bool{}
	for range 200 {
		g := pickRandom(&s, share(1, 560), r)
		require.Contains(t, []GPUSet{1 << 0, 1 << 1}, g, "a random GPU that fits")
		seen[g] = true
	}
	require.Len(t, seen, 2)
	require.Equal(t, GPUSet(1<<1|1<<2), pickRandom(&two, whole(1, 2), r))
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want []int64 }{
		{[]int64{10, 20, 30}, []int64{0, 50, 100}},
		{[]int64{0, 1, 3}, []int64{0, 33, 100}},
		{[]int64{5, 5}, []int64{0, 0}},
		{nil, nil},
	} {
		Normalize(tc.in)
		require.Equal(t, tc.want, tc.in)
	}
}

func TestFits(t *testing.T) {
	s := state(4000, 1000, 300)
	require.True(t, s.Fits(share(4000, 300)))
	require.False(t, s.Fits(share(4001, 300)), "CPU")
	require.False(t, s.Fits(whole(1, 2)), "one GPU is not fully free")
	require.True(t, s.Fits(whole(1, 1)))
	p := share(1, 100)
	p.MemoryMiB = s.Mem + 1
	require.False(t, s.Fits(p), "memory")
	p = share(1, 100)
	p.Models = []string{"A10"}
	require.False(t, s.Fits(p), "model")
	cpu := NodeState{CPU: 8000, Mem: 10}
	require.True(t, cpu.Fits(cpuOnly(100)))
	require.False(t, cpu.Fits(share(100, 100)))
}

func TestPolicyByName(t *testing.T) {
	m := NewFragMemo(handWorkload)
	for _, p := range Policies(m) {
		got, err := PolicyByName(p.Name, m)
		require.NoError(t, err)
		require.Equal(t, p.Name, got.Name)
	}
	_, err := PolicyByName("Tetris", m)
	require.ErrorContains(t, err, `no policy "Tetris"`)
}

// randomKey prints what fmt prints.
func TestRandomKeyIsFmts(t *testing.T) {
	for _, tc := range []struct {
		seed  int64
		node  string
		free  []int32
		milli int64
	}{{42, "abcde-node-1", []int32{1000, 250, 0}, 250}, {-7, "n", nil, 1000}, {51, "x-y", []int32{5}, 0}} {
		want := fmt.Sprintf("%d/%s/%v/%d", tc.seed, tc.node, tc.free, tc.milli)
		if got := string(randomKey(nil, tc.seed, tc.node, tc.free, tc.milli)); got != want {
			t.Errorf("randomKey = %q, want %q", got, want)
		}
	}
}

// acceptsJoined is Accepts of the split list.
func TestAcceptsJoinedIsAccepts(t *testing.T) {
	for _, model := range []string{"", "T4", "V100", "A10"} {
		s := NodeState{Model: model}
		for _, models := range []string{"", "T4", "V100|T4", "A100|V100M16", "|", "T4|"} {
			var split []string
			if models != "" {
				split = strings.Split(models, "|")
			}
			if got, want := s.acceptsJoined(models), s.Accepts(split); got != want {
				t.Errorf("model %q, models %q: acceptsJoined %v, Accepts %v", model, models, got, want)
			}
		}
	}
}
