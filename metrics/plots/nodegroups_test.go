package plots_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
)

// autoscaled is the small report with one node group that grew to 2
// nodes (requested at 10m, ready at 14m) and shrank to 1 at 1h.
func autoscaled(t *testing.T) *metrics.Report {
	rep := report(t, small)
	m := time.Minute
	rep.AddAutoscaling([]autoscaler.NodeGroup{{Name: "gpu", Max: 3, PricePerHour: 2}}, []autoscaler.GroupSummary{{Name: "gpu", NodesAdded: 2, NodesRemoved: 1, MaxNodes: 2}},
		[]autoscaler.Event{
			{At: 10 * m, Kind: autoscaler.EventScaleUp, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}},
			{At: 14 * m, Kind: autoscaler.EventNodeReady, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}},
			{At: 60 * m, Kind: autoscaler.EventScaleDown, Group: "gpu", Nodes: []string{"gpu-2"}},
		}, nil)
	return rep
}

func TestNodeGroupsFigure(t *testing.T) {
	_, ok := plots.NodeGroups(report(t, small))
	assert.False(t, ok, "no node groups: no figure")
	rep := autoscaled(t)
	f, ok := plots.NodeGroups(rep)
	require.True(t, ok)
	assert.Equal(t, "nodegroups", f.Name)
	require.Len(t, f.Panels, 1, "a panel per group")
	var names []string
	for _, fig := range plots.Figures(rep) {
		names = append(names, fig.Name)
	}
	assert.Equal(t, []string{"allocation", "pending", "nodegroups", "waits", "domains-rack"}, names)
	svg, _, err := f.InlineSVG()
	require.NoError(t, err)
	assert.Contains(t, string(svg), "ready nodes")
	assert.Contains(t, string(svg), "group gpu (nodes)")
}
