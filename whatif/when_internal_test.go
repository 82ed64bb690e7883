package whatif

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// TestStartTimesEqualFullRun holds the early stop to its promise: each
// job's answer from a run stopped once it started is the answer a run to
// the end of the simulation gives of it. On generated dumps of three
// seeds (clusters in two pools, Kueue admitting with borrowing and
// preemption), every job asked alone, and pairs of them; on the
// hand-written dump with new jobs (a preemptor among them); and on the
// planner's default day.
func TestStartTimesEqualFullRun(t *testing.T) {
	cases := [][]string{
		{"testdata/when/state-1.json"}, {"testdata/when/state-2.json"}, {"testdata/when/state-3.json"},
		{"testdata/when/dump.yaml", "testdata/when/small.yaml", "testdata/when/urgent.yaml"},
		{"../examples/capacity-planning/default.yaml", "../examples/capacity-planning/default-kueue.yaml"},
	}
	for _, files := range cases {
		t.Run(filepath.Base(files[0]), func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.LoadFiles(files, scenario.WithDefaultDuration(mustRunTime(t, "{exponential: 20m}")))
			require.NoError(t, err)
			jobs := Jobs(sc)
			require.NotEmpty(t, jobs)
			full, end, err := watchRun(sc, jobs, false)
			require.NoError(t, err)
			started, early := 0, 0
			step := max(1, len(jobs)/12) // a dozen of a large input's jobs, spread over it
			for i, j := range jobs {
				if i%step != 0 {
					continue
				}
				alone, stopped, err := watchRun(sc, []string{j}, true)
				require.NoError(t, err)
				require.Equal(t, full[i], alone[0], j)
				require.LessOrEqual(t, stopped, end)
				if stopped < end {
					early++
				}
				if alone[0].Started {
					started++
				}
				if k := len(jobs) - 1 - i; k != i { // with another, from the other end
					pair, _, err := watchRun(sc, []string{j, jobs[k]}, true)
					require.NoError(t, err)
					require.Equal(t, []JobStart{full[i], full[k]}, pair, j+" with "+jobs[k])
				}
			}
			require.Positive(t, started)
			require.Positive(t, early, "no run stopped early")
		})
	}
}

func mustRunTime(t *testing.T, text string) scenario.RunTime {
	rt, err := scenario.ParseRunTime(text)
	require.NoError(t, err)
	return rt
}
