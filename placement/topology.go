package placement

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// TopologyPlacementName is the built-in generator's name, as
// kube-scheduler's default profile enables it.
const TopologyPlacementName = "TopologyPlacementGenerator"

// ErrTopology is wrapped by TopologyPlacement's errors: the group's already
// scheduled members do not pin it to one domain.
var ErrTopology = errors.New("placement: topology")

// TopologyPlacement proposes one placement per domain of the group's
// topology key: the nodes sharing one value of that label (a rack, a
// block, a zone). Nodes without the label are in no domain. When members
// of the group are already scheduled, only their domain is proposed. With
// no topology key the parent placement is the only candidate.
//
// Domains over all nodes are built once per snapshot NodeVersion and
// topology key and reused across cycles; within a parent placement they
// are built from the parent's nodes. Placements come in label-value order.
// A TopologyPlacement caches per scheduler: do not share one between
// schedulers.
type TopologyPlacement struct {
	version int64
	byKey   map[string]*domains
	within  map[withinKey][]fw.Placement // domains inside a parent placement
}

// domains are the label values of one key, their nodes, and each node's
// domain, dense by snapshot index.
type domains struct {
	values     []string
	nodes      [][]int // snapshot indexes, ascending
	nodeDomain []int32 // -1: no label
}

// withinKey identifies a parent placement by its node slice, which the
// cache owns and never changes while the node version holds.
type withinKey struct {
	key   string
	first *int
	n     int
}

var _ fw.PlacementGeneratePlugin = (*TopologyPlacement)(nil)

// NewTopologyPlacement returns the generator with an empty domain cache.
func NewTopologyPlacement() *TopologyPlacement { return &TopologyPlacement{} }

// Name returns TopologyPlacementName.
func (tp *TopologyPlacement) Name() string { return TopologyPlacementName }

// GeneratePlacements returns the candidate domains (see the type's doc).
// A group whose scheduled members do not pin one domain is an Error.
func (tp *TopologyPlacement) GeneratePlacements(snap *cluster.Snapshot, g *fw.Group, parent fw.Placement) ([]fw.Placement, *fw.Status) {
	key := g.TopologyKey()
	if key == "" {
		return []fw.Placement{parent}, nil
	}
	required, err := requiredDomain(snap, key, g.ScheduledNodes)
	if err != nil {
		return nil, fw.NewStatus(fw.Error, err.Error()).WithPlugin(TopologyPlacementName)
	}
	all := tp.generate(snap, key, parent)
	if required == nil {
		return all, nil
	}
	for _, p := range all {
		if p.Name == *required {
			return []fw.Placement{p}, nil
		}
	}
	return nil, nil
}

// generate returns the domains of key within the parent placement, from
// the cache when it has them.
func (tp *TopologyPlacement) generate(snap *cluster.Snapshot, key string, parent fw.Placement) []fw.Placement {
	ds := tp.allDomains(snap, key)
	if parent.Nodes == nil {
		out := make([]fw.Placement, len(ds.values))
		for i, v := range ds.values {
			out[i] = fw.Placement{Name: v, Nodes: ds.nodes[i]}
		}
		return out
	}
	if len(parent.Nodes) == 0 {
		return nil
	}
	wk := withinKey{key: key, first: &parent.Nodes[0], n: len(parent.Nodes)}
	if ps, ok := tp.within[wk]; ok {
		return ps
	}
	buckets := map[int32][]int{}
	var ids []int32
	for _, i := range parent.Nodes {
		d := ds.nodeDomain[i]
		if d < 0 {
			continue
		}
		if _, seen := buckets[d]; !seen {
			ids = append(ids, d)
		}
		buckets[d] = append(buckets[d], i)
	}
	slices.Sort(ids) // domain ids follow value order
	out := make([]fw.Placement, len(ids))
	for j, d := range ids {
		nodes := buckets[d]
		slices.Sort(nodes)
		out[j] = fw.Placement{Name: ds.values[d], Nodes: nodes}
	}
	tp.within[wk] = out
	return out
}

// requiredDomain is the one domain the scheduled members share, if any.
func requiredDomain(snap *cluster.Snapshot, key string, scheduled []string) (*string, error) {
	var required *string
	for _, name := range scheduled {
		ni, ok := snap.NodeInfo(name)
		if !ok {
			return nil, fmt.Errorf("%w: node %q of a scheduled member is not in the snapshot", ErrTopology, name)
		}
		v, ok := ni.Node().Labels[key]
		if !ok {
			return nil, fmt.Errorf("%w: node %q of a scheduled member has no label %q", ErrTopology, name, key)
		}
		if required != nil && *required != v {
			return nil, fmt.Errorf("%w: more than 1 domain found for key %q: %q and %q", ErrTopology, key, *required, v)
		}
		required = &v
	}
	return required, nil
}

func (tp *TopologyPlacement) allDomains(snap *cluster.Snapshot, key string) *domains {
	if tp.byKey == nil || tp.version != snap.NodeVersion() {
		tp.byKey, tp.within, tp.version = map[string]*domains{}, map[withinKey][]fw.Placement{}, snap.NodeVersion()
	}
	ds, ok := tp.byKey[key]
	if !ok {
		ds = buildDomains(snap, key)
		tp.byKey[key] = ds
	}
	return ds
}

// buildDomains groups every node by its value of key, values in order.
func buildDomains(snap *cluster.Snapshot, key string) *domains {
	values := map[string]bool{}
	for _, ni := range snap.Nodes() {
		if v, ok := ni.Node().Labels[key]; ok {
			values[v] = true
		}
	}
	ds := &domains{values: slices.Sorted(maps.Keys(values)), nodeDomain: make([]int32, snap.Len())}
	id := make(map[string]int32, len(ds.values))
	for i, v := range ds.values {
		id[v] = int32(i)
	}
	ds.nodes = make([][]int, len(ds.values))
	for i, ni := range snap.Nodes() {
		v, ok := ni.Node().Labels[key]
		if !ok {
			ds.nodeDomain[i] = -1
			continue
		}
		d := id[v]
		ds.nodeDomain[i] = d
		ds.nodes[d] = append(ds.nodes[d], i)
	}
	return ds
}
