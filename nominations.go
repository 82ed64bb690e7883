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
	byNode  map[string][]podID // in nomination order
	records *podTable          // the scheduler's, where the IDs point
	snap    *cluster.Snapshot
	// dropped is called when a nomination goes without its pod taking
	// the node: the room it held is free for others.
	dropped func()
	// feed lists the nodes whose nominations changed, the latest ones;
	// feedBase counts those dropped before them, so that a feed position
	// (feedPos) stays good until the entries after it are dropped.
	feed     []string
	feedBase uint64
	// at holds the nominated pods by snapshot index, and nodes the indexes
	// that have some, in order, for the node list of version atVersion;
	// filtering reads them node by node.
	at        [][]*cluster.PodInfo
	nodes     []int
	atVersion int64
	atValid   bool
}

// none reports whether no pod is nominated.
func (n *nominator) none() bool { return len(n.byNode) == 0 }

// maxNominationFeed bounds the feed of changed nominations kept.
const maxNominationFeed = 1024

// note records that the nominations to node changed, once they have.
func (n *nominator) note(node string) {
	n.refresh(node)
	if len(n.feed) >= maxNominationFeed {
		n.feedBase += uint64(len(n.feed))
		n.feed = n.feed[:0]
	}
	n.feed = append(n.feed, node)
}

// feedPos is the current end of the feed of nodes whose nominations
// changed: the position of the next change.
func (n *nominator) feedPos() uint64 { return n.feedBase + uint64(len(n.feed)) }

// nodesChangedSince returns the nodes whose nominations changed since feed
// position p (with repeats, in order), or false when that is no longer
// known.
func (n *nominator) nodesChangedSince(p uint64) ([]string, bool) {
	if p < n.feedBase || p > n.feedPos() {
		return nil, false
	}
	return n.feed[p-n.feedBase:], true
}

var _ placement.Nominations = (*nominator)(nil)

func newNominator(snap *cluster.Snapshot, records *podTable) *nominator {
	return &nominator{byNode: map[string][]podID{}, records: records, snap: snap}
}

// Empty reports whether no pod is nominated.
func (n *nominator) Empty() bool { return len(n.byNode) == 0 }

// NominatedTo returns the pods nominated to the node at snapshot index i;
// read-only.
func (n *nominator) NominatedTo(i int) []*cluster.PodInfo { return n.byIndex()[i] }

// Nodes appends the snapshot indexes of the nodes pods are nominated to,
// in order.
func (n *nominator) Nodes(buf []int) []int {
	n.byIndex()
	return append(buf, n.nodes...)
}

// has reports whether some pod is nominated to the node at snapshot index i.
func (n *nominator) has(i int) bool { return len(n.byNode) > 0 && len(n.byIndex()[i]) > 0 }

// byIndex returns the nominated pods by snapshot index, rebuilt when the
// node list changed.
func (n *nominator) byIndex() [][]*cluster.PodInfo {
	if n.atValid && n.atVersion == n.snap.NodeSetVersion() && len(n.at) == n.snap.Len() {
		return n.at
	}
	if cap(n.at) >= n.snap.Len() {
		n.at = n.at[:n.snap.Len()]
		clear(n.at)
	} else {
		n.at = make([][]*cluster.PodInfo, n.snap.Len())
	}
	n.nodes = n.nodes[:0]
	for name, rs := range n.byNode {
		if i, ok := n.snap.Index(name); ok {
			n.at[i] = n.infos(rs)
			n.nodes = append(n.nodes, i)
		}
	}
	slices.Sort(n.nodes)
	n.atVersion, n.atValid = n.snap.NodeSetVersion(), true
	return n.at
}

// refresh brings node's entry in byIndex's answer up to date after its
// nominations changed.
func (n *nominator) refresh(node string) {
	if !n.atValid || n.atVersion != n.snap.NodeSetVersion() || len(n.at) != n.snap.Len() {
		n.atValid = false
		return
	}
	i, ok := n.snap.Index(node)
	if !ok {
		return
	}
	n.at[i] = n.infos(n.byNode[node]) // a new list: lists handed out stay as they were
	pos, had := slices.BinarySearch(n.nodes, i)
	switch has := len(n.at[i]) > 0; {
	case has && !had:
		n.nodes = slices.Insert(n.nodes, pos, i)
	case !has && had:
		n.nodes = slices.Delete(n.nodes, pos, pos+1)
	}
}

// forgetIndex drops byIndex's answer (a nominated pod's info changed).
func (n *nominator) forgetIndex() { n.atValid = false }

func (n *nominator) infos(ids []podID) []*cluster.PodInfo {
	if len(ids) == 0 {
		return nil
	}
	out := make([]*cluster.PodInfo, len(ids))
	for j, id := range ids {
		out[j] = n.records.at(id).info
	}
	return out
}

// nominate records r's nominated node, replacing any earlier one.
func (n *nominator) nominate(r *podRecord, node string) {
	n.taken(r, node) // nominated there again: nothing is freed
	r.nominated = node
	n.byNode[node] = append(n.byNode[node], r.id)
	n.note(node)
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
	node := r.nominated
	rs := slices.DeleteFunc(n.byNode[node], func(o podID) bool { return o == r.id })
	if len(rs) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = rs
	}
	r.nominated = ""
	n.note(node)
}

// clearBelow drops the nominations to node of pods with priority below p:
// a preemptor takes precedence over them there.
func (n *nominator) clearBelow(node string, p int32) {
	for _, id := range slices.Clone(n.byNode[node]) {
		if r := n.records.at(id); r.info.Priority() < p {
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
