package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/htmlreport"
	"github.com/gangsim/gangsim/metrics/plots"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// htmlName is the page writeFiles writes beside report.json.
const htmlName = "report.html"

// writeHTML writes a report's page into dir, with the answers of the
// questions asked of the run (none for a plain report).
func writeHTML(rep *metrics.Report, dir string, answers []htmlreport.Answer) error {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, htmlreport.Input{Report: rep, Answers: answers}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, htmlName), b.Bytes(), 0o644)
}

// answerFiles writes, when -out was given with a question, the files of
// the run the answer rests on: the scenario with the answer's change
// (run once more: a search keeps no report), or as asked when there is
// no answer, so that its pending pods say why; report.html carries the
// answer.
func (a *app) answerFiles(sc *scenario.Scenario, ans *whatif.Answer) error {
	if !a.cfg.outGiven || a.cfg.out == "" {
		return nil
	}
	run, name := sc, displayName(sc.Name)
	if ans.Found {
		var err error
		if run, err = ans.Variant.Apply(sc); err != nil {
			return err
		}
		name += ", with the answer " + ans.Variant.Name
	}
	rep, err := whatif.Run(run, a.cfg.domainKeys)
	if err != nil {
		return err
	}
	rep.Name = name
	a.answers = append(a.answers, answerText(ans))
	return a.writeFiles(rep, a.cfg.out)
}

// answerText puts an answer in words for the page: its question, its
// line, and the rest of its table (the runs, the answer's summary).
func answerText(ans *whatif.Answer) htmlreport.Answer {
	out := htmlreport.Answer{Question: ans.Question}
	if ans.Found {
		out.Answer = fmt.Sprintf("Answer: %d (%s), after %d runs.", ans.Count, ans.Variant.Name, len(ans.Runs))
	} else {
		out.Answer = "No answer: " + ans.Reason + "."
	}
	var b strings.Builder
	if err := ans.WriteTable(&b); err == nil {
		lines := strings.SplitN(b.String(), "\n", 3) // after the question and answer lines: notes, runs, summary
		if len(lines) == 3 {
			out.Details = strings.TrimRight(lines[2], "\n")
		}
	}
	return out
}

// compareCaptions say what each figure of a comparison shows.
var compareCaptions = map[string]string{
	"compare-kueue-admission":   "Each ClusterQueue's time to admission, from a workload's creation to its first admission, over the workloads admitted: the mean, the median and the 90th percentile, a bar per variant.",
	"compare-kueue-usage":       "Each ClusterQueue's quota used (the requests of the workloads holding quota, a time average, summed over flavors) as a share of its nominal quota, per resource, a bar per variant; above 100% the queue borrowed from its cohort.",
	"compare-kueue-preemptions": "Each ClusterQueue's workloads evicted by Kueue's preemption (victims), and the workloads preempted to admit its own (in any queue), a bar per variant.",
}

// comparisonFiles writes, when -out was given, the comparison's files:
// comparison.json, comparison.html (the table and, with Kueue, its
// figures) and the figures as PNG and SVG.
func (a *app) comparisonFiles(c *whatif.Comparison) error {
	dir := a.cfg.out
	if !a.cfg.outGiven || dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	short := *c
	short.Scenario = displayName(c.Scenario)
	data, err := short.JSON()
	if err != nil {
		return err
	}
	figs, err := short.KueueFigures()
	if err != nil {
		return err
	}
	rows := short.Rows()
	page := htmlreport.Comparison{Name: short.Scenario, Span: fmt.Sprintf("%d variants", len(c.Variants)), Header: rows[0], Rows: rows[1:],
		Figures: figs, Captions: compareCaptions}
	var b bytes.Buffer
	if err := htmlreport.WriteComparison(&b, page); err != nil {
		return err
	}
	written := []string{"comparison.json", "comparison.html"}
	for i, out := range [][]byte{data, b.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, written[i]), out, 0o644); err != nil {
			return err
		}
	}
	for _, f := range figs {
		for _, format := range []string{plots.PNG, plots.SVG} {
			name := f.Name + "." + format
			if err := f.Save(filepath.Join(dir, name), format); err != nil {
				return err
			}
			written = append(written, name)
		}
	}
	note := a.stdout
	if a.cfg.json {
		note = a.stderr
	}
	fmt.Fprintf(note, "\nWrote to %s: %s\n", dir, strings.Join(written, ", "))
	return nil
}
