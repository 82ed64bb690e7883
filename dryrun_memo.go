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
	byClass map[string]*classDryRuns         // by filter signature and priority
	sig     []byte                           // the signature being built
	entries int
	off     bool // tests compare runs with and without it
	hits    int  // nodes passed over by Known, for tests
	reused  int  // candidates Remembered, for tests
	skipped int  // nodes passed over by Since, for tests
}

// podDryRuns is one preemptor's memory.
type podDryRuns struct {
	nodes map[int]uint64 // nodes found no candidate, with their stamps then, when the pod has no class
	none  noneFound      // when the pod has no class, or is nominated somewhere
}

// classDryRuns is the memory of the pods of a class.
type classDryRuns struct {
	stamps []uint64  // by node: the stamp under which it was no candidate, noStamp when unknown
	none   noneFound // of pods nominated nowhere: nominated pods on a node count alike for them
	// found is, by node (nil until the first), the candidate a dry run
	// found on it, under its stamp then and with budgets as they were. A
	// successful preemption tries nodes until it has a hundred or a tenth
	// of them as candidates, and the next pod of the class finds nearly
	// all of them unchanged: nine dry runs in ten of a busy cluster were
	// of such searches.
	found   []foundCandidate
	budgets []cluster.BudgetStatus
}

// foundCandidate is a candidate found on a node under a stamp.
type foundCandidate struct {
	stamp uint64 // noStamp when none
	c     preemption.Candidate
}

// noneFound is the last dry run of a whole potential list that found no
// candidate: with the nodes as at pos and the nominations as at nomPos,
// only the nodes changed since need trying again.
type noneFound struct {
	list   []int // read-only: a FitError's list, kept as is
	pos    cluster.FeedPos
	nomPos uint64
	since  []int // changedSince's answer, reused
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
		*m = dryRuns{snap: s.snap, nodeSet: s.snap.NodeSetVersion(), byPod: map[*cluster.PodInfo]*podDryRuns{}, byClass: map[string]*classDryRuns{}, sig: m.sig}
	}
	d := m.byPod[pod]
	if d == nil {
		d = &podDryRuns{}
		m.byPod[pod] = d
	}
	none := &d.none
	if sig, ok := h.p.pods.FilterSignature(state, pod, m.sig[:0]); ok {
		p := pod.Priority()
		m.sig = append(sig, byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
		c := m.byClass[string(m.sig)]
		if c == nil {
			c = &classDryRuns{stamps: make([]uint64, s.snap.Len())}
			for i := range c.stamps {
				c.stamps[i] = noStamp
			}
			m.byClass[string(m.sig)] = c
			m.entries += len(c.stamps)
		}
		if r := s.record(pod.Key()); r == nil || r.nominated == "" {
			none = &c.none // the pod is no nominated pod that counts on some node for others
		}
		req.Known = func(node int) bool {
			if c.stamps[node] == s.snap.Stamp(node) && !s.nominations.has(node) {
				m.hits++
				return true
			}
			return false
		}
		req.Rejected = func(node int) {
			if !s.nominations.has(node) {
				c.stamps[node] = s.snap.Stamp(node)
			}
		}
		if !slices.Equal(c.budgets, req.Budgets) {
			// a candidate's victims depend on the budgets' allowances
			c.found, c.budgets = nil, slices.Clone(req.Budgets)
		}
		req.Remembered = func(node int) (preemption.Candidate, bool) {
			if c.found != nil && c.found[node].stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
				m.reused++
				return c.found[node].c, true
			}
			return preemption.Candidate{}, false
		}
		req.Found = func(node int, cand preemption.Candidate) {
			if _, lone := s.cachedLoneUnits(node); !lone || s.nominations.has(node) {
				return // a group's unit reaches other nodes, whose changes the stamp does not tell
			}
			if c.found == nil {
				c.found = make([]foundCandidate, len(c.stamps))
				for i := range c.found {
					c.found[i].stamp = noStamp
				}
				m.entries += len(c.found)
			}
			c.found[node] = foundCandidate{stamp: s.snap.Stamp(node), c: cand}
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
		nodes, ok := none.changedSince(s, potential)
		if ok {
			m.skipped += len(potential) - len(nodes)
		}
		return nodes, ok
	}
	req.NoneFound = func(potential []int) { none.record(s, potential) }
}

// record remembers a dry run of potential that found no candidate.
func (nf *noneFound) record(s *Scheduler, potential []int) {
	if !sameList(nf.list, potential) && !slices.IsSorted(potential) {
		nf.list = nil
		return
	}
	nf.list, nf.pos, nf.nomPos = potential, s.snap.FeedPos(), s.nominations.changePos()
}

// changedSince returns the nodes of potential changed since the last dry
// run over the same list that found no candidate, in node order.
func (nf *noneFound) changedSince(s *Scheduler, potential []int) ([]int, bool) {
	if nf.list == nil || !sameList(nf.list, potential) {
		return nil, false
	}
	changed, ok := s.snap.ChangedSince(nf.pos)
	noms, nomsOK := s.nominations.changedSince(nf.nomPos)
	if !ok || !nomsOK || len(changed)+len(noms) > 2*len(potential) {
		return nil, false // sorting them costs more than the whole list
	}
	out := nf.since[:0]
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
	nf.since = slices.Compact(out)
	return nf.since, true
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
		m.entries -= len(d.nodes)
		delete(m.byPod, pod)
	}
}
