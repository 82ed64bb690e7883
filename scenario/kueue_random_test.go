package scenario

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/kueue"
)

// TestRandomKueueScenarios generates random Kueue clusters (flavors, some
// with node labels of the generated nodes; ClusterQueues with nominal
// quotas, borrowing and lending limits, in trees of Cohorts, some with
// quota of their own; preemption policies, queueing strategies, fair
// sharing on or off with weights) and their load (Jobs at time 0, some
// admissible partially, plain pods and Kueue pod groups arriving over
// time, of random sizes, priorities and run times), runs each twice and
// requires: a load without error, a run without error and without a
// scheduler invariant broken, byte-identical results, and the Kueue
// invariants of kueue_invariants_test.go over its history.
//
// go test runs 300 seeds; GANGSIM_LONG=1 runs 10,000 (or GANGSIM_SEEDS=n;
// GANGSIM_FIRST_SEED=k starts at k; GANGSIM_DUMP=dir writes each seed's
// files there before its run, for a seed that never ends). A failing seed's two files are written to a
// temporary directory, whose path the failure prints: go run
// ./examples/scenario <dir> replays it.
func TestRandomKueueScenarios(t *testing.T) {
	randomSuite(t, "gangsim-random-kueue-", func(seed int, stats map[string]int) ([]File, func() error) {
		k := generateKueueScenario(uint64(seed))
		return k.files(), func() error {
			thrash := stats["thrash"]
			err := checkRandomKueueScenario(k, stats)
			if err == nil && stats["thrash"] > thrash {
				t.Logf("seed %d: Kueue's preemption thrash (accepted)", seed)
			}
			return err
		}
	})
}

// kueueScenario is one generated scenario: Kubernetes objects (Kueue's,
// the Jobs) and a scenario file (nodes, priority classes, pods over time),
// and what the generator knows of its workloads: by owner, as the
// result's Workloads name it ("Job a", "Pod p"), the bounds of each
// admission's count.
type kueueScenario struct {
	objects, pods string
	bounds        map[string]countBounds
	fair, busy    bool
}

// countBounds are the fewest and most pods Kueue may admit of a workload
// (its one pod set).
type countBounds struct{ min, max int32 }

func (k kueueScenario) files() []File {
	return []File{{Name: "objects.yaml", Data: []byte(k.objects)}, {Name: "pods.yaml", Data: []byte(k.pods)}}
}

