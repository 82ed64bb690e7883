package whatif

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
)

// KueueFigures returns the figures of a comparison of variants with
// Kueue, a row per ClusterQueue and a bar per variant: the times to
// admission (mean, median, 90th percentile), the quota used per
// resource as a share of the nominal quota (time averages, summed over
// flavors), and the workloads preempted and preempted for each queue.
// Above metrics.MaxKueueQueues queues, those with the most workloads in
// any variant. None without Kueue.
func (c *Comparison) KueueFigures() ([]plots.Figure, error) {
	queues, note := c.figureQueues()
	if len(queues) == 0 {
		return nil, nil
	}
	var series []string
	for _, v := range c.Variants {
		series = append(series, v.Variant)
	}
	values := func(f func(*KueueQueueSummary) float64) [][]float64 {
		out := make([][]float64, len(c.Variants))
		for s, v := range c.Variants {
			out[s] = make([]float64, len(queues))
			for g, name := range queues {
				if q := v.Summary.queue(name); q != nil {
					out[s][g] = f(q)
				}
			}
		}
		return out
	}
	var figs []plots.Figure
	add := func(name, title string, panels []plots.BarPanel) error {
		f, err := plots.GroupedBars(name, title+": "+c.Scenario, queues, series, panels)
		if err != nil {
			return err
		}
		if note != "" {
			f.Notes = append(f.Notes, note)
		}
		figs = append(figs, f)
		return nil
	}
	unit, scale := timeUnit(c)
	times := []plots.BarPanel{
		{Label: "mean time to admission (" + unit + ")", Values: values(func(q *KueueQueueSummary) float64 { return q.TimeToAdmission.Mean / scale })},
		{Label: "median (" + unit + ")", Values: values(func(q *KueueQueueSummary) float64 { return q.TimeToAdmission.P50 / scale })},
		{Label: "90th percentile (" + unit + ")", Values: values(func(q *KueueQueueSummary) float64 { return q.TimeToAdmission.P90 / scale })},
	}
	if err := add("compare-kueue-admission", "Time to admission per ClusterQueue", times); err != nil {
		return nil, err
	}
	var usage []plots.BarPanel
	for _, r := range c.quotaResources() {
		usage = append(usage, plots.BarPanel{Label: r + " used, % of nominal quota (mean)", Values: values(func(q *KueueQueueSummary) float64 { return usedShare(q, r) })})
	}
	if len(usage) > 0 {
		if err := add("compare-kueue-usage", "Quota used per ClusterQueue", usage); err != nil {
			return nil, err
		}
	}
	preempt := []plots.BarPanel{
		{Label: "workloads preempted (victims)", Values: values(func(q *KueueQueueSummary) float64 { return float64(q.Preempted) })},
		{Label: "workloads preempted for the queue's workloads (as preemptors)", Values: values(func(q *KueueQueueSummary) float64 { return float64(q.Preempting) })},
	}
	if err := add("compare-kueue-preemptions", "Preemptions per ClusterQueue", preempt); err != nil {
		return nil, err
	}
	return figs, nil
}

// queue returns a ClusterQueue's summary, nil when the variant has none.
func (s Summary) queue(name string) *KueueQueueSummary {
	if s.Kueue == nil {
		return nil
	}
	for i := range s.Kueue.ClusterQueues {
		if s.Kueue.ClusterQueues[i].Name == name {
			return &s.Kueue.ClusterQueues[i]
		}
	}
	return nil
}

// figureQueues are the ClusterQueues the figures show, in the order
// first met, and a note when some are left out.
func (c *Comparison) figureQueues() ([]string, string) {
	names, most := c.clusterQueues()
	if len(names) <= metrics.MaxKueueQueues {
		return names, ""
	}
	busiest := slices.Clone(names)
	slices.SortStableFunc(busiest, func(a, b string) int { return cmp.Compare(most[b], most[a]) })
	keep := busiest[:metrics.MaxKueueQueues]
	shown := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(keep, n) })
	return shown, fmt.Sprintf("The %d ClusterQueues with the most workloads of %d; the comparison's table and JSON have them all.", len(shown), len(names))
}

// clusterQueues are the ClusterQueues of the variants, in the order
// first met, and the most workloads each had in a variant.
func (c *Comparison) clusterQueues() ([]string, map[string]int) {
	var names []string
	most := map[string]int{}
	for _, v := range c.Variants {
		if v.Summary.Kueue == nil {
			continue
		}
		for _, q := range v.Summary.Kueue.ClusterQueues {
			if !slices.Contains(names, q.Name) {
				names = append(names, q.Name)
			}
			most[q.Name] = max(most[q.Name], q.Workloads)
		}
	}
	return names, most
}

// timeUnit picks the unit of the times to admission: seconds, minutes
// or hours, by the longest 90th percentile of any queue and variant.
func timeUnit(c *Comparison) (string, float64) {
	longest := 0.0
	for _, v := range c.Variants {
		if v.Summary.Kueue != nil {
			for _, q := range v.Summary.Kueue.ClusterQueues {
				longest = max(longest, q.TimeToAdmission.P90, q.TimeToAdmission.Mean)
			}
		}
	}
	switch {
	case longest >= 2*3600:
		return "hours", 3600
	case longest >= 120:
		return "minutes", 60
	}
	return "seconds", 1
}

// quotaResources are the resources with nominal quota in any variant's
// queue, in the order first met.
func (c *Comparison) quotaResources() []string {
	var out []string
	for _, v := range c.Variants {
		if v.Summary.Kueue == nil {
			continue
		}
		for _, q := range v.Summary.Kueue.ClusterQueues {
			for _, u := range q.Quota {
				if u.Nominal > 0 && !slices.Contains(out, u.Resource) {
					out = append(out, u.Resource)
				}
			}
		}
	}
	return out
}

// usedShare is a queue's mean use of a resource over its nominal quota,
// summed over flavors, in percent; 0 without quota of it.
func usedShare(q *KueueQueueSummary, resource string) float64 {
	var used, nominal float64
	for _, u := range q.Quota {
		if u.Resource == resource {
			used += u.Used
			nominal += u.Nominal
		}
	}
	if nominal == 0 {
		return 0
	}
	return 100 * used / nominal
}
