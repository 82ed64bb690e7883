package scenario

import (
	"fmt"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Limits bound what one load may hold, so that a mistake (a count with
// three zeros too many) or a hostile file fails at once with an error
// naming the field, instead of exhausting memory or time. The defaults
// (DefaultLimits) leave room for a cluster of a million nodes running ten
// million pods; docs/scenario-format.md lists them.
type Limits struct {
	// FileSize bounds each input file, in bytes.
	FileSize int64
	// Nodes bounds the nodes of all inputs together, after count
	// expansion, nodes that events add included.
	Nodes int
	// Pods bounds the pods of all inputs together, after count expansion,
	// the pods workloads make included.
	Pods int
	// AliasedValues bounds the values YAML aliases (*name) repeat in one
	// file, counted each time they are repeated. Whatever this says, a
	// file's aliases may repeat at most ten times the values the file
	// writes out, plus 10,000. A label map or a list of strings repeated
	// by an alias is shared, not copied, and counts once.
	AliasedValues int
}

// DefaultLimits are the limits a load has unless WithLimits changes them.
func DefaultLimits() Limits {
	return Limits{FileSize: 1 << 30, Nodes: 1_000_000, Pods: 10_000_000, AliasedValues: 100_000_000}
}

// WithLimits changes the limits of a load; a zero field keeps its default.
// A service that loads scenarios from others may want tighter ones.
func WithLimits(l Limits) Option {
	return func(o *options) {
		d := DefaultLimits()
		if l.FileSize > 0 {
			d.FileSize = l.FileSize
		}
		if l.Nodes > 0 {
			d.Nodes = l.Nodes
		}
		if l.Pods > 0 {
			d.Pods = l.Pods
		}
		if l.AliasedValues > 0 {
			d.AliasedValues = l.AliasedValues
		}
		o.limits = &d
	}
}

// aliasFactor and aliasAllowance make the limit on aliases proportional
// to what a file writes out: aliases repeat at most aliasFactor times the
// file's own values, plus aliasAllowance.
const (
	aliasFactor    = 10
	aliasAllowance = 10_000
)

// expansion counts what the aliases of one file make the decoders read,
// and holds the values they share. A YAML alias names a value written
// elsewhere in the file; followed blindly, a few kilobytes of anchors
// nested in anchors stand for billions of values.
type expansion struct {
	limit  int // values aliases may still repeat
	used   int
	own    int // values the file writes out
	cap    int // Limits.AliasedValues
	shared map[sharedKey]reflect.Value
	sizes  map[*yaml.Node]int  // expanded sizes of alias targets, for captured nodes
	active map[*yaml.Node]bool // targets being measured: a cycle
}

// sharedKey is a value decoded from a node into a type.
type sharedKey struct {
	node *yaml.Node
	typ  reflect.Type
}

// newExpansion returns the counter of a file whose documents are docs.
func newExpansion(docs []*yaml.Node, aliasCap int) *expansion {
	own := 0
	for _, d := range docs {
		own += countNodes(d)
	}
	limit := min(aliasFactor*own+aliasAllowance, aliasCap)
	return &expansion{limit: limit, own: own, cap: aliasCap, shared: map[sharedKey]reflect.Value{},
		sizes: map[*yaml.Node]int{}, active: map[*yaml.Node]bool{}}
}

// countNodes counts the nodes of a tree as written: an alias counts one.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, child := range n.Content {
		c += countNodes(child)
	}
	return c
}

// charge counts k values repeated by an alias; it fails past the limit.
func (e *expansion) charge(k int) error {
	e.used += k
	if e.used > e.limit {
		return e.overError()
	}
	return nil
}

func (e *expansion) overError() error {
	if e.limit == e.cap {
		return &aliasLimitError{msg: fmt.Sprintf("aliases repeat more than %s values, the limit of a file", commas(e.cap))}
	}
	return &aliasLimitError{msg: fmt.Sprintf("aliases repeat more than %s values: a file's aliases may repeat at most %d times the %s values it writes out, plus %s",
		commas(e.limit), aliasFactor, commas(e.own), commas(aliasAllowance))}
}

// aliasLimitError is the error of a file whose aliases repeat too much;
// the decoder reports it at the alias that went past the limit.
type aliasLimitError struct {
	msg    string
	placed bool // reported at its alias already
}

