package scenario

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
)

// TestRandomScenarios generates scenario files with every feature (zones
// and racks, taints and tolerations, node affinity, pod affinity and
// anti-affinity, topology spread, priorities and classes, budgets, gangs
// and composites, arrivals over time, run times, nodes lost, drained and
// cordoned, pods deleted), runs each twice with the invariant checker on
// and requires a clean run and byte-identical results. A generated file is
// valid by construction: a load error is a finding too.
//
// go test runs 300 seeds in a few seconds; GANGSIM_LONG=1 runs 10,000 (or
// GANGSIM_SEEDS=n; GANGSIM_FIRST_SEED and GANGSIM_DUMP as for
// TestRandomKueueScenarios). A failing seed's scenario is written to a
// temporary directory, whose path the failure prints: go run
// ./examples/scenario replays it.
func TestRandomScenarios(t *testing.T) {
	randomSuite(t, "gangsim-random-", func(seed int, stats map[string]int) ([]File, func() error) {
		text := generateScenario(uint64(seed))
		return []File{{Name: fmt.Sprintf("seed-%d.yaml", seed), Data: []byte(text)}},
			func() error { return checkRandomScenario(text, stats) }
	})
}

// randomSuite runs a random suite over randomSeedRange: for each seed,
// scenario returns the files of the seed's scenario and its check, which
// runs once the files are written where GANGSIM_DUMP says (a seed that
// never ends leaves them there); a failing seed is reported with its
// files (failSeed). The stats the checks count are logged at the end.
func randomSuite(t *testing.T, prefix string, scenario func(seed int, stats map[string]int) ([]File, func() error)) {
	t.Helper()
	first, seeds := randomSeedRange(t)
	start := time.Now()
	stats := map[string]int{}
	for seed := first; seed < first+seeds; seed++ {
		files, check := scenario(seed, stats)
		dumpSeedFiles(files)
		if err := check(); err != nil {
			failSeed(t, seed, prefix, files, err)
		}
	}
	t.Logf("%d seeds in %v: %v", seeds, time.Since(start).Round(time.Millisecond), stats)
}

// randomSeedRange is the seeds a random suite runs: from
// GANGSIM_FIRST_SEED (0 by default), randomSeeds of them.
func randomSeedRange(t *testing.T) (first, n int) {
	if s := os.Getenv("GANGSIM_FIRST_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &first); err != nil {
			t.Fatalf("GANGSIM_FIRST_SEED=%q: %v", s, err)
		}
	}
	return first, randomSeeds(t)
}

// dumpSeedFiles writes a seed's files to GANGSIM_DUMP's folder, when it is
// set, before the seed runs: a seed that never ends leaves them there.
func dumpSeedFiles(files []File) {
	if dir := os.Getenv("GANGSIM_DUMP"); dir != "" {
		for _, f := range files {
			_ = os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
		}
	}
}

// failSeed writes a failing seed's files to a new temporary folder
// (named after prefix) and fails the test with err and that folder, which
// go run ./examples/scenario replays. The suite goes on, so that a long
// run reports every failing seed, until the tenth.
func failSeed(t *testing.T, seed int, prefix string, files []File, err error) {
	t.Helper()
	defer func() {
		if failedSeeds++; failedSeeds >= 10 {
			t.FailNow()
		}
	}()
	dir, derr := os.MkdirTemp("", prefix)
	for _, f := range files {
		if derr == nil {
			derr = os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
		}
	}
	if derr != nil {
		var all strings.Builder
		for _, f := range files {
			all.Write(f.Data)
			all.WriteString("\n")
		}
		t.Errorf("seed %d: %v (and the scenario could not be written: %v)\n%s", seed, err, derr, all.String())
		return
	}
	t.Errorf("seed %d: %v\nthe scenario: %s (go run ./examples/scenario %s)", seed, err, dir, dir)
}

// failedSeeds counts the seeds failSeed reported in this test binary.
var failedSeeds int

