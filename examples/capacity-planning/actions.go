package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// options are the what-if options, with the progress display wired in.
func (a *app) options() whatif.Options {
	o := whatif.Options{DomainKeys: a.cfg.domainKeys, Workers: a.cfg.workers}
	if p := a.progress; p != nil {
		o.Progress = func(pr whatif.Progress) { p.Done(pr.Done, pr.Total) }
		o.Watch = p.Watch
	}
	return o
}

// report runs the inputs, merged into one simulation, prints its summary
// and writes its files; with -each every input is a scenario of its own,
// and they are compared side by side as well.
func (a *app) report() error {
	var scs []*scenario.Scenario
	if a.cfg.each {
		var err error
		if scs, err = a.loadEach(); err != nil {
			return err
		}
	} else {
		sc, err := a.load()
		if err != nil {
			return err
		}
		scs = []*scenario.Scenario{sc}
	}
	a.progress.Start(len(scs), inputsEnd(scs))
	reports, err := whatif.RunAll(scs, a.options())
	a.progress.Stop()
	if err != nil {
		return err
	}
	for _, rep := range reports {
		rep.Name = displayName(rep.Name)
		dir := a.cfg.out
		if len(reports) > 1 && dir != "" {
			dir = filepath.Join(dir, strings.TrimSuffix(rep.Name, filepath.Ext(rep.Name)))
		}
		if err := a.printReport(rep); err != nil {
			return err
		}
		if err := a.writeFiles(rep, dir); err != nil {
			return err
		}
	}
	if len(reports) > 1 && !a.cfg.json {
		c := &whatif.Comparison{Scenario: "side by side"}
		for _, rep := range reports {
			c.Variants = append(c.Variants, whatif.VariantResult{Variant: rep.Name, Summary: whatif.Summarize(rep)})
		}
		fmt.Fprintln(a.stdout)
		if err := c.WriteTable(a.stdout); err != nil {
			return err
		}
	}
	if len(a.cfg.files) == 0 && !a.cfg.json {
		if err := a.defaultWhatIf(scs[0], reports[0]); err != nil {
			return err
		}
	}
	if !a.cfg.json {
		fmt.Fprintln(a.stdout, "\nAsk: -add-like NODE, -add-like-rack RACK, -remove-like NODE (with -max-wait 30m), -smallest-quota CQ:FLAVOR:RESOURCE (Kueue), or compare -variant SPEC ... (-h for all).")
	}
	return nil
}

// defaultKueueWhatIf is the what-if the default day shows after its
// report: team-a's notebooks wait for GPUs of quota, not for nodes.
const defaultKueueWhatIf = "quota:team-a:default:nvidia.com/gpu:nominalQuota=+4"

// defaultWhatIf runs the default day's Kueue what-if and prints it beside
// the day's run (rep, already made): one more simulation.
func (a *app) defaultWhatIf(sc *scenario.Scenario, rep *metrics.Report) error {
	v, err := whatif.ParseVariant(defaultKueueWhatIf)
	if err != nil {
		return err
	}
	vsc, err := v.Apply(sc)
	if err != nil {
		return err
	}
	a.progress.Start(1, cli.InputsEnd(vsc))
	reports, err := whatif.RunAll([]*scenario.Scenario{vsc}, a.options())
	a.progress.Stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nWhat if team-a had 4 GPUs more of nominal quota? (-variant base -variant %s)\n\n", defaultKueueWhatIf)
	c := &whatif.Comparison{Scenario: rep.Name, Variants: []whatif.VariantResult{{Variant: whatif.Base, Summary: whatif.Summarize(rep)},
		{Variant: v.Name, Summary: whatif.Summarize(reports[0])}}}
	return c.WriteTable(a.stdout)
}

// inputsEnd is the latest time any of the scenarios' inputs end at.
func inputsEnd(scs []*scenario.Scenario) time.Duration {
	var end time.Duration
	for _, sc := range scs {
		end = max(end, cli.InputsEnd(sc))
	}
	return end
}

// printReport prints a report's summary table, or its JSON summary.
func (a *app) printReport(rep *metrics.Report) error {
	if a.cfg.json {
		out, err := rep.JSON(false)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(out)
		return err
	}
	return rep.WriteTable(a.stdout)
}

