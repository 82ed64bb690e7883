package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// builder turns the decoded file into a Scenario, checking references and
// applying the Scheduler's own admission rules, so that a file's mistakes
// are reported at load time with their line and field.
type builder struct {
	sc         *Scenario
	classes    cluster.PriorityClasses
	nodeNames  map[string]bool
	podNames   map[cluster.PodKey]bool
	groupByKey map[string]*podgroup.PodGroup // as admitted: priorities resolved
	forest     podgroup.Forest               // the groups as admitted, for parents
	opts       options
}

func newBuilder(name string, opts []Option) *builder {
	b := &builder{sc: &Scenario{Name: name}, nodeNames: map[string]bool{}, podNames: map[cluster.PodKey]bool{}, groupByKey: map[string]*podgroup.PodGroup{}}
	for _, o := range opts {
		o(&b.opts)
	}
	b.sc.registry = b.opts.registry
	return b
}

// fail returns a FieldError for the entry at path and line. When err is a
// cluster.FieldError, its field extends the path.
func (b *builder) fail(line int, path string, err error) error {
	var fe *cluster.FieldError
	if errors.As(err, &fe) {
		path = cluster.JoinField(path, fe.Field)
	}
	return &FieldError{File: b.sc.Name, Line: line, Path: path, Err: err}
}

// failf returns a FieldError whose cause is a formatted message.
func (b *builder) failf(line int, path, format string, args ...any) error {
	return b.fail(line, path, fmt.Errorf(format, args...))
}

