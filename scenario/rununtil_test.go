package scenario

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// RunUntil stops a run right after the step that made the event done
// accepts, and what happened until then is what the whole run says of
// it: its events are the first of the whole run's, the run reports that
// it stopped, and a run told to stop never runs past the event. On
// scenarios of each of the runner's loops: pods alone, an autoscaler, the
// workload controllers, and Kueue.
func TestRunUntilIsAPrefixOfRun(t *testing.T) {
	files := []string{"arrivals.yaml", "preempt-grace.yaml", "gang-compete.yaml", "autoscale-basic.yaml", "controllers.yaml"}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			sc, err := Load(filepath.Join("testdata", "scenarios", name))
			require.NoError(t, err)
			checkRunUntilPrefix(t, sc)
		})
	}
	t.Run("kueue", func(t *testing.T) {
		sc, err := Parse("kueue.yaml", []byte(kueueQueues("2", "")+kubeNodes(2, 2)+kueueJob("a", 2, "1", "5m", "")+kueueJob("b", 2, "1", "5m", "")))
		require.NoError(t, err)
		checkRunUntilPrefix(t, sc)
	})
}

func checkRunUntilPrefix(t *testing.T, sc *Scenario) {
	t.Helper()
	var all []string
	res, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) { all = append(all, eventLine(e)) }))
	require.NoError(t, err)
	require.Empty(t, res.Stopped)
	require.Greater(t, len(all), 3)
	stops := []int{1, len(all) / 2, len(all) - 2}
	if len(all) < 300 {
		stops = stops[:0]
		for k := 1; k < len(all); k++ {
			stops = append(stops, k) // every event of a small run
		}
	}
	for _, k := range stops {
		var got []string
		seen := 0
		part, err := sc.RunUntil(func(gangsim.Event) bool { seen++; return seen >= k },
			gangsim.WithObserver(func(e gangsim.Event) { got = append(got, eventLine(e)) }))
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(got), k)
		require.Equal(t, all[:len(got)], got, "stopped after event %d", k)
		if len(got) < len(all) {
			require.Contains(t, part.Stopped, "as asked", "stopped after event %d of %d", k, len(all))
		}
		// Kueue's decisions until then are the whole run's first ones
		require.LessOrEqual(t, len(part.KueueEvents), len(res.KueueEvents))
		require.Equal(t, res.KueueEvents[:len(part.KueueEvents)], part.KueueEvents, "stopped after event %d", k)
	}
	// asked to stop at the first event, it does not run to the end
	var got []string
	_, err = sc.RunUntil(func(gangsim.Event) bool { return true }, gangsim.WithObserver(func(e gangsim.Event) { got = append(got, eventLine(e)) }))
	require.NoError(t, err)
	require.Less(t, len(got), len(all))
}

func eventLine(e gangsim.Event) string {
	s := fmt.Sprintf("%v %v %s %s", e.At, e.Kind, e.Node, e.Reason)
	if e.Pod != nil {
		s += " " + string(e.Pod.Key())
	}
	return s
}
