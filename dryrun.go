package gangsim

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/preemption"
)

var _ preemption.DryRunMemo = (*handle)(nil)

// dryRuns remembers, per preemptor, the nodes its preemption dry runs
// found to be no candidate, each under the node's stamp. A pod whose
// filters read only their node is no candidate on a node for as long as
// the node holds the same pods (its stamp; a dry run's own removals are
// rolled back to it) and no pod is nominated there; the pod's priority
// and filters do not change while it waits. In a busy cluster a pending
// pod is retried after every change anywhere, and this turns its dry run
// from every node into the nodes that changed.
type dryRuns struct {
	snap    *cluster.Snapshot
	byPod   map[*cluster.PodInfo]map[int]uint64 // by the pod as admitted: a pod admitted again starts afresh
	entries int
	off     bool // tests compare runs with and without it
	hits    int  // nodes passed over, for tests
}

// maxDryRunEntries bounds the memo; past it, it starts over.
const maxDryRunEntries = 1 << 20

// DryRunMemo implements preemption.DryRunMemo.
func (h *handle) DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo) (func(int) bool, func(int)) {
	m, s := &h.s.dryRuns, h.s
	if m.off || !h.p.pods.NodeLocalFor(state) {
		return nil, nil
	}
	if m.snap != s.snap || m.entries > maxDryRunEntries {
		*m = dryRuns{snap: s.snap, byPod: map[*cluster.PodInfo]map[int]uint64{}}
	}
	nodes := m.byPod[pod]
	known := func(node int) bool {
		stamp, ok := nodes[node]
		if ok && stamp == s.snap.Stamp(node) && len(s.nominations.NominatedTo(node)) == 0 {
			m.hits++
			return true
		}
		return false
	}
	rejected := func(node int) {
		if len(s.nominations.NominatedTo(node)) > 0 {
			return
		}
		if nodes == nil {
			nodes = map[int]uint64{}
			m.byPod[pod] = nodes
		}
		if _, had := nodes[node]; !had {
			m.entries++
		}
		nodes[node] = s.snap.Stamp(node)
	}
	return known, rejected
}

// forget drops a pod's remembered dry runs: it is bound or gone.
func (m *dryRuns) forget(pod *cluster.PodInfo) {
	if nodes, ok := m.byPod[pod]; ok {
		m.entries -= len(nodes)
		delete(m.byPod, pod)
	}
}
