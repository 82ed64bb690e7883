package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gangsim/gangsim/examples/internal/cli"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// when answers -when: when each job asked about starts, from the moment
// the inputs show (a dump of the cluster as it is). A -when that names a
// file adds the file's objects to the inputs and asks about each; one
// that names an object ("Job ml/train") asks about that object of the
// inputs (a job pending in the dump). With -runs N the run times drawn
// from -duration's distribution are drawn N times, seeds 1 to N.
func (a *app) when() error {
	var files, objects []string
	for _, w := range a.cfg.when {
		if strings.Contains(w, " ") {
			objects = append(objects, w)
		} else {
			files = append(files, w)
		}
	}
	load := func(seed uint64) (*scenario.Scenario, error) {
		stderr := a.stderr
		if seed > 1 {
			stderr = io.Discard // the first load warned
		}
		rt := a.cfg.runTime
		rt.Seed = seed
		opts := append([]scenario.Option{scenario.WithDefaultDuration(rt)}, a.cfg.admission()...)
		sc, err := a.loadWith(files, stderr, opts)
		if err != nil {
			return nil, err
		}
		return sc, cli.CheckPods(sc)
	}
	sc, err := load(1)
	if err != nil {
		return err
	}
	jobs := objects
	for _, f := range files {
		found := whatif.Jobs(sc, f)
		if len(found) == 0 {
			return usageError("-when %s: the file holds no object that makes pods", f)
		}
		jobs = append(jobs, found...)
	}
	loadOnce := func(seed uint64) (*scenario.Scenario, error) {
		if seed == 1 { // asked once: the scenario loaded above
			return sc, nil
		}
		return load(seed)
	}
	ans, err := whatif.StartTimes(loadOnce, jobs, whatif.StartOptions{Options: a.options(), Runs: a.cfg.runs})
	if err != nil {
		return err
	}
	if a.cfg.json {
		data, err := json.MarshalIndent(startJSON(ans), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", data)
		return err
	}
	return writeStarts(a.stdout, ans)
}

// loadWith loads the inputs and the -when files, merged into one
// simulation; without inputs, the embedded default day is the cluster.
func (a *app) loadWith(whenFiles []string, stderr io.Writer, opts []scenario.Option) (*scenario.Scenario, error) {
	if len(a.cfg.files) > 0 {
		return cli.Load(append(append([]string{}, a.cfg.files...), whenFiles...), defaultInputs, stderr, opts...)
	}
	files := append([]scenario.File{{Name: defaultInputs.Name, Data: defaultInputs.Data}}, defaultInputs.More...)
	for _, f := range whenFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		files = append(files, scenario.File{Name: f, Data: data})
	}
	sc, err := scenario.ParseFiles(files, append([]scenario.Option{scenario.SkipUnknownPlugins()}, opts...)...)
	if err != nil {
		return nil, err
	}
	cli.PrintWarnings(stderr, sc)
	return sc, nil
}

