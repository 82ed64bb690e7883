// Command cluster-state writes the state of a Kueue-run cluster caught
// in the middle of a day, as kubectl prints it (a JSON List): nodes in
// two pools (CPU and GPU), Kueue's flavors, ClusterQueues in a cohort and
// their LocalQueues, the running Jobs with their pods on their nodes and
// their admitted Workloads, and the pending Jobs, suspended, with their
// Workloads waiting. Every running pod carries its remaining run time
// (gangsim.io/duration), every pending Job its run time, unless
// -durations=false leaves them to the simulation's -duration.
//
// It is the input "when will my job start?" is measured on
// (capacity-planning -when): a new job is one more file.
//
//	go run ./examples/cluster-state -nodes 1000 -running 5000 -pending 1000 -o state.json
//	go run ./examples/capacity-planning -when new-job.yaml state.json
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gangsim/gangsim/examples/internal/clusterstate"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cluster-state", flag.ContinueOnError)
	fs.SetOutput(stderr)
	p := clusterstate.Defaults()
	fs.IntVar(&p.Nodes, "nodes", p.Nodes, "nodes")
	fs.IntVar(&p.Running, "running", p.Running, "running Jobs (admitted by Kueue, their pods bound)")
	fs.IntVar(&p.Pending, "pending", p.Pending, "pending Jobs (suspended, their Workloads queued)")
	fs.IntVar(&p.Queues, "queues", p.Queues, "ClusterQueues (one LocalQueue each), in one cohort")
	fs.Float64Var(&p.GPUNodes, "gpu-nodes", p.GPUNodes, "share of the nodes that are GPU nodes (8 GPUs each)")
	fs.Float64Var(&p.GPUJobs, "gpu-jobs", p.GPUJobs, "share of the Jobs that ask for GPUs")
	fs.IntVar(&p.MaxPods, "max-pods", p.MaxPods, "most pods a Job runs at once")
	fs.Float64Var(&p.Load, "load", p.Load, "share of each pool the running Jobs fill (at most; those that do not fit are left out)")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "the seed of every draw")
	fs.BoolVar(&p.Durations, "durations", p.Durations, "write run times (gangsim.io/duration) on pods and Jobs")
	indent := fs.String("indent", "    ", "indentation, as kubectl's (\"\" for one line)")
	out := fs.String("o", "", "write to this file instead of standard output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("cluster-state: unexpected argument %q", fs.Arg(0))
	}
	data, err := clusterstate.JSON(p, *indent)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if *out == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}
