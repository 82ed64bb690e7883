package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tiny trace of testdata (hand-made, not from the data set) runs
// without the openb files, so CI covers the scheduler path.
const (
	tinyNodes = "testdata/nodes.csv"
	tinyPods  = "testdata/pods.csv"
)

func tinyTrace(t *testing.T) ([]Node, []Pod) {
	t.Helper()
	nodes, err := LoadNodes(tinyNodes)
	require.NoError(t, err)
	pods, err := LoadPods(tinyPods)
	require.NoError(t, err)
	return nodes, pods
}

// On the tiny trace the scheduler path places every pod where the pure
// driver does, under the five deterministic policies and many seeds (the
// node ranks and the pod orders change with the seed), BestFit with and
// without its min-max normaliser.
func TestTinySchedulerMatchesPure(t *testing.T) {
	nodes, trace := tinyTrace(t)
	memo := NewFragMemo(NewWorkload(trace))
	for seed := int64(1); seed <= 30; seed++ {
		for _, pol := range Policies(memo)[1:] {
			for _, minMax := range []bool{false, true} {
				cfg := SampleConfig{Seed: seed, Ratio: 1.3, ExtraDraws: DefaultExtraDraws}
				r1, err := Sample(trace, nodes, cfg)
				require.NoError(t, err)
				want := Simulate(r1, pol)
				r2, err := Sample(trace, nodes, cfg)
				require.NoError(t, err)
				got, err := SimulateScheduler(r2, pol, memo, seed, SchedOptions{MinMax: minMax})
				require.NoError(t, err)
				require.Equal(t, want.Node, got.Node, "seed %d %s minmax %v", seed, pol.Name, minMax)
				require.Equal(t, want.Used, got.Used)
			}
		}
	}
}

// Random places pods on the tiny trace without error and allocates no
// more than arrived.
func TestTinyRandom(t *testing.T) {
	nodes, trace := tinyTrace(t)
	for seed := int64(1); seed <= 10; seed++ {
		r, err := Sample(trace, nodes, SampleConfig{Seed: seed, Ratio: 1.3, ExtraDraws: DefaultExtraDraws})
		require.NoError(t, err)
		o, err := SimulateScheduler(r, Random(), nil, seed, SchedOptions{})
		require.NoError(t, err)
		last := len(o.Used) - 1
		require.LessOrEqual(t, o.Used[last], o.Arrived[last])
		require.Positive(t, o.Used[last])
	}
}

// The command's JSON on the tiny trace: every policy, every 10% to 130%,
// and a plot file.
func TestTinyCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	plot := filepath.Join(t.TempDir(), "alloc.svg")
	require.NoError(t, run([]string{"-nodes", tinyNodes, "-pods", tinyPods, "-seeds", "3", "-json", "-plot", plot}, &out, &errOut))
	var res struct {
		Policies map[string]map[string]struct{ Mean, Std float64 }
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	require.Len(t, res.Policies, 6)
	for name, m := range res.Policies {
		// a tiny cluster's arrivals jump past some percents
		require.GreaterOrEqual(t, len(m), 5, name)
		for pct, st := range m {
			require.InDelta(t, 50, st.Mean, 50, "%s at %s%%", name, pct)
		}
	}
	st, err := os.Stat(plot)
	require.NoError(t, err)
	require.Positive(t, st.Size())
}

// Without the trace the command says where to get it.
func TestNoTrace(t *testing.T) {
	t.Setenv(traceDirVar, t.TempDir())
	if findTraceDir() != "" {
		t.Skip("the shared trace is present")
	}
	err := run(nil, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorIs(t, err, errNoTrace)
	require.Contains(t, err.Error(), "github.com/alibaba/clusterdata")
}

// FGD on the tiny trace, through the scheduler, two seeds: the allocation
// ratio at each 10% of arrived requests the runs come near (a cluster of
// 16 GPUs and pods of up to 4 GPUs jump past some).
func Example() {
	if err := run([]string{"-nodes", tinyNodes, "-pods", tinyPods, "-seeds", "2", "-policies", "FGD", "-json"}, os.Stdout, os.Stderr); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "policies": {
	//     "FGD": {
	//       "120": {
	//         "mean": 95.31,
	//         "std": 0
	//       },
	//       "20": {
	//         "mean": 20.31,
	//         "std": 0
	//       },
	//       "40": {
	//         "mean": 40.2,
	//         "std": 0.59
	//       },
	//       "60": {
	//         "mean": 60.94,
	//         "std": 0
	//       },
	//       "70": {
	//         "mean": 70.31,
	//         "std": 0
	//       },
	//       "90": {
	//         "mean": 89.06,
	//         "std": 0
	//       }
	//     }
	//   }
	// }
}
