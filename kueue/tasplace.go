package kueue

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// The domain choice, as Kueue's TASFlavorSnapshot.findTopologyAssignment
// makes it for a pod set without a leader:
//
//  1. Each leaf counts the pods (and, at the slice level, the slices) that
//     fit in what is left of it; a node the pods' tolerations, node
//     selector or required affinity exclude counts none (only when the
//     leaves are nodes). Counts add up the tree.
//  2. At the requested level, the domains are sorted by slices (most
//     first; fewest first for an unconstrained request: Kueue's
//     TASProfileMixed, on by default), then pods (fewest first), then
//     values; best fit takes the domain with the fewest slices that still
//     holds them all. A required request fails when none does; a
//     preferred one climbs a level and tries again, and at the top takes
//     domains greedily, best fit for the last; an unconstrained one takes
//     domains greedily at once.
//  3. Down level by level, each chosen domain's pods are split among its
//     children the same way: sorted, filled in order, best fit for the
//     last.
//
// Not modelled: leaders (a pod set group's leader placed with its
// workers), multi-layer slice constraints, balanced placement (its gate,
// TASBalancedPlacement, is off by default), node affinity preferences
// (TASRespectNodeAffinityPreferred, off by default).

// exclusions count why nodes were left out, for Kueue's message.
type exclusions struct {
	total                  int
	nodeSelector, affinity int
	taints                 map[string]int
	resources              map[cluster.ResourceName]int
}

func (e *exclusions) any() bool {
	return e.nodeSelector > 0 || e.affinity > 0 || len(e.taints) > 0 || len(e.resources) > 0
}

func (e *exclusions) String() string {
	var rs []string
	if e.nodeSelector > 0 {
		rs = append(rs, fmt.Sprintf("nodeSelector: %d", e.nodeSelector))
	}
	if e.affinity > 0 {
		rs = append(rs, fmt.Sprintf("affinity: %d", e.affinity))
	}
	for _, t := range slices.Sorted(maps.Keys(e.taints)) {
		rs = append(rs, fmt.Sprintf("taint %q: %d", t, e.taints[t]))
	}
	for _, r := range slices.Sorted(maps.Keys(e.resources)) {
		rs = append(rs, fmt.Sprintf("resource %q: %d", r, e.resources[r]))
	}
	slices.Sort(rs)
	return strings.Join(rs, ", ")
}

// search is one pod set's search state.
type search struct {
	s             *tasSnapshot
	count         int32
	sliceSize     int32
	sliceLevel    int
	required      bool
	unconstrained bool
	stats         exclusions
}

// find chooses the domains of count pods of the pod set; implied is an
// implicit request (a TAS-only queue), assumed the usage of the
// workload's pod sets placed before it, empty to ignore the TAS usage of
// admitted workloads. It returns the assignment, or Kueue's reason.
func (s *tasSnapshot) find(ps *PodSet, count int32, implied bool, assumed map[string]cluster.ResourceList, empty bool) (*TopologyAssignment, string) {
	t := ps.Topology
	if t == nil {
		t = &TopologyRequest{}
	}
	st := &search{s: s, count: count, sliceSize: 1}
	if t.SliceRequired != "" || t.SliceSize != 0 {
		if t.SliceSize <= 0 {
			return nil, "slice topology requested, but slice size not provided"
		}
		st.sliceSize = t.SliceSize
	}
	sliceOnly := t.Required == "" && t.Preferred == "" && t.SliceRequired != ""
	st.required = t.Required != ""
	st.unconstrained = t.Unconstrained || implied || sliceOnly
	key := levelKey(s.levels, t)
	if key == "" && implied {
		key = s.levels[len(s.levels)-1]
	}
	if key == "" {
		return nil, "topology level not specified"
	}
	level := slices.Index(s.levels, key)
	if level < 0 {
		return nil, "no requested topology level: " + key
	}
	sliceKey := s.levels[len(s.levels)-1]
	if t.SliceRequired != "" {
		sliceKey = t.SliceRequired
	}
	st.sliceLevel = slices.Index(s.levels, sliceKey)
	if st.sliceLevel < 0 {
		return nil, "no requested topology level for slices: " + sliceKey
	}
	if level > st.sliceLevel {
		return nil, fmt.Sprintf("podset slice topology %s is above the podset topology %s", sliceKey, key)
	}
	st.fill(ps, podRequests(ps), assumed, empty)
	fitLevel, fit, reason := st.findLevel(level)
	if reason != "" {
		return nil, reason
	}
	fit = st.toMinimum(fit, count, st.sliceSize, true)
	lvl := fitLevel
	for ; lvl < min(len(s.levels)-1, st.sliceLevel); lvl++ {
		var lower []*domain
		for _, d := range fit {
			lower = append(lower, d.children...)
		}
		fit = st.toMinimum(st.sorted(lower), count, st.sliceSize, true)
	}
	for ; lvl < len(s.levels)-1; lvl++ {
		var next []*domain
		for _, d := range fit {
			next = append(next, st.toMinimum(st.sorted(d.children), d.pods, 1, false)...)
		}
		fit = next
	}
	return s.assignment(fit), ""
}