// checkRandomKueueScenario loads a generated scenario, runs it twice, and
// checks the runs.
func checkRandomKueueScenario(k kueueScenario, stats map[string]int) error {
	sc, err := ParseFiles(k.files())
	if err != nil {
		return fmt.Errorf("a generated scenario does not load: %w", err)
	}
	sc.Config.CheckInvariants = true
	sc.Config.MaxCycles = 5_000
	// everything a generated scenario starts is over within a day (the
	// last arrival at 20m, the longest run 2h, the longest back-off 1h);
	// a run that goes on is a loop, stopped at two days
	const horizon = 48 * time.Hour
	// and a run of more than 30,000 events is a livelock of Kueue's
	// (its evictions are not the scheduler's: Config.MaxCycles misses it)
	n := 0
	until := func(e gangsim.Event) bool { n++; return e.At > horizon || n > 30_000 }
	first, err := sc.RunUntil(until)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if first.Stopped != "" {
		kind, err := endlessLoop(first, horizon)
		if err != nil {
			return err
		}
		stats[kind]++
	}
	n = 0
	second, err := sc.RunUntil(until)
	if err != nil {
		return fmt.Errorf("second run: %w", err)
	}
	a, err := first.JSON()
	if err != nil {
		return err
	}
	b, _ := second.JSON()
	if string(a) != string(b) {
		return fmt.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
	if first.Kueue == nil {
		return fmt.Errorf("no Kueue record")
	}
	if err := checkKueueHistory(first, k.bounds, k.fair); err != nil {
		return err
	}
	for _, e := range first.Kueue.Events {
		stats[string(e.Kind)]++
		if e.Preemption != "" {
			stats[e.Preemption]++
		}
	}
	for _, w := range first.Workloads {
		if w.Kind == "Workload" && w.Admitted != nil && *w.Admitted && len(w.PodSets) == 1 {
			if b, ok := k.bounds[w.Owner]; ok && w.PodSets[0].Count < b.max {
				stats["partial"]++
			}
		}
	}
	if k.fair {
		stats["fairRuns"]++
	}
	if k.busy {
		stats["busyRuns"]++
	}
	return nil
}

// endlessLoop accepts a run stopped at the horizon (or by the cycle
// cap) only as one of two loops Kueue itself makes, and names it:
//
//   - "thrash": Kueue v0.19's preemption thrash, a run stopped by the event cap whose last
//     evictions are all one preemptor's (or a few preemptors') of victims
//     that take the freed quota back before the preemptor is admitted;
//     see preemptionThrash.
//   - "endless": the loop waitForPodsReady makes of a workload whose pods
//     never all fit: admitted, its pods take the room of others (the
//     scheduler preempts them: a Job makes its pods again, a plain pod
//     is gone for good), it times out, is
//     evicted and, after its back-off, admitted again, for ever. Its last
//     day must hold such a timeout.
func endlessLoop(res *Result, horizon time.Duration) (string, error) {
	if at, _ := time.ParseDuration(res.Stats.SimulatedTime); at <= horizon {
		if preemptionThrash(res.Kueue.Events) {
			return "thrash", nil
		}
		evicted := map[string]int{}
		for _, e := range res.Kueue.Events {
			if e.Kind == kueue.Evicted {
				evicted[e.Workload+" by "+e.By+" ("+e.Preemption+")"]++
			}
		}
		most, who := 0, ""
		for w, c := range evicted {
			if c > most || c == most && w < who {
				most, who = c, w
			}
		}
		return "", fmt.Errorf("a livelock of Kueue: %s; %s evicted %d times", res.Stopped, who, most)
	}
	for _, e := range res.Kueue.Events {
		if e.Kind == kueue.Evicted && e.Reason == "PodsReadyTimeout" && e.At > horizon-24*time.Hour {
			return "endless", nil
		}
	}
	return "", fmt.Errorf("run stopped, and not in a waitForPodsReady loop: %s", res.Stopped)
}

// thrashEvictions is how many evictions at the end of a run make a
// thrash: far more than any generated scenario has workloads.
const thrashEvictions = 100

// preemptionThrash reports whether a history ends in Kueue's preemption
// thrash: its last thrashEvictions evictions are all preemptions; no
// preemptor among them is also a victim; between two evictions of one
// victim it was admitted again (it took back the quota its eviction
// freed, ahead of its preemptor: Kueue keeps no quota for a preemptor
// whose victims are leaving, and orders a cycle's heads without regard
// to which preempted which); and no preemptor was admitted since the
// first of them. Kueue v0.19.2 (the real scheduler, PrioritizePreemptorWorkloads
// off, its default) loops the same way on the same inputs.
func preemptionThrash(events []kueue.Event) bool {
	from, seen := len(events), 0
	for from > 0 && seen < thrashEvictions {
		from--
		if events[from].Kind == kueue.Evicted {
			seen++
		}
	}
	if seen < thrashEvictions {
		return false
	}
	preemptors, victims := map[string]bool{}, map[string]bool{}
	for _, e := range events[from:] {
		if e.Kind == kueue.Evicted {
			if e.By == "" {
				return false
			}
			preemptors[e.By], victims[e.Workload] = true, true
		}
	}
	for p := range preemptors {
		if victims[p] {
			return false
		}
	}
	evicted := map[string]bool{} // victims evicted and not admitted since
	for _, e := range events[from:] {
		switch e.Kind {
		case kueue.QuotaReserved:
			if preemptors[e.Workload] {
				return false
			}
			delete(evicted, e.Workload)
		case kueue.Evicted:
			if evicted[e.Workload] {
				return false
			}
			evicted[e.Workload] = true
		}
	}
	return true
}

// kueueGen writes one random Kueue scenario.
type kueueGen struct {
	r         *rand.Rand
	obj, pods strings.Builder
	flavors   []string // ResourceFlavors
	cohorts   []string
	lqs       []string // LocalQueues, "namespace/name"
	bounds    map[string]countBounds
	fair      bool
	// busy: every queue in the cohort tree, reclaiming from it, with
	// long-running pods: preemption across queues (fair sharing's among
	// them) is common
	busy       bool
	wpc        bool // a WorkloadPriorityClass "urgent" exists
	totalCPU   int  // millicores of the nodes
	totalQuota int  // millicores of the queues' and cohorts' nominal cpu
}

var kueuePools = []string{"a", "b"}

func (g *kueueGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }
func (g *kueueGen) chance(n int) bool             { return g.r.IntN(n) == 0 }
func (g *kueueGen) o(format string, args ...any)  { fmt.Fprintf(&g.obj, format, args...) }
func (g *kueueGen) p(format string, args ...any)  { fmt.Fprintf(&g.pods, format, args...) }

// generateKueueScenario returns the scenario of one seed.
func generateKueueScenario(seed uint64) kueueScenario {
	g := &kueueGen{r: rand.New(rand.NewPCG(seed, 0x6b75657565)), bounds: map[string]countBounds{}}
	g.p("# random Kueue scenario, seed %d\n", seed)
	g.o("# random Kueue scenario, seed %d\n", seed)
	g.p("priorityClasses:\n  - {name: low, value: 10}\n  - {name: mid, value: 100}\n  - {name: high, value: 1000}\n")
	g.p("namespaces:\n  - {name: team-a, labels: {team: a}}\n")
	g.genNodes()
	g.genConfiguration()
	g.busy = g.chance(3)
	g.genFlavors()
	g.genCohorts()
	g.genQueues()
	g.genJobs()
	g.genPods()
	return kueueScenario{objects: g.obj.String(), pods: g.pods.String(), bounds: g.bounds, fair: g.fair, busy: g.busy}
}

// genNodes makes nodes in pools a and b (the flavors' node labels).
func (g *kueueGen) genNodes() {
	g.p("nodes:\n")
	for i := range 1 + g.r.IntN(5) {
		cpu := []int{2000, 4000, 8000}[g.r.IntN(3)]
		count := 1 + g.r.IntN(3)
		g.totalCPU += cpu * count
		line := fmt.Sprintf("  - {name: n%d, labels: {pool: %s}, allocatable: {cpu: %dm, memory: %dGi}", i, g.pick(kueuePools...), cpu, []int{8, 32}[g.r.IntN(2)])
		if count > 1 {
			line += fmt.Sprintf(", count: %d", count)
		}
		g.p("%s}\n", line)
	}
}

// genConfiguration is Kueue's Configuration, now and then: fair sharing
// (with Kueue's default strategies or one of them), waitForPodsReady's
// timeout.
func (g *kueueGen) genConfiguration() {
	var parts []string
	if g.chance(2) {
		g.fair = true
		parts = append(parts, g.pick("fairSharing: {}", "fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}",
			"fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare]}", "fairSharing: {preemptionStrategies: [LessThanInitialShare]}"))
	}
	if g.chance(3) {
		parts = append(parts, "waitForPodsReady: {timeout: "+g.pick("2m", "10m")+"}")
	}
	if len(parts) == 0 && g.chance(2) {
		return
	}
	g.o("---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n%s\n", strings.Join(parts, "\n"))
}

// genFlavors: a flavor per pool, with its node label, and a flavor of
// any node, now and then.
func (g *kueueGen) genFlavors() {
	for _, pool := range kueuePools {
		name := "f" + pool
		g.flavors = append(g.flavors, name)
		g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: %s}\nspec: {nodeLabels: {pool: %s}}\n", name, pool)
	}
	if g.chance(2) {
		g.flavors = append(g.flavors, "any")
		g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: any}\n")
	}
	if g.chance(3) {
		g.wpc = true
		g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: urgent}\nvalue: 5000\n")
	}
}

