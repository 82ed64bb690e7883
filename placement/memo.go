package placement

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// SignaturePlugin marks a filter or score plugin whose answer depends only
// on the node's state and on the pod's signature (requests, node selector,
// affinity, tolerations, node name): pods of one signature get the same
// answer on an unchanged node. Every built-in plugin is one. The
// PodScheduler remembers their answers per signature and node while the
// node is unchanged (its snapshot Stamp holds), as kube-scheduler's
// opportunistic batching does for pods of one signature.
type SignaturePlugin interface {
	SignatureOnly()
}

// The built-ins.
func (NodeName) SignatureOnly()            {}
func (NodeUnschedulable) SignatureOnly()   {}
func (NodeAffinity) SignatureOnly()        {}
func (TaintToleration) SignatureOnly()     {}
func (*NodeResourcesFit) SignatureOnly()   {}
func (*BalancedAllocation) SignatureOnly() {}

// The signatures remembered are bounded by count and by memory (a table
// costs memoBytesPerNode per node); the oldest is forgotten first.
const (
	maxMemoSignatures = 64
	memoBudgetBytes   = 64 << 20
	memoBytesPerNode  = 48
)

// memoCapacity is how many tables fit the budget for n nodes (at least 1).
func memoCapacity(n int) int {
	return max(1, min(maxMemoSignatures, memoBudgetBytes/max(1, n*memoBytesPerNode)))
}

// maxSightings bounds the signatures counted before any is remembered.
const maxSightings = 4096

// memo holds, per pod signature, each node's filter verdict and scores,
// valid while the node's stamp is the one recorded. A signature gets a
// table on its second sighting: a pod shape seen once (common in traces,
// where requests vary pod by pod) would pay for a table it never reuses.
type memo struct {
	snap      *cluster.Snapshot
	tables    map[string]*memoTable
	order     []string // insertion order, for forgetting the oldest
	sightings map[string]int
	spare     *memoTable // a forgotten table, reused for the next one
}

type memoTable struct {
	stamps []uint64     // filter verdict valid at this stamp; 0: none
	rej    []*Rejection // nil: fits
	scored []uint64     // scores valid at this stamp; 0: none
	fixed  []int64      // weighted sum of the scores needing no normalisation
	norm   []int64      // raw scores of the normalisers, maxNormalizers per node
}

// table returns the table for pod's signature on snap, or nil on the
// signature's first sighting. Everything is forgotten when the snapshot or
// its node list changes.
func (m *memo) table(snap *cluster.Snapshot, pod *cluster.PodInfo) *memoTable {
	if m.snap != snap || m.tables == nil {
		m.snap, m.tables, m.order, m.sightings, m.spare = snap, map[string]*memoTable{}, nil, map[string]int{}, nil
	}
	sig := signature(pod.Pod())
	if t, ok := m.tables[sig]; ok {
		if len(t.stamps) == snap.Len() {
			return t
		}
		m.forget(sig)
	}
	if len(m.sightings) >= maxSightings {
		clear(m.sightings)
	}
	if m.sightings[sig]++; m.sightings[sig] < 2 {
		return nil
	}
	if len(m.order) >= memoCapacity(snap.Len()) {
		m.forget(m.order[0])
	}
	t := m.newTable(snap.Len())
	m.order = append(m.order, sig)
	m.tables[sig] = t
	return t
}

func (m *memo) forget(sig string) {
	m.spare = m.tables[sig]
	delete(m.tables, sig)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == sig })
}

// newTable returns an empty table for n nodes, reusing a forgotten one.
func (m *memo) newTable(n int) *memoTable {
	if t := m.spare; t != nil && len(t.stamps) == n {
		m.spare = nil
		clear(t.stamps)
		clear(t.scored)
		return t
	}
	return &memoTable{stamps: make([]uint64, n), rej: make([]*Rejection, n), scored: make([]uint64, n),
		fixed: make([]int64, n), norm: make([]int64, n*maxNormalizers)}
}

// signature renders everything a SignaturePlugin may read from a pod.
func signature(p *cluster.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|", p.Requests.String(), p.NodeName)
	for _, k := range slices.Sorted(mapKeys(p.NodeSelector)) {
		fmt.Fprintf(&b, "%s=%s,", k, p.NodeSelector[k])
	}
	b.WriteByte('|')
	if p.Affinity != nil {
		fmt.Fprintf(&b, "%v", p.Affinity.Required)
	}
	b.WriteByte('|')
	fmt.Fprintf(&b, "%v", p.Tolerations)
	return b.String()
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