// fill counts the pods and slices each domain holds.
func (st *search) fill(ps *PodSet, reqList cluster.ResourceList, assumed map[string]cluster.ResourceList, empty bool) {
	req := amounts(reqList)
	s := st.s
	for _, lvl := range s.byLevel {
		for _, d := range lvl {
			d.pods, d.slices = 0, 0
		}
	}
	tols := append(slices.Clone(ps.Tolerations), s.tols...)
	st.stats.total = len(s.leaves)
	for _, leaf := range s.byLevel[len(s.levels)-1] {
		if leaf.node != nil && !st.feasible(leaf.node, ps, tols) {
			continue
		}
		n, limiting := leaf.count(req, empty, assumed[leaf.id])
		leaf.pods = n
		if n == 0 && limiting != "" {
			if st.stats.resources == nil {
				st.stats.resources = map[cluster.ResourceName]int{}
			}
			st.stats.resources[limiting]++
		}
	}
	for _, root := range s.roots {
		st.rollUp(root, 0)
	}
}

// feasible is Kueue's default node check: taints, node selector and
// required node affinity, counting the nodes it leaves out.
func (st *search) feasible(n *TASNode, ps *PodSet, tols []cluster.Toleration) bool {
	for i := range n.Taints {
		t := &n.Taints[i]
		if t.Effect != cluster.TaintNoSchedule && t.Effect != cluster.TaintNoExecute {
			continue
		}
		if !slices.ContainsFunc(tols, func(tol cluster.Toleration) bool { return tol.Tolerates(t) }) {
			if st.stats.taints == nil {
				st.stats.taints = map[string]int{}
			}
			st.stats.taints[taintText(*t)]++
			return false
		}
	}
	for k, v := range ps.NodeSelector {
		if got, ok := n.Labels[k]; !ok || got != v {
			st.stats.nodeSelector++
			return false
		}
	}
	if ps.Affinity != nil && len(ps.Affinity.Required) > 0 && !ps.Affinity.Matches(n.Labels) {
		st.stats.affinity++
		return false
	}
	return true
}

// taintText is Kubernetes' Taint.ToString: key=value:effect.
func taintText(t cluster.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// rollUp adds the children's counts up into d, at level lvl.
func (st *search) rollUp(d *domain, lvl int) {
	if len(d.children) == 0 {
		if lvl == st.sliceLevel {
			d.slices = d.pods / st.sliceSize
		}
		return
	}
	var pods, sl int32
	for _, c := range d.children {
		st.rollUp(c, lvl+1)
		pods += c.pods
		sl += c.slices
	}
	d.pods, d.slices = pods, sl
	if lvl == st.sliceLevel {
		d.slices = pods / st.sliceSize
	}
}

// leastFree is Kueue's LeastFreeCapacity profile, used for unconstrained
// requests (TASProfileMixed); best fit otherwise.
func (st *search) leastFree() bool { return st.unconstrained }

// sorted orders domains: by slices (most first, or fewest under
// leastFree), then pods (fewest first), then values.
func (st *search) sorted(ds []*domain) []*domain {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(x, y *domain) int {
		if x.slices != y.slices {
			return cmpInt32(x.slices, y.slices, !st.leastFree())
		}
		if x.pods != y.pods {
			return cmpInt32(x.pods, y.pods, false)
		}
		return byValues(x, y)
	})
	return out
}

