package schema

import (
	"fmt"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// aliasFactor and aliasAllowance make the limit on aliases proportional
// to what a file writes out: aliases repeat at most aliasFactor times the
// file's own values, plus aliasAllowance.
const (
	aliasFactor    = 10
	aliasAllowance = 10_000
)

// Expansion counts what the aliases of one file make the decoders read,
// and holds the values they share. A YAML alias names a value written
// elsewhere in the file; followed blindly, a few kilobytes of anchors
// nested in anchors stand for billions of values.
type Expansion struct {
	limit  int // values aliases may still repeat
	used   int
	own    int // values the file writes out
	cap    int // the most values aliases may repeat, whatever the file
	shared map[sharedKey]reflect.Value
	sizes  map[*yaml.Node]int  // expanded sizes of alias targets, for captured nodes
	active map[*yaml.Node]bool // targets being measured: a cycle
}

// sharedKey is a value decoded from a node into a type.
type sharedKey struct {
	node *yaml.Node
	typ  reflect.Type
}

// NewExpansion returns the counter of a file whose documents are docs: its
// aliases may repeat at most aliasFactor times the values the file writes
// out, plus aliasAllowance, and never more than aliasCap values.
func NewExpansion(docs []*yaml.Node, aliasCap int) *Expansion {
	own := 0
	for _, d := range docs {
		own += countNodes(d)
	}
	limit := min(aliasFactor*own+aliasAllowance, aliasCap)
	return &Expansion{limit: limit, own: own, cap: aliasCap, shared: map[sharedKey]reflect.Value{},
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
func (e *Expansion) charge(k int) error {
	e.used += k
	if e.used > e.limit {
		return e.overError()
	}
	return nil
}

func (e *Expansion) overError() error {
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

// ChargeAlias counts what the alias n repeats (nothing on a nil
// Expansion: JSON has no aliases), for a node read again apart from the
// decoders: a List's item given as an alias.
func (e *Expansion) ChargeAlias(n *yaml.Node) error {
	if e == nil {
		return nil
	}
	return e.chargeTree(n)
}

// chargeTree counts the values the aliases inside n repeat, for a node
// kept as it is (a selector, plugin arguments) and decoded later.
func (e *Expansion) chargeTree(n *yaml.Node) error {
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
func (e *Expansion) size(n *yaml.Node) (int, error) {
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

// Tally counts the nodes and pods of a load's inputs against its limits,
// before anything is expanded, so that a count far too large fails at the
// entry that asks for it. Besides the counts it bounds the memory they
// need: a count within the limits may still need more memory than the
// machine has, and fails then too, rather than the run's process being
// killed midway.
type Tally struct {
	maxNodes, maxPods int
	maxBytes          int64 // 0: no bound
	nodes, pods       int
}

// PodPeakBytes and NodePeakBytes are what a pod and a node take at the
// peak of a load and its run, about: a million pods on 100,000 nodes
// peak at 3.2 GB. The memory bound of a Tally counts them.
const (
	PodPeakBytes  = 3 << 10
	NodePeakBytes = 4 << 10
)

// LimitError is a tally's refusal: the inputs go past a limit of nodes
// or pods, or need more memory than the load may take. Once one is found,
// a load reports no more errors (every object after it would go past the
// limit too).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// NewTally returns a tally of nothing yet, with the limits of all inputs
// together; maxBytes bounds the memory their nodes and pods need (0: no
// bound).
func NewTally(maxNodes, maxPods int, maxBytes int64) *Tally {
	return &Tally{maxNodes: maxNodes, maxPods: maxPods, maxBytes: maxBytes}
}

// AddNodes counts n nodes; it fails, counting none, past the limits.
func (t *Tally) AddNodes(n int) error {
	if n > t.maxNodes-t.nodes {
		return &LimitError{fmt.Sprintf("%s more %s would go past the limit of %s nodes in all inputs", commas(n), plural(n, "node", "nodes"), commas(t.maxNodes))}
	}
	if err := t.memory(n, 0, n, "node", "nodes"); err != nil {
		return err
	}
	t.nodes += n
	return nil
}

// AddPods counts n pods; it fails, counting none, past the limits.
func (t *Tally) AddPods(n int) error {
	if err := t.Room(n); err != nil {
		return err
	}
	t.pods += n
	return nil
}

// Room checks that n more pods stay within the limits, without counting
// them.
func (t *Tally) Room(n int) error {
	if n > t.maxPods-t.pods {
		return &LimitError{fmt.Sprintf("%s more %s would go past the limit of %s pods in all inputs", commas(n), plural(n, "pod", "pods"), commas(t.maxPods))}
	}
	return t.memory(0, n, n, "pod", "pods")
}

// memory checks that nodes and pods more (n of the kind named) stay
// within the memory bound.
func (t *Tally) memory(nodes, pods, n int, one, many string) error {
	if t.maxBytes <= 0 {
		return nil
	}
	allNodes, allPods := int64(t.nodes)+int64(nodes), int64(t.pods)+int64(pods)
	need := allNodes*NodePeakBytes + allPods*PodPeakBytes // counts are at most the limits: no overflow
	if need <= t.maxBytes {
		return nil
	}
	return &LimitError{fmt.Sprintf("%s more %s would make %s pods and %s nodes in all inputs, which need about %s of memory at a run's peak (about 3 KiB a pod, 4 KiB a node), more than the %s the load may take (this machine's memory, unless Limits.Memory says otherwise)",
		commas(n), plural(n, one, many), commas(int(allPods)), commas(int(allNodes)), gib(need), gib(t.maxBytes))}
}

// gib spells a size in GiB, to a tenth.
func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// Commas writes n with thousands separators, as the limits' errors do.
func Commas(n int) string { return commas(n) }

// PodLimit is the most pods all inputs together may have.
func (t *Tally) PodLimit() int { return t.maxPods }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
