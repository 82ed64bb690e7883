// Command scenario runs a simulation and prints the result as JSON.
//
//	go run ./examples/scenario FILE...
//
// Each FILE is a scenario file or Kubernetes objects as kubectl prints them
// (-o json or -o yaml); all of them make one simulation. With no FILE it
// runs the embedded default scenario. What the files hold that the
// simulator does not model is listed on standard error, one warning a
// line. It exits 1, with the message on standard error, when an input is
// invalid.
package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/scenario"
)

//go:embed default.yaml
var defaultScenario []byte

// heapFloor is address space the collector counts as live heap and never
// scans (it holds no pointers) or touches (fresh pages stay unmapped until
// written, and it is never written): the collector's first cycles wait
// until the heap has grown by about its size. A run on a thousand nodes
// allocates a few tens of MB, a tenth of its time went to collecting them,
// and a large run's peak grows by at most this much.
var heapFloor []byte

// heapFloorBytes is heapFloor's size.
const heapFloorBytes = 64 << 20

func main() {
	heapFloor = make([]byte, heapFloorBytes)
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	var sc *scenario.Scenario
	var err error
	if len(args) == 0 {
		sc, err = scenario.Parse("default.yaml", defaultScenario)
	} else {
		sc, err = scenario.LoadFiles(args)
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
