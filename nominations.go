package gangsim

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
)

// nominator records the nodes preemption nominated pods to: a nominated
// pod is tried on its node first, and counts there while pods of lower or
// equal priority are filtered, so that nobody takes the room its victims
// free (kube-scheduler's nominator).
type nominator struct {
	byNode map[string][]*podRecord // in nomination order
	snap   *cluster.Snapshot
	// dropped is called when a nomination goes without its pod taking
	// the node: the room it held is free for others.
	dropped func()
	// changed lists the nodes whose nominations changed, the latest
	// ones; changedBase counts those dropped before them.
	changed     []string
	changedBase uint64
}

// maxNominationChanges bounds the list of changed nominations kept.
const maxNominationChanges = 1024

// note records that the nominations to node changed.
func (n *nominator) note(node string) {
	if len(n.changed) >= maxNominationChanges {
		n.changedBase += uint64(len(n.changed))
		n.changed = n.changed[:0]
	}
	n.changed = append(n.changed, node)
}

// changePos is the position of the next change of nominations.
func (n *nominator) changePos() uint64 { return n.changedBase + uint64(len(n.changed)) }

// changedSince returns the nodes whose nominations changed since position
// p (with repeats), or false when that is no longer known.
func (n *nominator) changedSince(p uint64) ([]string, bool) {
	if p < n.changedBase || p > n.changePos() {
		return nil, false
	}
	return n.changed[p-n.changedBase:], true
}

var _ placement.Nominations = (*nominator)(nil)

func newNominator(snap *cluster.Snapshot) *nominator {
	return &nominator{byNode: map[string][]*podRecord{}, snap: snap}
}

// Empty reports whether no pod is nominated.
func (n *nominator) Empty() bool { return len(n.byNode) == 0 }

// NominatedTo returns the pods nominated to the node at snapshot index i.
func (n *nominator) NominatedTo(i int) []*cluster.PodInfo {
	rs := n.byNode[n.snap.Node(i).Name()]
	out := make([]*cluster.PodInfo, len(rs))
	for j, r := range rs {
		out[j] = r.info
	}
	return out
}

// Nodes appends the snapshot indexes of the nodes pods are nominated to.
func (n *nominator) Nodes(buf []int) []int {
	for name := range n.byNode {
		if i, ok := n.snap.Index(name); ok {
			buf = append(buf, i)
		}
	}
	return buf
}

// has reports whether some pod is nominated to the node at snapshot index i.
func (n *nominator) has(i int) bool {
	return len(n.byNode) > 0 && len(n.byNode[n.snap.Node(i).Name()]) > 0
}

// nominate records r's nominated node, replacing any earlier one.
func (n *nominator) nominate(r *podRecord, node string) {
	n.taken(r, node) // nominated there again: nothing is freed
	n.note(node)
	r.nominated = node
	n.byNode[node] = append(n.byNode[node], r)
}

// clear drops r's nomination, if any: the room it held is free.
func (n *nominator) clear(r *podRecord) {
	if r.nominated == "" {
		return
	}
	n.remove(r)
	if n.dropped != nil {
		n.dropped()
	}
}

// taken drops r's nomination as r is placed on node: when that is the
// nominated node, the pod takes the room it held and nothing is freed.
func (n *nominator) taken(r *podRecord, node string) {
	if r.nominated == node {
		n.remove(r)
		return
	}
	n.clear(r)
}

// remove forgets r's nomination.
func (n *nominator) remove(r *podRecord) {
	n.note(r.nominated)
	rs := slices.DeleteFunc(n.byNode[r.nominated], func(o *podRecord) bool { return o == r })
	if len(rs) == 0 {
		delete(n.byNode, r.nominated)
	} else {
		n.byNode[r.nominated] = rs
	}
	r.nominated = ""
}

// clearBelow drops the nominations to node of pods with priority below p:
// a preemptor takes precedence over them there.
func (n *nominator) clearBelow(node string, p int32) {
	for _, r := range slices.Clone(n.byNode[node]) {
		if r.info.Priority() < p {
			n.clear(r)
		}
	}
}

// index returns the snapshot index of r's nominated node, or -1.
func (n *nominator) index(r *podRecord) int {
	if r.nominated == "" {
		return -1
	}
	if i, ok := n.snap.Index(r.nominated); ok {
		return i
	}
	return -1
}
