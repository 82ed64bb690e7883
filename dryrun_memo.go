package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/preemption"
)

var _ preemption.DryRunMemos = (*handle)(nil)

// dryRuns (the DryRunMemo and RememberedCandidates shortcuts) remembers
// the nodes preemption dry runs found to be no candidate, each under the
// node's stamp, and the candidates they found. A pod whose filters read
// only their node is no candidate on a node for as long as the node holds
// the same pods (its stamp; a dry run's own removals are rolled back to
// it) and no pod is nominated there; the pod's priority and filters do
// not change while it waits. Pods of one priority whose filters sign alike
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
	since  []int // nodesChangedSince's answer, reused
}

// maxDryRunEntries bounds the memo (a class costs an entry per node);
// past it, it starts over.
const maxDryRunEntries = 1 << 23

// noStamp marks a node of a class not known to be no candidate.
const noStamp = ^uint64(0)

// DryRunMemo implements preemption.DryRunMemos: the memory of the pod's
// class when its filters sign, else the pod's own.
func (h *handle) DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo, budgets []cluster.BudgetStatus) preemption.DryRunMemo {
	m, s := &h.s.dryRuns, h.s
	if !s.uses(DryRunMemo) || !h.p.pods.NodeLocalFor(state) {
		return nil
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
	sig, ok := h.p.pods.FilterSignature(state, pod, m.sig[:0])
	if !ok {
		return &podMemo{s: s, d: d}
	}
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
	if !slices.Equal(c.budgets, budgets) {
		// a candidate's victims depend on the budgets' allowances
		c.found, c.budgets = nil, slices.Clone(budgets)
	}
	none := &d.none
	if r := s.record(pod.Key()); r == nil || r.nominated == "" {
		none = &c.none // the pod is no nominated pod that counts on some node for others
	}
	return &classMemo{s: s, c: c, none: none}
}

// classMemo is the memory of a class, for one dry run.
type classMemo struct {
	s    *Scheduler
	c    *classDryRuns
	none *noneFound
}

func (cm *classMemo) Changed(potential []int) ([]int, bool) {
	return cm.none.nodesChangedSince(cm.s, potential)
}

func (cm *classMemo) NoneFound(potential []int) { cm.none.record(cm.s, potential) }

func (cm *classMemo) KnownNoCandidate(node int) bool {
	s := cm.s
	if cm.c.stamps[node] == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.DryRunNodesKnown++
		return true
	}
	return false
}

func (cm *classMemo) KnownCandidate(node int) (preemption.Candidate, bool) {
	s, c := cm.s, cm.c
	if c.found != nil && c.found[node].stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.RememberedCandidates++
		return c.found[node].c, true
	}
	return preemption.Candidate{}, false
}

func (cm *classMemo) Tried(node int, cand preemption.Candidate, found bool) {
	s, c := cm.s, cm.c
	if !found {
		if !s.nominations.has(node) {
			c.stamps[node] = s.snap.Stamp(node)
		}
		return
	}
	if !s.uses(RememberedCandidates) {
		return
	}
	if _, lone := s.cachedLoneUnits(node); !lone || s.nominations.has(node) {
		return // a group's unit reaches other nodes, whose changes the stamp does not tell
	}
	if c.found == nil {
		c.found = make([]foundCandidate, len(c.stamps))
		for i := range c.found {
			c.found[i].stamp = noStamp
		}
		s.dryRuns.entries += len(c.found)
	}
	c.found[node] = foundCandidate{stamp: s.snap.Stamp(node), c: cand}
}

// podMemo is one pod's own memory, for one dry run of a pod whose
// filters do not sign: nodes found no candidate, no candidates kept.
type podMemo struct {
	s *Scheduler
	d *podDryRuns
}

func (pm *podMemo) Changed(potential []int) ([]int, bool) {
	return pm.d.none.nodesChangedSince(pm.s, potential)
}

func (pm *podMemo) NoneFound(potential []int) { pm.d.none.record(pm.s, potential) }

func (pm *podMemo) KnownNoCandidate(node int) bool {
	s := pm.s
	stamp, ok := pm.d.nodes[node]
	if ok && stamp == s.snap.Stamp(node) && !s.nominations.has(node) {
		s.shortcutStats.DryRunNodesKnown++
		return true
	}
	return false
}

func (pm *podMemo) KnownCandidate(int) (preemption.Candidate, bool) {
	return preemption.Candidate{}, false
}

func (pm *podMemo) Tried(node int, _ preemption.Candidate, found bool) {
	s, d := pm.s, pm.d
	if found || s.nominations.has(node) {
		return
	}
	if d.nodes == nil {
		d.nodes = map[int]uint64{}
	}
	if _, had := d.nodes[node]; !had {
		s.dryRuns.entries++
	}
	d.nodes[node] = s.snap.Stamp(node)
}

// record remembers a dry run of potential that found no candidate.
func (nf *noneFound) record(s *Scheduler, potential []int) {
	if !sameList(nf.list, potential) && !slices.IsSorted(potential) {
		nf.list = nil
		return
	}
	nf.list, nf.pos, nf.nomPos = potential, s.snap.FeedPos(), s.nominations.feedPos()
}

// nodesChangedSince returns the nodes of potential changed since the last
// dry run over the same list that found no candidate, in node order.
func (nf *noneFound) nodesChangedSince(s *Scheduler, potential []int) ([]int, bool) {
	if nf.list == nil || !sameList(nf.list, potential) {
		return nil, false
	}
	changed, ok := s.snap.NodesChangedSince(nf.pos)
	noms, nomsOK := s.nominations.nodesChangedSince(nf.nomPos)
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
	s.shortcutStats.DryRunNodesSkipped += len(potential) - len(nf.since)
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
