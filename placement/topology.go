package placement

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// PlacementGeneratePlugin proposes candidate placements for a group within
// its parent's placement (kube-scheduler's PlacementGenerate extension
// point; at most one runs per profile).
type PlacementGeneratePlugin interface {
	Name() string
	GeneratePlacements(snap *cluster.Snapshot, req *GroupRequest, parent Placement) ([]Placement, error)
}

// TopologyPlacementName is the built-in generator's name.
const TopologyPlacementName = "TopologyPlacement"

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
}

// domains are the label values of one key and their nodes, in value order.
type domains struct {
	values []string
	nodes  [][]int // snapshot indexes, ascending
}

var _ PlacementGeneratePlugin = (*TopologyPlacement)(nil)

// NewTopologyPlacement returns the generator with an empty domain cache.
func NewTopologyPlacement() *TopologyPlacement { return &TopologyPlacement{} }

// Name returns TopologyPlacementName.
func (tp *TopologyPlacement) Name() string { return TopologyPlacementName }

// GeneratePlacements returns the candidate domains (see the type's doc).
func (tp *TopologyPlacement) GeneratePlacements(snap *cluster.Snapshot, req *GroupRequest, parent Placement) ([]Placement, error) {
	key := req.Group.TopologyKey
	if key == "" {
		return []Placement{parent}, nil
	}
	required, err := requiredDomain(snap, key, req.ScheduledNodes)
	if err != nil {
		return nil, err
	}
	var ds *domains
	if parent.Nodes == nil {
		ds = tp.allDomains(snap, key)
	} else {
		ds = buildDomains(snap, key, slices.Values(parent.Nodes))
	}
	out := make([]Placement, 0, len(ds.values))
	for i, v := range ds.values {
		if required == nil || *required == v {
			out = append(out, Placement{Name: v, Nodes: ds.nodes[i]})
		}
	}
	return out, nil
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
		tp.byKey, tp.version = map[string]*domains{}, snap.NodeVersion()
	}
	ds, ok := tp.byKey[key]
	if !ok {
		ds = buildDomains(snap, key, func(yield func(int) bool) {
			for i := range snap.Len() {
				if !yield(i) {
					return
				}
			}
		})
		tp.byKey[key] = ds
	}
	return ds
}

// buildDomains groups the given nodes by their value of key.
func buildDomains(snap *cluster.Snapshot, key string, nodes func(func(int) bool)) *domains {
	index := map[string]int{}
	ds := &domains{}
	for i := range nodes {
		v, ok := snap.Node(i).Node().Labels[key]
		if !ok {
			continue
		}
		d, seen := index[v]
		if !seen {
			d = len(ds.values)
			index[v] = d
			ds.values = append(ds.values, v)
			ds.nodes = append(ds.nodes, nil)
		}
		ds.nodes[d] = append(ds.nodes[d], i)
	}
	order := make([]int, len(ds.values))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpString(ds.values[a], ds.values[b]) })
	sorted := &domains{values: make([]string, len(order)), nodes: make([][]int, len(order))}
	for i, o := range order {
		sorted.values[i], sorted.nodes[i] = ds.values[o], ds.nodes[o]
		slices.Sort(sorted.nodes[i])
	}
	return sorted
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
