package gangsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// FuzzSchedulerAPI drives a Scheduler with a sequence of API calls decoded
// from the fuzzer's bytes: nodes added, updated, cordoned, drained and
// removed, pods added (pending or running, with run times, priorities,
// affinity, spreading, tolerations, groups), groups, composites, budgets,
// deletions, and the clock moved by RunUntil, AdvanceTo, Run and
// ScheduleOne, with Config.CheckInvariants on. An error from a call is
// fine (the bytes ask for all sorts of nonsense); a panic, an invariant
// violated, or a state the checker rejects after a refused call is not.
//
// The seeds are testdata/fuzz/FuzzSchedulerAPI: programs chosen among
// random ones for the variety of what they make happen.
func FuzzSchedulerAPI(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runAPIProgram(data, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSchedulerAPIOptions runs FuzzSchedulerAPI's programs on Schedulers
// made with options, read from the first two bytes: shortcuts switched
// off, a termination grace period (0, 5 s or the default), a start time,
// an explanation asked for, a nil observer and an observer of a few kinds,
// and pods varied by tolerations and device claims of their own.
// Besides the checks of FuzzSchedulerAPI, the program run with those
// shortcuts off makes the same events as with every shortcut on: the
// shortcuts change only the time decisions take.
func FuzzSchedulerAPIOptions(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 16 {
		data := make([]byte, 40+r.IntN(200))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		off, pick, program := Shortcut(data[0])&allShortcuts, data[1], data[2:]
		varied := pick&0x40 != 0
		var cfg Config
		switch pick % 3 {
		case 0:
			cfg.TerminationGracePeriod = new(time.Duration)
		case 1:
			grace := 5 * time.Second
			cfg.TerminationGracePeriod = &grace
		}
		opts := []Option{WithStartTime(time.Duration(pick/3%4) * time.Hour), WithObserver(nil),
			WithObserverOf(func(Event) {}, EventPodBound, EventPodEvicted)}
		if pick&0x80 != 0 {
			opts = append(opts, WithExplain(cluster.MakePodKey("", "p1"), cluster.MakePodKey("ml", "p2")))
		}
		streams := [2][]string{}
		for i, o := range [][]Option{opts, append(slices.Clone(opts), WithoutShortcuts(off))} {
			if err := runProgram(&apiProgram{data: program, varied: varied}, cfg, o, nil, func(e Event) { streams[i] = append(streams[i], e.String()) }); err != nil {
				t.Fatalf("without %v: %v", off*Shortcut(i), err)
			}
		}
		if n := firstDifference(streams[0], streams[1]); n >= 0 {
			t.Fatalf("without %v, event %d differs:\n with all: %s\n without: %s", off, n, at(streams[0], n), at(streams[1], n))
		}
	})
}

// firstDifference is the index of the first event two streams differ at,
// or -1.
func firstDifference(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// The universe the programs name: few enough names that calls collide.
var (
	fuzzZones = []string{"z0", "z1", "z2"}
	fuzzRacks = []string{"r0", "r1", "r2", "r3"}
	fuzzApps  = []string{"web", "db", "batch"}
	fuzzNS    = []string{"", "ml"}
)

// apiProgram reads a program's bytes; past the end every read is 0.
type apiProgram struct {
	data []byte
	pos  int
	// templates are the claim templates added, by "namespace/name", for
	// the stand-in of the resourceclaim controller (makeClaims)
	templates map[string]cluster.ResourceClaimSpec
	// varied adds to each pod, besides the one constraint it draws,
	// tolerations and device claims of their own, so that pods alike but
	// for those meet on the same nodes and the shortcuts' keys must tell
	// them apart (FuzzSchedulerAPIOptions; FuzzSchedulerAPI reads its
	// corpus without it)
	varied bool
}

func (p *apiProgram) more() bool { return p.pos < len(p.data) }

func (p *apiProgram) next() int {
	if p.pos >= len(p.data) {
		return 0
	}
	b := p.data[p.pos]
	p.pos++
	return int(b)
}

// pick returns one of n choices.
func (p *apiProgram) pick(n int) int { return p.next() % n }

func (p *apiProgram) flag() bool { return p.next()&1 == 1 }

// runAPIProgram runs a program against a new Scheduler with the checker
// on; trace, when set, hears every call and its outcome. It returns the
// first problem: an invariant violated, an event going back in time, or a
// state the checker rejects after a call (refused or not).
func runAPIProgram(data []byte, trace func(string)) error {
	return runAPIProgramObserved(data, trace, nil)
}

// runAPIProgramObserved is runAPIProgram with an observer of the events.
func runAPIProgramObserved(data []byte, trace func(string), observe Observer) error {
	return runAPIProgramWith(data, Config{}, nil, trace, observe)
}

// runAPIProgramWith is runAPIProgramObserved on a Scheduler made with cfg
// (the checker on, the cycle cap of the programs) and opts besides.
func runAPIProgramWith(data []byte, cfg Config, opts []Option, trace func(string), observe Observer) error {
	return runProgram(&apiProgram{data: data}, cfg, opts, trace, observe)
}

func runProgram(p *apiProgram, cfg Config, opts []Option, trace func(string), observe Observer) error {
	var last time.Duration
	var timeErr error
	cfg.CheckInvariants, cfg.MaxCycles = true, 2000
	s, err := New(cfg, append(opts, WithObserver(func(e Event) {
		if observe != nil {
			observe(e)
		}
		if e.At < last && timeErr == nil {
			timeErr = fmt.Errorf("event %v at %v after an event at %v", e, e.At, last)
		}
		last = e.At
	}))...)
	if err != nil {
		return err
	}
	for _, pc := range []cluster.PriorityClass{{Name: "low", Value: 10}, {Name: "high", Value: 1000}, {Name: "never", Value: 500, PreemptionPolicy: cluster.PreemptNever}} {
		if err := s.AddPriorityClass(pc); err != nil {
			return err
		}
	}
	if err := s.SetNamespace(cluster.Namespace{Name: "ml", Labels: map[string]string{"team": "ml"}}); err != nil {
		return err
	}
	for step := 0; p.more() && step < 300; step++ {
		call, err := p.call(s)
		if trace != nil {
			trace(fmt.Sprintf("%d %s: %v", step, call, err))
		}
		if errors.Is(err, ErrInvariant) {
			return fmt.Errorf("step %d, %s: %w", step, call, err)
		}
		if timeErr != nil {
			return timeErr
		}
		if err := s.CheckInvariants(); err != nil {
			return fmt.Errorf("after step %d, %s (returned %v): %w", step, call, err, err)
		}
	}
	if err := s.Run(); errors.Is(err, ErrInvariant) {
		return fmt.Errorf("final Run: %w", err)
	}
	return timeErr
}

// call decodes one API call, makes it, and describes it.
func (p *apiProgram) call(s *Scheduler) (string, error) {
	switch op := p.pick(20); op {
	case 0:
		n := p.node()
		return "AddNode " + n.Name, s.AddNode(n)
	case 1:
		n := p.node()
		n.Name = p.existingNode(s)
		return "UpdateNode " + n.Name, s.UpdateNode(n)
	case 2:
		name := p.existingNode(s)
		return "RemoveNode " + name, s.RemoveNode(name)
	case 3:
		name := p.existingNode(s)
		return "CordonNode " + name, s.CordonNode(name)
	case 4:
		name := p.existingNode(s)
		return "UncordonNode " + name, s.UncordonNode(name)
	case 5:
		name := p.existingNode(s)
		return "DrainNode " + name, s.DrainNode(name)
	case 6, 7:
		pod, d := p.pod(op == 7)
		if op == 7 {
			pod.NodeName = p.existingNode(s)
		}
		if err := makeClaims(s, p.templates, &pod); err != nil {
			return "AddPod (its claims) " + string(pod.Key()), err
		}
		return fmt.Sprintf("AddPod %s node=%q group=%q for %v", pod.Key(), pod.NodeName, pod.PodGroup, d), s.AddPod(pod, d)
	case 8:
		g := p.group()
		return "AddPodGroup " + g.Key(), s.AddPodGroup(g)
	case 9:
		c := p.composite()
		return "AddCompositePodGroup " + c.Key(), s.AddCompositePodGroup(c)
	case 10:
		b := p.budget()
		return "AddPodDisruptionBudget " + b.Key(), s.AddPodDisruptionBudget(b)
	case 11:
		key := p.existingPod(s)
		return "DeletePod " + string(key), s.DeletePod(key)
	case 12:
		t := s.Now() + p.duration()
		return fmt.Sprintf("RunUntil %v", t), s.RunUntil(t)
	case 13:
		return "Run", s.Run()
	case 14:
		_, _, err := s.ScheduleOne()
		return "ScheduleOne", err
	case 16:
		node := p.nodeName()
		devs := make([]cluster.Device, 1+p.pick(4))
		shared := p.flag()
		for i := range devs {
			devs[i] = cluster.Device{Name: fmt.Sprintf("gpu-%d", i), AllowMultipleAllocations: shared}
			if shared {
				devs[i].Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"milligpu": {Value: 1000 * 1000}}
			}
		}
		rs := cluster.ResourceSlice{Name: node + "-gpus", Driver: "gpu.nvidia.com", Pool: cluster.ResourcePool{Name: node, SliceCount: 1}, NodeName: node, Devices: devs}
		if p.flag() {
			return "RemoveResourceSlice " + rs.Name, s.RemoveResourceSlice(rs.Name)
		}
		return "AddResourceSlice " + rs.Name, s.AddResourceSlice(rs)
	case 17:
		dc := cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}
		if p.flag() {
			dc = cluster.DeviceClass{Name: "gpu-ext", ExtendedResourceName: "example.com/gpu", Selectors: dc.Selectors}
		}
		return "AddDeviceClass " + dc.Name, s.AddDeviceClass(dc)
	case 18:
		spec, name := fuzzClaimSpec(p.pick(3))
		t := cluster.ResourceClaimTemplate{Namespace: fuzzNS[p.pick(len(fuzzNS))], Name: name, Spec: spec}
		if p.templates == nil {
			p.templates = map[string]cluster.ResourceClaimSpec{}
		}
		p.templates[string(cluster.MakePodKey(t.Namespace, t.Name))] = spec
		return "AddResourceClaimTemplate " + name, nil
	case 19:
		spec, _ := fuzzClaimSpec(p.pick(3))
		name := fmt.Sprintf("shared-%d", p.pick(3))
		return "AddResourceClaim " + name, s.AddResourceClaim(cluster.ResourceClaim{Namespace: fuzzNS[p.pick(len(fuzzNS))], Name: name, Spec: spec})
	default:
		t := s.Now() + p.duration()
		return fmt.Sprintf("AdvanceTo %v", t), s.AdvanceTo(t)
	}
}

