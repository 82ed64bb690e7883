package dra

import (
	"cmp"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// pool is one resource pool (driver, pool name) as the node sees it, at
// the generation the node's slices carry.
type pool struct {
	driver, name string
	// incomplete: not all slices of the generation are published yet;
	// invalid: duplicate device or counter-set names, or a device that
	// consumes an unknown counter. Neither offers devices.
	incomplete, invalid bool
	// slices are the device slices that target the node, by name.
	slices []*cluster.ResourceSlice
	// others are the pool's device slices that do not target the node
	// (known only when the node's slices alone did not complete the pool):
	// their allocated devices still consume the pool's counters.
	others []*cluster.ResourceSlice
	// counterSets are the pool's shared counters, by set name.
	counterSets map[string]map[string]cluster.Quantity
}

func (p *pool) id() string { return p.driver + "/" + p.name }

type poolKey struct{ driver, name string }

// sliceTargetsNode reports whether a slice's devices can be reached from
// node: its NodeName is the node, it is AllNodes, or a term of its
// NodeSelector matches (kube's NodeMatches). A slice that says none of
// these is skipped.
func sliceTargetsNode(s *cluster.ResourceSlice, node *cluster.Node) bool {
	switch {
	case s.NodeName != "":
		return s.NodeName == node.Name
	case s.AllNodes:
		return true
	case s.NodeSelector != nil:
		for i := range s.NodeSelector {
			if s.NodeSelector[i].MatchesNode(node) {
				return true
			}
		}
	}
	return false
}

// gatherPools builds the pools the node can reach, as kube's incubating
// GatherPools does: per pool only the highest generation among the
// node's slices; complete when their count is the pool's SliceCount, or
// else when all slices of that generation across the cluster are (a pool
// with a newer generation elsewhere is obsolete and dropped); sorted by
// driver, then pool name; slices sorted by name.
func gatherPools(all []*cluster.ResourceSlice, node *cluster.Node, f Features) []*pool {
	var keys []poolKey
	byKey := map[poolKey][]*cluster.ResourceSlice{}
	for _, s := range all {
		// kube lists the slices of the node and those without a node name.
		if s.NodeName != "" && s.NodeName != node.Name {
			continue
		}
		if !f.PartitionableDevices && len(s.SharedCounters) > 0 {
			continue
		}
		if !sliceTargetsNode(s, node) {
			continue
		}
		k := poolKey{s.Driver, s.Pool.Name}
		have, ok := byKey[k]
		switch {
		case !ok:
			keys = append(keys, k)
			byKey[k] = []*cluster.ResourceSlice{s}
		case s.Pool.Generation < have[0].Pool.Generation:
		case s.Pool.Generation > have[0].Pool.Generation:
			byKey[k] = []*cluster.ResourceSlice{s}
		default:
			byKey[k] = append(have, s)
		}
	}
	slices.SortFunc(keys, func(a, b poolKey) int {
		if c := cmp.Compare(a.driver, b.driver); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	out := make([]*pool, 0, len(keys))
	for _, k := range keys {
		mine := byKey[k]
		gen, count := mine[0].Pool.Generation, mine[0].Pool.SliceCount
		if int64(len(mine)) == count {
			out = append(out, buildPool(k, mine, nil, f))
			continue
		}
		obsolete, everywhere := slicesOfGeneration(all, k, gen)
		if obsolete {
			continue
		}
		if int64(len(everywhere)) != count {
			out = append(out, &pool{driver: k.driver, name: k.name, incomplete: true})
			continue
		}
		out = append(out, buildPool(k, mine, everywhere, f))
	}
	return out
}

// slicesOfGeneration returns every slice of the pool at generation gen,
// or obsolete when some slice of the pool has a newer one.
func slicesOfGeneration(all []*cluster.ResourceSlice, k poolKey, gen int64) (obsolete bool, out []*cluster.ResourceSlice) {
	for _, s := range all {
		if s.Driver != k.driver || s.Pool.Name != k.name {
			continue
		}
		switch {
		case s.Pool.Generation == gen:
			out = append(out, s)
		case s.Pool.Generation > gen:
			return true, nil
		}
	}
	return false, out
}

func buildPool(k poolKey, mine, everywhere []*cluster.ResourceSlice, f Features) *pool {
	mine = slices.Clone(mine)
	slices.SortStableFunc(mine, func(a, b *cluster.ResourceSlice) int { return cmp.Compare(a.Name, b.Name) })
	p := &pool{driver: k.driver, name: k.name}
	var counterSlices []*cluster.ResourceSlice
	for _, s := range mine {
		if f.PartitionableDevices && len(s.SharedCounters) > 0 {
			counterSlices = append(counterSlices, s)
		} else {
			p.slices = append(p.slices, s)
		}
	}
	if len(mine) < len(everywhere) {
		for _, s := range everywhere {
			if slices.ContainsFunc(mine, func(m *cluster.ResourceSlice) bool { return m.Name == s.Name }) {
				continue
			}
			if f.PartitionableDevices && len(s.SharedCounters) > 0 {
				counterSlices = append(counterSlices, s)
			} else {
				p.others = append(p.others, s)
			}
		}
	}
	invalid := func() *pool { return &pool{driver: k.driver, name: k.name, invalid: true} }
	seen := map[string]bool{}
	for _, s := range p.slices {
		for i := range s.Devices {
			if seen[s.Devices[i].Name] {
				return invalid()
			}
			seen[s.Devices[i].Name] = true
		}
	}
	if !f.PartitionableDevices {
		p.others = nil
		return p
	}
	p.counterSets = map[string]map[string]cluster.Quantity{}
	for _, s := range counterSlices {
		for _, set := range s.SharedCounters {
			if _, dup := p.counterSets[set.Name]; dup {
				return invalid()
			}
			p.counterSets[set.Name] = set.Counters
		}
	}
	for _, group := range [][]*cluster.ResourceSlice{p.slices, p.others} {
		for _, s := range group {
			for i := range s.Devices {
				for _, use := range s.Devices[i].ConsumesCounters {
					set, ok := p.counterSets[use.CounterSet]
					if !ok {
						return invalid()
					}
					for name := range use.Counters {
						if _, ok := set[name]; !ok {
							return invalid()
						}
					}
				}
			}
		}
	}
	return p
}
