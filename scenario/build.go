package scenario

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// builder turns the decoded file into a Scenario, checking references and
// applying the Scheduler's own admission rules, so that a file's mistakes
// are reported at load time with their line and field.
//
// Several input files make one scenario: every step runs over all files
// before the next begins (classes, then nodes, then groups...), so that an
// entry may name what another file defines.
type builder struct {
	sc         *Scenario
	classes    cluster.PriorityClasses
	nodeNames  map[string]bool
	podNames   map[cluster.PodKey]bool
	groupByKey map[string]*podgroup.PodGroup // as admitted: priorities resolved
	forest     podgroup.Forest               // the groups as admitted, for parents
	opts       options

	file       string               // the file of the entry being built
	cur        *schema.Origin       // the Kubernetes object of that entry, if any
	configFile string               // the file that gave the configuration
	nsDefined  map[string]bool      // namespaces defined so far
	budgetKeys map[string]string    // budgets defined so far, and where
	deviceKeys map[[2]string]string // device objects defined so far (kind, key), and where
	// leftOut are the devices of slices left out (several nodes' slices),
	// by the slice's name; devicesByID the kept ones, for allocations
	leftOut     map[cluster.DeviceID]string
	devicesByID map[cluster.DeviceID]deviceAt
	tally       *schema.Tally // the pods and nodes of the inputs, against the limits
	ws          *warnings     // what the inputs hold that the simulation does not use
	// requests remembers the parsed request maps by identity: the JSON
	// decoder shares equal maps, so a million pods parse a few
	requests map[unsafe.Pointer]cluster.Resources
	// gatedPods are the pods with scheduling gates, once asked (gated)
	gatedPods map[cluster.PodKey]bool
	// admissionKeys are the limit ranges and quotas defined so far (kind,
	// key), and where
	admissionKeys map[[2]string]string
	// kueueGroups are the Kueue pod groups of the files' pods so far, by
	// namespace/name: their total count, and where it was first given
	kueueGroups map[string]groupSeen
}

func newBuilder(name string, opts []Option) *builder {
	b := &builder{sc: &Scenario{Name: name}, nodeNames: map[string]bool{}, podNames: map[cluster.PodKey]bool{},
		groupByKey: map[string]*podgroup.PodGroup{}, file: name, nsDefined: map[string]bool{}, budgetKeys: map[string]string{}, opts: applyOptions(opts)}
	b.tally = schema.NewTally(b.opts.limits.Nodes, b.opts.limits.Pods, b.opts.limits.Memory)
	b.sc.registry = b.opts.registry
	for _, pc := range cluster.SystemPriorityClasses() {
		_ = b.classes.Add(pc) // cannot fail on an empty set
		b.sc.PriorityClasses = append(b.sc.PriorityClasses, pc)
	}
	return b
}

// fail returns a FieldError for the entry at path and line. When err is a
// cluster.FieldError, its field extends the path.
func (b *builder) fail(line int, path string, err error) error {
	var fe *cluster.FieldError
	if errors.As(err, &fe) {
		path = cluster.JoinField(path, fe.Field)
	}
	return b.fieldError(line, path, err)
}

// fieldError names the current file and, for an entry made from a
// Kubernetes object, the object and its own field path.
func (b *builder) fieldError(line int, path string, err error) error {
	line, path = b.cur.Translate(line, path)
	return &FieldError{File: b.file, Line: line, Path: path, Err: err}
}

// entry names the entry being built, and makes it the current one: a list
// entry of a scenario file ("pods[2] (api)") or the Kubernetes object it
// was made from ("Pod ml/api").
func (b *builder) entry(src *schema.Origin, list string, i int, name string) string {
	b.cur = src
	if src != nil {
		return src.Where
	}
	return entry(list, i, name)
}

// failf returns a FieldError whose cause is a formatted message.
func (b *builder) failf(line int, path, format string, args ...any) error {
	return b.fail(line, path, fmt.Errorf(format, args...))
}

// build runs every step over every input file, in order. A step that
// fails in a file goes on with the next files, so that each file's
// error is reported (Errors); the build stops after that step.
func (b *builder) build(ins []*input) error {
	each := func(step func(*schema.File) error) func([]*input) error {
		return func(ins []*input) error {
			var errs schema.Errors
			for _, in := range ins {
				b.file, b.cur = in.name, nil
				if !errs.Add(step(in.spec)) {
					break
				}
			}
			return loadErrors(&errs)
		}
	}
	steps := []func([]*input) error{each(b.config), each(b.priorityClasses), each(b.namespaces), each(b.admission), each(b.nodes),
		b.autoscaling, b.groups, each(b.budgets), each(b.devices), each(b.allocations), each(b.pods), each(b.workloads), b.controllers, each(b.events), each(b.explain), each(b.kueue)}
	for _, step := range steps {
		if err := step(ins); err != nil {
			return err
		}
	}
	return b.sc.checkTimeline()
}