// randomSeeds is how many seeds a random suite runs: 300, 10,000 with
// GANGSIM_LONG set, or GANGSIM_SEEDS.
func randomSeeds(t *testing.T) int {
	seeds := 300
	if raceOn {
		seeds = 30 // the race detector looks for races along code paths, which a few seeds walk
	}
	if os.Getenv("GANGSIM_LONG") != "" {
		seeds = 10_000
	}
	if n := os.Getenv("GANGSIM_SEEDS"); n != "" {
		if _, err := fmt.Sscan(n, &seeds); err != nil {
			t.Fatalf("GANGSIM_SEEDS=%q: %v", n, err)
		}
	}
	return seeds
}

// checkRandomScenario loads a generated scenario, runs it twice with the
// checker on and compares the results; stats counts what the runs did.
func checkRandomScenario(text string, stats map[string]int) error {
	sc, err := Parse("random.yaml", []byte(text))
	if err != nil {
		return fmt.Errorf("a generated scenario does not load: %w", err)
	}
	sc.Config.CheckInvariants = true
	sc.Config.MaxCycles = 5_000 // a hundred or so per pod: a livelock stops sooner
	first, err := sc.Run()
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if first.Stopped != "" {
		if strings.Contains(first.Stopped, " 0 evictions so far") {
			return fmt.Errorf("run stopped with no eviction: %s", first.Stopped)
		}
		// a preemption cascade that never settles: a requeued victim
		// takes back the room its preemptor waits for (see
		// TestPreemptionLivelock); the cycle cap stops it, as documented,
		// with the result so far
		stats["livelocks"]++
		return nil
	}
	second, err := sc.Run()
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
	stats["pods"] += len(first.Pods)
	stats["evictions"] += first.Stats.Evictions
	stats["scheduled"] += first.Stats.Scheduled
	stats["pending"] += first.Stats.Pending
	stats["pdbViolations"] += first.Stats.PDBViolations
	for _, p := range first.Pods {
		if p.Phase == gangsim.PhaseSucceeded || p.Phase == gangsim.PhaseDeleted {
			stats[string(p.Phase)]++
		}
	}
	return nil
}

// scenarioGen writes one random scenario file. It keeps what it has made
// so that every reference, every event and every running pod is valid.
type scenarioGen struct {
	r   *rand.Rand
	out strings.Builder

	nodes      []genNode         // present at time 0
	groups     []genGroup        // PodGroups
	composites []string          // their names
	pods       []genPod          // in file order
	used       map[string]bool   // node names taken
	free       map[string][2]int // cpu (millicores) and pods left on each node, for running pods
	packer     bool              // the configuration has a second profile, "packer"
	// claims are the device claims pods may name (resourceClaims entries,
	// without the pod's claim name), by namespace; extended is the
	// extended resource a device class serves ("" for none)
	claims   map[string][]string
	extended string
}

type genNode struct {
	name, zone, rack string
	cpu              int // millicores
	gpus             int
	tainted          bool
}

type genGroup struct {
	name, namespace string
	gang            bool
	minCount        int
}

type genPod struct {
	key string // as events name it: "name" or "ns/name"
	at  time.Duration
}

var (
	genApps       = []string{"web", "db", "cache", "batch", "train"}
	genZones      = []string{"z0", "z1", "z2"}
	genNamespaces = []string{"", "", "team-a"}
)

// generateScenario returns the scenario of one seed.
func generateScenario(seed uint64) string {
	g := &scenarioGen{r: rand.New(rand.NewPCG(seed, 0x6a6e67)), used: map[string]bool{}, free: map[string][2]int{}}
	g.printf("# random scenario, seed %d\n", seed)
	g.config()
	g.printf("priorityClasses:\n")
	g.printf("  - {name: low, value: 10}\n  - {name: high, value: 1000}\n  - {name: polite, value: 500, preemptionPolicy: Never}\n")
	if g.r.IntN(4) == 0 {
		g.printf("  - {name: standard, value: 100, globalDefault: true}\n")
	}
	g.printf("namespaces:\n  - {name: team-a, labels: {team: a}}\n")
	g.genNodes()
	g.genNodeGroups()
	g.genDevices()
	g.genGroups()
	g.genBudgets()
	g.genPods()
	g.genEvents()
	if len(g.pods) > 0 && g.r.IntN(4) == 0 {
		g.printf("explain: [%s]\n", g.pods[g.r.IntN(len(g.pods))].key)
	}
	return g.out.String()
}