func (p *apiProgram) nodeName() string { return fmt.Sprintf("n%d", p.pick(6)) }

// existingNode names a node of the cluster, now and then one that is not
// there.
func (p *apiProgram) existingNode(s *Scheduler) string {
	var names []string
	for n := range s.Nodes() {
		names = append(names, n.Name())
	}
	if i := p.pick(len(names) + 1); i < len(names) {
		return names[i]
	}
	return p.nodeName()
}

// existingPod names a pod the scheduler knows, now and then one it does
// not.
func (p *apiProgram) existingPod(s *Scheduler) cluster.PodKey {
	var keys []cluster.PodKey
	for st := range s.Pods() {
		keys = append(keys, st.Key)
	}
	if i := p.pick(len(keys) + 1); i < len(keys) {
		return keys[i]
	}
	return cluster.MakePodKey(fuzzNS[p.pick(len(fuzzNS))], p.podName())
}

func (p *apiProgram) podName() string { return fmt.Sprintf("p%d", p.pick(16)) }

// duration is a small step of simulated time, now and then a long one.
func (p *apiProgram) duration() time.Duration {
	return []time.Duration{0, time.Second, 5 * time.Second, 30 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 48 * time.Hour}[p.pick(8)]
}

func (p *apiProgram) node() cluster.Node {
	i := p.pick(6)
	n := cluster.Node{
		Name:        fmt.Sprintf("n%d", i),
		Labels:      map[string]string{"zone": fuzzZones[i%3], "rack": fuzzRacks[(i+p.pick(2))%4]},
		Allocatable: cluster.NewResources([]int64{0, 1000, 2000, 4000}[p.pick(4)], []int64{1 << 30, 8 << 30}[p.pick(2)], []int64{2, 110}[p.pick(2)]),
	}
	if p.pick(4) == 0 {
		n.Allocatable = n.Allocatable.With("nvidia.com/gpu", int64(p.pick(3)))
	}
	switch p.pick(6) {
	case 0:
		n.Taints = []cluster.Taint{{Key: "dedicated", Value: "gpu", Effect: cluster.TaintNoSchedule}}
	case 1:
		n.Taints = []cluster.Taint{{Key: "spot", Effect: cluster.TaintPreferNoSchedule}}
	case 2:
		n.Unschedulable = true
	}
	return n
}

