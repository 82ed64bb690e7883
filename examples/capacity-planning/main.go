// Command capacity-planning simulates a cluster's workload and answers
// capacity questions: how full the cluster gets, how long pods and gangs
// wait, how many nodes or racks to add (or may go).
//
//	go run ./examples/capacity-planning                  # the embedded default day
//	go run ./examples/capacity-planning FILE...          # scenario files
//	go run ./examples/capacity-planning -add-like NODE   # fewest nodes like NODE to add
//
// Its inputs (scenario files, kubectl dumps and manifests, folders of
// them) are merged into one simulation, as examples/scenario merges them;
// what they hold that the simulator does not model is warned about on
// standard error and listed in the report. Without a question it prints
// the summary and writes the report (report.json, report.html,
// timeseries.csv, waits.csv) and plots (PNG and SVG) to the output
// folder; with -each every input is simulated on its own and they are
// compared side by side. A question given -out writes the files of the
// answer's run, the answer in report.html; a comparison of -variant
// given -out writes comparison.json and comparison.html, with Kueue's
// figures of the variants side by side. Long work shows its progress
// on standard error (-quiet: none). Run with -h for the questions and the
// sweep flags. It exits 1, with the message on standard error, on an
// invalid input, and 2 on a misuse of the flags.
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/internal/heapstart"
	"github.com/gangsim/gangsim/metrics/htmlreport"
	"github.com/gangsim/gangsim/scenario"
)

//go:embed default.yaml
var defaultScenario []byte

// defaultKueue is Kueue's objects beside the default day.
//
//go:embed default-kueue.yaml
var defaultKueue []byte

// defaultName is the name the embedded scenario goes by.
const defaultName = "default.yaml"

func main() {
	heapstart.Prepare() // the collector and the page faults of a short run (internal/heapstart)
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(2)
	case errors.Is(err, errSkipped):
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error()))
		os.Exit(3)
	case err != nil:
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(1)
	}
}

// errUsage marks a misuse of the flags.
var errUsage = errors.New("capacity-planning: usage")

// errSkipped marks a run reported without the pods of objects the
// simulator does not read: the command exits 3 (unless -allow-skipped),
// so that a pipeline notices figures that leave workloads out.
var errSkipped = errors.New("capacity-planning: workloads skipped")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s (see -h)", errUsage, fmt.Sprintf(format, args...))
}

func run(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	progress := cli.NewProgress(stderr, cfg.quiet || cfg.sweepWorker || cfg.merge != "" || cfg.writeJob != "")
	app := &app{cfg: cfg, stdout: stdout, stderr: stderr, progress: progress}
	return app.dispatch()
}

// app is one invocation: its flags and where it writes.
type app struct {
	cfg      *config
	stdout   io.Writer
	stderr   io.Writer
	progress *cli.Progress              // nil: none
	answers  []htmlreport.Answer        // for report.html, when a question was asked
	skipped  []scenario.SkippedWorkload // of the inputs loaded (checkPods)
}

// dispatch does what the flags ask; a run that went well but left out
// the pods of skipped objects ends in errSkipped, unless -allow-skipped.
func (a *app) dispatch() error {
	err := a.do()
	if err != nil || len(a.skipped) == 0 || a.cfg.allowSkipped || a.cfg.sweepWorker {
		return err
	}
	return fmt.Errorf("%w: exit 3: %s (-allow-skipped exits 0)", errSkipped, scenario.SkippedNote(a.skipped))
}

func (a *app) do() error {
	c := a.cfg
	switch {
	case c.merge != "":
		return a.mergeLines()
	case c.sweepWorker:
		return a.sweepWorker()
	case c.writeJob != "":
		return a.writeJob()
	case len(c.when) > 0:
		return a.when()
	case c.question() != "":
		return a.ask()
	case len(c.variants) > 0:
		return a.compareVariants()
	}
	return a.report()
}
