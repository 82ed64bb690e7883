package whatif_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/whatif"
)

// Quantile 1 is the longest wait, known as soon as one pod has waited too
// long: a run that breaks the bound is stopped there, as with no quantile
// given, and says where it stopped.
func TestQuantileOneStopsEarly(t *testing.T) {
	sc := `
nodes: [{name: n, allocatable: {cpu: "1"}}]
pods: [{name: p, requests: {cpu: "1"}, duration: 1h, count: 3}]
`
	for _, q := range []float64{0, 1} {
		a, err := whatif.FewestNodesToAdd(parse(t, sc), "n", whatif.Criteria{MaxWait: 30 * time.Minute, Quantile: q}, whatif.Options{})
		require.NoError(t, err)
		require.Equal(t, 2, a.Count, "quantile %v", q)
		failed := 0
		for _, r := range a.Runs {
			if !r.OK {
				failed++
				require.True(t, strings.HasPrefix(r.Note, "stopped at "), "quantile %v: run of %d: %q", q, r.Count, r.Note)
			}
		}
		require.Positive(t, failed)
	}
}