// writeStarts prints each job's answer: when it starts (over the runs,
// its median and spread), Kueue's admission, why it waited, whom it
// preempted.
func writeStarts(w io.Writer, a *whatif.StartAnswer) error {
	var b strings.Builder
	runs := "one run"
	if a.Runs > 1 {
		runs = fmt.Sprintf("%d runs, run times drawn with seeds 1 to %d", a.Runs, a.Runs)
	}
	fmt.Fprintf(&b, "When will it start? From the moment of the inputs (time 0), %s.\n", runs)
	for _, j := range a.Jobs {
		f := j.First
		fmt.Fprintf(&b, "\n%s: %s\n", f.Job, startClause(j, a.Runs))
		if f.Workload != "" {
			if f.AdmittedAt >= 0 {
				fmt.Fprintf(&b, "  Kueue: Workload %s admitted at %v to ClusterQueue %s (%s)\n", f.Workload, f.AdmittedAt, f.ClusterQueue, strings.Join(f.Flavors, "; "))
			} else {
				fmt.Fprintf(&b, "  Kueue: Workload %s not admitted\n", f.Workload)
			}
		}
		if f.WaitedForQuota != "" {
			fmt.Fprintf(&b, "  waited for quota: %s\n", f.WaitedForQuota)
		}
		if f.WaitedForNodes != "" {
			fmt.Fprintf(&b, "  waited for nodes: %s\n", f.WaitedForNodes)
		}
		if n := len(f.Preempted); n > 0 {
			fmt.Fprintf(&b, "  preempts %d: %s\n", n, someOf(f.Preempted, 6))
		}
	}
	if a.Runs > 1 {
		b.WriteString("\nThe first run's Kueue admission, waits and victims are shown; -json lists each job's start in every run's summary.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// startClause says when a job starts: the time of the one run, or over
// the runs its median, 90th percentile and latest, and in how many runs.
func startClause(j whatif.JobStartSummary, runs int) string {
	f := j.First
	if runs == 1 {
		if !f.Started {
			return "does not start (the simulation ends first: see why it waited)"
		}
		if f.StartedAt == 0 {
			return "running at once (time 0)"
		}
		return fmt.Sprintf("starts at %v (its pods all bound; the first at %v)", f.StartedAt, f.FirstBoundAt)
	}
	if j.Started == 0 {
		return fmt.Sprintf("does not start in any of the %d runs", runs)
	}
	s := j.Start
	return fmt.Sprintf("starts at %v (median; 90%%: by %v; latest %v), started in %d of %d runs", s.P50, s.P90, s.Max, j.Started, runs)
}

func someOf(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:n], ", "), len(list)-n)
}

// jsonStart is a job's answer in -json.
type jsonStart struct {
	Job            string   `json:"job"`
	Started        bool     `json:"started"`
	StartedAt      string   `json:"startedAt,omitempty"`
	FirstBoundAt   string   `json:"firstBoundAt,omitempty"`
	Workload       string   `json:"workload,omitempty"`
	ClusterQueue   string   `json:"clusterQueue,omitempty"`
	Flavors        []string `json:"flavors,omitempty"`
	AdmittedAt     string   `json:"admittedAt,omitempty"`
	WaitedForQuota string   `json:"waitedForQuota,omitempty"`
	WaitedForNodes string   `json:"waitedForNodes,omitempty"`
	Preempted      []string `json:"preempted,omitempty"`
	// over the runs
	Runs        int     `json:"runs"`
	StartedRuns int     `json:"startedRuns"`
	StartP50    *string `json:"startP50,omitempty"`
	StartP90    *string `json:"startP90,omitempty"`
	StartMax    *string `json:"startMax,omitempty"`
	// Starts are its start in each run ("" when it did not start)
	Starts []string `json:"starts"`
}

func startJSON(a *whatif.StartAnswer) any {
	at := func(d time.Duration) string {
		if d < 0 {
			return ""
		}
		return d.String()
	}
	ptr := func(d time.Duration) *string { s := d.String(); return &s }
	jobs := make([]jsonStart, 0, len(a.Jobs))
	for _, j := range a.Jobs {
		f := j.First
		js := jsonStart{Job: f.Job, Started: f.Started, StartedAt: at(f.StartedAt), FirstBoundAt: at(f.FirstBoundAt),
			Workload: f.Workload, ClusterQueue: f.ClusterQueue, Flavors: f.Flavors, AdmittedAt: at(f.AdmittedAt),
			WaitedForQuota: f.WaitedForQuota, WaitedForNodes: f.WaitedForNodes, Preempted: f.Preempted,
			Runs: a.Runs, StartedRuns: j.Started}
		for _, d := range j.Starts {
			js.Starts = append(js.Starts, at(d))
		}
		if j.Started > 0 {
			js.StartP50, js.StartP90, js.StartMax = ptr(j.Start.P50), ptr(j.Start.P90), ptr(j.Start.Max)
		}
		jobs = append(jobs, js)
	}
	stopped := make([]string, len(a.Stopped))
	for i, d := range a.Stopped {
		stopped[i] = d.String()
	}
	return map[string]any{"scenario": a.Scenario, "runs": a.Runs, "jobs": jobs, "stoppedAt": stopped}
}
