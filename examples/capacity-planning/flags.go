package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// config holds the flags and arguments.
type config struct {
	files      []string
	out        string
	outGiven   bool // -out was on the command line: a question writes its files too
	json       bool
	domainKeys []string
	workers    int
	each       bool
	quiet      bool
	// allowSkipped: exit 0 even when the inputs hold objects that make
	// pods the simulator does not read (exit 3 otherwise)
	allowSkipped bool

	addLike     string
	addLikeRack string
	rackKey     string
	removeLike  string
	groupMax    string  // -smallest-group-max
	quota       string  // -smallest-quota CLUSTERQUEUE:FLAVOR:RESOURCE
	quantile    float64 // -wait-quantile
	waitOf      string  // -wait-of
	maxWait     time.Duration
	limit       int

	when []string // -when: files of new jobs, or objects of the inputs
	runs int      // -runs

	variants    []whatif.Variant
	writeJob    string
	jobImage    string
	jobName     string
	job         jobResources
	sweepWorker bool
	merge       string

	runTime scenario.RunTime // -duration
	// admission are the load options of -extended-resource-toleration
	admission func() []scenario.Option
	// loadArgs are the flags that change how the inputs load (-duration,
	// -extended-resource-toleration) as given, for a sweep's workers
	loadArgs []string
}

// variantFlags collects repeated -variant flags.
type variantFlags struct{ list *[]whatif.Variant }

func (v variantFlags) String() string { return "" }

func (v variantFlags) Set(s string) error {
	parsed, err := whatif.ParseVariant(s)
	if err != nil {
		return err
	}
	*v.list = append(*v.list, parsed)
	return nil
}