// pod decodes a pod; running ones name a node.
func (p *apiProgram) pod(running bool) (cluster.Pod, time.Duration) {
	app := fuzzApps[p.pick(len(fuzzApps))]
	pod := cluster.Pod{
		Namespace: fuzzNS[p.pick(len(fuzzNS))],
		Name:      p.podName(),
		Labels:    map[string]string{"app": app},
		Requests:  cluster.NewResources([]int64{0, 100, 500, 1000, 2000}[p.pick(5)], []int64{0, 256 << 20, 1 << 30}[p.pick(3)], 0),
	}
	if running {
		pod.NodeName = p.nodeName()
	}
	switch p.pick(6) {
	case 1:
		pod.Priority = new(int32(p.pick(3) * 100))
	case 2:
		pod.PriorityClassName = []string{"low", "high", "never", "missing"}[p.pick(4)]
	case 3:
		pod.PreemptionPolicy = cluster.PreemptNever
	}
	if p.pick(3) == 0 {
		pod.PodGroup = fmt.Sprintf("g%d", p.pick(4))
	}
	term := func(key string) cluster.PodAffinityTerm {
		return cluster.PodAffinityTerm{LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": fuzzApps[p.pick(len(fuzzApps))]}}, TopologyKey: key}
	}
	keys := []string{"kubernetes.io/hostname", "zone", "rack"}
	switch p.pick(10) {
	case 0:
		pod.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{term(keys[p.pick(3)])}}}
	case 1:
		pod.Affinity = &cluster.Affinity{PodAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{term(keys[p.pick(3)])}}}
	case 2:
		pod.Affinity = &cluster.Affinity{PodAffinity: &cluster.PodAffinity{Preferred: []cluster.WeightedPodAffinityTerm{{Weight: 50, Term: term(keys[p.pick(3)])}}},
			PodAntiAffinity: &cluster.PodAffinity{Preferred: []cluster.WeightedPodAffinityTerm{{Weight: 10, Term: term(keys[p.pick(3)])}}}}
	case 3:
		pod.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{Required: []cluster.SelectorTerm{{MatchExpressions: []cluster.SelectorRequirement{
			{Key: "zone", Operator: cluster.SelectorIn, Values: []string{fuzzZones[p.pick(3)]}}}}}}}
	case 4:
		pod.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{{MaxSkew: int32(1 + p.pick(2)), TopologyKey: keys[p.pick(3)],
			WhenUnsatisfiable: []string{cluster.DoNotSchedule, cluster.ScheduleAnyway}[p.pick(2)],
			LabelSelector:     &cluster.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	case 5:
		pod.NodeSelector = map[string]string{"rack": fuzzRacks[p.pick(4)]}
	case 6:
		pod.Tolerations = []cluster.Toleration{{Key: "dedicated", Operator: cluster.TolerationExists}}
	case 7:
		pod.Requests = pod.Requests.With("nvidia.com/gpu", int64(1+p.pick(2)))
	case 8:
		e := cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: []string{"one", "two", "half", "missing"}[p.pick(4)]}
		if p.flag() {
			e = cluster.PodResourceClaim{Name: "gpu", ResourceClaimName: fmt.Sprintf("shared-%d", p.pick(3))}
		}
		pod.ResourceClaims = []cluster.PodResourceClaim{e}
	case 9:
		pod.Requests = pod.Requests.With("example.com/gpu", int64(1+p.pick(2)))
	}
	if p.varied {
		switch p.pick(4) {
		case 0:
			pod.Tolerations = append(pod.Tolerations, cluster.Toleration{Key: "dedicated", Operator: cluster.TolerationEqual, Value: "gpu", Effect: cluster.TaintNoSchedule})
		case 1:
			pod.Tolerations = append(pod.Tolerations, cluster.Toleration{Key: "spot", Operator: cluster.TolerationExists})
		case 2:
			pod.ResourceClaims = append(pod.ResourceClaims, cluster.PodResourceClaim{Name: "dev", ResourceClaimTemplateName: []string{"one", "half"}[p.pick(2)]})
		}
	}
	d := []time.Duration{0, 0, 30 * time.Second, 5 * time.Minute}[p.pick(4)]
	return pod, d
}

