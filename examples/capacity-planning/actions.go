package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// load reads the scenario files, or the embedded default without any.
func (a *app) load() ([]*scenario.Scenario, error) {
	if len(a.cfg.files) == 0 {
		sc, err := scenario.Parse(defaultName, defaultScenario)
		return []*scenario.Scenario{sc}, err
	}
	var out []*scenario.Scenario
	for _, f := range a.cfg.files {
		sc, err := scenario.Load(f, scenario.WithDefaultDuration(a.cfg.runTime), scenario.SkipUnknownPlugins())
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

func (a *app) options() whatif.Options {
	return whatif.Options{DomainKeys: a.cfg.domainKeys, Workers: a.cfg.workers, Progress: a.progress.report}
}

// report runs each scenario, prints its summary and writes its files; two
// or more are compared side by side as well.
func (a *app) report() error {
	scs, err := a.load()
	if err != nil {
		return err
	}
	reports, err := whatif.RunAll(scs, a.options())
	a.progress.done()
	if err != nil {
		return err
	}
	for _, rep := range reports {
		rep.Name = filepath.Base(rep.Name)
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
	if !a.cfg.json {
		fmt.Fprintln(a.stdout, "\nAsk: -add-like NODE, -add-like-rack RACK, -remove-like NODE (with -max-wait 30m), or compare -variant SPEC ... (-h for all).")
	}
	return nil
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

// ask answers the question flag on the one scenario.
func (a *app) ask() error {
	scs, err := a.load()
	if err != nil {
		return err
	}
	sc, c := scs[0], whatif.Criteria{MaxWait: a.cfg.maxWait, Limit: a.cfg.limit}
	if len(a.cfg.variants) == 1 {
		if sc, err = a.cfg.variants[0].Apply(sc); err != nil {
			return err
		}
	}
	var ans *whatif.Answer
	switch {
	case a.cfg.addLike != "":
		ans, err = whatif.FewestNodesToAdd(sc, a.cfg.addLike, c, a.options())
	case a.cfg.addLikeRack != "":
		ans, err = whatif.FewestDomainsToAdd(sc, a.cfg.rackKey, a.cfg.addLikeRack, c, a.options())
	default:
		ans, err = whatif.MostNodesToRemove(sc, a.cfg.removeLike, c, a.options())
	}
	a.progress.done()
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
	return ans.WriteTable(a.stdout)
}

// compareVariants runs the -variant list on the one scenario.
func (a *app) compareVariants() error {
	scs, err := a.load()
	if err != nil {
		return err
	}
	c, err := whatif.Compare(scs[0], a.cfg.variants, a.options())
	a.progress.done()
	if err != nil {
		return err
	}
	return a.printComparison(c)
}

func (a *app) printComparison(c *whatif.Comparison) error {
	if a.cfg.json {
		out, err := c.JSON()
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(out)
		return err
	}
	return c.WriteTable(a.stdout)
}

// sweepWorker runs one variant, numbered by the completion index.
func (a *app) sweepWorker() error {
	scs, err := a.load()
	if err != nil {
		return err
	}
	i, err := whatif.CompletionIndex(os.Getenv, len(a.cfg.variants))
	if err != nil {
		return err
	}
	line, err := whatif.RunIndex(scs[0], a.cfg.variants, i, a.cfg.domainKeys)
	if err != nil {
		return err
	}
	out, err := line.MarshalLine()
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(out)
	return err
}

// mountPath is where the Job mounts the scenario files.
const mountPath = "/scenarios"

// writeJob writes the -variant sweep as an Indexed Job whose completions
// run this program with -sweep-worker.
func (a *app) writeJob() error {
	if _, err := a.load(); err != nil {
		return err // a sweep of an invalid scenario would fail in every completion
	}
	args := []string{"-sweep-worker", "-domains", strings.Join(a.cfg.domainKeys, ",")}
	for _, v := range a.cfg.variants {
		args = append(args, "-variant", v.Name)
	}
	files := map[string][]byte{}
	for _, f := range a.cfg.files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		name := filepath.Base(f)
		if _, dup := files[name]; dup {
			return usageError("two scenario files are named %s", name)
		}
		files[name] = data
		args = append(args, mountPath+"/"+name)
	}
	var b bytes.Buffer
	spec := whatif.JobSpec{Name: a.cfg.jobName, Image: a.cfg.jobImage, Args: args, Completions: len(a.cfg.variants),
		MountPath: mountPath, Files: files}
	if err := whatif.WriteIndexedJob(&b, spec); err != nil {
		return err
	}
	if err := os.WriteFile(a.cfg.writeJob, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Wrote %s: an Indexed Job of %d completions. Run it with kubectl apply -f %s, collect the\n"+
		"lines with kubectl logs -l job-name=%s, and merge them with -merge FILE.\n", a.cfg.writeJob, len(a.cfg.variants), a.cfg.writeJob, a.cfg.jobName)
	return nil
}

// mergeLines merges sweep lines into a comparison.
func (a *app) mergeLines() error {
	var r io.Reader = os.Stdin
	if a.cfg.merge != "-" {
		f, err := os.Open(a.cfg.merge)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	c, err := whatif.Merge(r)
	if err != nil {
		return fmt.Errorf("-merge %s: %w", a.cfg.merge, err)
	}
	return a.printComparison(c)
}