func (g *scenarioGen) printf(format string, args ...any) { fmt.Fprintf(&g.out, format, args...) }

func (g *scenarioGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }

func (g *scenarioGen) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g *scenarioGen) config() {
	var parts []string
	switch g.r.IntN(4) {
	case 0:
		parts = append(parts, "terminationGracePeriod: "+g.pick("0s", "5s", "1m"))
	case 1:
		parts = append(parts, "scoringStrategy: {type: MostAllocated}")
	case 2:
		parts = append(parts, "percentageOfNodesToScore: "+g.pick("10", "50", "100"))
	case 3:
		// a second profile that packs; some pods name it
		g.packer = true
		parts = append(parts, "profiles: [{schedulerName: default-scheduler}, {schedulerName: packer, pluginConfig: "+
			"[{name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated}}}]}]")
	}
	if len(parts) > 0 {
		g.printf("config: {%s}\n", strings.Join(parts, ", "))
	}
}

func (g *scenarioGen) genNodes() {
	g.printf("nodes:\n")
	for i := range 2 + g.r.IntN(8) {
		n := genNode{name: fmt.Sprintf("n%d", i), zone: genZones[g.r.IntN(len(genZones))], cpu: []int{1000, 2000, 4000, 8000}[g.r.IntN(4)]}
		n.rack = fmt.Sprintf("%s-r%d", n.zone, g.r.IntN(2))
		alloc := fmt.Sprintf("cpu: %dm, memory: %dGi", n.cpu, []int{4, 16, 64}[g.r.IntN(3)])
		if g.chance(4) {
			n.gpus = 1 + g.r.IntN(4)
			alloc += fmt.Sprintf(", nvidia.com/gpu: %d", n.gpus)
		}
		pods := 110
		if g.chance(6) {
			pods = 2 + 2*g.r.IntN(2)
			alloc += fmt.Sprintf(", pods: %d", pods)
		}
		line := fmt.Sprintf("  - {name: %s, labels: {topology.kubernetes.io/zone: %s, rack: %s}, allocatable: {%s}", n.name, n.zone, n.rack, alloc)
		if g.chance(5) {
			n.tainted = true
			line += ", taints: [{key: dedicated, value: gpu, effect: " + g.pick("NoSchedule", "PreferNoSchedule", "NoExecute") + "}]"
		}
		if g.chance(10) {
			line += ", unschedulable: true"
		}
		count := 1
		if g.chance(4) {
			count = 2 + g.r.IntN(3)
			line += fmt.Sprintf(", count: %d", count)
		}
		g.printf("%s}\n", line)
		for c := range count {
			m := n
			if count > 1 {
				m.name = fmt.Sprintf("%s-%d", n.name, c)
			}
			g.nodes = append(g.nodes, m)
			g.used[m.name] = true
			g.free[m.name] = [2]int{m.cpu, pods}
		}
	}
}

