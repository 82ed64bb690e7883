package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/htmlreport"
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
