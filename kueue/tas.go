package kueue

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// Topology-aware scheduling (TAS), as Kueue v0.19's cache and flavor
// assigner run it. A ResourceFlavor naming a Topology is a TAS flavor;
// its nodes (those with the flavor's node labels and every level's label,
// not cordoned) form a tree of domains, one level per label of the
// Topology, the leaves being the lowest level's domains (a node each when
// the lowest level is kubernetes.io/hostname). A leaf's capacity is its
// nodes' allocatable less what pods not of TAS workloads request there;
// the admitted TAS workloads' assignments are counted against it too.
//
// A pod set asks for TAS explicitly (a TopologyRequest), or implicitly
// when every flavor of its ClusterQueue is a TAS flavor. Once its quota
// fits, each such pod set is given a TopologyAssignment: the domains of
// its flavor's tree it is placed in and the pods in each (tasplace.go
// chooses them). A pod set that does not fit makes the workload wait
// with Kueue's message ("topology ... doesn't allow to fit any of 3
// pod(s)"). The snapshot is built once per cycle, from the nodes the
// caller gives (SetNodes), and the cycle's admissions are counted in it
// as they are made.

// TopologyRequest is a pod set's topology request, from the annotations
// kueue.x-k8s.io/podset-required-topology, -preferred-topology,
// -unconstrained-topology, -slice-required-topology and -slice-size.
type TopologyRequest struct {
	// Required and Preferred name a level (a node label of the Topology);
	// "" when not given. At most one of them, or Unconstrained, is set.
	Required, Preferred string
	Unconstrained       bool
	// SliceRequired names the level each slice of SliceSize pods must
	// fit in; "" when the pod set is not cut in slices.
	SliceRequired string
	SliceSize     int32
}

// explicit reports whether the request asks for TAS at all.
func (t *TopologyRequest) explicit() bool {
	return t != nil && (t.Required != "" || t.Preferred != "" || t.Unconstrained || t.SliceRequired != "" || t.SliceSize != 0)
}

// TopologyAssignment is where a pod set's pods go: the levels the
// domains are named by (only kubernetes.io/hostname when that is the
// Topology's lowest level) and, by domain in order of their values, how
// many pods.
type TopologyAssignment struct {
	Levels  []string
	Domains []TopologyDomain
}

// TopologyDomain is one domain of a TopologyAssignment: its value of
// each level and its pods.
type TopologyDomain struct {
	Values []string
	Count  int32
}

// clone is a deep copy (nil for nil).
func (t *TopologyAssignment) clone() *TopologyAssignment {
	if t == nil {
		return nil
	}
	out := &TopologyAssignment{Levels: slices.Clone(t.Levels), Domains: make([]TopologyDomain, len(t.Domains))}
	for i, d := range t.Domains {
		out.Domains[i] = TopologyDomain{Values: slices.Clone(d.Values), Count: d.Count}
	}
	return out
}

// String renders the assignment as "rack=r1,host=n1:2 ...", for events
// and results.
func (t *TopologyAssignment) String() string {
	var b strings.Builder
	for i, d := range t.Domains {
		if i > 0 {
			b.WriteByte(' ')
		}
		for k, v := range d.Values {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%s", t.Levels[k], v)
		}
		fmt.Fprintf(&b, ":%d", d.Count)
	}
	return b.String()
}

// TASNode is a node as Kueue's TAS cache reads it: its labels, taints,
// allocatable and whether it is cordoned, and NonTAS, what the pods bound
// to it that are not of TAS workloads request, and one pod each (as
// Kueue's non-TAS pod cache counts them).
type TASNode struct {
	Name          string
	Labels        map[string]string
	Taints        []cluster.Taint
	Unschedulable bool
	Allocatable   cluster.ResourceList
	NonTAS        cluster.ResourceList
}

// SetNodes gives the Admitter the nodes of the cluster for TAS: nodes is
// called at most once per admission cycle, when a TAS pod set is tried,
// and returns the same slice while nothing changed (the Admitter then
// keeps its snapshots; the slice is read, never changed). Without it,
// TAS flavors have no nodes.
func (a *Admitter) SetNodes(nodes func() []TASNode) { a.nodes = nodes }

// tasFlavor is a TAS flavor's Topology levels, nil when the flavor is
// not a TAS flavor (or its Topology does not exist).
func (a *Admitter) tasLevels(flavor string) []string {
	f := a.flavors[flavor]
	if f == nil || f.TopologyName == "" {
		return nil
	}
	return a.topologies[f.TopologyName]
}

// tasOnly reports whether every flavor of the queue is a TAS flavor: its
// pod sets then ask for TAS without saying so (implied).
func (a *Admitter) tasOnly(q *clusterQueue) bool {
	if len(q.rgs) == 0 {
		return false
	}
	for _, rg := range q.rgs {
		for _, f := range rg.flavors {
			if a.tasLevels(f) == nil {
				return false
			}
		}
	}
	return true
}

// TASOnly reports whether the LocalQueue namespace/queue points to a
// ClusterQueue whose flavors are all TAS flavors: its workloads' pod
// sets ask for TAS without saying so.
func (a *Admitter) TASOnly(namespace, queue string) bool {
	lq := a.lqs[namespace+"/"+queue]
	if lq == nil || a.cqs[lq.ClusterQueue] == nil {
		return false
	}
	return a.tasOnly(a.cqs[lq.ClusterQueue])
}