func (p *apiProgram) group() podgroup.PodGroup {
	g := podgroup.PodGroup{Namespace: fuzzNS[p.pick(len(fuzzNS))], Name: fmt.Sprintf("g%d", p.pick(4))}
	if p.flag() {
		g.Policy, g.MinCount = podgroup.Gang, int32(1+p.pick(4))
	}
	g.TopologyKey = []string{"", "", "zone", "rack"}[p.pick(4)]
	switch p.pick(4) {
	case 1:
		g.Priority = new(int32(p.pick(3) * 100))
	case 2:
		g.PriorityClassName = []string{"low", "high", "never"}[p.pick(3)]
	}
	if p.pick(3) == 0 {
		g.DisruptionMode = podgroup.DisruptAll
	}
	if p.pick(3) == 0 {
		g.Parent = fmt.Sprintf("c%d", p.pick(3))
	}
	return g
}

func (p *apiProgram) composite() podgroup.CompositePodGroup {
	c := podgroup.CompositePodGroup{Namespace: fuzzNS[p.pick(len(fuzzNS))], Name: fmt.Sprintf("c%d", p.pick(3))}
	if p.flag() {
		c.Policy, c.MinGroupCount = podgroup.Gang, int32(1+p.pick(3))
	}
	c.TopologyKey = []string{"", "zone"}[p.pick(2)]
	if p.pick(3) == 0 {
		c.Priority = new(int32(p.pick(3) * 100))
	}
	if p.pick(3) == 0 {
		c.DisruptionMode = podgroup.DisruptAll
	}
	if p.pick(4) == 0 {
		c.Parent = fmt.Sprintf("c%d", p.pick(3))
	}
	return c
}