func (b *builder) priorityClasses(f *schema.File) error {
	for i, s := range f.PriorityClasses {
		pc := cluster.PriorityClass{Name: s.Name, Value: s.Value, GlobalDefault: s.GlobalDefault, PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		where := b.entry(s.Origin, "priorityClasses", i, s.Name)
		if cluster.IsSystemPriorityClass(pc) {
			continue // built in, as in every cluster
		}
		if err := b.checkNames(s.Line, where, s.Name, ""); err != nil {
			return err
		}
		if err := b.classes.Add(pc); err != nil {
			return b.fail(s.Line, where, err)
		}
		b.sc.PriorityClasses = append(b.sc.PriorityClasses, pc)
	}
	return nil
}

// checkNames checks an entry's name, a DNS subdomain as Kubernetes wants
// it, and its namespace, a DNS label, when it has one: a name holding a
// slash, a space or a capital is an error.
func (b *builder) checkNames(line int, where, name, namespace string) error {
	if name == "" {
		return b.failf(line, where+".name", "required")
	}
	if err := schema.NameError(name, false); err != nil {
		return b.fail(line, where+".name", err)
	}
	if namespace != "" {
		if err := schema.NameError(namespace, true); err != nil {
			return b.fail(line, where+".namespace", err)
		}
	}
	return nil
}

// entry names a list entry: "pods[2] (api)", or "pods[2]" without a name.
func entry(list string, i int, name string) string {
	// one allocation: every pod of a file names its entry
	var buf [64]byte
	b := append(buf[:0], list...)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ']')
	if name != "" {
		b = append(b, " ("...)
		b = append(b, name...)
		b = append(b, ')')
	}
	return string(b)
}

