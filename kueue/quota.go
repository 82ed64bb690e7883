package kueue

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
)

// The quota arithmetic of a cohort tree, as Kueue keeps it: every
// ClusterQueue and Cohort is a node with its own quotas (nominal,
// borrowing limit, lending limit) for each flavor and resource, its
// subtree quota (its nominal quota, plus what its children lend it: each
// child's subtree quota less what its lending limit keeps local) and its
// usage (a ClusterQueue's admitted workloads; a Cohort's, what its
// children use beyond their local quota). A node's local quota is what
// its lending limit keeps from its parent: its subtree quota less the
// lending limit.
//
// Amounts saturate at unlimited (math.MaxInt64), as Kueue's do, so that
// sums of very large quotas never wrap.

// unlimited is an amount without bound.
const unlimited = math.MaxInt64

func addAmount(a, b int64) int64 {
	if a == unlimited || b == unlimited {
		return unlimited
	}
	s := a + b
	if b > 0 && s < a {
		return unlimited
	}
	if b < 0 && s > a {
		return math.MinInt64
	}
	return s
}

func subAmount(a, b int64) int64 {
	if a == unlimited {
		return unlimited
	}
	if b == unlimited {
		return math.MinInt64
	}
	return addAmount(a, -b)
}

// fr names one resource of one flavor.
type fr struct {
	flavor   string
	resource cluster.ResourceName
}

// quota is a node's own quota of one flavor and resource.
type quota struct {
	set            bool
	nominal        int64
	borrowingLimit *int64
	lendingLimit   *int64
}

// node is a ClusterQueue's or a Cohort's place in the tree; its slices
// are indexed by the engine's flavor-resource numbers.
type node struct {
	name     string
	cq       *clusterQueue // nil for a Cohort
	parent   *node
	cohorts  []*node // a Cohort's child Cohorts, in name order
	queues   []*node // a Cohort's ClusterQueues, in name order
	quotas   []quota
	subtree  []int64
	usage    []int64
	saved    []int64 // usage at the start of the cycle (snapshot)
	explicit bool    // a Cohort object exists (not only named by a queue)
	weight   float64 // fair-sharing weight (fairshare.go)
}

func (n *node) hasParent() bool { return n.parent != nil }

func (n *node) root() *node {
	for n.parent != nil {
		n = n.parent
	}
	return n
}

// localQuota is what the node's lending limit keeps from its parent.
func (n *node) localQuota(i int) int64 {
	if l := n.quotas[i].lendingLimit; l != nil {
		return max(0, subAmount(n.subtree[i], *l))
	}
	return 0
}

// localAvailable is the node's local quota not in use.
func (n *node) localAvailable(i int) int64 {
	return max(0, subAmount(n.localQuota(i), n.usage[i]))
}

// available is what the node may still use: its local quota left, and
// what its parent has left, bounded by the borrowing limit less what the
// node already uses in its parent. It is negative when the node is over
// its quota (capacity was removed).
func (n *node) available(i int) int64 {
	if n.parent == nil {
		return subAmount(n.subtree[i], n.usage[i])
	}
	parent := n.parent.available(i)
	if b := n.quotas[i].borrowingLimit; b != nil {
		lq := n.localQuota(i)
		stored := subAmount(n.subtree[i], lq)
		used := max(0, subAmount(n.usage[i], lq))
		parent = min(addAmount(subAmount(stored, used), *b), parent)
	}
	return addAmount(n.localAvailable(i), parent)
}

// potentialAvailable is the most the node could ever use, with nothing
// in use anywhere.
func (n *node) potentialAvailable(i int) int64 {
	if n.parent == nil {
		return n.subtree[i]
	}
	avail := addAmount(n.localQuota(i), n.parent.potentialAvailable(i))
	if b := n.quotas[i].borrowingLimit; b != nil {
		avail = min(addAmount(n.subtree[i], *b), avail)
	}
	return avail
}

// addUsage adds v to the node, and what exceeds its local quota left to
// its parent.
func (n *node) addUsage(i int, v int64) {
	local := n.localAvailable(i)
	n.usage[i] = addAmount(n.usage[i], v)
	if n.parent != nil && v > local {
		n.parent.addUsage(i, subAmount(v, local))
	}
}

// removeUsage removes v from the node, and from its parent what it had
// stored there.
func (n *node) removeUsage(i int, v int64) {
	stored := subAmount(n.usage[i], n.localQuota(i))
	n.usage[i] = subAmount(n.usage[i], v)
	if stored <= 0 || n.parent == nil {
		return
	}
	n.parent.removeUsage(i, min(v, stored))
}

// borrowingWith reports whether the node would use more than its subtree
// quota with v more.
func (n *node) borrowingWith(i int, v int64) bool {
	return n.subtree[i] < addAmount(n.usage[i], v)
}

// withinNominal reports whether the node uses no more than its subtree
// quota in each of the resources.
func (n *node) withinNominal(frs []int) bool {
	for _, i := range frs {
		if n.subtree[i] < n.usage[i] {
			return false
		}
	}
	return true
}

// height is the height of a Cohort's subtree: 0 for one without
// children, 1 for one with ClusterQueues only, one more per level of
// Cohorts below it.
func (n *node) height() int {
	h := min(len(n.cohorts)+len(n.queues), 1)
	for _, c := range n.cohorts {
		h = max(h, c.height()+1)
	}
	return h
}

// lowestSubtreeThatFits is the height of the smallest subtree around the
// ClusterQueue whose quota holds v more of the resource (0: the queue's
// own), and whether that subtree is smaller than the whole tree.
func (n *node) lowestSubtreeThatFits(i int, v int64) (int, bool) {
	if !n.borrowingWith(i, v) || n.parent == nil {
		return 0, n.parent != nil
	}
	remaining := subAmount(v, n.localAvailable(i))
	for c := n.parent; c != nil; c = c.parent {
		if !c.borrowingWith(i, remaining) {
			return c.height(), c.parent != nil
		}
		remaining = subAmount(remaining, c.localAvailable(i))
	}
	return n.root().height(), false
}

// fitsInQuota reports whether requests fit in the node's subtree quota,
// and what of them its local quota left does not hold, for the caller to
// ask the parent next.
func (n *node) fitsInQuota(requests []frAmount) (bool, []frAmount) {
	fits := true
	rest := make([]frAmount, len(requests))
	for k, r := range requests {
		if n.subtree[r.fr] < addAmount(n.usage[r.fr], r.v) {
			fits = false
		}
		rest[k] = frAmount{r.fr, max(0, subAmount(r.v, n.localAvailable(r.fr)))}
	}
	return fits, rest
}

// frAmount is an amount of one flavor-resource.
type frAmount struct {
	fr int
	v  int64
}

// update recomputes the subtree quotas and the usage of a Cohort's
// subtree from its ClusterQueues' usage, as Kueue does when a quota
// changes.
func (n *node) update() {
	for i := range n.subtree {
		n.subtree[i] = 0
		if n.quotas[i].set {
			n.subtree[i] = n.quotas[i].nominal
		}
		if n.cq == nil {
			n.usage[i] = 0
		}
	}
	for _, c := range append(append([]*node{}, n.cohorts...), n.queues...) {
		c.update()
		for i := range n.subtree {
			n.subtree[i] = addAmount(n.subtree[i], subAmount(c.subtree[i], c.localQuota(i)))
			n.usage[i] = addAmount(n.usage[i], max(0, subAmount(c.usage[i], c.localQuota(i))))
		}
	}
}
