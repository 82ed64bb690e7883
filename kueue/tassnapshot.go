package kueue

import (
	"cmp"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// A TAS flavor's snapshot: the tree of its topology's domains over the
// nodes the flavor selects, each leaf with its free capacity and the
// usage of admitted TAS workloads; built once and kept from cycle to cycle
// while the nodes are the same (usage is updated in place), and the state
// of one search (tasplace.go) in its domains.

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
