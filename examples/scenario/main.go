// Command scenario runs a scenario file and prints the result as JSON.
//
//	go run ./examples/scenario FILE
//
// With no FILE it runs the embedded default scenario. It exits 1, with the
// message on standard error, when the scenario is invalid.
package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/gangsim/gangsim/scenario"
)

//go:embed default.yaml
var defaultScenario []byte

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var sc *scenario.Scenario
	var err error
	switch len(args) {
	case 0:
		sc, err = scenario.Parse("default.yaml", defaultScenario)
	case 1:
		sc, err = scenario.Load(args[0])
	default:
		return fmt.Errorf("usage: scenario [FILE]")
	}
	if err != nil {
		return err
	}
	res, err := sc.Run()
	if err != nil {
		return err
	}
	out, err := res.JSON()
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}
