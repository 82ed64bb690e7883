package cluster

import (
	"maps"
	"slices"
)

// Domains are the topology domains of one label key over a snapshot's
// nodes: the label's values in order, and each node's domain.
type Domains struct {
	Key    string
	Values []string // sorted
	// NodeDomain holds each node's domain (an index into Values), or -1
	// for a node without the label; by snapshot index.
	NodeDomain []int32
	// Nodes holds each domain's nodes, snapshot indexes ascending.
	Nodes [][]int
}

// Domains returns the domains of key over the snapshot's nodes. They are
// built once per NodeVersion and shared: read them, never change them.
func (s *Snapshot) Domains(key string) *Domains {
	if s.domains == nil || s.domainsVersion != s.nodeVersion {
		s.domains, s.domainsVersion = map[string]*Domains{}, s.nodeVersion
	}
	if d, ok := s.domains[key]; ok {
		return d
	}
	d := buildDomains(s.nodes, key)
	s.domains[key] = d
	return d
}

func buildDomains(nodes []*NodeInfo, key string) *Domains {
	values := map[string]bool{}
	for _, ni := range nodes {
		if v, ok := ni.node.Labels[key]; ok {
			values[v] = true
		}
	}
	d := &Domains{Key: key, Values: slices.Sorted(maps.Keys(values)), NodeDomain: make([]int32, len(nodes))}
	id := make(map[string]int32, len(d.Values))
	for i, v := range d.Values {
		id[v] = int32(i)
	}
	d.Nodes = make([][]int, len(d.Values))
	for i, ni := range nodes {
		v, ok := ni.node.Labels[key]
		if !ok {
			d.NodeDomain[i] = -1
			continue
		}
		dom := id[v]
		d.NodeDomain[i] = dom
		d.Nodes[dom] = append(d.Nodes[dom], i)
	}
	return d
}

// Find returns the index of value among the domains, or -1.
func (d *Domains) Find(value string) int {
	if i, ok := slices.BinarySearch(d.Values, value); ok {
		return i
	}
	return -1
}
