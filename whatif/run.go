package whatif

import (
	"runtime"
	"sync"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// Options control how simulations run.
type Options struct {
	// DomainKeys are the node label keys whose domains the reports
	// summarise (metrics.Options.DomainKeys).
	DomainKeys []string
	// Workers bounds the simulations running at once, each on its own
	// goroutine with its own Scheduler; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Progress, when set, is called after each simulation ends, on the
	// goroutine that called the search or runner, never concurrently.
	// Results never depend on it.
	Progress func(Progress)
	// Watch, when set, is called as each simulation starts, on the
	// goroutine that runs it: observe (nil for none) then receives the
	// simulation's events on that goroutine, and end is called when it
	// has ended. A progress display follows runs' simulated time with
	// it. Results never depend on it.
	Watch func() (observe gangsim.Observer, end func())
}

// Progress reports one finished simulation.
type Progress struct {
	Done, Total int           // simulations finished and asked for, so far
	Name        string        // the simulation's name
	Elapsed     time.Duration // its wall time
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// watching returns the scheduler options that let a Watch follow one
// simulation, and the function to call when it has ended.
func (o Options) watching() ([]gangsim.Option, func()) {
	if o.Watch == nil {
		return nil, func() {}
	}
	observe, end := o.Watch()
	if end == nil {
		end = func() {}
	}
	if observe == nil {
		return nil, end
	}
	return []gangsim.Option{gangsim.WithObserver(observe)}, end
}

// Run simulates a scenario to its end and returns its report, named after
// the scenario, with the scenario's warnings.
func Run(sc *scenario.Scenario, domainKeys []string) (*metrics.Report, error) {
	return run(sc, domainKeys)
}

// run is Run with more options for the scheduler (observers).
func run(sc *scenario.Scenario, domainKeys []string, opts ...gangsim.Option) (*metrics.Report, error) {
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: domainKeys})
	res, err := sc.Run(append([]gangsim.Option{rec.Attach()}, opts...)...)
	if err != nil {
		return nil, err
	}
	return reportOf(rec, sc, res), nil
}

// result is one finished simulation of a batch.
type result struct {
	index   int
	out     outcome
	err     error
	elapsed time.Duration
}

// outcome is a simulation's report and, for a run a search stopped early,
// why.
type outcome struct {
	report *metrics.Report
	note   string
	waited time.Duration // how long the pod that stopped the run had waited
}

// RunAll simulates scenarios on a bounded pool of goroutines
// (Options.Workers) and returns their reports in the order of scs, whatever the
// order they finish in. Each simulation has its own Scheduler; the
// scenarios are only read. The first error (in the order of scs) is
// returned, after every simulation has ended.
func RunAll(scs []*scenario.Scenario, opts Options) ([]*metrics.Report, error) {
	outs, err := runBatch(scs, opts, &counter{total: len(scs)}, func(sc *scenario.Scenario) (outcome, error) {
		watch, end := opts.watching()
		defer end()
		rep, err := run(sc, opts.DomainKeys, watch...)
		return outcome{report: rep}, err
	})
	if err != nil {
		return nil, err
	}
	reports := make([]*metrics.Report, len(outs))
	for i, o := range outs {
		reports[i] = o.report
	}
	return reports, nil
}

// counter keeps Progress counts over the batches of one search.
type counter struct{ done, total int }

// runBatch runs each scenario with run on the pool and returns the
// outcomes in the order of scs.
func runBatch(scs []*scenario.Scenario, opts Options, c *counter, run func(*scenario.Scenario) (outcome, error)) ([]outcome, error) {
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range min(opts.workers(), len(scs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				start := time.Now()
				out, err := run(scs[i])
				results <- result{index: i, out: out, err: err, elapsed: time.Since(start)}
			}
		}()
	}
	go func() {
		for i := range scs {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	outs := make([]outcome, len(scs))
	errs := make([]error, len(scs))
	for r := range results {
		outs[r.index], errs[r.index] = r.out, r.err
		c.done++
		if opts.Progress != nil {
			opts.Progress(Progress{Done: c.done, Total: c.total, Name: scs[r.index].Name, Elapsed: r.elapsed})
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outs, nil
}