const usageText = `Usage: capacity-planning [flags] [INPUT...]

Simulates the inputs merged into one simulation (without any, the
embedded default day) and prints a summary. An input is a scenario file
(YAML or JSON), Kubernetes objects as kubectl prints them or as
manifests, or a folder: its .yaml, .yml and .json files, in name order
(not its sub-folders). What they hold that the simulator does not model
is warned about on standard error. Without a question it writes the
report (JSON, and HTML to open in a browser), CSV time series and plots
to -out; a question writes its answer's run there only when -out is
given. -each simulates every input on its own and compares them side by
side.

Questions (one at a time, on the merged inputs):
  -add-like NODE         fewest nodes like NODE to add so that every pod is placed
  -add-like-rack RACK    fewest racks like RACK (label -rack-key) to add
  -remove-like NODE      most nodes of NODE's kind that can be removed
  -smallest-group-max G  smallest max of node group G (the autoscaler's) so that
                         every pod is placed; the runs' costs beside
  -smallest-quota CQ:FLAVOR:RESOURCE
                         smallest nominal quota (whole cores, GiB, GPUs) of Kueue's
                         ClusterQueue CQ so that its workloads are all admitted;
                         -max-wait (and -wait-quantile) bound their time to admission,
                         -limit is the largest quota tried
  -max-wait DURATION     also: no pod waits longer than this (e.g. 30m)
  -wait-quantile Q       -max-wait bounds the Q quantile of the waits (0.5, 0.9, 0.99)
  -wait-of WORKLOAD      -max-wait bounds that workload's waits alone (e.g. train)
                         (with one -variant, a question is asked of that variant)
  -variant SPEC          compare variants side by side (repeat the flag):
                         base | add:NODE:N | add-domain:KEY=VALUE:N | remove:NODE:N |
                         strategy:LeastAllocated|MostAllocated |
                         strategy:RequestedToCapacityRatio:U=S/U=S... | weight:PLUGIN:W |
                         group:NAME:max=N|min=N|provisioningDelay=4m|pricePerHour=P |
                         autoscaler:FIELD=V (scaleDownUnneededTime=30m, expander=price, ...) |
                         quota:CQ:FLAVOR:RESOURCE:nominalQuota|borrowingLimit|lendingLimit=Q
                         (Q, +Q, -Q, none) | cohort-quota:COHORT:FLAVOR:RESOURCE:FIELD=Q |
                         clusterqueue:CQ:queueingStrategy|withinClusterQueue|
                         reclaimWithinCohort|borrowWithinCohort|fairSharing.weight=V
                         (CQ * for every ClusterQueue) | cohort:COHORT:fairSharing.weight=W |
                         fairsharing:on|off|LessThanOrEqualToFinalShare/LessThanInitialShare
                         (Kueue's), joined with commas; with -out, the comparison's
                         comparison.json, comparison.html and figures are written there

Sweeps beyond one machine (with -variant):
  -write-job FILE        write the sweep as a Kubernetes Indexed Job (needs -job-image)
  -sweep-worker          run the variant numbered $JOB_COMPLETION_INDEX, print one JSON line
  -merge FILE            merge the workers' lines (FILE, or - for standard input)
  -job-cpu, -job-memory, -job-cpu-limit, -job-memory-limit
                         the worker's requests and limits (default 1 cpu, 1Gi,
                         no cpu limit, memory limited to its request)

Exit status: 0; 1 for an invalid input (or one that makes no pod), 2 for a
misuse of the flags, 3 when the inputs hold objects that make pods the
simulator does not read (a JobSet, a RayCluster...): the run is reported
without their pods, and the summary says how many (-allow-skipped: 0).

Long work prints its progress on standard error: a line rewritten every 2s
on a terminal, a line every 5s elsewhere; -quiet prints none.

Flags:
`

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("capacity-planning", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.out, "out", "capacity-report", "folder for reports and plots (\"\" writes none)")
	fs.BoolVar(&c.json, "json", false, "print the answer, comparison or summary as JSON")
	domains := fs.String("domains", "topology.kubernetes.io/zone,rack", "node label keys whose domains are reported, comma-separated")
	fs.IntVar(&c.workers, "workers", 0, "simulations at once (0: one per CPU)")
	fs.BoolVar(&c.each, "each", false, "simulate each input (file or folder) on its own and compare them side by side")
	fs.BoolVar(&c.allowSkipped, "allow-skipped", false, "exit 0 even when the inputs hold objects that make pods the simulator does not read (exit 3 otherwise)")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress lines on standard error (warnings and errors still go there)")
	fs.StringVar(&c.addLike, "add-like", "", "fewest nodes like this node to add")
	fs.StringVar(&c.addLikeRack, "add-like-rack", "", "fewest racks like this rack to add")
	fs.StringVar(&c.rackKey, "rack-key", "rack", "the node label key naming racks")
	fs.StringVar(&c.removeLike, "remove-like", "", "most nodes of this node's kind to remove")
	fs.StringVar(&c.groupMax, "smallest-group-max", "", "smallest max of this node group (the autoscaler's) meeting -max-wait")
	fs.StringVar(&c.quota, "smallest-quota", "", "smallest nominal quota of Kueue's CLUSTERQUEUE:FLAVOR:RESOURCE admitting its workloads (within -max-wait)")
	fs.Float64Var(&c.quantile, "wait-quantile", 0, "-max-wait bounds this quantile of the waits: 0.5, 0.9 or 0.99 (0: the longest)")
	fs.StringVar(&c.waitOf, "wait-of", "", "-max-wait bounds the waits of this workload alone (train, Job/etl)")
	fs.DurationVar(&c.maxWait, "max-wait", 0, "bound on every pod's wait for the questions (0: none)")
	fs.IntVar(&c.limit, "limit", 0, "largest count a question tries, at most 100000 (0: a default)")
	fs.Var(variantFlags{&c.variants}, "variant", "a variant to compare (repeatable)")
	fs.StringVar(&c.writeJob, "write-job", "", "write the -variant sweep as an Indexed Job to this file")
	fs.StringVar(&c.jobImage, "job-image", "", "container image running this program, for -write-job")
	fs.StringVar(&c.jobName, "job-name", "capacity-sweep", "the Job's name, for -write-job")
	c.job.flags(fs)
	fs.BoolVar(&c.sweepWorker, "sweep-worker", false, "run the -variant numbered $JOB_COMPLETION_INDEX")
	fs.StringVar(&c.merge, "merge", "", "merge sweep lines from this file (- for standard input)")
	fs.Func("when", "when does it start? a file of new jobs, added to the inputs, or an object of the inputs (\"Job ml/train\"); repeatable",
		func(s string) error {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("empty")
			}
			c.when = append(c.when, s)
			return nil
		})
	fs.IntVar(&c.runs, "runs", 1, "runs of -when, each drawing -duration's distribution with its own seed (1 to N)")
	c.admission = cli.ExtendedResourceToleration(fs)
	fs.Func("duration", "run time of Kubernetes objects' pods without the gangsim.io/duration annotation: 30m, or {exponential: 20m, max: 2h}",
		func(s string) (err error) {
			c.runTime, err = scenario.ParseRunTime(s)
			c.loadArgs = append(c.loadArgs, "-duration", s)
			return err
		})
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	c.files = fs.Args()
	fs.Visit(func(f *flag.Flag) {
		c.outGiven = c.outGiven || f.Name == "out"
		if f.Name == "extended-resource-toleration" {
			c.loadArgs = append(c.loadArgs, "-"+f.Name+"="+f.Value.String())
		}
	})
	for _, k := range strings.Split(*domains, ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.domainKeys = append(c.domainKeys, k)
		}
	}
	return c, c.validate()
}

// question names the question flag given, or "".
func (c *config) question() string {
	switch {
	case c.addLike != "":
		return "-add-like"
	case c.addLikeRack != "":
		return "-add-like-rack"
	case c.removeLike != "":
		return "-remove-like"
	case c.groupMax != "":
		return "-smallest-group-max"
	case c.quota != "":
		return "-smallest-quota"
	}
	return ""
}

