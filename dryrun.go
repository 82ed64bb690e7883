package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/preemption"
)

var _ preemption.DryRunMemo = (*handle)(nil)

// dryRuns remembers the nodes preemption dry runs found to be no
// candidate, each under the node's stamp. A pod whose filters read only
// their node is no candidate on a node for as long as the node holds the
// same pods (its stamp; a dry run's own removals are rolled back to it)
// and no pod is nominated there; the pod's priority and filters do not
// change while it waits. Pods of one priority whose filters sign alike
// share what they found: the class. In a busy cluster a pending pod is
// retried after every change anywhere, and this turns its dry run from
// every node into the nodes that changed, tried once for all the pods of
// a class.
type dryRuns struct {
	snap    *cluster.Snapshot
	nodeSet int64
	byPod   map[*cluster.PodInfo]*podDryRuns // by the pod as admitted: a pod admitted again starts afresh
	byClass map[string][]uint64              // by filter signature and priority: node stamps, noStamp where unknown
	sig     []byte                           // the signature being built
	entries int
	off     bool // tests compare runs with and without it
	hits    int  // nodes passed over by Known, for tests
	skipped int  // nodes passed over by Since, for tests
}

// podDryRuns is one preemptor's memory.
type podDryRuns struct {
	nodes map[int]uint64 // nodes found no candidate, with their stamps then, when the pod has no class
	// none is the last dry run of a whole potential list that found no
	// candidate: with the nodes as at pos and the nominations as at
	// nomPos, only the nodes changed since need trying again.
	none   []int
	pos    cluster.FeedPos
	nomPos uint64
	since  []int // Since's answer, reused
}

// maxDryRunEntries bounds the memo (a class costs an entry per node);
// past it, it starts over.
const maxDryRunEntries = 1 << 23

// noStamp marks a node of a class not known to be no candidate.
const noStamp = ^uint64(0)

// DryRunMemo implements preemption.DryRunMemo.
func (h *handle) DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo, req *preemption.Request) {
	m, s := &h.s.dryRuns, h.s
	if m.off || !h.p.pods.NodeLocalFor(state) {
		return
	}
	if m.snap != s.snap || m.nodeSet != s.snap.NodeSetVersion() || m.entries > maxDryRunEntries {
		// node indexes are kept: they hold for one node list
		*m = dryRuns{snap: s.snap, nodeSet: s.snap.NodeSetVersion(), byPod: map[*cluster.PodInfo]*podDryRuns{}, byClass: map[string][]uint64{}, sig: m.sig}
	}
	d := m.byPod[pod]
	if d == nil {
		d = &podDryRuns{}
		m.byPod[pod] = d
	}
	if sig, ok := h.p.pods.FilterSignature(state, pod, m.sig[:0]); ok {
		p := pod.Priority()
		m.sig = append(sig, byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
		class, ok := m.byClass[string(m.sig)]
		if !ok {
			class = make([]uint64, s.snap.Len())
			for i := range class {
				class[i] = noStamp
			}
			m.byClass[string(m.sig)] = class
			m.entries += len(class)
		}
		req.Known = func(node int) bool {
			if class[node] == s.snap.Stamp(node) && !s.nominations.has(node) {
				m.hits++
				return true
			}
			return false
		}
		req.Rejected = func(node int) {
			if !s.nominations.has(node) {
				class[node] = s.snap.Stamp(node)
			}
		}
	} else {
		req.Known = func(node int) bool {
			stamp, ok := d.nodes[node]
			if ok && stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
				m.hits++
				return true
			}
			return false
		}
		req.Rejected = func(node int) {
			if s.nominations.has(node) {
				return
			}
			if d.nodes == nil {
				d.nodes = map[int]uint64{}
			}
			if _, had := d.nodes[node]; !had {
				m.entries++
			}
			d.nodes[node] = s.snap.Stamp(node)
		}
	}
	req.Since = func(potential []int) ([]int, bool) {
		nodes, ok := d.changedSince(s, potential)
		if ok {
			m.skipped += len(potential) - len(nodes)
		}
		return nodes, ok
	}
	req.NoneFound = func(potential []int) {
		if !slices.IsSorted(potential) {
			d.none = nil
			return
		}
		if !sameList(d.none, potential) {
			m.entries += len(potential) - len(d.none)
			d.none = potential // read-only: a FitError's list, kept as is
		}
		d.pos, d.nomPos = s.snap.FeedPos(), s.nominations.changePos()
	}
}

// changedSince returns the nodes of potential changed since the pod's last
// dry run over the same list that found no candidate, in node order.
func (d *podDryRuns) changedSince(s *Scheduler, potential []int) ([]int, bool) {
	if d.none == nil || !sameList(d.none, potential) {
		return nil, false
	}
	changed, ok := s.snap.ChangedSince(d.pos)
	noms, nomsOK := s.nominations.changedSince(d.nomPos)
	if !ok || !nomsOK || len(changed)+len(noms) > 2*len(potential) {
		return nil, false // sorting them costs more than the whole list
	}
	out := d.since[:0]
	add := func(i int) {
		if _, in := slices.BinarySearch(potential, i); in {
			out = append(out, i)
		}
	}
	for _, i := range changed {
		add(int(i))
	}
	for _, name := range noms {
		if i, ok := s.snap.Index(name); ok {
			add(i)
		}
	}
	slices.Sort(out)
	d.since = slices.Compact(out)
	return d.since, true
}

// sameList reports whether a and b hold the same nodes; FitErrors of pods
// that failed alike share one list, which makes the usual case one
// comparison.
func sameList(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// forget drops a pod's remembered dry runs: it is bound or gone.
func (m *dryRuns) forget(pod *cluster.PodInfo) {
	if d, ok := m.byPod[pod]; ok {
		m.entries -= len(d.nodes) + len(d.none)
		delete(m.byPod, pod)
	}
}