// genGroups makes composites (zone over rack) and PodGroups, some under a
// composite. A hierarchy has one priority: children inherit theirs.
func (g *scenarioGen) genGroups() {
	if g.chance(2) {
		return
	}
	if g.chance(2) {
		g.printf("compositePodGroups:\n")
		for i := range 1 + g.r.IntN(2) {
			name := fmt.Sprintf("job%d", i)
			g.composites = append(g.composites, name)
			line := "  - {name: " + name
			if i > 0 && g.chance(2) {
				line += ", parent: job0" // three levels: its priority is job0's
			} else {
				line += ", " + g.priorityField()
			}
			if g.chance(2) {
				line += fmt.Sprintf(", minGroupCount: %d", 1+g.r.IntN(2))
			}
			if g.chance(2) {
				line += ", topologyKey: topology.kubernetes.io/zone"
			}
			if g.chance(3) {
				line += ", disruptionMode: All"
			}
			g.printf("%s}\n", line)
		}
	}
	g.printf("podGroups:\n")
	for i := range 1 + g.r.IntN(4) {
		gr := genGroup{name: fmt.Sprintf("g%d", i)}
		line := "  - {name: " + gr.name
		if len(g.composites) > 0 && g.chance(2) {
			line += ", parent: " + g.composites[g.r.IntN(len(g.composites))]
		} else {
			gr.namespace = genNamespaces[g.r.IntN(len(genNamespaces))]
			if gr.namespace != "" {
				line += ", namespace: " + gr.namespace
			}
			line += ", " + g.priorityField()
		}
		if g.chance(2) {
			gr.gang, gr.minCount = true, 1+g.r.IntN(4)
			line += fmt.Sprintf(", minCount: %d", gr.minCount)
		}
		if g.chance(2) {
			line += ", topologyKey: rack"
		}
		if g.chance(4) {
			line += ", disruptionMode: All"
		}
		if g.chance(6) {
			line += ", preemptionPolicy: Never"
		}
		g.groups = append(g.groups, gr)
		g.printf("%s}\n", line)
	}
}

// priorityField is an explicit priority or a class, as a root has one.
func (g *scenarioGen) priorityField() string {
	if g.chance(2) {
		return "priorityClassName: " + g.pick("low", "high", "polite")
	}
	return fmt.Sprintf("priority: %d", []int{0, 10, 50, 100, 1000}[g.r.IntN(5)])
}

func (g *scenarioGen) genBudgets() {
	if g.chance(2) {
		return
	}
	g.printf("podDisruptionBudgets:\n")
	for i := range 1 + g.r.IntN(2) {
		amount := g.pick("minAvailable: 1", "minAvailable: \"50%\"", "maxUnavailable: 1", "maxUnavailable: 0")
		if g.chance(2) {
			g.printf("  - {name: b%d, selector: {app: %s}, %s}\n", i, g.pick(genApps...), amount)
		} else {
			g.printf("  - {name: b%d, selector: {matchExpressions: [{key: app, operator: In, values: [%s, %s]}]}, %s}\n", i, g.pick(genApps...), g.pick(genApps...), amount)
		}
	}
}

func (g *scenarioGen) genPods() {
	g.printf("pods:\n")
	// running pods first: at time 0 they arrive in file order, before
	// anything else can take their room
	for i := range g.r.IntN(4) {
		n := g.nodes[g.r.IntN(len(g.nodes))]
		free := g.free[n.name]
		cpu := []int{100, 250, 500}[g.r.IntN(3)]
		if free[0] < cpu || free[1] < 1 {
			continue
		}
		g.free[n.name] = [2]int{free[0] - cpu, free[1] - 1}
		name := fmt.Sprintf("run%d", i)
		line := fmt.Sprintf("  - {name: %s, labels: {app: %s}, requests: {cpu: %dm}, nodeName: %s, %s", name, g.pick(genApps...), cpu, n.name, g.priorityField())
		if g.chance(3) {
			line += ", duration: " + g.pick("30s", "2m", "10m")
		}
		g.printf("%s}\n", line)
		g.pods = append(g.pods, genPod{key: name})
	}
	for i := range 3 + g.r.IntN(20) {
		g.genPod(i)
	}
}

