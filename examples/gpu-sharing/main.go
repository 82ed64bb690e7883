// Command gpu-sharing reproduces "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent" (Weng et al.,
// USENIX ATC '23) on the Alibaba openb trace: the GPU allocation ratio of
// six policies (Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD)
// as the arrived GPU requests grow to 130% of the cluster's GPUs.
//
// For now it has the pure core only (no scheduler): with -pure it replays
// the runs with a greedy loop of its own, a validation tool for the
// policies' logic and for the numbers:
//
//	go run ./examples/gpu-sharing -pure -data DIR
//
// DIR holds the trace's CSV files (research-use data, read at run time,
// never committed; the GANGSIM_OPENB_DIR environment variable is the
// default). It prints, per policy, the mean and standard deviation over
// the seeds of the allocation ratio at 100% and 130% arrived.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	pure        bool
	data        string
	nodes, pods string
	policies    string
	seed, seeds int
	ratio       float64
	extraDraws  int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("gpu-sharing", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&c.pure, "pure", false, "replay with the pure greedy loop (a validation tool; no scheduler)")
	fs.StringVar(&c.data, "data", os.Getenv("GANGSIM_OPENB_DIR"), "folder of the openb CSV files")
	fs.StringVar(&c.nodes, "nodes", "openb_node_list_gpu_node.csv", "node file, in -data (the paper's runs use the GPU nodes)")
	fs.StringVar(&c.pods, "pods", "openb_pod_list_default.csv", "pod file, in -data")
	fs.StringVar(&c.policies, "policies", "Random,DotProd,GpuClustering,GpuPacking,BestFit,FGD", "policies to run, comma-separated")
	fs.IntVar(&c.seed, "seed", 42, "first seed")
	fs.IntVar(&c.seeds, "seeds", 10, "number of seeds (seed, seed+1, ...)")
	fs.Float64Var(&c.ratio, "ratio", 1.3, "arrived GPU requests to reach, as a fraction of the cluster's GPUs")
	fs.IntVar(&c.extraDraws, "extra-draws", DefaultExtraDraws, "random draws between the pod list and the node ranks (see SampleConfig)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if !c.pure {
		return c, errors.New("gpu-sharing: only -pure is implemented so far")
	}
	if c.data == "" {
		return c, errors.New("gpu-sharing: -data (or GANGSIM_OPENB_DIR) must name the trace folder")
	}
	return c, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	nodes, err := LoadNodes(filepath.Join(c.data, c.nodes))
	if err != nil {
		return err
	}
	pods, err := LoadPods(filepath.Join(c.data, c.pods))
	if err != nil {
		return err
	}
	memo := NewFragMemo(NewWorkload(pods))
	fmt.Fprintf(stdout, "%-14s %8s %6s %8s %6s %6s %9s\n", "policy", "@100%", "std", "@130%", "std", "failed", "time/run")
	for _, name := range strings.Split(c.policies, ",") {
		pol, err := PolicyByName(strings.TrimSpace(name), memo)
		if err != nil {
			return err
		}
		var at100, at130, failed []float64
		start := time.Now()
		for s := range c.seeds {
			r, err := Sample(pods, nodes, SampleConfig{Seed: int64(c.seed + s), Ratio: c.ratio, ExtraDraws: c.extraDraws})
			if err != nil {
				return err
			}
			o := Simulate(r, pol)
			at100, at130 = append(at100, o.AllocRatio(100)), append(at130, o.AllocRatio(int(math.Round(100*c.ratio))))
			failed = append(failed, float64(o.Failed))
		}
		per := time.Since(start) / time.Duration(max(c.seeds, 1))
		m1, s1 := meanStd(at100)
		m2, s2 := meanStd(at130)
		mf, _ := meanStd(failed)
		fmt.Fprintf(stdout, "%-14s %8.2f %6.2f %8.2f %6.2f %6.0f %9s\n", pol.Name, m1, s1, m2, s2, mf, per.Round(time.Millisecond))
	}
	return nil
}

// meanStd is the mean and the sample standard deviation.
func meanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)-1))
}
