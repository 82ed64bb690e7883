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

// withKueue adds n ClusterQueues of 1 core to the small report, each
// with a LocalQueue, with a workload each made at i minutes, admitted
// with 2 cores (1 borrowed) at i+5 minutes; the earlier queues are the
// busier.
func withKueue(t *testing.T, n int) *metrics.Report {
	rep := report(t, small)
	m := time.Minute
	objs := &kueue.Objects{ResourceFlavors: []kueue.ResourceFlavor{{Name: "f"}}}
	var events []kueue.Event
	var wls []metrics.KueueWorkload
	for i := range n {
		cq, wl := fmt.Sprintf("cq-%02d", i), fmt.Sprintf("default/w-%02d", i)
		objs.LocalQueues = append(objs.LocalQueues, kueue.LocalQueue{Namespace: "default", Name: cq, ClusterQueue: cq})
		wls = append(wls, metrics.KueueWorkload{Workload: wl, LocalQueue: cq, WaitForNodes: -1})
		objs.ClusterQueues = append(objs.ClusterQueues, kueue.ClusterQueue{Name: cq, CohortName: "pool", ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: 1000}}}}}}})
		events = append(events, kueue.Event{At: time.Duration(i) * m, Kind: kueue.Created, Workload: wl},
			kueue.Event{At: time.Duration(i+5) * m, Kind: kueue.QuotaReserved, Workload: wl, ClusterQueue: cq, Admission: &kueue.Admission{
				ClusterQueue: cq, PodSets: []kueue.PodSetAssignment{{Name: "main", Count: 2, Flavors: map[cluster.ResourceName]string{cluster.ResourceCPU: "f"},
					Usage: cluster.ResourceList{cluster.ResourceCPU: 2000}}}}})
	}
	rep.AddKueue(objs, events, wls)
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
	assert.Equal(t, []string{"allocation", "pending", "kueue-quota", "kueue-pending", "kueue-admission", "waits", "domains-rack"}, names)
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

// The distribution of times to admission: one row per ClusterQueue, the
// first on top, with its count of admitted workloads; a queue with none
// admitted is named in a note; above 30 queues, the busiest 30.
func TestKueueAdmissionFigure(t *testing.T) {
	_, ok := plots.KueueAdmission(report(t, small))
	assert.False(t, ok, "no Kueue: no figure")
	rep := withKueue(t, 3)
	f, ok := plots.KueueAdmission(rep)
	require.True(t, ok)
	require.Len(t, f.Panels, 1)
	assert.Empty(t, f.Notes)
	ticks := f.Panels[0].Y.Tick.Marker.Ticks(0, 2)
	require.Len(t, ticks, 3)
	assert.Equal(t, "cq-00 (1)", ticks[2].Label, "the first queue on top")
	assert.Equal(t, "cq-02 (1)", ticks[0].Label)
	svg, _, err := f.InlineSVG()
	require.NoError(t, err)
	assert.Contains(t, string(svg), "10th to 90th percentile")
	assert.Contains(t, string(svg), ">10m<", "each waited 5 minutes: the axis ends at the next labelled tick")

	// a queue with no admission: no box, a note
	objs := &kueue.Objects{ClusterQueues: []kueue.ClusterQueue{{Name: "idle"}, {Name: "busy"}}, LocalQueues: []kueue.LocalQueue{{Namespace: "d", Name: "q", ClusterQueue: "busy"}}}
	two := report(t, small)
	two.AddKueue(objs, []kueue.Event{{Kind: kueue.Created, Workload: "d/w"}, {At: time.Minute, Kind: kueue.QuotaReserved, Workload: "d/w", ClusterQueue: "busy"}},
		[]metrics.KueueWorkload{{Workload: "d/w", LocalQueue: "q", WaitForNodes: -1}})
	f, ok = plots.KueueAdmission(two)
	require.True(t, ok)
	assert.Equal(t, []string{"No workload of idle was admitted (no box)."}, f.Notes)

	many, ok := plots.KueueAdmission(withKueue(t, 40))
	require.True(t, ok)
	assert.Len(t, many.Panels[0].Y.Tick.Marker.Ticks(0, 29), 30)
	assert.Equal(t, []string{"The 30 busiest of 40 ClusterQueues; all are in report.json."}, many.Notes)
	assert.Greater(t, float64(many.PanelHeight), float64(f.PanelHeight), "a row per queue: taller with more")
}
