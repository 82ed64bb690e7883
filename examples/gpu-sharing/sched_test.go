package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The scheduler path against the pure driver, pod by pod: the same nodes
// for every pod (placed or failed) under the five deterministic policies.
func TestSchedulerMatchesPure(t *testing.T) {
	nodes, trace := openb(t)
	memo := NewFragMemo(NewWorkload(trace))
	seeds := []int64{42, 45}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		for _, pol := range Policies(memo)[1:] {
			cfg := SampleConfig{Seed: seed, Ratio: 1.3, ExtraDraws: DefaultExtraDraws}
			r1, err := Sample(trace, nodes, cfg)
			require.NoError(t, err)
			want := Simulate(r1, pol)
			r2, err := Sample(trace, nodes, cfg)
			require.NoError(t, err)
			start := time.Now()
			got, err := SimulateScheduler(r2, pol, memo, seed, SchedOptions{MinMax: pol.Normalize && seed == seeds[0]})
			require.NoError(t, err)
			t.Logf("seed %d %s: %v, @100 %.2f (pure %.2f)", seed, pol.Name, time.Since(start).Round(time.Millisecond), got.AllocRatio(100), want.AllocRatio(100))
			first := -1
			for k := range want.Node {
				if want.Node[k] != got.Node[k] {
					first = k
					break
				}
			}
			require.Equal(t, -1, first, "seed %d %s: first difference at pod %d", seed, pol.Name, first)
		}
	}
}

func BenchmarkSchedulerRun(b *testing.B) {
	nodes, trace := openb(b)
	memo := NewFragMemo(NewWorkload(trace))
	for _, pol := range Policies(memo) {
		b.Run(pol.Name, func(b *testing.B) {
			for b.Loop() {
				r, err := Sample(trace, nodes, SampleConfig{Seed: 42, Ratio: 1.3, ExtraDraws: DefaultExtraDraws})
				require.NoError(b, err)
				_, err = SimulateScheduler(r, pol, memo, 42, SchedOptions{})
				require.NoError(b, err)
			}
		})
	}
}
