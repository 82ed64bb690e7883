package whatif

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func kueueVariant(name string, queues ...KueueQueueSummary) VariantResult {
	return VariantResult{Variant: name, Summary: Summary{Kueue: &KueueSummary{ClusterQueues: queues}}}
}

// The comparison's figures: three, a row per queue; the time unit by the
// longest time; the share of quota summed over flavors.
func TestKueueFigures(t *testing.T) {
	none := &Comparison{Scenario: "s", Variants: []VariantResult{{Variant: "base"}}}
	figs, err := none.KueueFigures()
	require.NoError(t, err)
	assert.Empty(t, figs, "no Kueue: no figure")

	a := KueueQueueSummary{Name: "a", Workloads: 4, TimeToAdmission: MeanSeconds{Mean: 100, Seconds: Seconds{P90: 300}}, Preempted: 2,
		Quota: []KueueQuotaSummary{{Flavor: "on-demand", Resource: "cpu", Nominal: 4, Used: 3}, {Flavor: "spot", Resource: "cpu", Nominal: 4, Used: 1}}}
	b := KueueQueueSummary{Name: "b", Workloads: 1, Preempting: 2}
	c := &Comparison{Scenario: "s", Variants: []VariantResult{kueueVariant("base", a, b), kueueVariant("fairsharing:on", b)}}
	figs, err = c.KueueFigures()
	require.NoError(t, err)
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		assert.Empty(t, f.Notes)
	}
	assert.Equal(t, []string{"compare-kueue-admission", "compare-kueue-usage", "compare-kueue-preemptions"}, names)
	unit, scale := timeUnit(c)
	assert.Equal(t, "minutes", unit, "a's p90 300s")
	assert.Equal(t, 60.0, scale)
	assert.Equal(t, 50.0, usedShare(&a, "cpu"), "(3 + 1) / (4 + 4)")
	assert.Equal(t, 0.0, usedShare(&b, "cpu"), "no quota")
	assert.Equal(t, []string{"cpu"}, c.quotaResources())
	assert.Nil(t, c.Variants[1].Summary.queue("a"), "a variant without the queue draws no bar")
}

// timeUnit: seconds under 2 minutes, minutes under 2 hours, else hours.
func TestTimeUnit(t *testing.T) {
	for _, tt := range []struct {
		longest float64
		want    string
	}{{0, "seconds"}, {119, "seconds"}, {120, "minutes"}, {7199, "minutes"}, {7200, "hours"}} {
		c := &Comparison{Variants: []VariantResult{kueueVariant("v", KueueQueueSummary{Name: "a", TimeToAdmission: MeanSeconds{Seconds: Seconds{P90: tt.longest}}})}}
		unit, _ := timeUnit(c)
		assert.Equal(t, tt.want, unit, "%v", tt.longest)
	}
}

// Above 30 queues the figures show the 30 with the most workloads.
func TestKueueFiguresManyQueues(t *testing.T) {
	var qs []KueueQueueSummary
	for i := range 35 {
		qs = append(qs, KueueQueueSummary{Name: fmt.Sprintf("q-%02d", i), Workloads: i})
	}
	c := &Comparison{Scenario: "s", Variants: []VariantResult{kueueVariant("base", qs...)}}
	shown, note := c.figureQueues()
	require.Len(t, shown, 30)
	assert.Equal(t, "q-05", shown[0], "q-00..q-04 have the fewest workloads")
	assert.Equal(t, "The 30 ClusterQueues with the most workloads of 35; the comparison's table and JSON have them all.", note)
}
