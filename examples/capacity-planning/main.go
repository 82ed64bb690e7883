// Command capacity-planning simulates a cluster's workload and answers
// capacity questions: how full the cluster gets, how long pods and gangs
// wait, how many nodes or racks to add (or may go).
//
//	go run ./examples/capacity-planning                  # the embedded default day
//	go run ./examples/capacity-planning FILE...          # scenario files
//	go run ./examples/capacity-planning -add-like NODE   # fewest nodes like NODE to add
//
// Without a question it prints each scenario's summary and writes its
// report (report.json, report.html, timeseries.csv, waits.csv) and plots
// (PNG and SVG) to the output folder; several files are also compared
// side by side. A question given -out writes the files of the answer's
// run, the answer in report.html.
// Run with -h for the questions and the sweep flags. It exits 1, with the
// message on standard error, on an invalid scenario or flag.
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/internal/heapstart"
	"github.com/gangsim/gangsim/metrics/htmlreport"
)

//go:embed default.yaml
var defaultScenario []byte

// defaultName is the name the embedded scenario goes by.
const defaultName = "default.yaml"

func main() {
	heapstart.Prepare() // the collector and the page faults of a short run (internal/heapstart)
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// errUsage marks a misuse of the flags.
var errUsage = errors.New("capacity-planning: usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s (see -h)", errUsage, fmt.Sprintf(format, args...))
}

func run(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	app := &app{cfg: cfg, stdout: stdout, stderr: stderr, progress: newProgress(stderr)}
	return app.dispatch()
}

// app is one invocation: its flags and where it writes.
type app struct {
	cfg      *config
	stdout   io.Writer
	stderr   io.Writer
	progress *progress
	answers  []htmlreport.Answer // for report.html, when a question was asked
}

func (a *app) dispatch() error {
	c := a.cfg
	switch {
	case c.merge != "":
		return a.mergeLines()
	case c.sweepWorker:
		return a.sweepWorker()
	case c.writeJob != "":
		return a.writeJob()
	case c.question() != "":
		return a.ask()
	case len(c.variants) > 0:
		return a.compareVariants()
	}
	return a.report()
}
