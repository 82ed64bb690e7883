// Command scenario runs a simulation and prints the result as JSON.
//
//	go run ./examples/scenario [-duration RUNTIME] [-quiet] [INPUT...]
//
// Each INPUT is a scenario file, Kubernetes objects as kubectl prints them
// (-o json or -o yaml) or as manifests, or a folder of them (its .yaml,
// .yml and .json files, in name order); all of them make one simulation,
// loaded as every command of the project loads its inputs. With no INPUT
// it runs the embedded default scenario. -duration gives the pods of
// Kubernetes objects without the gangsim.io/duration annotation a run
// time: a time ("30m") or a distribution written as a workload's duration
// ("{exponential: 20m, max: 2h}"); without it they run until deleted or
// evicted. What the inputs hold that the simulator does not model is
// listed on standard error, one warning a line; a plugin a configuration
// names that the simulator does not have (an out-of-tree plugin) is one of
// them, left out of its profile (scenario.SkipUnknownPlugins). A long run
// shows its progress there too (simulated time reached), unless -quiet.
// It exits 1, with the message on standard error, when an input is
// invalid, and 2 on a misuse of the flags. A run that never settles stops
// at the safety cap with its result so far, a warning on standard error
// and exit status 0.
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/internal/heapstart"
	"github.com/gangsim/gangsim/scenario"
)

//go:embed default.yaml
var defaultScenario []byte

func main() {
	heapstart.Prepare() // the collector and the page faults of a short run (internal/heapstart)
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(1)
	}
}

// errUsage marks a misuse of the flags.
var errUsage = errors.New("scenario: usage")

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scenario", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quiet := fs.Bool("quiet", false, "no progress lines on standard error (warnings and errors still go there)")
	var runTime scenario.RunTime
	fs.Func("duration", "run time of the pods of Kubernetes objects without the gangsim.io/duration annotation:\n"+
		"a time (30m) or a distribution ({exponential: 20m, max: 2h}, {logNormal: {median: 20m, sigma: 1}})", func(s string) error {
		var err error
		runTime, err = scenario.ParseRunTime(s)
		return err
	})
	admission := cli.ExtendedResourceToleration(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: scenario [-duration RUNTIME] [-extended-resource-toleration] [-quiet] [INPUT...]\n\nRuns the inputs (files or folders), merged into one simulation, and prints the result as JSON.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	sc, err := load(fs.Args(), stderr, append(admission(), scenario.WithDefaultDuration(runTime))...)
	if err != nil {
		return err
	}
	progress := cli.NewProgress(stderr, *quiet)
	var opts []gangsim.Option
	observe, end := progress.Watch()
	if observe != nil {
		opts = append(opts, gangsim.WithObserver(observe))
	}
	progress.Start(1, cli.InputsEnd(sc))
	res, err := sc.Run(opts...)
	if end != nil {
		end()
	}
	progress.Stop()
	if err != nil {
		return err
	}
	if res.Stopped != "" {
		fmt.Fprintln(stderr, "warning: the run stopped before it settled:", res.Stopped)
	}
	return res.WriteJSON(stdout)
}

// load reads the inputs as every command does (cli.Load), with the
// scenario options the flags ask for.
func load(paths []string, stderr io.Writer, opts ...scenario.Option) (*scenario.Scenario, error) {
	return cli.Load(paths, cli.Default{Name: "default.yaml", Data: defaultScenario}, stderr, opts...)
}