func (e *aliasLimitError) Error() string { return e.msg }

// commas renders n with thousands separators: 10,000.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// chargeTree counts the values the aliases inside n repeat, for a node
// kept as it is (a selector, plugin arguments) and decoded later.
func (e *expansion) chargeTree(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode {
		size, err := e.size(n.Alias)
		if err != nil {
			return err
		}
		return e.charge(size)
	}
	for _, child := range n.Content {
		if err := e.chargeTree(child); err != nil {
			return err
		}
	}
	return nil
}

// size is the number of values n stands for, its aliases followed; it
// stops counting past the limit.
func (e *expansion) size(n *yaml.Node) (int, error) {
	if s, ok := e.sizes[n]; ok {
		return s, nil
	}
	if e.active[n] {
		return 0, errAliasCycle(n)
	}
	e.active[n] = true
	defer delete(e.active, n)
	total := 1
	for _, child := range n.Content {
		target := child
		if child.Kind == yaml.AliasNode {
			target = child.Alias
			total++
		}
		s, err := e.size(target)
		if err != nil {
			return 0, err
		}
		total += s
		if total > e.limit {
			return 0, e.overError()
		}
	}
	e.sizes[n] = total
	return total, nil
}

func errAliasCycle(n *yaml.Node) error {
	name := n.Anchor
	if name == "" {
		name = "?"
	}
	return fmt.Errorf("the value of anchor &%s holds an alias to itself", name)
}

// shareable reports whether values of type t decoded from one node may be
// shared by every alias to it: label maps and lists of strings, which
// nothing changes once decoded.
func shareable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Map:
		return t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	}
	return false
}

// tally counts the nodes and pods of a load's inputs against the limits,
// before anything is expanded.
type tally struct {
	lim         *Limits
	nodes, pods int
}

// scenarioEntries counts what the scenario files' entries make, count
// expanded; the error names the entry that goes past a limit. A count out
// of range is left to the builder, which says so.
func (t *tally) scenarioEntries(ins []*input) error {
	for _, in := range ins {
		f := in.spec
		for i := range f.Nodes {
			s := &f.Nodes[i]
			if err := t.entry(in.name, s.Line, "nodes", i, s.Name, "", s.Count, t.addNodes); err != nil {
				return err
			}
		}
		for i, e := range f.Events {
			if e.AddNode != nil {
				if err := t.entry(in.name, e.Line, "events", i, "", ".addNode", nil, t.addNodes); err != nil {
					return err
				}
			}
		}
		for i := range f.Pods {
			s := &f.Pods[i]
			if err := t.entry(in.name, s.Line, "pods", i, s.Name, "", s.Count, t.addPods); err != nil {
				return err
			}
		}
	}
	return nil
}

// entry counts entry i of a scenario file's list, named name, or the
// object in its field (".addNode"). The entry's path is made only for an
// error: a file may hold a million entries.
func (t *tally) entry(file string, line int, list string, i int, name, field string, count *int, add func(int) error) error {
	n := 1
	if count != nil {
		if *count < 1 {
			return nil
		}
		n = *count
	}
	if err := add(n); err != nil {
		where := entry(list, i, name) + field
		if count != nil {
			where += ".count"
		}
		return &FieldError{File: file, Line: line, Path: where, Err: err}
	}
	return nil
}

func (t *tally) addNodes(n int) error {
	if n > t.lim.Nodes-t.nodes {
		return fmt.Errorf("%s more %s would go past the limit of %s nodes in all inputs", commas(n), plural(n, "node", "nodes"), commas(t.lim.Nodes))
	}
	t.nodes += n
	return nil
}

func (t *tally) addPods(n int) error {
	if err := t.room(n); err != nil {
		return err
	}
	t.pods += n
	return nil
}

// room checks that n more pods stay within the limit, without counting
// them.
func (t *tally) room(n int) error {
	if n > t.lim.Pods-t.pods {
		return fmt.Errorf("%s more %s would go past the limit of %s pods in all inputs", commas(n), plural(n, "pod", "pods"), commas(t.lim.Pods))
	}
	return nil
}

// room counts n pods an object makes; the error names the object and the
// field that asks for them.
func (k *kubeImport) room(o *kubeObject, field string, n int) error {
	if n <= 0 {
		return nil
	}
	if err := k.tally.addPods(n); err != nil {
		return o.fail(nil, field, err)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
