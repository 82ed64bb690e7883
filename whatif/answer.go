package whatif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// JSON renders the answer as indented JSON with a final newline, its
// count under CountKey:
//
//	{"question": "...", "nodesToAdd": 3, "found": true, "limit": 64,
//	 "reason": "", "criterion": "every pod placed by the end of the run; waits not bounded",
//	 "cautions": [], "noFit": [], "variant": "add:n-0:3",
//	 "runs": [{"nodesToAdd": 0, "ok": false, ...}], "summary": {...}}
//
// cautions and noFit are lists, empty when there is nothing to say.
// Times are in seconds; the same answer gives the same bytes.
func (a *Answer) JSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	fields := []struct {
		key   string
		value any
	}{
		{"question", a.Question}, {a.CountKey, a.Count}, {"found", a.Found}, {"limit", a.Limit},
		{"reason", a.Reason}, {"criterion", a.Criterion}, {"cautions", orEmpty(a.Cautions)}, {"noFit", orEmpty(a.NoFit)},
		{"variant", a.Variant.Name}, {"runs", a.jsonRuns()}, {"summary", a.Summary},
	}
	for i, f := range fields {
		v, err := json.MarshalIndent(f.value, "  ", "  ")
		if err != nil {
			return nil, err
		}
		key, _ := json.Marshal(f.key)
		fmt.Fprintf(&b, "  %s: %s", key, v)
		if i < len(fields)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// orEmpty renders a nil list as [] rather than null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// jsonRuns renders the runs with the count under the answer's key.
func (a *Answer) jsonRuns() []map[string]any {
	out := make([]map[string]any, 0, len(a.Runs))
	for _, r := range a.Runs {
		run := map[string]any{a.CountKey: r.Count, "ok": r.OK, "pendingAtEnd": r.PendingAtEnd,
			"groupsNeverPlaced": r.GroupsUnplaced, "maxWaitSeconds": r.MaxWait.Seconds()}
		if r.Note != "" {
			run["note"] = r.Note
		}
		if a.costs() {
			run["cost"], run["nodeHours"], run["boundedWaitSeconds"] = r.Cost, r.NodeHours, r.Wait.Seconds()
		}
		if a.kueueQuota() {
			run["workloadsPendingAtEnd"], run["boundedWaitSeconds"] = r.WorkloadsPending, r.Wait.Seconds()
		}
		out = append(out, run)
	}
	return out
}

// WriteTable writes the answer for a terminal: the question, the answer,
// the runs in the order the search took them, and the answer's run.
func (a *Answer) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s?\n", capitalize(a.Question))
	if a.Found {
		fmt.Fprintf(tw, "Answer: %d (%s), after %d runs.\n", a.Count, a.Variant.Name, len(a.Runs))
	} else {
		fmt.Fprintf(tw, "No answer: %s.\n", a.Reason)
	}
	a.writeNotes(tw)
	cost, costHead := func(SearchRun) string { return "" }, ""
	if a.costs() {
		cost = func(r SearchRun) string {
			return fmt.Sprintf("%.2f\t%.1f\t%v\t", r.Cost, r.NodeHours, durs(r.Wait.Seconds()))
		}
		costHead = "COST\tNODE-HOURS\tBOUNDED WAIT\t"
	}
	if a.kueueQuota() {
		cost = func(r SearchRun) string { return fmt.Sprintf("%d\t%v\t", r.WorkloadsPending, durs(r.Wait.Seconds())) }
		costHead = "WORKLOADS WAITING\tBOUNDED ADMISSION\t"
	}
	fmt.Fprintln(tw, "RUN\tCOUNT\tOK\tPENDING\tGROUPS NEVER PLACED\tLONGEST WAIT\t"+costHead+"NOTE")
	for i, r := range a.Runs {
		ok := "no"
		if r.OK {
			ok = "yes"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%d\t%v\t%s%s\n", i+1, r.Count, ok, r.PendingAtEnd, r.GroupsUnplaced, durs(r.MaxWait.Seconds()), cost(r), r.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !a.Found {
		return nil
	}
	fmt.Fprintln(w)
	c := &Comparison{Scenario: "with the answer", Variants: []VariantResult{{Variant: a.Variant.Name, Summary: a.Summary}}}
	return c.WriteTable(w)
}

// costs reports whether the runs have a cost: a search on node groups.
func (a *Answer) costs() bool { return a.CountKey == groupMaxKey }

// writeNotes writes what the answer was judged by, its cautions and the
// pods that fit no node of the kind added, then a blank line.
func (a *Answer) writeNotes(w io.Writer) {
	if a.Criterion != "" {
		fmt.Fprintf(w, "Judged by: %s.\n", a.Criterion)
	}
	for _, c := range a.Cautions {
		fmt.Fprintf(w, "Caution: %s.\n", c)
	}
	for _, g := range a.NoFit {
		names := strings.Join(g.First, ", ")
		if more := g.Pods - len(g.First); more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		pods := "pods fit"
		if g.Pods == 1 {
			pods = "pod fits"
		}
		fmt.Fprintf(w, "  %d %s no empty node of the kind added: %s (%s)\n", g.Pods, pods, g.Reason, names)
	}
	fmt.Fprintln(w)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
