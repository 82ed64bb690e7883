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

// maxMemoSignatures bounds the signatures remembered; the oldest is
// forgotten first.
const maxMemoSignatures = 64

// memo holds, per pod signature, each node's filter verdict and raw
// scores, valid while the node's stamp is the one recorded.
type memo struct {
	snap   *cluster.Snapshot
	tables map[string]*memoTable
	order  []string // insertion order, for forgetting the oldest
}

type memoTable struct {
	stamps []uint64     // filter verdict valid at this stamp; 0: none
	rej    []*Rejection // nil: fits
	scored []uint64     // scores valid at this stamp; 0: none
	fixed  []int64      // weighted sum of the scores needing no normalisation
	norm   []int64      // raw scores of the normalisers, maxNormalizers per node
}

// table returns the table for pod's signature on snap, creating it (and
// forgetting everything remembered for another snapshot or node list).
func (m *memo) table(snap *cluster.Snapshot, pod *cluster.PodInfo) *memoTable {
	if m.snap != snap || m.tables == nil {
		m.snap, m.tables, m.order = snap, map[string]*memoTable{}, nil
	}
	sig := signature(pod.Pod())
	t, ok := m.tables[sig]
	if ok && len(t.stamps) == snap.Len() {
		return t
	}
	if !ok && len(m.order) >= maxMemoSignatures {
		delete(m.tables, m.order[0])
		m.order = m.order[1:]
	}
	n := snap.Len()
	t = &memoTable{stamps: make([]uint64, n), rej: make([]*Rejection, n), scored: make([]uint64, n),
		fixed: make([]int64, n), norm: make([]int64, n*maxNormalizers)}
	if !ok {
		m.order = append(m.order, sig)
	}
	m.tables[sig] = t
	return t
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
