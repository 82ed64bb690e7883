package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/scenario"
)

// defaultInputs is the embedded default day, run without inputs.
var defaultInputs = cli.Default{Name: defaultName, Data: defaultScenario,
	More: []scenario.File{{Name: "default-kueue.yaml", Data: defaultKueue}}}

// load reads the inputs as every command does (cli.Load): all files and
// folders merged into one simulation, or the embedded default without
// any; the warnings go to standard error once, and into the reports.
func (a *app) load() (*scenario.Scenario, error) {
	sc, err := cli.Load(a.cfg.files, defaultInputs, a.stderr, a.loadOptions()...)
	if err != nil {
		return nil, err
	}
	return sc, a.checkPods(sc)
}

// loadEach reads each input as a scenario of its own (-each).
func (a *app) loadEach() ([]*scenario.Scenario, error) {
	scs, err := cli.LoadEach(a.cfg.files, defaultInputs, a.stderr, a.loadOptions()...)
	if err != nil {
		return nil, err
	}
	for _, sc := range scs {
		if err := a.checkPods(sc); err != nil {
			return nil, err
		}
	}
	return scs, nil
}

// checkPods refuses inputs that make no pod (a report of zeros would say
// nothing), and remembers the workloads they hold that were skipped, so
// that the command exits with errSkipped once it has reported.
func (a *app) checkPods(sc *scenario.Scenario) error {
	if err := cli.CheckPods(sc); err != nil {
		return err
	}
	a.skipped = append(a.skipped, sc.Skipped...)
	return nil
}

// loadQuietly loads as load does without printing the warnings: a sweep
// worker's standard error ends up in the lines kubectl logs collects,
// and the warnings were shown when the Job was written.
func (a *app) loadQuietly() (*scenario.Scenario, error) {
	sc, err := cli.Load(a.cfg.files, defaultInputs, io.Discard, a.loadOptions()...)
	if err != nil {
		return nil, err
	}
	return sc, cli.CheckPods(sc)
}

// loadOptions are the scenario options the flags ask for.
func (a *app) loadOptions() []scenario.Option {
	return append([]scenario.Option{scenario.WithDefaultDuration(a.cfg.runTime)}, a.cfg.admission()...)
}

// displayName shortens a scenario's name for tables and folders: the
// last element of each path it was loaded from ("nodes.json, manifests").
func displayName(name string) string {
	parts := strings.Split(name, ", ")
	for i, p := range parts {
		parts[i] = filepath.Base(p)
	}
	return strings.Join(parts, ", ")
}