func (p *apiProgram) budget() cluster.PodDisruptionBudget {
	b := cluster.PodDisruptionBudget{Namespace: fuzzNS[p.pick(len(fuzzNS))], Name: fmt.Sprintf("b%d", p.pick(3)),
		Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": fuzzApps[p.pick(len(fuzzApps))]}}}
	v := &cluster.IntOrPercent{Value: int32(p.pick(3)), Percent: p.pick(4) == 0}
	if p.flag() {
		b.MinAvailable = v
	} else {
		b.MaxUnavailable = v
	}
	return b
}

// TestAPIProgramsRandom runs random programs of FuzzSchedulerAPI as a
// plain test: a few hundred in go test, 20,000 with GANGSIM_LONG=1
// (GANGSIM_SEED=n draws other programs). A
// failure prints the program's calls and the bytes to add to the corpus.
func TestAPIProgramsRandom(t *testing.T) {
	n := 300
	if os.Getenv("GANGSIM_LONG") != "" {
		n = 20_000
	}
	seed := uint64(17)
	if v := os.Getenv("GANGSIM_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		data := make([]byte, 20+r.IntN(300))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		var calls []string
		if err := runAPIProgram(data, func(c string) { calls = append(calls, c) }); err != nil {
			t.Fatalf("program %d: %v\ncalls:\n  %s\nbytes for testdata/fuzz/FuzzSchedulerAPI: %q", i, err, strings.Join(calls, "\n  "), data)
		}
	}
}

// fuzzClaimSpec is one of three claim specs: one GPU, two, half of one.
func fuzzClaimSpec(i int) (cluster.ResourceClaimSpec, string) {
	r := &cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: []int64{1, 2, 1}[i]}
	if i == 2 {
		r.Capacity = map[cluster.QualifiedName]cluster.Quantity{"milligpu": 500 * 1000}
	}
	return cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: "gpu", Exactly: r}}}, []string{"one", "two", "half"}[i]
}
