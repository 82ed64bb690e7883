package whatif

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// Summary is the part of a report a comparison shows, as plain numbers
// (times in seconds), so that it survives a trip through JSON exactly:
// sweep workers print it, and the merge step reads it back.
type Summary struct {
	Nodes            int               `json:"nodes"`
	Pods             int               `json:"pods"`
	PodsPlaced       int               `json:"podsPlaced"`
	PendingAtEnd     int               `json:"pendingAtEnd"`
	Groups           int               `json:"groups"`
	GroupsPlaced     int               `json:"groupsPlaced"`
	Wait             Seconds           `json:"waitSeconds"`
	GroupTime        Seconds           `json:"groupTimeToScheduleSeconds"`
	Resources        []ResourceSummary `json:"resources"`
	Preemptions      int               `json:"preemptions"`
	Victims          int               `json:"victims"`
	EndSeconds       float64           `json:"endSeconds"`
	BudgetViolations int               `json:"budgetViolations"`
	// Autoscaling is what the node groups cost and how long pods waited
	// for a node; nil without node groups.
	Autoscaling *AutoscalingSummary `json:"autoscaling,omitempty"`
	// Kueue is each ClusterQueue's admissions, waits, evictions and
	// quota use; nil without Kueue.
	Kueue *KueueSummary `json:"kueue,omitempty"`
}

// Seconds are a sample's quantiles in seconds.
type Seconds struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// ResourceSummary is one resource's use over a run, in its unit (cores,
// GiB, GPUs).
type ResourceSummary struct {
	Resource    string  `json:"resource"`
	Unit        string  `json:"unit"`
	Capacity    float64 `json:"capacity"`
	Utilization float64 `json:"utilization"`
	Fragmented  float64 `json:"fragmented"`
}

// Summarize takes a report's comparable numbers.
func Summarize(rep *metrics.Report) Summary {
	s := Summary{Nodes: rep.Nodes, Pods: rep.Pods.Arrived, PodsPlaced: rep.Pods.Placed, PendingAtEnd: rep.Pods.PendingAtEnd,
		Groups: rep.Groups.Arrived, GroupsPlaced: rep.Groups.Placed, Wait: seconds(rep.Pods.Wait), GroupTime: seconds(rep.Groups.TimeToSchedule),
		Preemptions: rep.Preemptions.Preemptions, Victims: rep.Preemptions.Victims, EndSeconds: rep.End.Seconds(),
		BudgetViolations: rep.Preemptions.BudgetViolations, Resources: []ResourceSummary{}, Autoscaling: summarizeAutoscaling(rep), Kueue: summarizeKueue(rep)}
	for _, r := range rep.Resources {
		if r.Resource == cluster.ResourcePods {
			continue
		}
		s.Resources = append(s.Resources, ResourceSummary{Resource: string(r.Resource), Unit: r.Unit, Capacity: r.Capacity,
			Utilization: r.Utilization, Fragmented: r.Fragmented})
	}
	return s
}

func seconds(d metrics.Durations) Seconds {
	return Seconds{P50: d.P50.Seconds(), P90: d.P90.Seconds(), P99: d.P99.Seconds(), Max: d.Max.Seconds()}
}

// Comparison is the side-by-side outcome of variants of a scenario.
type Comparison struct {
	Scenario string          `json:"scenario"`
	Variants []VariantResult `json:"variants"`
}

// VariantResult is one variant's outcome.
type VariantResult struct {
	Variant string  `json:"variant"`
	Summary Summary `json:"summary"`
}

// Compare runs every variant of base (Options.Workers at once) and
// returns their summaries in the order given.
func Compare(base *scenario.Scenario, variants []Variant, opts Options) (*Comparison, error) {
	scs := make([]*scenario.Scenario, len(variants))
	for i, v := range variants {
		sc, err := v.Apply(base)
		if err != nil {
			return nil, err
		}
		scs[i] = sc
	}
	reports, err := RunAll(scs, opts)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Scenario: base.Name}
	for i, rep := range reports {
		c.Variants = append(c.Variants, VariantResult{Variant: variants[i].Name, Summary: Summarize(rep)})
	}
	return c, nil
}

// JSON renders the comparison as indented JSON with a final newline.
func (c *Comparison) JSON() ([]byte, error) {
	out, err := json.MarshalIndent(c, "", "  ")
	return append(out, '\n'), err
}

// WriteTable writes the comparison as a table: one column per variant,
// one row per measure.
func (c *Comparison) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, cells := range c.Rows() {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// Rows returns the comparison's table as WriteTable writes it: a header
// (the scenario, then the variants), then a row per measure, its label
// and a cell per variant.
func (c *Comparison) Rows() [][]string {
	var out [][]string
	row := func(label string, cell func(Summary) string) {
		cells := []string{label}
		for _, v := range c.Variants {
			cells = append(cells, cell(v.Summary))
		}
		out = append(out, cells)
	}
	header := []string{c.Scenario}
	for _, v := range c.Variants {
		header = append(header, v.Variant)
	}
	out = append(out, header)
	row("nodes", func(s Summary) string { return fmt.Sprint(s.Nodes) })
	row("pods placed", func(s Summary) string { return fmt.Sprintf("%d of %d", s.PodsPlaced, s.Pods) })
	row("pending at the end", func(s Summary) string { return fmt.Sprint(s.PendingAtEnd) })
	row("groups placed", func(s Summary) string { return fmt.Sprintf("%d of %d", s.GroupsPlaced, s.Groups) })
	row("wait p50 / p90 / p99", func(s Summary) string { return durs(s.Wait.P50, s.Wait.P90, s.Wait.P99) })
	row("wait max", func(s Summary) string { return durs(s.Wait.Max) })
	row("group time to schedule p90 / max", func(s Summary) string { return durs(s.GroupTime.P90, s.GroupTime.Max) })
	for _, name := range resourceNames(c) {
		row(name+" utilisation", func(s Summary) string { return resourceCell(s, name, false) })
		row(name+" fragmented (mean)", func(s Summary) string { return resourceCell(s, name, true) })
	}
	autoscalingRows(c, row)
	kueueRows(c, row)
	preemptionRows(c, row)
	row("preemptions (victims)", func(s Summary) string { return fmt.Sprintf("%d (%d)", s.Preemptions, s.Victims) })
	row("simulated time", func(s Summary) string { return durs(s.EndSeconds) })
	return out
}

func resourceNames(c *Comparison) []string {
	var out []string
	for _, v := range c.Variants {
		for _, r := range v.Summary.Resources {
			if !slices.Contains(out, r.Resource) {
				out = append(out, r.Resource)
			}
		}
	}
	return out
}

func resourceCell(s Summary, name string, fragmented bool) string {
	for _, r := range s.Resources {
		if r.Resource == name {
			if fragmented {
				return fmt.Sprintf("%.1f %s", r.Fragmented, r.Unit)
			}
			return fmt.Sprintf("%.1f%%", 100*r.Utilization)
		}
	}
	return "-"
}

func durs(secs ...float64) string {
	parts := make([]string, len(secs))
	for i, s := range secs {
		parts[i] = metrics.Round(time.Duration(s * float64(time.Second))).String()
	}
	return strings.Join(parts, " / ")
}
