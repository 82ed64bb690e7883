// Command custom-plugin shows a scheduling policy written outside
// gangsim's module: three plugins (a cross-node filter, a node score and a
// placement score) registered with the scheduler, enabled by a profile in
// a scenario file, and run through the whole cycle: queue, gangs,
// placements and preemption.
//
//	go run .            # from examples/custom-plugin: runs the embedded scenario
//	go test ./...       # the policy's tests
package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/gangsim/gangsim/scenario"
)

//go:embed scenario.yaml
var embedded []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	sc, err := scenario.Parse("scenario.yaml", embedded, scenario.WithRegistry(Registry()))
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