func (g *scenarioGen) genPod(i int) {
	name := fmt.Sprintf("p%d", i)
	app := g.pick(genApps...)
	var fields []string
	ns := genNamespaces[g.r.IntN(len(genNamespaces))]
	var group *genGroup
	if len(g.groups) > 0 && g.chance(2) {
		group = &g.groups[g.r.IntN(len(g.groups))]
		ns = group.namespace
		fields = append(fields, "podGroup: "+group.name)
	} else if g.chance(30) {
		fields = append(fields, "podGroup: missing") // waits for a group no input defines
	}
	fields = append(fields, "name: "+name)
	if ns != "" {
		fields = append(fields, "namespace: "+ns)
	}
	fields = append(fields, fmt.Sprintf("labels: {app: %s, tier: %s}", app, g.pick("front", "back")))
	req := fmt.Sprintf("cpu: %s", g.pick("100m", "250m", "500m", "1", "2", "3"))
	if g.chance(3) {
		req += ", memory: " + g.pick("512Mi", "2Gi", "8Gi")
	}
	if g.chance(6) {
		req += ", nvidia.com/gpu: " + g.pick("1", "2")
	}
	if g.extended != "" && g.chance(6) {
		req += ", " + g.extended + ": 1"
	}
	fields = append(fields, "requests: {"+req+"}")
	if claims := g.claims[cmpOr(ns, "default")]; len(claims) > 0 && g.chance(3) {
		fields = append(fields, "resourceClaims: [{name: dev, "+claims[g.r.IntN(len(claims))]+"}]")
	}
	if group == nil {
		switch g.r.IntN(4) {
		case 0:
			fields = append(fields, "priorityClassName: "+g.pick("low", "high", "polite"))
		case 1:
			fields = append(fields, fmt.Sprintf("priority: %d", []int{0, 10, 50, 100, 1000}[g.r.IntN(5)]))
		}
		if g.chance(8) {
			fields = append(fields, "preemptionPolicy: Never")
		}
		switch {
		case g.packer && g.chance(3):
			fields = append(fields, "schedulerName: packer")
		case g.chance(40):
			fields = append(fields, "schedulerName: other-scheduler") // no profile: it stays pending
		}
	}
	fields = append(fields, g.constraints(app)...)
	if g.chance(4) {
		fields = append(fields, "tolerations: [{key: dedicated, operator: "+g.pick("Exists", "Equal, value: gpu")+"}]")
	}
	var at time.Duration
	if g.chance(2) {
		at = time.Duration(g.r.IntN(20)) * 30 * time.Second
		fields = append(fields, "at: "+at.String())
	}
	if g.chance(3) {
		fields = append(fields, "duration: "+g.pick("10s", "1m", "5m", "30m"))
	}
	count := 1
	if g.chance(4) {
		count = 2 + g.r.IntN(4)
		fields = append(fields, fmt.Sprintf("count: %d", count))
	}
	if g.chance(10) {
		fields = append(fields, "owner: {kind: ReplicaSet, name: "+app+"-rs, selector: {matchLabels: {app: "+app+"}}}")
	}
	g.printf("  - {%s}\n", strings.Join(fields, ", "))
	for c := range count {
		n := name
		if count > 1 {
			n = fmt.Sprintf("%s-%d", name, c)
		}
		if ns != "" {
			n = ns + "/" + n
		}
		g.pods = append(g.pods, genPod{key: n, at: at})
	}
}

// constraints returns a pod's placement constraints: a node selector,
// node affinity, pod affinity and anti-affinity, topology spread.
func (g *scenarioGen) constraints(app string) []string {
	var out []string
	if g.chance(6) {
		out = append(out, "nodeSelector: {topology.kubernetes.io/zone: "+g.pick(genZones...)+"}")
	}
	var aff []string
	if g.chance(5) {
		aff = append(aff, "nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: "+
			g.pick("In, values: [z0-r0, z1-r0, z2-r1]", "NotIn, values: [z0-r1]", "Exists")+"}]}]}"+
			", preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: {matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z1]}]}}]}")
	}
	term := func() string {
		t := fmt.Sprintf("{labelSelector: {matchLabels: {app: %s}}, topologyKey: %s", g.pick(genApps...), g.pick("kubernetes.io/hostname", "topology.kubernetes.io/zone", "rack"))
		if g.chance(4) {
			t += ", namespaceSelector: {}"
		}
		return t + "}"
	}
	if g.chance(5) {
		if g.chance(2) {
			aff = append(aff, "podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: ["+term()+"]}")
		} else {
			aff = append(aff, "podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, podAffinityTerm: "+term()+"}]}")
		}
	}
	if g.chance(4) {
		if g.chance(2) {
			aff = append(aff, "podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: ["+term()+"]}")
		} else {
			aff = append(aff, "podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 30, podAffinityTerm: "+term()+"}]}")
		}
	}
	if len(aff) > 0 {
		out = append(out, "affinity: {"+strings.Join(aff, ", ")+"}")
	}
	if g.chance(4) {
		c := fmt.Sprintf("{maxSkew: %d, topologyKey: %s, whenUnsatisfiable: %s, labelSelector: {matchLabels: {app: %s}}",
			1+g.r.IntN(2), g.pick("topology.kubernetes.io/zone", "kubernetes.io/hostname", "rack"), g.pick("DoNotSchedule", "ScheduleAnyway"), app)
		if g.chance(4) {
			c += ", nodeTaintsPolicy: Honor"
		}
		if g.chance(4) {
			c += ", minDomains: 3"
			c = strings.Replace(c, "ScheduleAnyway", "DoNotSchedule", 1)
		}
		out = append(out, "topologySpreadConstraints: ["+c+"}]")
	}
	return out
}

