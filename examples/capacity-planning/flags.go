package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

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

	addLike     string
	addLikeRack string
	rackKey     string
	removeLike  string
	maxWait     time.Duration
	limit       int

	variants    []whatif.Variant
	writeJob    string
	jobImage    string
	jobName     string
	sweepWorker bool
	merge       string

	runTime scenario.RunTime // -duration
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

const usageText = `Usage: capacity-planning [flags] [SCENARIO...]

Simulates the scenario files (YAML or JSON; without any, the embedded
default day) and prints a summary. Without a question it writes each
scenario's report (JSON, and HTML to open in a browser), CSV time series
and plots to -out; a question writes its answer's run there only when
-out is given.

Questions (one at a time, on one scenario):
  -add-like NODE         fewest nodes like NODE to add so that every pod is placed
  -add-like-rack RACK    fewest racks like RACK (label -rack-key) to add
  -remove-like NODE      most nodes of NODE's kind that can be removed
  -max-wait DURATION     also: no pod waits longer than this (e.g. 30m)
                         (with one -variant, a question is asked of that variant)
  -variant SPEC          compare variants side by side (repeat the flag):
                         base | add:NODE:N | add-domain:KEY=VALUE:N | remove:NODE:N |
                         strategy:LeastAllocated|MostAllocated |
                         strategy:RequestedToCapacityRatio:U=S/U=S... | weight:PLUGIN:W,
                         joined with commas

Sweeps beyond one machine (with -variant):
  -write-job FILE        write the sweep as a Kubernetes Indexed Job (needs -job-image)
  -sweep-worker          run the variant numbered $JOB_COMPLETION_INDEX, print one JSON line
  -merge FILE            merge the workers' lines (FILE, or - for standard input)

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
	fs.StringVar(&c.addLike, "add-like", "", "fewest nodes like this node to add")
	fs.StringVar(&c.addLikeRack, "add-like-rack", "", "fewest racks like this rack to add")
	fs.StringVar(&c.rackKey, "rack-key", "rack", "the node label key naming racks")
	fs.StringVar(&c.removeLike, "remove-like", "", "most nodes of this node's kind to remove")
	fs.DurationVar(&c.maxWait, "max-wait", 0, "bound on every pod's wait for the questions (0: none)")
	fs.IntVar(&c.limit, "limit", 0, "largest count a question tries (0: a default)")
	fs.Var(variantFlags{&c.variants}, "variant", "a variant to compare (repeatable)")
	fs.StringVar(&c.writeJob, "write-job", "", "write the -variant sweep as an Indexed Job to this file")
	fs.StringVar(&c.jobImage, "job-image", "", "container image running this program, for -write-job")
	fs.StringVar(&c.jobName, "job-name", "capacity-sweep", "the Job's name, for -write-job")
	fs.BoolVar(&c.sweepWorker, "sweep-worker", false, "run the -variant numbered $JOB_COMPLETION_INDEX")
	fs.StringVar(&c.merge, "merge", "", "merge sweep lines from this file (- for standard input)")
	fs.Func("duration", "run time of Kubernetes objects' pods without the gangsim.io/duration annotation: 30m, or {exponential: 20m, max: 2h}",
		func(s string) (err error) { c.runTime, err = scenario.ParseRunTime(s); return err })
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	c.files = fs.Args()
	fs.Visit(func(f *flag.Flag) { c.outGiven = c.outGiven || f.Name == "out" })
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
	}
	return ""
}

func (c *config) validate() error {
	given := 0
	for _, q := range []string{c.addLike, c.addLikeRack, c.removeLike} {
		if q != "" {
			given++
		}
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
		return usageError("give one of -add-like, -add-like-rack, -remove-like, -variant and -merge (a question takes at most one -variant, which it is asked of)")
	case c.workers < 0:
		return usageError("-workers %d is negative", c.workers)
	case c.limit < 0:
		return usageError("-limit %d is negative", c.limit)
	case c.maxWait < 0:
		return usageError("-max-wait %v is negative", c.maxWait)
	case (c.maxWait > 0 || c.limit > 0) && given == 0:
		return usageError("-max-wait and -limit go with -add-like, -add-like-rack or -remove-like")
	case (given > 0 || len(c.variants) > 0) && len(c.files) > 1:
		return usageError("questions and variants take one scenario, not %d", len(c.files))
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
