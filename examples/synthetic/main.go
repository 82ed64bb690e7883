// Command synthetic writes the scenario file of a busy synthetic cluster
// (package scenario/synthetic, docs/synthetic.md) to standard output or a
// file:
//
//	go run ./examples/synthetic [-size small|medium|large] [-seed N] [-nodes N] [-pods N] [-hours H] [-o FILE]
//
// -size picks one of the three sizes (large: 2,000 nodes, 50,000 pods
// over 72 hours); -nodes, -pods and -hours change it. The same flags give
// the same file. Run it with the scenario command:
//
//	go run ./examples/synthetic -seed 2 -o busy.json && go run ./examples/scenario busy.json
//
// It exits 2 on a misuse of the flags, 1 when the file cannot be written.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/synthetic"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, synthetic.ErrConfig), errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(1)
	}
}

var errUsage = errors.New("synthetic: usage")

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("synthetic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "large", "small (100 nodes), medium (400) or large (2,000)")
	seed := fs.Uint64("seed", 1, "the seed of every draw")
	nodes := fs.Int("nodes", 0, "nodes (0: the size's)")
	pods := fs.Int("pods", 0, "pods (0: the size's)")
	hours := fs.Float64("hours", 0, "hours of arrivals (0: the size's)")
	services := fs.Float64("services", 0, "share of single-pod entries that are services, which never end (0: 0.05)")
	out := fs.String("o", "", "write to this file instead of standard output")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	c, err := synthetic.Sized(*size, *seed)
	if err != nil {
		return err
	}
	if *nodes != 0 {
		c.Nodes = *nodes
	}
	if *pods != 0 {
		c.Pods = *pods
	}
	if *hours != 0 {
		c.Hours = *hours
	}
	if *services != 0 {
		c.Services = *services
	}
	if *out == "" {
		return synthetic.Write(stdout, c)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := synthetic.Write(f, c); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
