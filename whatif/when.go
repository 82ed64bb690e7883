package whatif

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// When will my job start? Given the state of a cluster (a dump: nodes,
// running pods with their remaining run times, Kueue's objects and its
// pending Workloads) and new jobs among the inputs, StartTimes runs the
// simulation forward from that moment and says, for each new job, when it
// started, whether and when Kueue admitted it and with which flavors, whom
// it preempted, and why it waited: Kueue's last message while it waited
// for quota, and the scheduler's last reason while its pods waited for
// nodes.
//
// A job has started when, for the first time, it has pods and none of
// them is pending: every pod it made is bound (or done). A Job running
// three pods at a time has started once its first three are bound; a job
// Kueue holds has started once it is admitted and its admitted pods are
// bound. A run stops as soon as every job asked about has started (or the
// simulation has nothing left to do): what happens later cannot change
// what happened before, so each job's answer is what a run to the end of
// the day reports of it, at a fraction of its cost.
//
// With run times drawn from a distribution, one run is one draw: Runs
// runs, each of the scenario Load gives for its seed (1, 2, ...), give the
// quantiles of each job's start over the draws.

// StartOptions control StartTimes.
type StartOptions struct {
	Options
	// Runs is the number of runs, seeds 1 to Runs; 0 means 1.
	Runs int
}

// JobStart is one job's start in one run. Times are simulated times from
// the moment of the inputs (time 0); StartedAt and FirstBoundAt are -1
// while not reached.
type JobStart struct {
	// Job is the object as the inputs name it ("Job ml/train").
	Job     string
	Started bool
	// StartedAt is when it first had pods and none pending.
	StartedAt time.Duration
	// FirstBoundAt is when its first pod was bound.
	FirstBoundAt time.Duration
	// Kueue's part, when Kueue manages the job: its Workload
	// ("ns/name"), its ClusterQueue and flavors ("main: cpu=default,
	// nvidia.com/gpu=a100"), and when it was admitted (-1: not yet).
	Workload     string
	ClusterQueue string
	Flavors      []string
	AdmittedAt   time.Duration
	// WaitedForQuota is Kueue's last message while the job waited for
	// its admission; WaitedForNodes the scheduler's last reason while its
	// pods waited for nodes ("" when it did not wait for them).
	WaitedForQuota string
	WaitedForNodes string
	// Preempted are the job's victims, in the order they were chosen:
	// Kueue's workloads ("Workload ns/name") and the scheduler's pods
	// ("Pod ns/name").
	Preempted []string
}

// StartAnswer is the answer for each job asked about, in the order asked.
type StartAnswer struct {
	Scenario string
	Runs     int
	Jobs     []JobStartSummary
	// Stopped is the simulated time each run stopped at, by run.
	Stopped []time.Duration
}

// JobStartSummary is a job over the runs: the first run's answer, how
// many runs it started in, and the quantiles of its start over those
// runs.
type JobStartSummary struct {
	First   JobStart
	Started int
	Start   metrics.Durations
	// Starts are its start in each run, by run (-1: not started).
	Starts []time.Duration
}

// ErrNoSuchJob is a job asked about that is not among the inputs.
var ErrNoSuchJob = errors.New("whatif: no such job")

// StartTimes answers when each job of jobs starts, on the scenarios load
// gives (load(seed) for seeds 1 to opts.Runs, each called once). A job is
// named as the inputs name the object ("Job ml/train", "JobSet
// ml/pretrain", "Pod default/api", "Workload ml/wl"; Jobs lists them); a
// name without a namespace is in "default". The answer names them so.
func StartTimes(load func(seed uint64) (*scenario.Scenario, error), jobs []string, opts StartOptions) (*StartAnswer, error) {
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: no job asked about", ErrNoSuchJob)
	}
	runs := max(opts.Runs, 1)
	type one struct {
		name    string
		starts  []JobStart
		stopped time.Duration
	}
	outs := make([]one, runs)
	err := parallel(runs, opts.workers(), func(i int) error {
		sc, err := load(uint64(i + 1))
		if err != nil {
			return err
		}
		if sc == nil {
			return scenario.ErrNilScenario
		}
		starts, stopped, err := startRun(sc, jobs)
		outs[i] = one{sc.Name, starts, stopped}
		return err
	})
	if err != nil {
		return nil, err
	}
	a := &StartAnswer{Scenario: outs[0].name, Runs: runs}
	for j := range jobs {
		s := JobStartSummary{First: outs[0].starts[j]}
		var at []time.Duration
		for _, o := range outs {
			s.Starts = append(s.Starts, o.starts[j].StartedAt)
			if o.starts[j].Started {
				s.Started++
				at = append(at, o.starts[j].StartedAt)
			}
		}
		s.Start = metrics.Summarize(at)
		a.Jobs = append(a.Jobs, s)
	}
	for _, o := range outs {
		a.Stopped = append(a.Stopped, o.stopped)
	}
	return a, nil
}

