// Command scenario runs a simulation and prints the result as JSON.
//
//	go run ./examples/scenario [-duration RUNTIME] FILE...
//
// Each FILE is a scenario file or Kubernetes objects as kubectl prints them
// (-o json or -o yaml); all of them make one simulation. With no FILE it
// runs the embedded default scenario. -duration gives the pods of
// Kubernetes objects without the gangsim.io/duration annotation a run
// time: a time ("30m") or a distribution written as a workload's duration
// ("{exponential: 20m, max: 2h}"); without it they run until deleted or
// evicted. What the files hold that the simulator does not model is listed
// on standard error, one warning a line; a plugin a configuration names
// that the simulator does not have (an out-of-tree plugin) is one of them,
// left out of its profile (scenario.SkipUnknownPlugins). It exits 1, with
// the message on standard error, when an input is invalid.
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/internal/heapstart"
	"github.com/gangsim/gangsim/scenario"
)

//go:embed default.yaml
var defaultScenario []byte

func main() {
	heapstart.Prepare() // the collector and the page faults of a short run (internal/heapstart)
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scenario", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var runTime scenario.RunTime
	fs.Func("duration", "run time of the pods of Kubernetes objects without the gangsim.io/duration annotation:\n"+
		"a time (30m) or a distribution ({exponential: 20m, max: 2h}, {logNormal: {median: 20m, sigma: 1}})", func(s string) error {
		var err error
		runTime, err = scenario.ParseRunTime(s)
		return err
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	args = fs.Args()
	var sc *scenario.Scenario
	var err error
	if len(args) == 0 {
		sc, err = scenario.Parse("default.yaml", defaultScenario)
	} else {
		sc, err = scenario.LoadFiles(args, scenario.WithDefaultDuration(runTime), scenario.SkipUnknownPlugins())
	}
	if err != nil {
		return err
	}
	for _, w := range sc.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	res, err := sc.Run()
	if err != nil {
		return err
	}
	return res.WriteJSON(stdout)
}