// TASCapacityFreed tells the Admitter that room may have been freed on
// TAS flavors' nodes outside its own accounting (a pod not of a TAS
// workload ended, a node came or was uncordoned): the inadmissible
// workloads of the queues with a TAS flavor move back to their queues
// after the requeue batch, as Kueue's TAS cache has them requeued.
func (a *Admitter) TASCapacityFreed() {
	for _, q := range a.queues {
		for _, rg := range q.rgs {
			if slices.ContainsFunc(rg.flavors, func(f string) bool { return a.tasLevels(f) != nil }) {
				a.notify(q)
				break
			}
		}
	}
}

// tasRequested reports whether the pod set asks for TAS in the queue,
// and whether implicitly.
func (a *Admitter) tasRequested(q *clusterQueue, ps *PodSet) (requested, implied bool) {
	if ps.Topology.explicit() {
		return true, false
	}
	implied = a.tasOnly(q)
	return implied, implied
}

// checkTASFlavor is why a flavor cannot take the pod set as TAS goes
// ("" when it can), in Kueue's words.
func (a *Admitter) checkTASFlavor(q *clusterQueue, ps *PodSet, name string) string {
	requested, implied := a.tasRequested(q, ps)
	levels := a.tasLevels(name)
	switch {
	case requested && implied:
		return ""
	case requested && a.flavors[name].TopologyName == "":
		return fmt.Sprintf("Flavor %q does not support TopologyAwareScheduling", name)
	case requested && levels == nil:
		return fmt.Sprintf("Flavor %q information missing in TAS cache", name)
	case requested && !hasLevel(levels, ps.Topology):
		return fmt.Sprintf("Flavor %q does not contain the requested level", name)
	case !requested && a.flavors[name].TopologyName != "":
		return fmt.Sprintf("Flavor %q supports only TopologyAwareScheduling", name)
	}
	return ""
}

// hasLevel reports whether the levels have the request's level and slice
// level.
func hasLevel(levels []string, t *TopologyRequest) bool {
	key := levelKey(levels, t)
	if key == "" || !slices.Contains(levels, key) {
		return false
	}
	return t.SliceRequired == "" || slices.Contains(levels, t.SliceRequired)
}

// levelKey is the level a request names: its required or preferred one,
// the highest for slices alone, the lowest when unconstrained.
func levelKey(levels []string, t *TopologyRequest) string {
	switch {
	case t == nil:
		return ""
	case t.Required != "":
		return t.Required
	case t.Preferred != "":
		return t.Preferred
	case t.SliceRequired != "" || t.SliceSize != 0:
		return levels[0]
	case t.Unconstrained:
		return levels[len(levels)-1]
	}
	return ""
}

// tasUsage adds (sign 1) or removes (-1) the TAS usage of a workload's
// admission in the Admitter's record of it, and in the snapshots kept
// (unless the cycle that admitted it counted it there already).
func (a *Admitter) tasUsage(wi *info, sign int64) {
	if wi.admission == nil {
		return
	}
	inSnap := wi.tasInSnap
	wi.tasInSnap = false
	for i := range wi.admission.PodSets {
		p := &wi.admission.PodSets[i]
		if p.TopologyAssignment == nil {
			continue
		}
		flavor := a.tasFlavor(p.Flavors)
		ps := wi.w.podSet(p.Name)
		if ps == nil || flavor == "" {
			continue
		}
		used := a.tasUsed[flavor]
		if used == nil {
			used = map[string]cluster.ResourceList{}
			a.tasUsed[flavor] = used
		}
		for _, d := range p.TopologyAssignment.Domains {
			id := domainID(d.Values)
			l := used[id]
			if l == nil {
				l = cluster.ResourceList{}
				used[id] = l
			}
			for r, v := range podRequests(ps) {
				l[r] += sign * v * int64(d.Count)
			}
		}
		if s := a.tasSnap[flavor]; s != nil && (sign < 0 || !inSnap) {
			s.addUsage(p.TopologyAssignment, podRequests(ps), sign)
		}
	}
}

// tasFlavor is the one TAS flavor among a pod set's flavors, "" when
// none (or several: Kueue refuses that).
func (a *Admitter) tasFlavor(flavors map[cluster.ResourceName]string) string {
	found := ""
	for _, r := range slices.Sorted(maps.Keys(flavors)) {
		f := flavors[r]
		if a.tasLevels(f) == nil || f == found {
			continue
		}
		if found != "" {
			return ""
		}
		found = f
	}
	return found
}

// podSet is the workload's pod set of the name, nil when none.
func (w *Workload) podSet(name string) *PodSet {
	for i := range w.PodSets {
		if w.PodSets[i].Name == name {
			return &w.PodSets[i]
		}
	}
	return nil
}

// podRequests is a pod's requests as TAS counts them: its own and one
// pod.
func podRequests(ps *PodSet) cluster.ResourceList {
	out := maps.Clone(ps.Requests)
	if out == nil {
		out = cluster.ResourceList{}
	}
	out[cluster.ResourcePods]++
	return out
}

func domainID(values []string) string { return strings.Join(values, ",") }
