package framework

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gangsim/gangsim/cluster"
)

// NodeStatus is one node's filter verdict (Node is the snapshot index).
type NodeStatus struct {
	Node   int
	Status *Status
}

// FitError says that no node fits a pod, node by node.
type FitError struct {
	Pod         cluster.PodKey
	NumAllNodes int
	// Statuses holds one rejection per node examined, in node order; each
	// names the plugin that gave it. Read-only: pods that failed alike
	// may share one list.
	Statuses []NodeStatus

	// summary holds what Error, Resolvable and Plugins compute from the
	// statuses, each made at its first read, for the FitErrors of pods
	// that failed alike (see For); nil until then.
	summary *fitSummary
}

// fitSummary is what Error, Resolvable and Plugins compute from the
// statuses. Each is made when first read, not when the FitError is
// shared: a retry nobody watches formats no message. The fields are
// atomic for the forks of a scheduler (what-if searches) that read a
// shared FitError from their own goroutines.
type fitSummary struct {
	msg        atomic.Pointer[string]
	resolvable atomic.Pointer[[]int]
	plugins    atomic.Pointer[[]string]
}

// For returns the FitError of another pod that failed exactly as e's did:
// the same node statuses (shared, not copied), its message and resolvable
// nodes computed once for all such pods.
func (e *FitError) For(pod cluster.PodKey) *FitError {
	e.Summarize()
	c := *e
	c.Pod = pod
	return &c
}

// Summarize marks e as read many times (shared by the pods that failed
// alike): its message, resolvable nodes and rejecting plugins are then
// computed once each, at their first read; e must not change afterwards.
func (e *FitError) Summarize() {
	if e.summary == nil {
		e.summary = &fitSummary{}
	}
}

// once returns *p, made by make and stored at the first call.
func once[T any](p *atomic.Pointer[T], make func() T) T {
	if v := p.Load(); v != nil {
		return *v
	}
	v := make()
	p.CompareAndSwap(nil, &v)
	return *p.Load()
}

// Error renders kube-scheduler's message: "0/5 nodes are available: 2
// node(s) had untolerated taint(s), 3 Insufficient cpu." The parts are
// "count reason" strings sorted as strings, as kube-scheduler sorts them
// (so "10 ..." comes before "2 ...").
func (e *FitError) Error() string {
	if e.summary != nil {
		return once(&e.summary.msg, e.message)
	}
	return e.message()
}

func (e *FitError) message() string {
	if e.NumAllNodes == 0 {
		return "no nodes available to schedule pods"
	}
	// a failed pod's message is made at every retry: a short list of
	// the few distinct reasons, not a map and formatting
	type reasonCount struct {
		reason string
		n      int
	}
	var countsBuf [8]reasonCount
	counts := countsBuf[:0]
	for _, ns := range e.Statuses {
	reasons:
		for _, reason := range ns.Status.Reasons() {
			for i := range counts {
				if counts[i].reason == reason {
					counts[i].n++
					continue reasons
				}
			}
			counts = append(counts, reasonCount{reason, 1})
		}
	}
	parts := make([]string, 0, len(counts))
	for _, c := range counts {
		parts = append(parts, strconv.Itoa(c.n)+" "+c.reason)
	}
	slices.Sort(parts)
	msg := "0/" + strconv.Itoa(e.NumAllNodes) + " nodes are available"
	if len(parts) == 0 {
		return msg + "."
	}
	return msg + ": " + strings.Join(parts, ", ") + "."
}

// Resolvable yields the nodes whose rejection preemption might cure
// (Unschedulable, not UnschedulableAndUnresolvable), in node order.
// Read-only: the pods that fail alike share it.
func (e *FitError) Resolvable() []int {
	if e.summary != nil {
		return once(&e.summary.resolvable, e.resolvableNodes)
	}
	return e.resolvableNodes()
}

func (e *FitError) resolvableNodes() []int {
	n := 0 // counted first: a list grown by appends left its copies to the collector
	for _, ns := range e.Statuses {
		if ns.Status.Code() == Unschedulable {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]int, 0, n)
	for _, ns := range e.Statuses {
		if ns.Status.Code() == Unschedulable {
			out = append(out, ns.Node)
		}
	}
	return out
}

// Plugins returns the names of the plugins that rejected some node, in
// name order ("" for a rejection that names none). Read-only: the pods that
// fail alike share it.
func (e *FitError) Plugins() []string {
	if e.summary != nil {
		return once(&e.summary.plugins, e.rejectors)
	}
	return e.rejectors()
}

func (e *FitError) rejectors() []string {
	var out []string
	for _, ns := range e.Statuses {
		if p := ns.Status.Plugin(); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// StatusOf returns the rejection of the node at index node, or nil when
// the node was not examined.
func (e *FitError) StatusOf(node int) *Status {
	i, ok := slices.BinarySearchFunc(e.Statuses, node, func(ns NodeStatus, n int) int { return ns.Node - n })
	if !ok {
		return nil
	}
	return e.Statuses[i].Status
}

// PluginRejections is one filter plugin's share of a FitError: how many
// nodes it rejected and for which reasons.
type PluginRejections struct {
	Plugin  string
	Nodes   int
	Reasons []ReasonCount // most frequent first, then by reason
}

// ReasonCount is a reason and the number of nodes that gave it.
type ReasonCount struct {
	Reason string
	Nodes  int
}

// Diagnosis breaks the FitError down by filter plugin, plugins in name
// order: how many nodes each rejected and why.
func (e *FitError) Diagnosis() []PluginRejections {
	byPlugin := map[string]map[string]int{}
	nodes := map[string]int{}
	for _, ns := range e.Statuses {
		p := ns.Status.Plugin()
		if byPlugin[p] == nil {
			byPlugin[p] = map[string]int{}
		}
		nodes[p]++
		for _, r := range ns.Status.Reasons() {
			byPlugin[p][r]++
		}
	}
	out := make([]PluginRejections, 0, len(byPlugin))
	for p, reasons := range byPlugin {
		pr := PluginRejections{Plugin: p, Nodes: nodes[p]}
		for r, n := range reasons {
			pr.Reasons = append(pr.Reasons, ReasonCount{Reason: r, Nodes: n})
		}
		slices.SortFunc(pr.Reasons, func(a, b ReasonCount) int {
			if a.Nodes != b.Nodes {
				return b.Nodes - a.Nodes
			}
			return strings.Compare(a.Reason, b.Reason)
		})
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b PluginRejections) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out
}
