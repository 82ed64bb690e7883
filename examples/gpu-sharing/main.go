// Command gpu-sharing reproduces "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent" (Weng et al.,
// USENIX ATC '23) on the Alibaba openb trace, with the paper's six
// placement policies (Random, DotProd, GpuClustering, GpuPacking, BestFit,
// FGD) written as user Score plugins of gangsim's scheduler: the GPU
// allocation ratio as the arrived GPU requests grow to 130% of the
// cluster's GPUs, mean and spread over the seeds.
//
//	go run ./examples/gpu-sharing -nodes NODE_CSV -pods POD_CSV [-json] [-plot alloc.svg]
//
// The trace's CSV files are research-use data, read at run time and never
// committed (see README.md for where to get them). Without -nodes and
// -pods the default files are looked for in $GANGSIM_OPENB_DIR. -pure replays the runs with
// the greedy driver of pure.go instead of the scheduler (the validation
// tool).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, cluster.Printable(err.Error())) // no raw control character reaches the terminal
		os.Exit(1)
	}
}

// The default trace files, and where they are looked for.
const (
	defaultNodes = "openb_node_list_gpu_node.csv"
	defaultPods  = "openb_pod_list_default.csv"
	traceDirVar  = "GANGSIM_OPENB_DIR"
)

// errNoTrace says where the trace comes from.
var errNoTrace = errors.New("gpu-sharing: no trace: pass -nodes and -pods (or set " + traceDirVar + " to the folder of the openb CSV files). " +
	"The files are the Alibaba cluster-trace-gpu-v2023 \"openb\" data set, research use only: " +
	"github.com/alibaba/clusterdata, folder cluster-trace-gpu-v2023/csv " +
	"(also data/csv in github.com/hkust-adsl/kubernetes-scheduler-simulator); see examples/gpu-sharing/README.md")

// config is the command line.
type config struct {
	pure, json, minMax bool
	nodes, pods, plot  string
	policies           []string
	seed, seeds        int
	ratio              float64
	extraDraws         int
	workers            int
	cpuProfile         string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var policies string
	fs := flag.NewFlagSet("gpu-sharing", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.nodes, "nodes", "", "node CSV (default: "+defaultNodes+" in $"+traceDirVar+")")
	fs.StringVar(&c.pods, "pods", "", "pod CSV, any of the openb pod lists (default: "+defaultPods+", found as -nodes)")
	fs.StringVar(&policies, "policies", "Random,DotProd,GpuClustering,GpuPacking,BestFit,FGD", "policies to run, comma-separated")
	fs.IntVar(&c.seed, "seed", 42, "first seed")
	fs.IntVar(&c.seeds, "seeds", 10, "number of seeds (seed, seed+1, ...)")
	fs.Float64Var(&c.ratio, "ratio", 1.3, "arrived GPU requests to reach, as a fraction of the cluster's GPUs")
	fs.BoolVar(&c.json, "json", false, "print the results as JSON")
	fs.StringVar(&c.plot, "plot", "", "write a plot of allocation against arrived workload per policy (.svg, .png, .pdf)")
	fs.BoolVar(&c.pure, "pure", false, "replay with the pure greedy driver (validation; no scheduler)")
	fs.BoolVar(&c.minMax, "minmax", false, "run BestFit with its min-max normaliser (same decisions, slower)")
	fs.IntVar(&c.workers, "workers", runtime.NumCPU(), "runs in parallel")
	fs.IntVar(&c.extraDraws, "extra-draws", DefaultExtraDraws, "random draws between the pod list and the node ranks (see SampleConfig)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the sweep")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("gpu-sharing: unexpected arguments %q", fs.Args())
	}
	for _, p := range strings.Split(policies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.policies = append(c.policies, p)
		}
	}
	if c.seeds < 1 || c.ratio <= 0 || c.workers < 1 {
		return c, errors.New("gpu-sharing: -seeds and -workers must be at least 1, -ratio positive")
	}
	if c.nodes == "" || c.pods == "" {
		dir := findTraceDir()
		if dir == "" {
			return c, errNoTrace
		}
		if c.nodes == "" {
			c.nodes = filepath.Join(dir, defaultNodes)
		}
		if c.pods == "" {
			c.pods = filepath.Join(dir, defaultPods)
		}
	}
	return c, nil
}

// findTraceDir is the first folder holding the default files, "" if none.
func findTraceDir() string {
	for _, dir := range []string{os.Getenv(traceDirVar)} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, defaultNodes)); err == nil {
			return dir
		}
	}
	return ""
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	nodes, err := LoadNodes(c.nodes)
	if err != nil {
		return err
	}
	pods, err := LoadPods(c.pods)
	if err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	// The runs allocate much and keep little: collect less often.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	start := time.Now()
	res, err := Sweep(nodes, pods, c)
	if err != nil {
		return err
	}
	if c.plot != "" {
		if err := Plot(res, c.plot); err != nil {
			return err
		}
	}
	if c.json {
		return writeJSON(stdout, res)
	}
	writeTable(stdout, res)
	fmt.Fprintf(stdout, "%d runs (%d policies x %d seeds) in %v\n", len(res.Policies)*c.seeds, len(res.Policies), c.seeds, time.Since(start).Round(time.Millisecond))
	return nil
}

