package plots_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/metrics/plots"
)

// Grouped bars: a panel per measure, a row per group (the first on top),
// the series in the legend; values that do not match are an error.
func TestGroupedBars(t *testing.T) {
	groups, series := []string{"team-a", "team-b", "team-c"}, []string{"base", "fairsharing:on"}
	f, err := plots.GroupedBars("compare", "Time to admission", groups, series, []plots.BarPanel{
		{Label: "mean (minutes)", Values: [][]float64{{1, 2, 3}, {3, 2, 1}}},
		{Label: "p90 (minutes)", Values: [][]float64{{2, 4, 6}, {6, 4, 2}}},
	})
	require.NoError(t, err)
	require.Len(t, f.Panels, 2)
	ticks := f.Panels[0].Y.Tick.Marker.Ticks(0, 2)
	assert.Equal(t, "team-a", ticks[2].Label, "the first group on top")
	svg, _, err := f.InlineSVG()
	require.NoError(t, err)
	for _, want := range []string{"Time to admission", "fairsharing:on", "p90 (minutes)", "team-c"} {
		assert.Contains(t, string(svg), want)
	}
	three, err := plots.GroupedBars("c", "t", []string{"a", "b", "c", "d", "e", "f"}, series, []plots.BarPanel{{Label: "x", Values: [][]float64{make([]float64, 6), make([]float64, 6)}}})
	require.NoError(t, err)
	assert.Greater(t, float64(three.PanelHeight), float64(f.PanelHeight), "a row per group: taller with more")

	_, err = plots.GroupedBars("c", "t", groups, series, []plots.BarPanel{{Label: "x", Values: [][]float64{{1, 2, 3}}}})
	assert.ErrorContains(t, err, "plots: c: x has 1 series, not 2")
	_, err = plots.GroupedBars("c", "t", groups, series, []plots.BarPanel{{Label: "x", Values: [][]float64{{1, 2, 3}, {1}}}})
	assert.ErrorContains(t, err, "plots: c: x: series fairsharing:on has 1 values, not 3")
	_, err = plots.GroupedBars("c", "t", nil, series, nil)
	assert.ErrorContains(t, err, "nothing to draw")
}
