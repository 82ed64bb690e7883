// Package cli holds what the example commands share, so that they behave
// alike: how inputs are loaded and warned about (Load), and how long work
// shows its progress (Progress).
package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gangsim/gangsim/internal/heapstart"
	"github.com/gangsim/gangsim/scenario"
)

// Default is the scenario a command runs when it is given no input: a
// file, and the files merged with it, as several inputs merge (a
// scenario file and Kubernetes objects beside it, such as Kueue's).
type Default struct {
	Name string // the name errors and reports give it ("default.yaml")
	Data []byte
	// More are files merged with it; the scenario keeps Name.
	More []scenario.File
}

// Load reads a command's inputs into one simulation: every path (a file,
// or a folder standing for its .yaml, .yml and .json files, see
// scenario.LoadFiles) merged into one scenario, or the default when there
// is none. What the inputs hold that the simulator does not model is
// printed on stderr, one "warning: " line each, once; the scenario keeps
// the warnings, and the reports made of it list them (whatif.Run).
// Errors are scenario's: they name the file, the object and the field. A
// plugin a configuration names that the simulator does not have is a
// warning (scenario.SkipUnknownPlugins), as a command's user expects.
func Load(paths []string, def Default, stderr io.Writer, opts ...scenario.Option) (*scenario.Scenario, error) {
	opts = append([]scenario.Option{scenario.SkipUnknownPlugins()}, opts...)
	var sc *scenario.Scenario
	var err error
	if len(paths) == 0 {
		sc, err = scenario.ParseFiles(append([]scenario.File{{Name: def.Name, Data: def.Data}}, def.More...), opts...)
		if err == nil {
			sc.Name = def.Name
		}
	} else {
		heapstart.Expect(inputBytes(paths)) // large inputs: their pages mapped on the other core
		sc, err = scenario.LoadFiles(paths, opts...)
	}
	if err != nil {
		return nil, err
	}
	PrintWarnings(stderr, sc)
	return sc, nil
}

// inputBytes is the size of the files the paths stand for (0 for what
// cannot be read: loading says why).
func inputBytes(paths []string) int64 {
	files, err := scenario.InputFiles(paths)
	if err != nil {
		return 0
	}
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// LoadEach reads each path as a scenario of its own (a folder's files
// merged into one), for commands that compare inputs side by side; it
// warns as Load does, scenario by scenario.
func LoadEach(paths []string, def Default, stderr io.Writer, opts ...scenario.Option) ([]*scenario.Scenario, error) {
	if len(paths) == 0 {
		sc, err := Load(nil, def, stderr, opts...)
		if err != nil {
			return nil, err
		}
		return []*scenario.Scenario{sc}, nil
	}
	out := make([]*scenario.Scenario, 0, len(paths))
	for _, p := range paths {
		sc, err := Load([]string{p}, def, stderr, opts...)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// PrintWarnings prints a scenario's warnings, one "warning: " line each,
// in the scenario's order: the text scenario.Warning.String gives, which
// the reports list too.
func PrintWarnings(w io.Writer, sc *scenario.Scenario) {
	for _, warn := range sc.Warnings {
		fmt.Fprintln(w, "warning:", warn.String())
	}
}

// CheckPods refuses a scenario that makes no pod (no pod, no workload
// controller): a report of an empty run is all zeros, and says nothing of
// the inputs. The error says which objects that make pods were skipped,
// when some were.
func CheckPods(sc *scenario.Scenario) error {
	if len(sc.Pods) > 0 || len(sc.Controllers) > 0 {
		return nil
	}
	msg := sc.Name + ": the inputs make no pod, so there is nothing to simulate"
	if note := scenario.SkippedNote(sc.Skipped); note != "" {
		msg += "; " + strings.Replace(note, "missing from the figures", "not simulated", 1)
	}
	return fmt.Errorf("%w: %s", scenario.ErrScenario, msg)
}