// Results are the outcomes of a sweep: Runs[i][j] is policy i's run of
// seed j.
type Results struct {
	Policies []string
	Seeds    []int64
	Runs     [][]Outcome
	Top      int // the highest arrived percent reported (100 * ratio)
}

// Sweep runs every policy on every seed, in parallel (each run its own
// Scheduler; FGD's fragmentation memo one per worker).
func Sweep(nodes []Node, trace []Pod, c config) (*Results, error) {
	w := NewWorkload(trace)
	for _, name := range c.policies {
		if _, err := PolicyByName(name, nil); err != nil {
			return nil, err
		}
	}
	res := &Results{Policies: c.policies, Top: int(math.Round(100 * c.ratio))}
	for s := range c.seeds {
		res.Seeds = append(res.Seeds, int64(c.seed+s))
	}
	res.Runs = make([][]Outcome, len(c.policies))
	type job struct{ p, s int }
	jobs := make(chan job)
	errs := make([]error, len(c.policies)*c.seeds)
	for i := range res.Runs {
		res.Runs[i] = make([]Outcome, c.seeds)
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			memo := NewFragMemo(w)
			for j := range jobs {
				pol, _ := PolicyByName(c.policies[j.p], memo)
				seed := res.Seeds[j.s]
				r, err := Sample(trace, nodes, SampleConfig{Seed: seed, Ratio: c.ratio, ExtraDraws: c.extraDraws})
				if err == nil {
					if c.pure {
						res.Runs[j.p][j.s] = Simulate(r, pol)
					} else {
						res.Runs[j.p][j.s], err = SimulateScheduler(r, pol, memo, seed, SchedOptions{MinMax: c.minMax})
					}
				}
				errs[j.p*c.seeds+j.s] = err
			}
		})
	}
	// FGD's runs are the longest: start them first.
	order := make([]int, 0, len(c.policies))
	for i, p := range c.policies {
		if p == "FGD" {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	for _, p := range order {
		for s := range c.seeds {
			jobs <- job{p, s}
		}
	}
	close(jobs)
	wg.Wait()
	return res, errors.Join(errs...)
}

// At is the mean and the sample standard deviation over the seeds of
// policy i's allocation ratio at pct% arrived (NaN where no run has an
// arrival near pct).
func (r *Results) At(i, pct int) (mean, std float64) {
	var xs []float64
	for _, o := range r.Runs[i] {
		if v := o.AllocRatio(pct); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return meanStd(xs)
}

// columns are the reported arrived percents: every 10 up to Top.
func (r *Results) columns() []int {
	var out []int
	for x := 10; x <= r.Top; x += 10 {
		out = append(out, x)
	}
	return out
}

// writeJSON prints {"policies": {name: {"10": {"mean", "std"}, ...}}};
// a percent no run reaches is left out.
func writeJSON(w io.Writer, r *Results) error {
	type stat struct {
		Mean float64 `json:"mean"`
		Std  float64 `json:"std"`
	}
	out := map[string]map[string]map[string]stat{"policies": {}}
	for i, name := range r.Policies {
		m := map[string]stat{}
		for _, x := range r.columns() {
			if mean, std := r.At(i, x); !math.IsNaN(mean) {
				m[strconv.Itoa(x)] = stat{round2(mean), round2(std)}
			}
		}
		out["policies"][name] = m
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeTable prints the mean (and standard deviation) per policy and
// arrived percent.
func writeTable(w io.Writer, r *Results) {
	fmt.Fprintf(w, "GPU allocation ratio (%%) by arrived GPU requests (%% of the cluster's GPUs), mean (std) over %d seeds (%d..%d)\n",
		len(r.Seeds), r.Seeds[0], r.Seeds[len(r.Seeds)-1])
	fmt.Fprintf(w, "%-14s", "policy")
	for _, x := range r.columns() {
		fmt.Fprintf(w, " %13s", strconv.Itoa(x)+"%")
	}
	fmt.Fprintf(w, " %7s\n", "failed")
	for i, name := range r.Policies {
		fmt.Fprintf(w, "%-14s", name)
		for _, x := range r.columns() {
			cell := "-"
			if mean, std := r.At(i, x); !math.IsNaN(mean) {
				cell = fmt.Sprintf("%.2f (%.2f)", mean, std)
			}
			fmt.Fprintf(w, " %13s", cell)
		}
		var failed []float64
		for _, o := range r.Runs[i] {
			failed = append(failed, float64(o.Failed))
		}
		mf, _ := meanStd(failed)
		fmt.Fprintf(w, " %7.0f\n", mf)
	}
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