// Jobs lists the objects of a scenario that make pods, as StartTimes
// names them, in input order: the workloads of its controllers (a Job, a
// JobSet...), then its own pods' objects (a Pod, a dump's Workload).
// With files, only the objects of those files.
func Jobs(sc *scenario.Scenario, files ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(src scenario.Source) {
		if len(files) > 0 && !slices.Contains(files, src.File) {
			return
		}
		name := objectName(src.Path)
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	owners := controllerRefs(sc)
	for i := range sc.Controllers {
		add(sc.Controllers[i].Source)
	}
	for i := range sc.Pods {
		p := &sc.Pods[i]
		if ownedByController(owners, &p.Pod) {
			continue
		}
		if len(files) > 0 && !slices.Contains(files, p.Source.File) {
			continue
		}
		if name := podJob(p); !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// podJob is the job a pod of the inputs (not a controller's) belongs to:
// its object ("Pod ml/api", a dump's "Workload ml/wl"), or for a pod of a
// scenario file its PodGroup ("PodGroup ml/train", a gang), its owner
// ("Job ml/etl", the pods a scenario gives one owner) or itself ("Pod
// ml/api").
func podJob(p *scenario.Pod) string {
	if name := objectName(p.Source.Path); name != "" {
		return name
	}
	ns := namespaceOf(p.Pod.Key())
	switch {
	case p.Pod.PodGroup != "":
		return "PodGroup " + ns + "/" + p.Pod.PodGroup
	case p.Pod.Owner != nil:
		return p.Pod.Owner.Kind + " " + ns + "/" + p.Pod.Owner.Name
	}
	return "Pod " + string(p.Pod.Key())
}

// controllerRefs are the scenario's controllers, as their pods' owner
// references name them.
func controllerRefs(sc *scenario.Scenario) map[ownerRef]bool {
	refs := make(map[ownerRef]bool, len(sc.Controllers))
	for i := range sc.Controllers {
		c := &sc.Controllers[i]
		refs[ownerRef{c.Namespace, c.Kind, c.Name}] = true
	}
	return refs
}

// ownedByController reports whether a pod of the inputs is a
// controller's (a dump's running pod of a Job): the controller's job.
func ownedByController(owners map[ownerRef]bool, p *cluster.Pod) bool {
	return p.Owner != nil && owners[ownerRef{namespaceOf(p.Key()), p.Owner.Kind, p.Owner.Name}]
}

// objectName is the object of a source's path: "Deployment ml/web (pod
// web-0)" is "Deployment ml/web"; a path that names no object (a
// scenario file's entry) is "".
func objectName(path string) string {
	path, _, _ = strings.Cut(path, " (")
	kind, name, ok := strings.Cut(path, " ")
	if !ok || kind == "" || name == "" || strings.ContainsAny(kind, "[.") {
		return ""
	}
	return path
}

// jobWatch follows the pods of the jobs asked about through a run.
type jobWatch struct {
	starts   []JobStart
	byOwner  map[ownerRef]int // a controller's pods' owner, to its job
	byPod    map[cluster.PodKey]int
	byGroup  map[string]int // a group (its key) whose pods are a job's
	pods     map[cluster.PodKey]*watchedPod
	pending  []int // by job, its pods pending now
	bound    []int // by job, its pods bound now
	left     int   // jobs not started yet
	victimOf map[cluster.PodKey]bool
}

type ownerRef struct{ namespace, kind, name string }

type watchedPod struct {
	job   int
	bound bool
}

// startRun runs one scenario until the jobs have all started, and
// returns their starts and the time it stopped.
func startRun(sc *scenario.Scenario, jobs []string) ([]JobStart, time.Duration, error) {
	return watchRun(sc, jobs, true)
}

// watchRun runs one scenario with the jobs watched: until they have all
// started when early, else to its end (the equivalence test's reference).
func watchRun(sc *scenario.Scenario, jobs []string, early bool) ([]JobStart, time.Duration, error) {
	w, err := newJobWatch(sc, jobs)
	if err != nil {
		return nil, 0, err
	}
	done := func(gangsim.Event) bool { return early && w.left == 0 }
	res, err := sc.RunUntil(done, gangsim.WithObserver(w.observe))
	if err != nil {
		return nil, 0, err
	}
	w.addKueue(res)
	return w.starts, end(res), nil
}

// end is the simulated time a run stopped at.
func end(res *scenario.Result) time.Duration {
	if res.Kueue != nil {
		return res.Kueue.End
	}
	d, _ := time.ParseDuration(res.Stats.SimulatedTime)
	return d
}

func newJobWatch(sc *scenario.Scenario, jobs []string) (*jobWatch, error) {
	w := &jobWatch{byOwner: map[ownerRef]int{}, byPod: map[cluster.PodKey]int{}, byGroup: map[string]int{},
		pods: map[cluster.PodKey]*watchedPod{}, pending: make([]int, len(jobs)), bound: make([]int, len(jobs)), left: len(jobs)}
	index := map[string]int{}
	for i, j := range jobs {
		j = canonicalJob(j)
		if _, dup := index[j]; dup {
			return nil, fmt.Errorf("whatif: job %q asked about twice", j)
		}
		index[j] = i
		w.starts = append(w.starts, JobStart{Job: j, StartedAt: -1, FirstBoundAt: -1, AdmittedAt: -1})
	}
	found := make([]bool, len(jobs))
	for i := range sc.Controllers {
		c := &sc.Controllers[i]
		if j, ok := index[objectName(c.Source.Path)]; ok {
			w.byOwner[ownerRef{c.Namespace, c.Kind, c.Name}] = j
			found[j] = true
		}
	}
	owners := controllerRefs(sc)
	for i := range sc.Pods {
		p := &sc.Pods[i]
		if ownedByController(owners, &p.Pod) {
			continue
		}
		if j, ok := index[podJob(p)]; ok {
			w.byPod[p.Pod.Key()] = j
			found[j] = true
		}
	}
	for j, ok := range found {
		if !ok {
			return nil, fmt.Errorf("%w: %q makes no pods in the inputs (they hold %s)", ErrNoSuchJob, jobs[j], listSome(Jobs(sc), 5))
		}
	}
	return w, nil
}

// canonicalJob names a job with its namespace: "Job train" is "Job
// default/train", as the inputs name the objects of the default
// namespace.
func canonicalJob(job string) string {
	kind, name, ok := strings.Cut(strings.TrimSpace(job), " ")
	if !ok || strings.Contains(name, "/") {
		return job
	}
	return kind + " " + cluster.DefaultNamespace + "/" + name
}

// listSome lists up to n names, and how many more.
func listSome(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// jobOf is the job a pod belongs to, or -1.
func (w *jobWatch) jobOf(pi *cluster.PodInfo) int {
	key := pi.Key()
	if j, ok := w.byPod[key]; ok {
		return j
	}
	p := pi.Pod()
	if o := p.Owner; o != nil {
		if j, ok := w.byOwner[ownerRef{namespaceOf(key), o.Kind, o.Name}]; ok {
			w.byPod[key] = j
			return j
		}
	}
	return -1
}

func (w *jobWatch) observe(e gangsim.Event) {
	if e.Pod == nil {
		return
	}
	if e.Kind == gangsim.EventPodEvicted {
		w.evicted(e)
		return
	}
	key := e.Pod.Key()
	wp := w.pods[key]
	if wp == nil {
		j := w.jobOf(e.Pod)
		if j < 0 {
			return
		}
		wp = &watchedPod{job: j}
		w.pods[key] = wp
		if g := e.Pod.Pod().PodGroup; g != "" {
			w.byGroup[string(cluster.MakePodKey(namespaceOf(key), g))] = j
		}
		if e.Kind != gangsim.EventPodArrived { // a pod seen first bound
			w.pending[j]++
		}
	}
	j, st := wp.job, &w.starts[wp.job]
	switch e.Kind {
	case gangsim.EventPodArrived:
		w.pending[j]++
		if e.Node != "" || e.Pod.NodeName() != "" {
			w.bind(wp, st, e.At)
		}
	case gangsim.EventPodBound:
		w.bind(wp, st, e.At)
	case gangsim.EventPodUnschedulable:
		if !st.Started {
			st.WaitedForNodes = e.Reason
		}
	case gangsim.EventPodTerminated:
		if wp.bound {
			wp.bound = false
			w.bound[j]--
			w.pending[j]++
		}
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
		if wp.bound {
			w.bound[j]--
		} else {
			w.pending[j]--
		}
		delete(w.pods, key)
	}
}

// bind notes a pod bound, and the job's start when it has no pod
// pending left.
func (w *jobWatch) bind(wp *watchedPod, st *JobStart, at time.Duration) {
	if wp.bound {
		return
	}
	wp.bound = true
	j := wp.job
	w.pending[j]--
	w.bound[j]++
	if st.FirstBoundAt < 0 {
		st.FirstBoundAt = at
	}
	if !st.Started && w.pending[j] == 0 {
		st.Started, st.StartedAt = true, at
		w.left--
	}
}

// evicted notes a victim of a job's pod or group.
func (w *jobWatch) evicted(e gangsim.Event) {
	j := -1
	switch e.By.Kind {
	case gangsim.KindPod:
		if wp := w.pods[cluster.PodKey(e.By.Key)]; wp != nil {
			j = wp.job
		}
	default:
		if g, ok := w.byGroup[e.By.Key]; ok {
			j = g
		}
	}
	if j >= 0 && e.Pod != nil && w.before(j, e.At) {
		w.starts[j].Preempted = append(w.starts[j].Preempted, "Pod "+e.Pod.Key().Display())
	}
}

// addKueue adds what Kueue did for each job until it started: its
// Workload, its first admission (time, ClusterQueue, flavors), its last
// message while waiting, and the workloads it evicted.
func (w *jobWatch) addKueue(res *scenario.Result) {
	if res.Kueue == nil {
		return
	}
	byOwner := map[string]int{}
	for j, st := range w.starts {
		byOwner[ownerDisplay(st.Job)] = j
	}
	byWorkload := map[string]int{}
	for i := range res.Workloads {
		wl := &res.Workloads[i]
		if wl.Kind != "Workload" {
			continue
		}
		j, ok := byOwner[wl.Owner]
		if !ok {
			j, ok = byOwner[ownerDisplay("Workload "+wl.Name)]
		}
		if ok {
			w.starts[j].Workload = wl.Name
			byWorkload[wl.Name] = j
		}
	}
	for _, e := range res.Kueue.Events {
		if j, ok := byWorkload[cluster.PodKey(e.Workload).Display()]; ok && w.starts[j].AdmittedAt < 0 {
			st := &w.starts[j]
			switch e.Kind {
			case kueue.Pending:
				st.WaitedForQuota = e.Message
			case kueue.QuotaReserved:
				st.AdmittedAt, st.ClusterQueue = e.At, e.ClusterQueue
				for _, ps := range e.Admission.PodSets {
					st.Flavors = append(st.Flavors, podSetFlavors(ps))
				}
			}
		}
		if e.By == "" || e.Kind != kueue.Evicted {
			continue
		}
		if j, ok := byWorkload[cluster.PodKey(e.By).Display()]; ok && w.before(j, e.At) {
			w.starts[j].Preempted = append(w.starts[j].Preempted, "Workload "+cluster.PodKey(e.Workload).Display())
		}
	}
}

// before reports whether a time is not after a job's start: what the job
// did until then is its answer, the same whenever the run stops after.
func (w *jobWatch) before(j int, at time.Duration) bool {
	st := &w.starts[j]
	return !st.Started || at <= st.StartedAt
}

// ownerDisplay is a job's name as a Kueue Workload's owner names it
// ("Job ml/a", "Job a" in the default namespace).
func ownerDisplay(job string) string {
	kind, name, _ := strings.Cut(job, " ")
	return kind + " " + cluster.PodKey(name).Display()
}

// podSetFlavors writes a pod set's flavors: "main: cpu=default".
func podSetFlavors(ps kueue.PodSetAssignment) string {
	keys := slices.Sorted(maps.Keys(ps.Flavors))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = string(k) + "=" + ps.Flavors[k]
	}
	return ps.Name + ": " + strings.Join(parts, ", ")
}

// namespaceOf is a pod key's namespace.
func namespaceOf(key cluster.PodKey) string {
	ns, _, _ := strings.Cut(string(key), "/")
	return ns
}

// parallel calls f(0) to f(n-1) on up to workers goroutines, and returns
// the error of the lowest index that failed.
func parallel(n, workers int, f func(int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
