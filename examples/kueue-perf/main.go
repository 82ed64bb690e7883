package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errConfig), errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error()))
		os.Exit(1)
	}
}

var errUsage = errors.New("kueue-perf: usage")

// The files of the scenario folder, in the order the scenario command
// reads them (name order).
const (
	kueueFile    = "kueue.yaml"
	scenarioFile = "workloads.json"
	clusterFile  = "cluster.json" // -as workloads: the nodes; workloads.json is then a List
)

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kueue-perf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("config", "baseline", "baseline, large-scale, tas, fair-day, or a generator configuration file in Kueue's format")
	out := fs.String("o", "", "the scenario folder to write (default kueue-perf-<config>)")
	nodes := fs.Int("nodes", 4, "the nodes that share the capacity (twice all nominal quota)")
	as := fs.String("as", "pods", "pods (each workload a plain pod created at its time) or workloads (Kueue's Workload objects, which the format makes arrive at time 0 for now)")
	compare := fs.Bool("compare", false, "print Kueue's published figures of the configuration as a table, and write nothing")
	measureDir := fs.String("measure", "", "run the folder given (written by this tool for -config) and put its figures beside Kueue's published ones")
	scale := fs.Float64("scale", 1, "every workload set's count and every quota times this, over the same span (the same load per cpu)")
	seed := fs.Uint64("seed", 0, "0: Kueue's fixed creation intervals; else Poisson creations of the same mean interval, drawn from this seed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *compare {
		return writeCompare(stdout, *name, nil)
	}
	if *measureDir != "" {
		return measureRun(stdout, *name, *measureDir)
	}
	if *as != "pods" && *as != "workloads" {
		return fmt.Errorf("%w: -as %q: pods or workloads", errUsage, *as)
	}
	if *nodes < 1 || *nodes > 100_000 {
		return fmt.Errorf("%w: -nodes %d: from 1 to 100000", errUsage, *nodes)
	}
	if !(*scale > 0 && *scale <= 1000) {
		return fmt.Errorf("%w: -scale %g: more than 0, at most 1000", errUsage, *scale)
	}
	start := time.Now()
	c, label, err := loadConfig(*name)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = "kueue-perf-" + strings.TrimSuffix(filepath.Base(label), filepath.Ext(label))
	}
	p, err := makePlanWith(c, options{nodes: *nodes, scale: *scale, seed: *seed})
	if err != nil {
		return err
	}
	if c.Topology != nil && *as == "workloads" {
		return fmt.Errorf("%w: -as workloads: a TAS configuration is written as pods only (its pod sets' topology would need Workload objects of several pods)", errUsage)
	}
	if err := p.write(dir, *as == "workloads"); err != nil {
		return err
	}
	if *as == "workloads" {
		fmt.Fprintln(stderr, "note: the scenario format gives Kubernetes objects no arrival time yet: these Workloads all arrive at time 0, in order of creationTimestamp")
	}
	fmt.Fprintf(stderr, "%s: %d ClusterQueues, %d workloads, %d nodes of %d cpu; written in %s\n",
		dir, len(p.queues), len(p.workloads), p.nodes, p.nodeCPU/1000, time.Since(start).Round(time.Millisecond))
	return nil
}

// write makes the folder and writes its files: kueue.yaml and the
// scenario file, or with Workload objects, kueue.yaml, the nodes and the
// Workloads. A file of the other form left from an earlier run is removed,
// since the scenario command reads every file of the folder.
func (p *plan) write(dir string, workloads bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type file struct {
		name  string
		write func(io.Writer) error
	}
	files := []file{{kueueFile, p.writeKueue}, {scenarioFile, p.writeScenario}}
	if workloads {
		files = []file{{clusterFile, p.writeCluster}, {kueueFile, p.writeKueue}, {scenarioFile, p.writeWorkloads}}
	} else if err := os.Remove(filepath.Join(dir, clusterFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, f := range files {
		file, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		if err := f.write(file); err != nil {
			file.Close()
			return err
		}
		if err := file.Close(); err != nil {
			return err
		}
	}
	return nil
}