// writeFiles writes a report's files to dir ("" writes none) and says so
// on the terminal (standard error with -json, which keeps stdout JSON).
func (a *app) writeFiles(rep *metrics.Report, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	full, err := rep.JSON(true)
	if err != nil {
		return err
	}
	var series, waits bytes.Buffer
	if err := rep.WriteCSV(&series); err != nil {
		return err
	}
	if err := rep.WriteWaitsCSV(&waits); err != nil {
		return err
	}
	written := []string{"report.json", "timeseries.csv", "waits.csv"}
	for i, data := range [][]byte{full, series.Bytes(), waits.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, written[i]), data, 0o644); err != nil {
			return err
		}
	}
	if err := writeHTML(rep, dir, a.answers); err != nil {
		return err
	}
	written = append(written, htmlName)
	images, err := plots.Write(rep, dir)
	if err != nil {
		return err
	}
	for _, p := range images {
		written = append(written, filepath.Base(p))
	}
	note := a.stdout
	if a.cfg.json {
		note = a.stderr
	}
	fmt.Fprintf(note, "\nWrote to %s: %s\n", dir, strings.Join(written, ", "))
	return nil
}

// ask answers the question flag on the simulation.
func (a *app) ask() error {
	sc, err := a.load()
	if err != nil {
		return err
	}
	c := whatif.Criteria{MaxWait: a.cfg.maxWait, Limit: a.cfg.limit, Quantile: a.cfg.quantile, Workload: a.cfg.waitOf}
	if len(a.cfg.variants) == 1 {
		if sc, err = a.cfg.variants[0].Apply(sc); err != nil {
			return err
		}
	}
	a.progress.Start(0, cli.InputsEnd(sc))
	var ans *whatif.Answer
	switch {
	case a.cfg.addLike != "":
		ans, err = whatif.FewestNodesToAdd(sc, a.cfg.addLike, c, a.options())
	case a.cfg.addLikeRack != "":
		ans, err = whatif.FewestDomainsToAdd(sc, a.cfg.rackKey, a.cfg.addLikeRack, c, a.options())
	case a.cfg.groupMax != "":
		ans, err = whatif.SmallestGroupMax(sc, a.cfg.groupMax, c, a.options())
	case a.cfg.quota != "":
		ans, err = whatif.SmallestNominalQuota(sc, a.cfg.quotaQuestion(), c, a.options())
	default:
		ans, err = whatif.MostNodesToRemove(sc, a.cfg.removeLike, c, a.options())
	}
	a.progress.Stop()
	if err != nil {
		return fmt.Errorf("%s: %w", a.cfg.question(), err)
	}
	if len(a.cfg.variants) == 1 {
		ans.Question += ", with " + a.cfg.variants[0].Name
	}
	if err := a.printAnswer(ans); err != nil {
		return err
	}
	return a.answerFiles(sc, ans)
}

// printAnswer prints an answer's table, or its JSON.
func (a *app) printAnswer(ans *whatif.Answer) error {
	if a.cfg.json {
		out, err := ans.JSON()
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(out)
		return err
	}
	if err := ans.WriteTable(a.stdout); err != nil {
		return err
	}
	if a.cfg.maxWait == 0 && len(ans.Cautions) > 0 {
		fmt.Fprintln(a.stdout, "\nTo bound the waits, ask again with -max-wait (for example -max-wait 1h).")
	}
	return nil
}

// compareVariants runs the -variant list on the simulation.
func (a *app) compareVariants() error {
	sc, err := a.load()
	if err != nil {
		return err
	}
	a.progress.Start(len(a.cfg.variants), cli.InputsEnd(sc))
	c, err := whatif.Compare(sc, a.cfg.variants, a.options())
	a.progress.Stop()
	if err != nil {
		return err
	}
	if err := a.printComparison(c); err != nil {
		return err
	}
	return a.comparisonFiles(c)
}

// printComparison prints a comparison as a table, headed by the inputs'
// short names, or as JSON.
func (a *app) printComparison(c *whatif.Comparison) error {
	if a.cfg.json {
		out, err := c.JSON()
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(out)
		return err
	}
	short := *c
	short.Scenario = displayName(c.Scenario)
	return short.WriteTable(a.stdout)
}