func (c *config) validate() error {
	given := 0
	for _, q := range []string{c.addLike, c.addLikeRack, c.removeLike, c.groupMax, c.quota} {
		if q != "" {
			given++
		}
	}
	if len(c.when) > 0 {
		given++
	}
	modes := given
	comparing := len(c.variants) > 1 || len(c.variants) == 1 && given == 0 // one variant with a question is its subject
	for _, on := range []bool{comparing && !c.sweepWorker && c.writeJob == "", c.merge != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return usageError("give one of -add-like, -add-like-rack, -remove-like, -smallest-group-max, -smallest-quota, -when, -variant and -merge (a question takes at most one -variant, which it is asked of)")
	case c.runs < 1 || c.runs > 10_000:
		return usageError("-runs %d: from 1 to 10000", c.runs)
	case c.runs > 1 && len(c.when) == 0:
		return usageError("-runs goes with -when")
	case len(c.when) > 0 && (len(c.variants) > 0 || c.maxWait > 0 || c.limit > 0):
		return usageError("-when takes no -variant, -max-wait or -limit")
	case c.workers < 0:
		return usageError("-workers %d is negative", c.workers)
	case c.limit < 0:
		return usageError("-limit %d is negative", c.limit)
	case c.limit > whatif.MaxLimit:
		return usageError("-limit %d is above %d, the largest count a question tries", c.limit, whatif.MaxLimit)
	case c.maxWait < 0:
		return usageError("-max-wait %v is negative", c.maxWait)
	case (c.maxWait > 0 || c.limit > 0) && given == 0:
		return usageError("-max-wait and -limit go with -add-like, -add-like-rack, -remove-like, -smallest-group-max or -smallest-quota")
	case c.quantile != 0 && (c.maxWait == 0 || c.quantile != 0.5 && c.quantile != 0.9 && c.quantile != 0.99 && c.quantile != 1):
		return usageError("-wait-quantile is 0.5, 0.9, 0.99 or 1, and goes with -max-wait")
	case c.waitOf != "" && c.maxWait == 0:
		return usageError("-wait-of goes with -max-wait")
	case c.waitOf != "" && c.quota != "":
		return usageError("-smallest-quota bounds the ClusterQueue's times to admission: -wait-of does not go with it")
	case c.quota != "" && len(strings.Split(c.quota, ":")) != 3:
		return usageError("-smallest-quota %q is not CLUSTERQUEUE:FLAVOR:RESOURCE (team-a:gpu:nvidia.com/gpu)", c.quota)
	case c.each && (modes > 0 || len(c.variants) > 0):
		return usageError("-each compares the inputs side by side; questions, variants and sweeps take them merged into one simulation")
	case c.merge != "" && len(c.files) > 0:
		return usageError("-merge takes no scenario")
	case c.addLikeRack != "" && c.rackKey == "":
		return usageError("-rack-key is empty")
	}
	return c.validateSweep()
}

func (c *config) validateSweep() error {
	switch {
	case c.sweepWorker && c.writeJob != "":
		return usageError("-sweep-worker and -write-job do not go together")
	case (c.sweepWorker || c.writeJob != "") && len(c.variants) == 0:
		return usageError("a sweep needs its variants: give -variant (repeatable)")
	case c.writeJob != "" && c.jobImage == "":
		return usageError("-write-job needs -job-image, the container image that runs this program")
	case c.jobImage != "" && c.writeJob == "":
		return usageError("-job-image goes with -write-job")
	}
	return nil
}

// jobResources are the sweep worker's requests and limits (-write-job).
type jobResources struct {
	cpu, memory           string
	cpuLimit, memoryLimit string
}

// The worker's defaults. A simulation runs on one goroutine (the
// collector takes a little more), and the default day peaks near 200 MiB
// of resident memory; a cluster ten times as large takes about ten times
// that (docs/capacity-planning.md). Memory is limited to its request, so
// that a worker over it is stopped rather than squeezing its node; cpu
// is not limited by default, so that the collector is not throttled.
const (
	defaultJobCPU    = "1"
	defaultJobMemory = "1Gi"
)

func (r *jobResources) flags(fs *flag.FlagSet) {
	fs.StringVar(&r.cpu, "job-cpu", defaultJobCPU, "the sweep worker's cpu request, for -write-job")
	fs.StringVar(&r.memory, "job-memory", defaultJobMemory, "the sweep worker's memory request, for -write-job")
	fs.StringVar(&r.cpuLimit, "job-cpu-limit", "", "the sweep worker's cpu limit, for -write-job (\"\": none)")
	fs.StringVar(&r.memoryLimit, "job-memory-limit", "", "the sweep worker's memory limit, for -write-job (\"\": its request)")
}

// requests and limits render the flags as JobSpec takes them.
func (r jobResources) requests() map[string]string {
	return nonEmpty(map[string]string{"cpu": r.cpu, "memory": r.memory})
}

func (r jobResources) limits() map[string]string {
	memory := r.memoryLimit
	if memory == "" {
		memory = r.memory
	}
	return nonEmpty(map[string]string{"cpu": r.cpuLimit, "memory": memory})
}

func nonEmpty(m map[string]string) map[string]string {
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// quotaQuestion is -smallest-quota's question, -limit its largest quota.
func (c *config) quotaQuestion() whatif.QuotaQuestion {
	parts := strings.Split(c.quota, ":")
	return whatif.QuotaQuestion{ClusterQueue: parts[0], Flavor: parts[1], Resource: cluster.ResourceName(parts[2]), Max: c.limit}
}