// genEvents makes events in time order, each on a node or pod that exists
// at its time, as the load requires.
func (g *scenarioGen) genEvents() {
	n := g.r.IntN(7)
	if n == 0 {
		return
	}
	g.printf("events:\n")
	present := map[string]bool{}
	for _, nd := range g.nodes {
		present[nd.name] = true
	}
	deleted := map[string]bool{}
	at := time.Duration(0)
	added := 0
	for range n {
		at += time.Duration(1+g.r.IntN(8)) * 15 * time.Second
		names := slices.Sorted(func(yield func(string) bool) {
			for name := range present {
				if !yield(name) {
					return
				}
			}
		})
		switch k := g.r.IntN(6); {
		case k == 0 || len(names) == 0:
			name := fmt.Sprintf("extra%d", added)
			added++
			g.printf("  - {at: %v, addNode: {name: %s, labels: {topology.kubernetes.io/zone: %s, rack: %s-r0}, allocatable: {cpu: %s, memory: 16Gi}}}\n",
				at, name, g.pick(genZones...), g.pick(genZones...), g.pick("2", "4"))
			present[name] = true
		case k == 5:
			var alive []string
			for _, p := range g.pods {
				if p.at < at && !deleted[p.key] {
					alive = append(alive, p.key)
				}
			}
			if len(alive) == 0 {
				g.printf("  - {at: %v, cordonNode: %s}\n", at, names[g.r.IntN(len(names))])
				continue
			}
			key := alive[g.r.IntN(len(alive))]
			deleted[key] = true
			g.printf("  - {at: %v, deletePod: %s}\n", at, key)
		default:
			name := names[g.r.IntN(len(names))]
			kind := []string{"", "cordonNode", "uncordonNode", "removeNode", "drainNode"}[k]
			if kind == "removeNode" {
				delete(present, name)
			}
			g.printf("  - {at: %v, %s: %s}\n", at, kind, name)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// genNodeGroups makes, now and then, node groups the autoscaler grows and
// shrinks: plain cpu nodes, and tainted GPU nodes in racks, some with
// devices; with the autoscaler's timings short enough to act in a run.
func (g *scenarioGen) genNodeGroups() {
	if !g.chance(4) {
		return
	}
	g.printf("nodeGroups:\n")
	g.printf("  - {name: ng-cpu, template: {allocatable: {cpu: \"%d\", memory: 16Gi}, labels: {topology.kubernetes.io/zone: %s, rack: ng-r}}, min: %d, max: %d, provisioningDelay: %s, pricePerHour: 1}\n",
		[]int{2, 4, 8}[g.r.IntN(3)], g.pick(genZones...), g.r.IntN(2), 1+g.r.IntN(4), g.pick("30s", "2m", "{exponential: 1m, max: 5m}"))
	if g.chance(2) {
		devices := ""
		if g.chance(2) {
			devices = ", devices: [{driver: gpu.example.com, devices: [{name: gpu-0, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}, {name: gpu-1, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}]}]"
		}
		g.printf("  - {name: ng-gpu, template: {allocatable: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"4\"}, taints: [{key: dedicated, value: gpu, effect: NoSchedule}]%s}, max: %d, provisioningDelay: 1m, rackSize: 2, zone: %s, pricePerHour: 4}\n",
			devices, 2+g.r.IntN(3), g.pick(genZones...))
	}
	g.printf("autoscaler: {scanInterval: %s, scaleDownUnneededTime: %s, expander: %s%s}\n",
		g.pick("10s", "30s"), g.pick("1m", "5m"), g.pick("least-waste", "most-pods", "price", "random"), g.pick("", ", maxNodesTotal: 12", ", scaleDownEnabled: false"))
}

// genDevices makes, now and then, a device class, slices of GPUs on some
// nodes (some shared by capacity, some partitions of one GPU's counters),
// and the templates and a claim pods may name.
func (g *scenarioGen) genDevices() {
	if !g.chance(3) {
		return
	}
	g.printf("deviceClasses:\n  - {name: gpu.example.com, selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]")
	if g.chance(2) {
		g.extended = "example.com/gpu"
		g.printf(", extendedResourceName: %s", g.extended)
	}
	g.printf("}\n")
	g.printf("resourceSlices:\n")
	for _, n := range g.nodes {
		if !g.chance(2) {
			continue
		}
		var devs []string
		for d := range 1 + g.r.IntN(3) {
			dev := fmt.Sprintf("{name: gpu-%d, attributes: {model: {string: %s}, index: {int: %d}}, capacity: {memory: {value: %s}}", d, g.pick("a100", "h100"), d, g.pick("40Gi", "80Gi"))
			if g.chance(3) {
				dev += ", allowMultipleAllocations: true"
			}
			devs = append(devs, dev+"}")
		}
		if g.chance(4) { // a GPU in halves or whole, from one set of counters
			g.printf("  - {name: %s-counters, driver: gpu.example.com, nodeName: %s, pool: {name: %s, resourceSliceCount: 2}, sharedCounters: [{name: big, counters: {memory: {value: 80Gi}}}]}\n", n.name, n.name, n.name)
			for _, part := range []string{"half-a:40Gi", "half-b:40Gi", "whole:80Gi"} {
				name, size, _ := strings.Cut(part, ":")
				devs = append(devs, fmt.Sprintf("{name: big-%s, attributes: {model: {string: h100}}, consumesCounters: [{counterSet: big, counters: {memory: {value: %s}}}]}", name, size))
			}
			g.printf("  - {name: %s-gpus, driver: gpu.example.com, nodeName: %s, pool: {name: %s, resourceSliceCount: 2}, devices: [%s]}\n", n.name, n.name, n.name, strings.Join(devs, ", "))
			continue
		}
		g.printf("  - {name: %s-gpus, driver: gpu.example.com, nodeName: %s, pool: {name: %s, resourceSliceCount: 1}, devices: [%s]}\n", n.name, n.name, n.name, strings.Join(devs, ", "))
	}
	templates := []string{
		"one: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}",
		"two: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]}",
		"a100: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a100\"'}}]}}]}",
		"slice: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, capacity: {requests: {memory: 20Gi}}}}]}",
		"either: {requests: [{name: gpu, firstAvailable: [{name: h100, deviceClassName: gpu.example.com, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"h100\"'}}]}, {name: any, deviceClassName: gpu.example.com}]}]}",
		"pair: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}], constraints: [{requests: [gpu], matchAttribute: gpu.example.com/model}]}",
	}
	g.claims = map[string][]string{}
	g.printf("resourceClaimTemplates:\n")
	for _, ns := range []string{"default", "team-a"} {
		for _, t := range templates {
			name, spec, _ := strings.Cut(t, ": ")
			g.printf("  - {name: %s, namespace: %s, devices: %s}\n", name, ns, spec)
			g.claims[ns] = append(g.claims[ns], "resourceClaimTemplateName: "+name)
		}
	}
	g.printf("resourceClaims:\n  - {name: shared, namespace: default, devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}\n")
	g.claims["default"] = append(g.claims["default"], "resourceClaimName: shared")
}