// resourceGroups is a group covering cpu and memory in one to all the
// flavors, in random order, with random nominal quotas and, where the
// object has a parent, borrowing and lending limits.
func (g *kueueGen) resourceGroups(indent string, hasParent, small bool) string {
	order := g.r.Perm(len(g.flavors))[:1+g.r.IntN(len(g.flavors))]
	var b strings.Builder
	fmt.Fprintf(&b, "%sresourceGroups:\n%s- coveredResources: [cpu, memory]\n%s  flavors:\n", indent, indent, indent)
	for _, i := range order {
		fmt.Fprintf(&b, "%s  - name: %s\n%s    resources:\n", indent, g.flavors[i], indent)
		cpu := []int{0, 1, 2, 3, 4, 6, 8}[g.r.IntN(7)]
		if small {
			cpu = g.r.IntN(3)
		}
		g.totalQuota += cpu * 1000
		mem := []int{0, 4, 16, 64}[g.r.IntN(4)]
		for _, r := range []struct {
			name  string
			nom   int
			unit  string
			limit []int
		}{{"cpu", cpu, "", []int{0, 1, 2, 4}}, {"memory", mem, "Gi", []int{0, 4, 16}}} {
			line := fmt.Sprintf("%s    - {name: %s, nominalQuota: \"%d%s\"", indent, r.name, r.nom, r.unit)
			if hasParent && g.chance(3) {
				line += fmt.Sprintf(", borrowingLimit: \"%d%s\"", r.limit[g.r.IntN(len(r.limit))], r.unit)
			}
			if hasParent && g.chance(4) {
				line += fmt.Sprintf(", lendingLimit: \"%d%s\"", g.r.IntN(r.nom+1), r.unit)
			}
			b.WriteString(line + "}\n")
		}
	}
	return b.String()
}

