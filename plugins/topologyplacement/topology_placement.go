// Package topologyplacement is the TopologyPlacementGenerator plugin: a
// group with a topology key gets one candidate placement per domain of
// that key (rack, block, zone).
package topologyplacement

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Name is the generator's name, as kube-scheduler's default profile
// enables it.
const Name = "TopologyPlacementGenerator"

// ErrTopology is wrapped by TopologyPlacement's errors: the group's already
// scheduled members do not pin it to one domain.
var ErrTopology = errors.New("topologyplacement: topology")

// TopologyPlacement proposes one placement per domain of the group's
// topology key: the nodes sharing one value of that label (a rack, a
// block, a zone). Nodes without the label are in no domain. When members
// of the group are already scheduled, only their domain is proposed. With
// no topology key the parent placement is the only candidate.
//
// Domains over all nodes come from the snapshot (built once per
// NodeVersion), and their placements are remembered while it holds; within
// a parent placement they are built from the parent's nodes and remembered
// likewise. The placements handed out are shared: read-only. Placements come in
// label-value order. A TopologyPlacement caches per scheduler: do not
// share one between schedulers.
type TopologyPlacement struct {
	nodeVersion int64
	all         map[string][]fw.Placement    // the domains of a key over all nodes
	within      map[withinKey][]fw.Placement // domains inside a parent placement
}

// withinKey identifies a parent placement by its node slice, which the
// cache owns and never changes while the node version holds.
type withinKey struct {
	key   string
	first *int
	n     int
}

var _ fw.PlacementGeneratePlugin = (*TopologyPlacement)(nil)

// New returns the generator with an empty domain cache; it takes no
// arguments. The cache is per scheduler: the registry makes a new one for
// each.
func New(any, fw.Handle) (fw.Plugin, error) { return NewTopologyPlacement(), nil }

// NewTopologyPlacement returns the generator with an empty domain cache.
func NewTopologyPlacement() *TopologyPlacement { return &TopologyPlacement{} }

// Name returns Name.
func (tp *TopologyPlacement) Name() string { return Name }

// Stateless says the placements depend on the snapshot and the group
// alone (the cache only remembers them).
func (tp *TopologyPlacement) Stateless() {}

// GeneratePlacements returns the candidate domains (see the type's doc).
// A group whose scheduled members do not pin one domain is an Error.
func (tp *TopologyPlacement) GeneratePlacements(snap *cluster.Snapshot, g *fw.Group, parent fw.Placement) ([]fw.Placement, *fw.Status) {
	key := g.TopologyKey()
	if key == "" {
		return []fw.Placement{parent}, nil
	}
	required, err := requiredDomain(snap, key, g.ScheduledNodes)
	if err != nil {
		return nil, fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
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
	ds := snap.Domains(key)
	if tp.within == nil || tp.nodeVersion != snap.NodeVersion() {
		tp.all, tp.within, tp.nodeVersion = map[string][]fw.Placement{}, map[withinKey][]fw.Placement{}, snap.NodeVersion()
	}
	if parent.Nodes == nil {
		if out, ok := tp.all[key]; ok {
			return out
		}
		out := make([]fw.Placement, len(ds.Values))
		for i, v := range ds.Values {
			out[i] = fw.Placement{Name: v, Nodes: ds.Nodes[i], Key: key, Domain: i}
		}
		tp.all[key] = out
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
		d := ds.NodeDomain[i]
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
		out[j] = fw.Placement{Name: ds.Values[d], Nodes: nodes}
		if len(nodes) == len(ds.Nodes[d]) {
			// the parent holds the whole domain (racks inside a zone)
			out[j].Key, out[j].Domain = key, int(d)
		}
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
