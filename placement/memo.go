package placement

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

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

// SignatureOnly marks NodeName as a SignaturePlugin.
func (NodeName) SignatureOnly() {}

// SignatureOnly marks NodeUnschedulable as a SignaturePlugin.
func (NodeUnschedulable) SignatureOnly() {}

// SignatureOnly marks NodeAffinity as a SignaturePlugin.
func (NodeAffinity) SignatureOnly() {}

// SignatureOnly marks TaintToleration as a SignaturePlugin.
func (TaintToleration) SignatureOnly() {}

// SignatureOnly marks NodeResourcesFit as a SignaturePlugin.
func (*NodeResourcesFit) SignatureOnly() {}

// SignatureOnly marks BalancedAllocation as a SignaturePlugin.
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
	buf       []byte     // the signature being looked up
}

// memoTable is one signature's answers, node by node; a node's answers
// sit in one cache line, since the scan reads them together.
type memoTable struct {
	nodes []memoEntry
}

type memoEntry struct {
	stamp  uint64     // the filter verdict is valid at this stamp; 0: none
	scored uint64     // the scores are valid at this stamp; 0: none
	rej    *Rejection // nil: fits
	fixed  int64      // weighted sum of the scores needing no normalisation
	norm   [maxNormalizers]int64
}

// table returns the table for pod's signature on snap, or nil on the
// signature's first sighting. Everything is forgotten when the snapshot or
// its node list changes.
func (m *memo) table(snap *cluster.Snapshot, pod *cluster.PodInfo) *memoTable {
	if m.snap != snap || m.tables == nil {
		m.snap, m.tables, m.order, m.sightings, m.spare = snap, map[string]*memoTable{}, nil, map[string]int{}, nil
	}
	m.buf = appendSignature(m.buf[:0], pod.Pod())
	if t, ok := m.tables[string(m.buf)]; ok { // no allocation for the lookup
		if len(t.nodes) == snap.Len() {
			return t
		}
		m.forget(string(m.buf))
	}
	if len(m.sightings) >= maxSightings {
		clear(m.sightings)
	}
	if n := m.sightings[string(m.buf)]; n == 0 {
		m.sightings[string(m.buf)] = 1
		return nil
	}
	sig := string(m.buf)
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
	if t := m.spare; t != nil && len(t.nodes) == n {
		m.spare = nil
		clear(t.nodes)
		return t
	}
	return &memoTable{nodes: make([]memoEntry, n)}
}

// appendSignature appends to buf everything a SignaturePlugin may read
// from a pod: requests, node name, node selector (sorted), required
// affinity and tolerations. The common pod (requests only) costs no
// allocation.
func appendSignature(buf []byte, p *cluster.Pod) []byte {
	r := &p.Requests
	buf = strconv.AppendInt(buf, r.MilliCPU, 10)
	buf = append(buf, ',')
	buf = strconv.AppendInt(buf, r.Memory, 10)
	for sc := range r.Scalars() {
		buf = append(buf, ',')
		buf = append(buf, sc.Name...)
		buf = append(buf, '=')
		buf = strconv.AppendInt(buf, sc.Value, 10)
	}
	buf = append(buf, '|')
	buf = append(buf, p.NodeName...)
	buf = append(buf, '|')
	if len(p.NodeSelector) > 0 {
		for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
			buf = append(buf, k...)
			buf = append(buf, '=')
			buf = append(buf, p.NodeSelector[k]...)
			buf = append(buf, ',')
		}
	}
	buf = append(buf, '|')
	if p.Affinity != nil {
		buf = fmt.Appendf(buf, "%q", p.Affinity.Required)
	}
	buf = append(buf, '|')
	if len(p.Tolerations) > 0 {
		buf = fmt.Appendf(buf, "%q", p.Tolerations)
	}
	return buf
}
