package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// PendingPod is a pod pending at the report's end, and why.
type PendingPod struct {
	Pod      string // as PendingPods names it
	Priority int32
	Workload string // see Workload
	Group    string // its PodGroup ("namespace/name" outside the default namespace); "" for none
	// Since is when it became pending: its arrival, or when it last left
	// a node (an evicted pod once terminated, a removed node's pods).
	Since time.Duration
	// Reason is why it is pending in the scheduler's words: its last
	// failed attempt's message (kube-scheduler's "0/5 nodes are
	// available: ..."), why it was evicted, or what its gang waits for;
	// "not attempted yet" when nothing was said.
	Reason string
	// Explanation says, in a planner's words, what the nodes at the end
	// leave it: no node could hold it even empty (and why not), nodes
	// could but none has room, or room is free and a rule beyond room
	// holds it.
	Explanation string
}

// notAttempted is the reason of a pending pod nothing was said of.
const notAttempted = "not attempted yet"

// pendingDetails returns the pods pending now with their reasons and
// explanations, in name order.
func (r *Recorder) pendingDetails() []PendingPod {
	var out []PendingPod
	fits := map[string]*nodeFit{} // by shape
	for _, p := range r.pods {
		if !p.pending {
			continue
		}
		fit := fits[p.shape]
		if fit == nil {
			fit = r.fitOf(p)
			fits[p.shape] = fit
		}
		pp := PendingPod{Pod: p.info.Key().Display(), Priority: p.info.Priority(), Workload: p.workload,
			Since: p.since, Reason: r.reasonOf(p), Explanation: r.explain(p, fit)}
		if p.group != nil {
			pp.Group = cluster.PodKey(p.group.key).Display()
		}
		out = append(out, pp)
	}
	slices.SortFunc(out, func(a, b PendingPod) int { return strings.Compare(a.Pod, b.Pod) })
	return out
}

// reasonOf is a pending pod's reason: the Scheduler's as it stands when
// the Recorder is attached, else the stream's last.
func (r *Recorder) reasonOf(p *podState) string {
	reason := p.reason
	if r.status != nil {
		if st, ok := r.status(p.info.Key()); ok && st.Reason != "" {
			reason = st.Reason
		}
	}
	if reason == "" {
		return notAttempted
	}
	return reason
}

// nodeFit is how a pending pod's request and placement constraints meet
// the nodes: each node counted under the first thing that excludes it
// (node selector and affinity, then taints, then size), or as eligible
// (it could hold the pod were it empty).
type nodeFit struct {
	nodes            int
	unmatched        int   // node selector or required node affinity
	tainted          int   // a NoSchedule or NoExecute taint not tolerated
	small            int   // allocatable below the request
	smallBy          []int // per resource number: nodes with less allocatable than the request
	eligible         int   // schedulable and eligible
	eligibleCordoned int   // eligible but cordoned
	fitsNow          int   // eligible, and the request fits its free room
	freeSomewhere    []bool
}

// fitOf measures a pod against the nodes as they are now.
func (r *Recorder) fitOf(p *podState) *nodeFit {
	f := &nodeFit{smallBy: make([]int, len(p.vec)), freeSomewhere: make([]bool, len(p.vec))}
	pod := p.info.Pod()
	for _, ns := range r.nodes {
		f.nodes++
		switch {
		case !cluster.MatchesSelector(pod.NodeSelector, ns.node.Labels) ||
			pod.Affinity != nil && !pod.Affinity.NodeAffinity.MatchesNode(ns.node):
			f.unmatched++
		case !tolerates(pod, ns.node):
			f.tainted++
		case !fits(p.vec, ns.alloc):
			f.small++
			for i, x := range p.vec {
				if x > at(ns.alloc, i) {
					f.smallBy[i]++
				}
			}
		case !ns.schedulable:
			f.eligibleCordoned++
		default:
			f.eligible++
			f.countFree(p.vec, ns)
		}
	}
	return f
}

// countFree notes which of the request's resources an eligible node has
// free, and whether all of them are.
func (f *nodeFit) countFree(vec []int64, ns *nodeState) {
	all := true
	for i, x := range vec {
		if x == 0 {
			continue
		}
		if x <= at(ns.alloc, i)-at(ns.used, i) {
			f.freeSomewhere[i] = true
		} else {
			all = false
		}
	}
	if all {
		f.fitsNow++
	}
}

// tolerates reports whether a pod tolerates a node's NoSchedule and
// NoExecute taints.
func tolerates(p *cluster.Pod, n *cluster.Node) bool {
	for i := range n.Taints {
		t := &n.Taints[i]
		if t.Effect != cluster.TaintPreferNoSchedule && !cluster.TolerationsTolerate(p.Tolerations, t) {
			return false
		}
	}
	return true
}