func (b *builder) nodes(f *schema.File) error {
	for i := range f.Nodes {
		nodes, err := b.expandNode(&f.Nodes[i], b.entry(f.Nodes[i].Origin, "nodes", i, f.Nodes[i].Name))
		if err != nil {
			return err
		}
		b.sc.Nodes = append(b.sc.Nodes, nodes...)
	}
	// nodes added by events may be named by later events and pods too
	for i, e := range f.Events {
		if e.AddNode != nil {
			if _, err := b.expandNode(e.AddNode, b.entry(nil, "events", i, "")+".addNode"); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandNode converts a node spec, expanding count, and registers names.
func (b *builder) expandNode(s *schema.Node, where string) ([]cluster.Node, error) {
	if err := b.checkNames(s.Line, where, s.Name, ""); err != nil {
		return nil, err
	}
	alloc, err := b.nodeAllocatable(s.Allocatable, s.Line, where)
	if err != nil {
		return nil, err
	}
	n := cluster.Node{Name: s.Name, Labels: s.Labels, Allocatable: alloc, Unschedulable: s.Unschedulable, Taints: taintsOf(s.Taints)}
	names, err := b.expandNames(s.Name, s.Count, b.opts.limits.Nodes, s.Line, where)
	if err != nil {
		return nil, err
	}
	out := make([]cluster.Node, 0, len(names))
	for _, name := range names {
		c := n // the copies share the entry's maps: read-only (Scenario)
		c.Name = name
		if err := c.Validate(); err != nil {
			return nil, b.fail(s.Line, where, err)
		}
		if b.nodeNames[name] {
			return nil, b.failf(s.Line, where+".name", "node %q is defined twice", name)
		}
		b.nodeNames[name] = true
		out = append(out, c)
	}
	return out, nil
}

// nodeAllocatable reads a node's allocatable, checked as the API server
// checks it; without pods, the kubelet's default.
func (b *builder) nodeAllocatable(list map[string]string, line int, where string) (cluster.Resources, error) {
	if err := checkResourceNames(list, schema.ResourcesOfNode); err != nil {
		return cluster.Resources{}, b.fail(line, where+".allocatable", err)
	}
	alloc, err := cluster.ParseResources(list)
	if err != nil {
		return cluster.Resources{}, b.fail(line, where+".allocatable", err)
	}
	if _, ok := list[string(cluster.ResourcePods)]; !ok {
		alloc.Pods = defaultPodsPerNode
	}
	return alloc, nil
}

// taintsOf converts a node's taints (nil for none).
func taintsOf(in []schema.Taint) []cluster.Taint {
	var out []cluster.Taint
	for _, t := range in {
		out = append(out, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	return out
}

// defaultPodsPerNode is the kubelet's default maxPods, used when a node
// does not state its pod capacity.
const defaultPodsPerNode = 110

// expandNames applies count: name-0 .. name-(count-1), or just name. A
// count is at most limit, the limit of the objects' kind (Limits).
func (b *builder) expandNames(name string, count *int, limit, line int, where string) ([]string, error) {
	if count == nil {
		return []string{name}, nil
	}
	if *count < 1 || *count > limit {
		return nil, b.failf(line, where+".count", "%d is not in 1..%d", *count, limit)
	}
	names := make([]string, *count)
	for i := range names {
		names[i] = name + "-" + strconv.Itoa(i)
	}
	if last := names[len(names)-1]; len(last) > 253 {
		return nil, b.failf(line, where+".count", "the name of the last copy, %s, is longer than 253 characters", last)
	}
	return names, nil
}

func (b *builder) budgets(f *schema.File) error {
	for i, s := range f.Budgets {
		where := b.entry(s.Origin, "podDisruptionBudgets", i, s.Name)
		if err := b.checkNames(s.Line, where, s.Name, s.Namespace); err != nil {
			return err
		}
		pdb := cluster.PodDisruptionBudget{Name: s.Name, Namespace: s.Namespace}
		if first, dup := b.budgetKeys[pdb.Key()]; dup {
			return b.failf(s.Line, where+".name", "pod disruption budget %s is defined twice: first in %s", cluster.PodKey(pdb.Key()).Display(), first)
		}
		b.budgetKeys[pdb.Key()] = fmt.Sprintf("%s, line %d (%s)", b.file, s.Line, where)
		var err error
		if pdb.Selector, err = budgetSelector(s.Selector, where+".selector"); err != nil {
			return b.decodeFail(err)
		}
		if pdb.MinAvailable, err = parseIntOrPercent(s.MinAvailable); err != nil {
			return b.fail(s.Line, where+".minAvailable", err)
		}
		if pdb.MaxUnavailable, err = parseIntOrPercent(s.MaxUnavailable); err != nil {
			return b.fail(s.Line, where+".maxUnavailable", err)
		}
		if err := pdb.Validate(); err != nil {
			return b.fail(s.Line, where, err)
		}
		b.sc.Budgets = append(b.sc.Budgets, pdb)
	}
	return nil
}

// budgetSelector reads a budget's selector: a label map, or a Kubernetes
// label selector (a mapping with matchLabels or matchExpressions).
func budgetSelector(n *yaml.Node, path string) (*cluster.LabelSelector, error) {
	if n == nil || n.Tag == "!!null" {
		return nil, nil
	}
	ml, me := schema.MapValue(n, "matchLabels"), schema.MapValue(n, "matchExpressions")
	if ml != nil && ml.Kind == yaml.MappingNode || me != nil && me.Kind == yaml.SequenceNode {
		var s schema.LabelSelector
		if err := schema.DecodeField(n, &s, path); err != nil {
			return nil, err
		}
		return s.Convert(), nil
	}
	var labels map[string]string
	if err := schema.DecodeField(n, &labels, path); err != nil {
		return nil, err
	}
	return &cluster.LabelSelector{MatchLabels: labels}, nil
}

// checkResourceNames checks the names of a scenario's resource list as
// the API server would (schema.CheckResourceName); the error names the
// resource.
func checkResourceNames(list map[string]string, use schema.ResourceUse) error {
	bad := false
	for name := range list {
		if schema.CheckResourceName(name, use) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(list)) { // the first in name order
		if err := schema.CheckResourceName(name, use); err != nil {
			return &cluster.FieldError{Sentinel: cluster.ErrQuantity, Field: name, Detail: err.Error()}
		}
	}
	return nil
}

func parseIntOrPercent(s *string) (*cluster.IntOrPercent, error) {
	if s == nil {
		return nil, nil
	}
	text, pct := strings.CutSuffix(*s, "%")
	v, err := strconv.ParseInt(text, 10, 32)
	if err != nil || v < 0 {
		return nil, fmt.Errorf("%q is not a count or a percentage", *s)
	}
	return &cluster.IntOrPercent{Value: int32(v), Percent: pct}, nil
}

// parseTime reads a simulated time or duration ("0s", "5m", "6m30s");
// empty means 0. It is at most gangsim.MaxSimulatedTime, a hundred years.
func parseTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && durationSyntax.MatchString(s):
		return 0, errBeyond(s) // too large for a time.Duration
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration like 90s or 5m", s)
	case d < 0:
		return 0, fmt.Errorf("%q is negative", s)
	case d > gangsim.MaxSimulatedTime:
		return 0, errBeyond(s)
	}
	return d, nil
}

// durationSyntax is a positive duration as time.ParseDuration writes it.
var durationSyntax = regexp.MustCompile(`^\+?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

func errBeyond(s string) error {
	return fmt.Errorf("%q is beyond the largest simulated time, %v (a hundred years)", s, gangsim.MaxSimulatedTime)
}

func (b *builder) events(f *schema.File) error {
	for i := range f.Events {
		s := &f.Events[i]
		where := b.entry(nil, "events", i, "")
		at, err := parseTime(s.At)
		if err != nil {
			return b.fail(s.Line, where+".at", err)
		}
		ev, err := b.event(s, where)
		if err != nil {
			return err
		}
		ev.At, ev.Source = at, Source{File: b.file, Line: s.Line, Path: where}
		b.sc.Events = append(b.sc.Events, ev)
	}
	return nil
}

// event converts one event, which must hold exactly one action.
func (b *builder) event(s *schema.Event, where string) (Event, error) {
	var evs []Event
	if s.AddNode != nil {
		if s.AddNode.Count != nil {
			return Event{}, b.failf(s.Line, where+".addNode.count", "an event adds one node")
		}
		delete(b.nodeNames, s.AddNode.Name) // registered while the nodes were read
		nodes, err := b.expandNode(s.AddNode, where+".addNode")
		if err != nil {
			return Event{}, err
		}
		evs = append(evs, Event{Kind: AddNode, Node: &nodes[0]})
	}
	for _, named := range []struct {
		kind EventKind
		name string
	}{{CordonNode, s.CordonNode}, {UncordonNode, s.UncordonNode}, {RemoveNode, s.RemoveNode}, {DrainNode, s.DrainNode}, {DeletePod, s.DeletePod}, {UngatePod, s.UngatePod}} {
		if named.name == "" {
			continue
		}
		if err := b.checkTarget(named.kind, named.name, s.Line, where); err != nil {
			return Event{}, err
		}
		evs = append(evs, Event{Kind: named.kind, Name: named.name})
	}
	if len(evs) != 1 {
		return Event{}, b.failf(s.Line, where, "needs exactly one of addNode, cordonNode, uncordonNode, removeNode, drainNode, deletePod, ungatePod (has %d)", len(evs))
	}
	return evs[0], nil
}

func (b *builder) checkTarget(kind EventKind, name string, line int, where string) error {
	switch kind {
	case DeletePod:
		if !b.podNames[podKeyOf(name)] {
			return b.failf(line, where+".deletePod", "pod %q is not defined", name)
		}
		return nil
	case UngatePod:
		if !b.podNames[podKeyOf(name)] {
			return b.failf(line, where+".ungatePod", "pod %q is not defined", name)
		}
		if !b.gated(podKeyOf(name)) {
			return b.failf(line, where+".ungatePod", "pod %q has no schedulingGates: there is nothing to remove", name)
		}
		return nil
	}
	if !b.nodeNames[name] {
		return b.failf(line, where+"."+string(kind), "node %q is not defined", name)
	}
	return nil
}

// gated reports whether the pod key names has scheduling gates; the set of
// such pods is made on the first question.
func (b *builder) gated(key cluster.PodKey) bool {
	if b.gatedPods == nil {
		b.gatedPods = map[cluster.PodKey]bool{}
		for i := range b.sc.Pods {
			if p := &b.sc.Pods[i].Pod; len(p.SchedulingGates) > 0 {
				b.gatedPods[p.Key()] = true
			}
		}
	}
	return b.gatedPods[key]
}

// podKeyOf reads a pod reference: "name" (default namespace) or "ns/name".
func podKeyOf(ref string) cluster.PodKey {
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return cluster.MakePodKey(ns, name)
	}
	return cluster.MakePodKey("", ref)
}

func (b *builder) explain(f *schema.File) error {
	for i, name := range f.Explain {
		key := podKeyOf(name)
		if !b.podNames[key] {
			return b.failf(0, b.entry(nil, "explain", i, ""), "pod %q is not defined", name)
		}
		b.sc.Explain = append(b.sc.Explain, key)
	}
	return nil
}

func (b *builder) namespaces(f *schema.File) error {
	for i, s := range f.Namespaces {
		where := b.entry(s.Origin, "namespaces", i, s.Name)
		if s.Name == "" {
			return b.failf(s.Line, where+".name", "required")
		}
		if err := schema.NameError(s.Name, true); err != nil {
			return b.fail(s.Line, where+".name", err)
		}
		if b.nsDefined[s.Name] {
			return b.failf(s.Line, where+".name", "namespace %q is defined twice", s.Name)
		}
		b.nsDefined[s.Name] = true
		b.sc.Namespaces = append(b.sc.Namespaces, cluster.Namespace{Name: s.Name, Labels: s.Labels})
	}
	return nil
}
