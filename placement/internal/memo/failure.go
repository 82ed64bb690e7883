package memo

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// failure is a scan that found no node for a signature: its FitError,
// shared by the pods that fail alike, valid at pos of the snapshot's feed.
type failure struct {
	fit       *fw.FitError
	pos       cluster.FeedPos
	nominated []int // the nodes pods were nominated to
	// verdicts are the filters' verdicts on nodes with the nominated pods
	// that count added, by node.
	verdicts map[int]nominatedVerdict
}

// nominatedVerdict is the verdict of the filters on a node under stamp
// with the nominated pods that count for pods of priority prio added (nil:
// they pass); noms and n identify the node's list of nominated pods then
// (the nominator makes a new list at every change).
type nominatedVerdict struct {
	stamp  uint64
	noms   **cluster.PodInfo
	n      int
	prio   int32
	status *fw.Status
}

// withNominated returns the scheduler's FilterNominated answer for node
// i, remembered in f while the node and the pods nominated there stay:
// pods of one signature and priority, not nominated there themselves, get
// the same answer.
func withNominated(s Scheduler, p *Pod, f *failure, i int) *fw.Status {
	noms := p.Nominations.NominatedTo(i)
	if len(noms) == 0 {
		return nil
	}
	pod, snap := p.Pod, p.Snap
	prio, self := pod.Priority(), false
	for _, n := range noms {
		self = self || n.Priority() >= prio && n.Key() == pod.Key()
	}
	if self {
		return s.FilterNominated(p.State, snap, pod, i)
	}
	stamp := snap.Stamp(i)
	if v, ok := f.verdicts[i]; ok && v.stamp == stamp && v.noms == &noms[0] && v.n == len(noms) && v.prio == prio {
		return v.status
	}
	st := s.FilterNominated(p.State, snap, pod, i)
	if f.verdicts == nil {
		f.verdicts = map[int]nominatedVerdict{}
	}
	f.verdicts[i] = nominatedVerdict{stamp: stamp, noms: &noms[0], n: len(noms), prio: prio, status: st}
	return st
}

// reuseFailure returns the FitError of the signature's last failure when
// it still holds: the failure was on every node, and each node changed
// since, or with pods nominated to it then or now, rejects the pod as it
// did then. A pending pod is retried after every change anywhere in a busy
// cluster; this makes a retry that fails again cost the nodes changed,
// not all nodes. The pod's filters must all be remembered ones.
func (m *Memo) reuseFailure(s Scheduler, p *Pod, t *table) *fw.FitError {
	f := t.failed
	if f == nil || len(m.plan.liveFilters) > 0 {
		return nil
	}
	snap, pod := p.Snap, p.Pod
	changed, ok := snap.NodesChangedSince(f.pos)
	if !ok {
		t.failed = nil
		return nil
	}
	nominated := m.markNominated(p)
	defer m.unmarkNominated()
	same := func(i int) bool {
		e, stamp := &t.nodes[i], snap.Stamp(i)
		if e.stamp != stamp {
			e.status, e.failAt = m.filter(p.State, pod, snap.Node(i))
			e.stamp = stamp
		}
		st := e.status
		if nominated && m.nomMark[i] {
			if ns := withNominated(s, p, f, i); ns != nil {
				st = ns
			}
		}
		was := f.fit.Statuses[i].Status
		if st == nil || !st.Equal(was) {
			return false
		}
		if st == e.status {
			e.status = was // one pointer for equal statuses: the next check is cheap
		}
		return true
	}
	for _, i := range changed {
		if !same(int(i)) {
			t.failed = nil
			return nil
		}
	}
	// nominations count for pods of lower or equal priority, and may have
	// come or gone on unchanged nodes
	for _, nodes := range [][]int{f.nominated, m.nomNodes} {
		for _, i := range nodes {
			if !same(i) {
				t.failed = nil
				return nil
			}
		}
	}
	f.pos = snap.FeedPos()
	f.nominated = append(f.nominated[:0], m.nomNodes...)
	return f.fit.For(pod.Key())
}

// rememberFailure records a scan of every node, in node order, that found
// none for the signature.
func (m *Memo) rememberFailure(snap *cluster.Snapshot, t *table, fit *fw.FitError) {
	if len(m.plan.liveFilters) > 0 || len(fit.Statuses) != snap.Len() {
		return
	}
	t.failed = &failure{fit: fit, pos: snap.FeedPos(), nominated: append([]int(nil), m.nomNodes...)}
}