func (b *builder) build(f *file) error {
	steps := []func(*file) error{b.config, b.priorityClasses, b.namespaces, b.nodes, b.groups, b.budgets, b.pods, b.workloads, b.events, b.explain}
	for _, step := range steps {
		if err := step(f); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) priorityClasses(f *file) error {
	for i, s := range f.PriorityClasses {
		pc := cluster.PriorityClass{Name: s.Name, Value: s.Value, GlobalDefault: s.GlobalDefault, PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		if err := b.classes.Add(pc); err != nil {
			return b.fail(s.Line, entry("priorityClasses", i, s.Name), err)
		}
		b.sc.PriorityClasses = append(b.sc.PriorityClasses, pc)
	}
	return nil
}

// entry names a list entry: "pods[2] (api)", or "pods[2]" without a name.
func entry(list string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, name)
}

func (b *builder) nodes(f *file) error {
	for i := range f.Nodes {
		nodes, err := b.expandNode(&f.Nodes[i], entry("nodes", i, f.Nodes[i].Name))
		if err != nil {
			return err
		}
		b.sc.Nodes = append(b.sc.Nodes, nodes...)
	}
	// nodes added by events may be named by later events and pods too
	for i, e := range f.Events {
		if e.AddNode != nil {
			if _, err := b.expandNode(e.AddNode, entry("events", i, "")+".addNode"); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandNode converts a node spec, expanding count, and registers names.
func (b *builder) expandNode(s *nodeSpec, where string) ([]cluster.Node, error) {
	if s.Name == "" {
		return nil, b.failf(s.Line, where+".name", "required")
	}
	alloc, err := cluster.ParseResources(s.Allocatable)
	if err != nil {
		return nil, b.fail(s.Line, where+".allocatable", err)
	}
	if _, ok := s.Allocatable[string(cluster.ResourcePods)]; !ok {
		alloc.Pods = defaultPodsPerNode
	}
	n := cluster.Node{Name: s.Name, Labels: s.Labels, Allocatable: alloc, Unschedulable: s.Unschedulable}
	for _, t := range s.Taints {
		n.Taints = append(n.Taints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	names, err := b.expandNames(s.Name, s.Count, s.Line, where)
	if err != nil {
		return nil, err
	}
	out := make([]cluster.Node, 0, len(names))
	for _, name := range names {
		c := n.Clone()
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

// defaultPodsPerNode is the kubelet's default maxPods, used when a node
// does not state its pod capacity.
const defaultPodsPerNode = 110

// maxCount bounds one entry's count, so that a typo cannot exhaust memory.
const maxCount = 1_000_000

// expandNames applies count: name-0 .. name-(count-1), or just name.
func (b *builder) expandNames(name string, count *int, line int, where string) ([]string, error) {
	if count == nil {
		return []string{name}, nil
	}
	if *count < 1 || *count > maxCount {
		return nil, b.failf(line, where+".count", "%d is not in 1..%d", *count, maxCount)
	}
	names := make([]string, *count)
	for i := range names {
		names[i] = name + "-" + strconv.Itoa(i)
	}
	return names, nil
}

func (b *builder) budgets(f *file) error {
	for i, s := range f.Budgets {
		where := entry("podDisruptionBudgets", i, s.Name)
		pdb := cluster.PodDisruptionBudget{Name: s.Name, Namespace: s.Namespace}
		if s.Selector != nil {
			pdb.Selector = &cluster.LabelSelector{MatchLabels: s.Selector}
		}
		var err error
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
// empty means 0.
func parseTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration like 90s or 5m", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

func (b *builder) events(f *file) error {
	for i := range f.Events {
		s := &f.Events[i]
		where := entry("events", i, "")
		at, err := parseTime(s.At)
		if err != nil {
			return b.fail(s.Line, where+".at", err)
		}
		ev, err := b.event(s, where)
		if err != nil {
			return err
		}
		ev.At, ev.Source = at, Source{Line: s.Line, Path: where}
		b.sc.Events = append(b.sc.Events, ev)
	}
	return nil
}

// event converts one event, which must hold exactly one action.
func (b *builder) event(s *eventSpec, where string) (Event, error) {
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
	}{{CordonNode, s.CordonNode}, {UncordonNode, s.UncordonNode}, {RemoveNode, s.RemoveNode}, {DrainNode, s.DrainNode}, {DeletePod, s.DeletePod}} {
		if named.name == "" {
			continue
		}
		if err := b.checkTarget(named.kind, named.name, s.Line, where); err != nil {
			return Event{}, err
		}
		evs = append(evs, Event{Kind: named.kind, Name: named.name})
	}
	if len(evs) != 1 {
		return Event{}, b.failf(s.Line, where, "needs exactly one of addNode, cordonNode, uncordonNode, removeNode, drainNode, deletePod (has %d)", len(evs))
	}
	return evs[0], nil
}

func (b *builder) checkTarget(kind EventKind, name string, line int, where string) error {
	if kind == DeletePod {
		if !b.podNames[podKeyOf(name)] {
			return b.failf(line, where+".deletePod", "pod %q is not defined", name)
		}
		return nil
	}
	if !b.nodeNames[name] {
		return b.failf(line, where+"."+string(kind), "node %q is not defined", name)
	}
	return nil
}

// podKeyOf reads a pod reference: "name" (default namespace) or "ns/name".
func podKeyOf(ref string) cluster.PodKey {
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return cluster.MakePodKey(ns, name)
	}
	return cluster.MakePodKey("", ref)
}

func (b *builder) explain(f *file) error {
	for i, name := range f.Explain {
		key := podKeyOf(name)
		if !b.podNames[key] {
			return b.failf(0, fmt.Sprintf("explain[%d]", i), "pod %q is not defined", name)
		}
		b.sc.Explain = append(b.sc.Explain, key)
	}
	return nil
}

func (b *builder) namespaces(f *file) error {
	seen := map[string]bool{}
	for i, s := range f.Namespaces {
		where := entry("namespaces", i, s.Name)
		if s.Name == "" {
			return b.failf(s.Line, where+".name", "required")
		}
		if seen[s.Name] {
			return b.failf(s.Line, where+".name", "namespace %q is defined twice", s.Name)
		}
		seen[s.Name] = true
		b.sc.Namespaces = append(b.sc.Namespaces, cluster.Namespace{Name: s.Name, Labels: s.Labels})
	}
	return nil
}