// bestFit is the first domain with the fewest of count (at least
// needed), or the first domain when none has enough.
func bestFit(ds []*domain, needed int32, count func(*domain) int32) *domain {
	best, bestCount := ds[0], int32(math.MaxInt32)
	for _, d := range ds {
		if c := count(d); c >= needed && c < bestCount {
			best, bestCount = d, c
		}
	}
	return best
}

func slicesOf(d *domain) int32 { return d.slices }
func podsOf(d *domain) int32   { return d.pods }

// findLevel finds the domains at the requested level, or above for a
// preferred request, that hold every slice.
func (st *search) findLevel(level int) (int, []*domain, string) {
	ds := st.s.byLevel[level]
	if len(ds) == 0 {
		return 0, nil, "no topology domains at level: " + st.s.levels[level]
	}
	sorted := st.sorted(ds)
	top := sorted[0]
	want := st.count / st.sliceSize
	if !st.leastFree() && top.slices >= want {
		top = bestFit(sorted, want, slicesOf)
	}
	if st.leastFree() {
		for _, d := range sorted {
			if d.slices >= want {
				return level, []*domain{d}, ""
			}
		}
		if st.required {
			return 0, nil, st.notFit(sorted[len(sorted)-1].pods, want)
		}
	}
	if top.slices >= want {
		return level, []*domain{top}, ""
	}
	if st.required {
		return 0, nil, st.notFit(top.slices, want)
	}
	if level > 0 && !st.unconstrained {
		return st.findLevel(level - 1)
	}
	var out []*domain
	left := want
	for i := 0; left > 0 && i < len(sorted); i++ {
		d := sorted[i]
		if !st.leastFree() && d.slices >= left {
			d = bestFit(sorted[i:], left, slicesOf)
		}
		out = append(out, d)
		left -= d.slices
	}
	if left > 0 {
		return 0, nil, st.notFit(want-left, want)
	}
	return level, out, ""
}

// notFit is Kueue's message for a pod set that does not fit.
func (st *search) notFit(fit, want int32) string {
	unit := "slice"
	if st.sliceSize == 1 {
		unit = "pod"
	}
	var b strings.Builder
	if fit == 0 {
		fmt.Fprintf(&b, "topology %q doesn't allow to fit any of %d %s(s)", st.s.topology, want, unit)
	} else {
		fmt.Fprintf(&b, "topology %q allows to fit only %d out of %d %s(s)", st.s.topology, fit, want, unit)
	}
	if st.stats.any() {
		fmt.Fprintf(&b, ". Total nodes: %d; excluded: %s", st.stats.total, st.stats.String())
	}
	return b.String()
}

// toMinimum gives the domains, in order, count pods (count/sliceSize
// slices when bySlices) as few as it takes, best fit for the last, and
// returns those it used with their counts set.
func (st *search) toMinimum(ds []*domain, count, sliceSize int32, bySlices bool) []*domain {
	left := count
	of := podsOf
	if bySlices {
		left, of = count/sliceSize, slicesOf
	}
	var out []*domain
	for i, d := range ds {
		if !st.leastFree() && of(d) >= left {
			d = bestFit(ds[i:], left, of)
		}
		if of(d) >= left {
			if bySlices {
				d.pods, d.slices = left*sliceSize, left
			} else {
				d.pods = left
			}
			return append(out, d)
		}
		if bySlices {
			d.pods = d.slices * sliceSize
		}
		left -= of(d)
		out = append(out, d)
	}
	return out
}

// assignment is the API form of the leaves chosen, by values.
func (s *tasSnapshot) assignment(ds []*domain) *TopologyAssignment {
	ds = slices.Clone(ds)
	slices.SortFunc(ds, byValues)
	from := 0
	if s.hostLeaf {
		from = len(s.levels) - 1
	}
	ta := &TopologyAssignment{Levels: slices.Clone(s.levels[from:])}
	for _, d := range ds {
		if d.pods == 0 {
			continue
		}
		ta.Domains = append(ta.Domains, TopologyDomain{Values: slices.Clone(d.values[from:]), Count: d.pods})
	}
	return ta
}
