package plots_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
)

// withKueue adds n ClusterQueues of 1 core to the small report, with a
// workload each made at i minutes, admitted with 2 cores (1 borrowed) at
// i+5 minutes; the earlier queues are the busier.
func withKueue(t *testing.T, n int) *metrics.Report {
	rep := report(t, small)
	m := time.Minute
	objs := &kueue.Objects{ResourceFlavors: []kueue.ResourceFlavor{{Name: "f"}}}
	var events []kueue.Event
	for i := range n {
		cq, wl := fmt.Sprintf("cq-%02d", i), fmt.Sprintf("default/w-%02d", i)
		objs.ClusterQueues = append(objs.ClusterQueues, kueue.ClusterQueue{Name: cq, CohortName: "pool", ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: 1000}}}}}}})
		events = append(events, kueue.Event{At: time.Duration(i) * m, Kind: kueue.Created, Workload: wl},
			kueue.Event{At: time.Duration(i+5) * m, Kind: kueue.QuotaReserved, Workload: wl, ClusterQueue: cq, Admission: &kueue.Admission{
				ClusterQueue: cq, PodSets: []kueue.PodSetAssignment{{Name: "main", Count: 2, Flavors: map[cluster.ResourceName]string{cluster.ResourceCPU: "f"},
					Usage: cluster.ResourceList{cluster.ResourceCPU: 2000}}}}})
	}
	rep.AddKueue(objs, events, nil)
	return rep
}

func TestKueueFigures(t *testing.T) {
	_, ok := plots.KueueQuota(report(t, small))
	assert.False(t, ok, "no Kueue: no figure")
	_, ok = plots.KueuePending(report(t, small))
	assert.False(t, ok)

	rep := withKueue(t, 2)
	var names []string
	for _, fig := range plots.Figures(rep) {
		names = append(names, fig.Name)
	}
	assert.Equal(t, []string{"allocation", "pending", "kueue-quota", "kueue-pending", "waits", "domains-rack"}, names)
	f, ok := plots.KueueQuota(rep)
	require.True(t, ok)
	require.Len(t, f.Panels, 2, "a panel per ClusterQueue")
	assert.Empty(t, f.Notes)
	svg, _, err := f.InlineSVG()
	require.NoError(t, err)
	assert.Contains(t, string(svg), "ClusterQueue cq-01 (cohort pool)")
	assert.Contains(t, string(svg), "f cpu (nominal 1 cores)")
	assert.Contains(t, string(svg), "nominal quota (borrowed above it, shaded)")

	p, ok := plots.KueuePending(rep)
	require.True(t, ok)
	require.Len(t, p.Panels, 2)
	svg, _, err = p.InlineSVG()
	require.NoError(t, err)
	assert.Contains(t, string(svg), "pending, not yet refused")
}

// TestKueueFiguresManyQueues: 40 queues make 30 panels, the busiest,
// and a note says so.
func TestKueueFiguresManyQueues(t *testing.T) {
	rep := withKueue(t, 40)
	for _, f := range []func(*metrics.Report) (plots.Figure, bool){plots.KueueQuota, plots.KueuePending} {
		fig, ok := f(rep)
		require.True(t, ok)
		assert.Len(t, fig.Panels, 30)
		assert.Equal(t, []string{"The 30 busiest of 40 ClusterQueues; all are in report.json and timeseries.csv."}, fig.Notes)
		assert.Contains(t, fig.Panels[0].Title.Text, "\nClusterQueue cq-00 ", "the busiest first, under the figure's title")
		assert.NotContains(t, fig.Panels[29].Title.Text, "cq-3")
	}
}
