package whatif_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// sweep32 returns the sweep benchmark's 32 variants: 0 to 15 CPU nodes
// added, each with LeastAllocated and MostAllocated scoring.
func sweep32(t testing.TB) []whatif.Variant {
	var specs []string
	for k := range 16 {
		for _, st := range []string{"LeastAllocated", "MostAllocated"} {
			specs = append(specs, fmt.Sprintf("add:a1-0:%d,strategy:%s", k, st))
		}
	}
	return variants(t, specs...)
}

// BenchmarkSweep32 runs the same 32 variants one after another (one
// worker) and on all cores (GOMAXPROCS workers), and reports both wall
// times and the speed-up; each variant is a separate Scheduler on its
// own goroutine.
func BenchmarkSweep32(b *testing.B) {
	base, err := scenario.Load("testdata/sweep.yaml")
	require.NoError(b, err)
	vs := sweep32(b)
	var seq, par time.Duration
	for b.Loop() {
		start := time.Now()
		one, err := whatif.Compare(base, vs, whatif.Options{Workers: 1})
		require.NoError(b, err)
		seq += time.Since(start)
		start = time.Now()
		all, err := whatif.Compare(base, vs, whatif.Options{Workers: runtime.GOMAXPROCS(0)})
		require.NoError(b, err)
		par += time.Since(start)
		require.Equal(b, one, all, "the same results either way")
	}
	b.ReportMetric(seq.Seconds()/float64(b.N), "sequential-s/op")
	b.ReportMetric(par.Seconds()/float64(b.N), "parallel-s/op")
	b.ReportMetric(seq.Seconds()/par.Seconds(), "speedup")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
}
