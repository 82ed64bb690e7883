package kueue

import (
	"cmp"
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

// tasSnapshot is one TAS flavor's tree in one cycle.
type tasSnapshot struct {
	topology string
	levels   []string
	hostLeaf bool // the lowest level is kubernetes.io/hostname: a leaf is a node
	tols     []cluster.Toleration
	byLevel  [][]*domain // each level's domains, by values
	leaves   map[string]*domain
	roots    []*domain
}

// domain is a domain of the tree; the counts are a search's state.
type domain struct {
	id       string
	values   []string
	parent   *domain
	children []*domain
	node     *TASNode // a leaf's node when hostLeaf
	free     cluster.ResourceList
	used     cluster.ResourceList
	pods     int32
	slices   int32
}

// snapshot is the TAS flavor's snapshot of this cycle, built on first
// use. The last cycle's is kept while the nodes are the same slice from
// SetNodes' function: the TAS usage is kept up to date in it (tasUsage).
func (a *Admitter) snapshot(flavor string) *tasSnapshot {
	if a.tasCycle != a.cycle || a.tasSnap == nil {
		a.tasCycle = a.cycle
		var nodes []TASNode
		if a.nodes != nil {
			nodes = a.nodes()
		}
		same := a.tasSnap != nil && len(nodes) == len(a.tasNodes) && (len(nodes) == 0 || &nodes[0] == &a.tasNodes[0])
		if !same {
			a.tasSnap = map[string]*tasSnapshot{}
		}
		a.tasNodes = nodes
	}
	if s, ok := a.tasSnap[flavor]; ok {
		return s
	}
	f := a.flavors[flavor]
	s := newSnapshot(f, a.tasLevels(flavor), a.tasNodes, a.tasUsed[flavor])
	a.tasSnap[flavor] = s
	return s
}

// newSnapshot builds a flavor's tree from the nodes and the TAS usage.
func newSnapshot(f *ResourceFlavor, levels []string, nodes []TASNode, used map[string]cluster.ResourceList) *tasSnapshot {
	s := &tasSnapshot{topology: f.TopologyName, levels: levels, hostLeaf: levels[len(levels)-1] == hostnameLabel,
		leaves: map[string]*domain{}, byLevel: make([][]*domain, len(levels))}
	for _, t := range f.Tolerations {
		s.tols = append(s.tols, t.Toleration)
	}
	byID := make([]map[string]*domain, len(levels))
	for i := range byID {
		byID[i] = map[string]*domain{}
	}
	for i := range nodes {
		n := &nodes[i]
		if n.Unschedulable || !matchesFlavor(n.Labels, f.NodeLabels, levels) {
			continue
		}
		values := make([]string, len(levels))
		for k, l := range levels {
			values[k] = n.Labels[l]
		}
		id := domainID(values)
		if s.hostLeaf {
			id = values[len(values)-1]
		}
		leaf := s.leaves[id]
		if leaf == nil {
			leaf = &domain{id: id, values: values, free: cluster.ResourceList{}, used: cluster.ResourceList{}}
			if s.hostLeaf {
				leaf.node = n
			}
			s.leaves[id] = leaf
			byID[len(levels)-1][id] = leaf
		}
		for r, v := range n.Allocatable {
			leaf.free[r] += v
		}
		for r, v := range n.NonTAS {
			leaf.free[r] -= v
		}
	}
	for id, u := range used {
		if leaf := s.leaves[id]; leaf != nil {
			maps.Copy(leaf.used, u)
		}
	}
	// the parents, level by level up
	for lvl := len(levels) - 1; lvl > 0; lvl-- {
		for _, d := range byID[lvl] {
			pid := domainID(d.values[:lvl])
			p := byID[lvl-1][pid]
			if p == nil {
				p = &domain{id: pid, values: d.values[:lvl]}
				byID[lvl-1][pid] = p
			}
			d.parent = p
			p.children = append(p.children, d)
		}
	}
	for lvl := range levels {
		for _, d := range byID[lvl] {
			s.byLevel[lvl] = append(s.byLevel[lvl], d)
			slices.SortFunc(d.children, byValues)
		}
		slices.SortFunc(s.byLevel[lvl], byValues)
	}
	s.roots = s.byLevel[0]
	return s
}

func byValues(x, y *domain) int { return slices.Compare(x.values, y.values) }

// matchesFlavor reports whether a node has the flavor's labels and a
// value for every level.
func matchesFlavor(labels, flavor map[string]string, levels []string) bool {
	for k, v := range flavor {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, l := range levels {
		if _, ok := labels[l]; !ok {
			return false
		}
	}
	return true
}

// amount is one resource of a pod's requests.
type amount struct {
	name cluster.ResourceName
	v    int64
}

// amounts are requests by resource name, the order Kueue's tie-break
// takes.
func amounts(req cluster.ResourceList) []amount {
	out := make([]amount, 0, len(req))
	for _, r := range slices.Sorted(maps.Keys(req)) {
		out = append(out, amount{r, req[r]})
	}
	return out
}

// count is how many pods of the requests fit in what is left of a leaf:
// its free capacity, less the TAS usage (unless empty: as if every TAS
// workload were gone) and what assumed holds of it; and the resource
// that limits it (the first by name on a tie), as Kueue's
// CountInWithLimitingResource.
func (d *domain) count(req []amount, empty bool, assumed cluster.ResourceList) (int32, cluster.ResourceName) {
	best, limiting, found := int32(0), cluster.ResourceName(""), false
	for _, a := range req {
		n := int64(1<<31 - 1)
		if a.v != 0 {
			left := d.free[a.name] - assumed[a.name]
			if !empty {
				left -= d.used[a.name]
			}
			n = max(0, min(left/a.v, 1<<31-1))
		}
		if !found || int32(n) < best {
			best, limiting, found = int32(n), a.name, true
		}
	}
	return best, limiting
}

// addUsage counts (sign 1) or uncounts (-1) an assignment's pods in the
// snapshot's leaves.
func (s *tasSnapshot) addUsage(ta *TopologyAssignment, req cluster.ResourceList, sign int64) {
	for _, d := range ta.Domains {
		leaf := s.leaves[domainID(d.Values)]
		if leaf == nil {
			continue
		}
		for r, v := range req {
			leaf.used[r] += sign * v * int64(d.Count)
		}
	}
}

// fits reports whether an assignment still fits the snapshot, domain by
// domain (Kueue's TASFlavorSnapshot.Fits).
func (s *tasSnapshot) fits(ta *TopologyAssignment, req cluster.ResourceList) bool {
	for _, d := range ta.Domains {
		leaf := s.leaves[domainID(d.Values)]
		if leaf == nil {
			return false
		}
		if n, _ := leaf.count(amounts(req), false, nil); n < d.Count {
			return false
		}
	}
	return true
}

// cmpInt32 orders descending when desc.
func cmpInt32(x, y int32, desc bool) int {
	if desc {
		return cmp.Compare(y, x)
	}
	return cmp.Compare(x, y)
}