func (g *kueueGen) weight() string {
	return g.pick("0", "0.5", "1", "2", "3")
}

// genCohorts makes a tree of Cohorts: root, and children with a parent
// among those before them; some hold quota, some have a weight.
func (g *kueueGen) genCohorts() {
	n := g.r.IntN(5)
	if g.busy {
		n = max(n, 1)
	}
	for i := range n {
		name := fmt.Sprintf("co%d", i)
		g.cohorts = append(g.cohorts, name)
		var spec []string
		parent := ""
		if i > 0 && !g.chance(4) {
			parent = g.cohorts[g.r.IntN(i)]
			spec = append(spec, "  parentName: "+parent+"\n")
		}
		if g.chance(3) {
			spec = append(spec, g.resourceGroups("  ", parent != "", true))
		}
		if g.fair && g.chance(2) {
			spec = append(spec, "  fairSharing: {weight: \""+g.weight()+"\"}\n")
		}
		g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: %s}\n", name)
		if len(spec) > 0 {
			g.o("spec:\n%s", strings.Join(spec, ""))
		}
	}
}

// genQueues makes ClusterQueues, each in a cohort (now and then none, or
// one no Cohort object defines) and LocalQueues pointing to them.
func (g *kueueGen) genQueues() {
	for i := range 1 + g.r.IntN(5) {
		name := fmt.Sprintf("cq%d", i)
		cohort := ""
		switch {
		case len(g.cohorts) > 0 && (g.busy || !g.chance(5)):
			cohort = g.cohorts[g.r.IntN(len(g.cohorts))]
		case g.chance(3):
			cohort = "implicit"
		}
		g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec:\n  namespaceSelector: {}\n", name)
		if cohort != "" {
			g.o("  cohortName: %s\n", cohort)
		}
		if g.chance(3) {
			g.o("  queueingStrategy: %s\n", g.pick("StrictFIFO", "BestEffortFIFO"))
		}
		var pre []string
		if !g.chance(3) {
			pre = append(pre, "withinClusterQueue: "+g.pick("Never", "LowerPriority", "LowerOrNewerEqualPriority"))
		}
		reclaim := "Never"
		if cohort != "" && (g.busy || !g.chance(3)) {
			reclaim = g.pick("Never", "LowerPriority", "Any", "Any")
			if g.busy {
				reclaim = g.pick("LowerPriority", "Any")
			}
			pre = append(pre, "reclaimWithinCohort: "+reclaim)
		}
		// borrowWithinCohort needs reclaimWithinCohort (Kueue's webhook),
		// and is not for fair sharing
		if reclaim != "Never" && !g.fair && g.chance(2) {
			bw := "borrowWithinCohort: {policy: LowerPriority"
			if g.chance(2) {
				bw += fmt.Sprintf(", maxPriorityThreshold: %d", []int{10, 100, 1000}[g.r.IntN(3)])
			}
			pre = append(pre, bw+"}")
		}
		if len(pre) > 0 {
			g.o("  preemption: {%s}\n", strings.Join(pre, ", "))
		}
		if g.chance(4) {
			g.o("  flavorFungibility: {whenCanBorrow: %s, whenCanPreempt: %s}\n", g.pick("MayStopSearch", "TryNextFlavor"), g.pick("MayStopSearch", "TryNextFlavor"))
		}
		if g.fair && g.chance(2) {
			g.o("  fairSharing: {weight: \"%s\"}\n", g.weight())
		}
		g.o("%s", g.resourceGroups("  ", cohort != "", false))
		for _, ns := range []string{"default", "team-a"} {
			if ns == "team-a" && !g.chance(3) {
				continue
			}
			lq := "lq" + name[2:]
			g.lqs = append(g.lqs, ns+"/"+lq)
			g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: %s, namespace: %s}\nspec: {clusterQueue: %s}\n", lq, ns, name)
		}
	}
}

