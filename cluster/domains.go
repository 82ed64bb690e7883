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
		s.totals = s.totals[:0]
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

// DomainTotals are the resources of each domain of a key, summed over its
// nodes: allocatable, requested, and the non-zero cpu and memory requests
// scoring counts (over the nodes that have cpu, respectively memory). The
// snapshot keeps them up to date through every change, tentative ones
// included, so that a placement's room is read in O(1) instead of summed
// node by node.
type DomainTotals struct {
	doms *Domains
	sums []domainSums
}

type domainSums struct {
	alloc, req   [3]int64 // cpu, memory, pods
	nzCPU, nzMem int64
	allocExt     []Scalar // extended resources, by name
	reqExt       []Scalar
}

// Domains returns the domains the totals are over.
func (t *DomainTotals) Domains() *Domains { return t.doms }

// Allocatable returns the allocatable amount of a resource summed over
// domain d's nodes.
func (t *DomainTotals) Allocatable(d int, name ResourceName) int64 {
	return t.sums[d].get(&t.sums[d].alloc, t.sums[d].allocExt, name)
}

// Requested returns the requested amount of a resource summed over domain
// d's nodes.
func (t *DomainTotals) Requested(d int, name ResourceName) int64 {
	return t.sums[d].get(&t.sums[d].req, t.sums[d].reqExt, name)
}

// NonZeroRequested returns the cpu and memory requests scoring counts,
// summed over domain d's nodes that have cpu (respectively memory).
func (t *DomainTotals) NonZeroRequested(d int) (milliCPU, memory int64) {
	return t.sums[d].nzCPU, t.sums[d].nzMem
}

func (ds *domainSums) get(base *[3]int64, ext []Scalar, name ResourceName) int64 {
	switch name {
	case ResourceCPU:
		return base[0]
	case ResourceMemory:
		return base[1]
	case ResourcePods:
		return base[2]
	}
	for _, s := range ext {
		if s.Name == name {
			return s.Value
		}
	}
	return 0
}

// addNode adds (sign 1) or takes away (-1) a node's allocatable and
// requests to its domain.
func (t *DomainTotals) addNode(i int, ni *NodeInfo, sign int64) {
	d := t.doms.NodeDomain[i]
	if d < 0 {
		return
	}
	ds := &t.sums[d]
	a := &ni.node.Allocatable
	ds.alloc[0] += sign * a.MilliCPU
	ds.alloc[1] += sign * a.Memory
	ds.alloc[2] += sign * a.Pods
	addExt(&ds.allocExt, a.scalars, sign)
	r := &ni.requested
	ds.req[0] += sign * r.MilliCPU
	ds.req[1] += sign * r.Memory
	ds.req[2] += sign * r.Pods
	addExt(&ds.reqExt, r.scalars, sign)
	if a.MilliCPU != 0 {
		ds.nzCPU += sign * ni.nonZeroCPU
	}
	if a.Memory != 0 {
		ds.nzMem += sign * ni.nonZeroMem
	}
}

// addPod adds or takes away one pod's requests on node ni (at index i).
func (t *DomainTotals) addPod(i int, ni *NodeInfo, pi *PodInfo, sign int64) {
	d := t.doms.NodeDomain[i]
	if d < 0 {
		return
	}
	ds := &t.sums[d]
	r := &pi.spec.request
	ds.req[0] += sign * r.MilliCPU
	ds.req[1] += sign * r.Memory
	ds.req[2] += sign * r.Pods
	addExt(&ds.reqExt, r.scalars, sign)
	nzCPU, nzMem := pi.NonZeroRequests()
	if ni.node.Allocatable.MilliCPU != 0 {
		ds.nzCPU += sign * nzCPU
	}
	if ni.node.Allocatable.Memory != 0 {
		ds.nzMem += sign * nzMem
	}
}

// addExt adds sign*o into the sorted list *dst, in place (the totals own
// their lists); names reaching 0 stay, so that the list stops growing.
func addExt(dst *[]Scalar, o []Scalar, sign int64) {
	for _, s := range o {
		i, found := slices.BinarySearchFunc(*dst, s.Name, func(x Scalar, n ResourceName) int { return cmpNames(x.Name, n) })
		if found {
			(*dst)[i].Value += sign * s.Value
			continue
		}
		*dst = slices.Insert(*dst, i, Scalar{Name: s.Name, Value: sign * s.Value})
	}
}

func cmpNames(a, b ResourceName) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// DomainTotals returns the totals of key's domains, built on first use and
// kept up to date from then on (until the node list or labels change).
// Read them, never change them.
func (s *Snapshot) DomainTotals(key string) *DomainTotals {
	doms := s.Domains(key)
	for _, t := range s.totals {
		if t.doms == doms {
			return t
		}
	}
	t := &DomainTotals{doms: doms, sums: make([]domainSums, len(doms.Values))}
	for i, ni := range s.nodes {
		t.addNode(i, ni, 1)
	}
	s.totals = append(s.totals, t)
	return t
}