// explain says what the nodes leave a pending pod.
func (r *Recorder) explain(p *podState, f *nodeFit) string {
	switch {
	case f.nodes == 0:
		return "the cluster has no node"
	case f.eligible == 0 && f.eligibleCordoned > 0:
		return fmt.Sprintf("only cordoned nodes could hold it (%d of %d nodes)", f.eligibleCordoned, f.nodes)
	case f.eligible == 0:
		return fmt.Sprintf("no node could hold it even empty: of %d nodes, %s; more nodes of these kinds would not place it",
			f.nodes, strings.Join(r.exclusions(p, f), ", "))
	case f.fitsNow == 0:
		return r.noRoom(p, f)
	case p.group != nil && !p.group.bound:
		return fmt.Sprintf("%s free now, but its PodGroup %s is placed whole or not at all, and the group finds no placement (see the reason)",
			nodes(f.fitsNow, "node has its request", "nodes have its request"), cluster.PodKey(p.group.key).Display())
	}
	return fmt.Sprintf("%s free now: a rule beyond room holds it (see the reason: pod affinity or spread, ports, devices, its gang)",
		nodes(f.fitsNow, "node has its request", "nodes have its request"))
}

// exclusions lists why the nodes cannot hold a pod even empty.
func (r *Recorder) exclusions(p *podState, f *nodeFit) []string {
	var parts []string
	if f.unmatched > 0 {
		parts = append(parts, fmt.Sprintf("%s its node selector or affinity", nodes(f.unmatched, "does not match", "do not match")))
	}
	if f.tainted > 0 {
		parts = append(parts, fmt.Sprintf("%s a taint it does not tolerate", nodes(f.tainted, "has", "have")))
	}
	if f.small > 0 {
		var short []string
		for i, n := range f.smallBy {
			if n > 0 {
				short = append(short, r.amount(i, p.vec[i]))
			}
		}
		parts = append(parts, fmt.Sprintf("%s less allocatable than it requests (%s)", nodes(f.small, "has", "have"), strings.Join(short, ", ")))
	}
	return parts
}

// noRoom explains a pod that eligible nodes could hold were they empty.
func (r *Recorder) noRoom(p *podState, f *nodeFit) string {
	var short []string
	for i, free := range f.freeSomewhere {
		if p.vec[i] > 0 && !free {
			short = append(short, r.amount(i, p.vec[i]))
		}
	}
	msg := fmt.Sprintf("waits for room: %s hold it empty, but ", nodes(f.eligible, "node could", "nodes could"))
	if len(short) > 0 {
		msg += "none has " + strings.Join(short, " and ") + " free"
	} else {
		msg += "the free room is split: each resource it requests is free on some node, all of them on none"
	}
	if p.info.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever {
		msg += "; it may not preempt (preemptionPolicy Never)"
	}
	return msg
}

// amount renders an amount of resource i: "16 cores of cpu", "8
// nvidia.com/gpu", "a pod slot".
func (r *Recorder) amount(i int, v int64) string {
	name := r.res.names[i]
	if name == cluster.ResourcePods {
		return "a pod slot"
	}
	unit, scale := Unit(name)
	if unit == "cores" || unit == "GiB" {
		return fmt.Sprintf("%s %s of %s", num(float64(v)/scale), unit, name)
	}
	return fmt.Sprintf("%s %s", num(float64(v)/scale), name) // "8 nvidia.com/gpu"
}

// nodes renders a node count with its verb: "1 node has", "3 nodes have".
func nodes(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PendingCause is one workload's pending pods that share an explanation.
type PendingCause struct {
	Workload    string
	Explanation string
	Pods        int
	Example     string // the first of them by name
}

// PendingCauses groups the pending pods by workload and explanation,
// most pods first, then by workload and explanation.
func (rep *Report) PendingCauses() []PendingCause {
	type key struct{ workload, explanation string }
	index := map[key]int{}
	var out []PendingCause
	for _, p := range rep.Pending { // in name order: the first seen is the example
		k := key{p.Workload, p.Explanation}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, PendingCause{Workload: p.Workload, Explanation: p.Explanation, Example: p.Pod})
		}
		out[i].Pods++
	}
	slices.SortFunc(out, func(a, b PendingCause) int {
		if a.Pods != b.Pods {
			return b.Pods - a.Pods
		}
		return cmp.Or(strings.Compare(a.Workload, b.Workload), strings.Compare(a.Explanation, b.Explanation))
	})
	return out
}