// request is a pod's requests: cpu, and memory now and then.
func (g *kueueGen) request() string {
	req := "cpu: " + g.pick("250m", "500m", "1", "2", "3")
	if g.chance(2) {
		req += ", memory: " + g.pick("1Gi", "4Gi", "8Gi")
	}
	return req
}

// genJobs makes Jobs of a LocalQueue, at time 0 (the inputs' Jobs are all
// created then), some admissible partially (job-min-parallelism).
func (g *kueueGen) genJobs() {
	for i := range g.r.IntN(6) {
		ns, lq, _ := strings.Cut(g.lqs[g.r.IntN(len(g.lqs))], "/")
		name := fmt.Sprintf("job%d", i)
		par := 1 + g.r.IntN(6)
		b := countBounds{min: int32(par), max: int32(par)}
		var ann []string
		if par > 1 && g.chance(2) {
			b.min = int32(1 + g.r.IntN(par-1))
			ann = append(ann, fmt.Sprintf("kueue.x-k8s.io/job-min-parallelism: \"%d\"", b.min))
		}
		labels := "kueue.x-k8s.io/queue-name: " + lq
		if g.wpc && g.chance(4) {
			labels += ", kueue.x-k8s.io/priority-class: urgent"
		}
		owner := "Job " + name
		if ns != "default" {
			owner = "Job " + ns + "/" + name
		}
		g.bounds[owner] = b
		g.o("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {%s}\n", name, ns, labels)
		if len(ann) > 0 {
			g.o("  annotations: {%s}\n", strings.Join(ann, ", "))
		}
		g.o("spec:\n  parallelism: %d\n  template:\n    metadata: {annotations: {gangsim.io/duration: %s}}\n    spec:\n", par, g.pick("30s", "2m", "10m", "1h"))
		if !g.chance(3) {
			g.o("      priorityClassName: %s\n", g.pick("low", "mid", "high"))
		}
		g.o("      restartPolicy: Never\n      containers: [{name: c, image: x, resources: {requests: {%s}}}]\n", g.request())
	}
}

// genPods makes plain pods and Kueue pod groups of a LocalQueue arriving
// over time.
func (g *kueueGen) genPods() {
	n := 1 + g.r.IntN(30)
	g.p("pods:\n")
	for i := range n {
		ns, lq, _ := strings.Cut(g.lqs[g.r.IntN(len(g.lqs))], "/")
		name := fmt.Sprintf("p%d", i)
		labels := "kueue.x-k8s.io/queue-name: " + lq
		if g.wpc && g.chance(5) {
			labels += ", kueue.x-k8s.io/priority-class: urgent"
		}
		fields := []string{"name: " + name}
		if ns != "default" {
			fields = append(fields, "namespace: "+ns)
		}
		count := 1
		if g.chance(3) {
			count = 2 + g.r.IntN(4)
			// the group's name is a label, its total count an annotation,
			// as Kueue reads them
			labels += ", kueue.x-k8s.io/pod-group-name: " + name
			fields = append(fields, fmt.Sprintf("count: %d", count),
				fmt.Sprintf("annotations: {kueue.x-k8s.io/pod-group-total-count: \"%d\"}", count))
		}
		fields = append(fields, "labels: {"+labels+"}", "requests: {"+g.request()+"}")
		if !g.chance(3) {
			fields = append(fields, "priorityClassName: "+g.pick("low", "mid", "high"))
		}
		if g.busy {
			fields = append(fields, "duration: "+g.pick("5m", "30m", "2h"))
		} else if !g.chance(5) {
			fields = append(fields, "duration: "+g.pick("10s", "1m", "5m", "30m", "2h"))
		}
		if !g.chance(3) {
			fields = append(fields, fmt.Sprintf("at: %v", time.Duration(g.r.IntN(80))*15*time.Second))
		}
		g.p("  - {%s}\n", strings.Join(fields, ", "))
		owner := "Pod " + name
		if count > 1 {
			owner = "Pod group " + name
		}
		if ns != "default" {
			owner = strings.Replace(owner, name, ns+"/"+name, 1)
		}
		g.bounds[owner] = countBounds{min: int32(count), max: int32(count)}
	}
}
