package kueue

import (
	"cmp"
	"math"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// Fair sharing's measure of a ClusterQueue or Cohort: its dominant
// resource share. For every resource the node uses beyond its subtree
// quota (summed over the flavors of the resource), the share is what it
// borrows, in thousandths of what its parent could lend it at most
// (the parent's potential availability, summed over the flavors the
// whole tree names); the dominant share is the largest of these, the
// first resource in name order on a tie, divided by the node's weight.
// A node without a parent, or not borrowing, has share 0. A node of
// weight 0 that borrows has an infinite share; two such compare by their
// unweighted shares. Kueue reports the share rounded up to an integer
// (math.MaxInt64 for the infinite one) but compares the precise values.

// defaultWeight is a queue's or cohort's fair-sharing weight when none
// is given.
const defaultWeight = 1.0

// weightOf is a FairSharing's weight as a float (billionths to units).
func weightOf(f *FairSharing) float64 {
	if f == nil || f.Weight == nil {
		return defaultWeight
	}
	return float64(*f.Weight) / 1e9
}

// drs is a node's dominant resource share.
type drs struct {
	weight    float64
	ratio     float64 // the unweighted share, in thousandths
	dominant  cluster.ResourceName
	borrowing bool
	borrowed  []int // the flavor-resources borrowed, in index order
}

// negativeDRS is below every share: where a search for the largest starts.
func negativeDRS() drs { return drs{weight: defaultWeight, ratio: -1} }

func (d drs) zero() bool { return d.ratio == 0 }

// share is the weighted share: 0 when not borrowing, +Inf for weight 0.
func (d drs) share() float64 {
	if d.zero() {
		return 0
	}
	if d.weight == 0 {
		return math.Inf(1)
	}
	return d.ratio / d.weight
}

func (d drs) zeroWeightBorrows() bool { return d.weight == 0 && !d.zero() }

// rounded is the share as Kueue reports it: rounded up, math.MaxInt64
// for a node of weight 0 that borrows.
func (d drs) rounded() int64 {
	if d.zeroWeightBorrows() {
		return math.MaxInt64
	}
	return int64(math.Ceil(d.share()))
}

// borrowingOn reports whether the node borrows any flavor-resource the
// requests ask a positive amount of.
func (d drs) borrowingOn(req []frAmount) bool {
	for _, i := range d.borrowed {
		for _, r := range req {
			if r.fr == i && r.v > 0 {
				return true
			}
		}
	}
	return false
}

// cmpDRS orders shares: the lower is preferred for admission, the higher
// for preemption.
func cmpDRS(a, b drs) int {
	switch az, bz := a.zeroWeightBorrows(), b.zeroWeightBorrows(); {
	case az && bz:
		return cmp.Compare(a.ratio, b.ratio)
	case az:
		return 1
	case bz:
		return -1
	}
	return cmp.Compare(a.share(), b.share())
}

// dominantShare is the node's share with req more in use (nil: as it is).
func (a *Admitter) dominantShare(n *node, req []frAmount) drs {
	d := drs{weight: n.weight}
	if n.parent == nil {
		return d
	}
	var extra []int64
	if len(req) > 0 {
		extra = make([]int64, len(n.usage))
		for _, r := range req {
			extra[r.fr] = addAmount(extra[r.fr], r.v)
		}
	}
	// the amounts borrowed by resource (over its flavors), in the order
	// first met; resources are few
	type borrowedOf struct {
		r cluster.ResourceName
		b int64
	}
	var borrowed []borrowedOf
	for i := range n.usage {
		u := n.usage[i]
		if extra != nil {
			u = addAmount(extra[i], u)
		}
		if b := subAmount(u, n.subtree[i]); b > 0 {
			r := a.frs[i].resource
			k := slices.IndexFunc(borrowed, func(x borrowedOf) bool { return x.r == r })
			if k < 0 {
				borrowed = append(borrowed, borrowedOf{r, 0})
				k = len(borrowed) - 1
			}
			borrowed[k].b = addAmount(borrowed[k].b, b)
			d.borrowed = append(d.borrowed, i)
		}
	}
	if len(borrowed) == 0 {
		return d
	}
	d.borrowing = true
	for _, x := range borrowed {
		// what the parent could lend of the resource, over its flavors
		var l int64
		for i, k := range a.frs {
			if k.resource == x.r {
				l = addAmount(l, n.parent.potentialAvailable(i))
			}
		}
		if l <= 0 {
			continue
		}
		ratio := float64(x.b) * 1000 / float64(l)
		if ratio > d.ratio || (ratio == d.ratio && x.r < d.dominant) {
			d.ratio, d.dominant = ratio, x.r
		}
	}
	return d
}

// The admission order with fair sharing on, as Kueue's fair-sharing
// iterator takes a cycle's heads. The next head is found by a tournament
// in the cohort tree of some queue that still has one: every Cohort
// nominates, among its child Cohorts' nominees and its ClusterQueues'
// heads, the best one; the root's nominee is taken (and processed, so
// that its usage counts for the next tournament). A head of a queue
// without cohort is taken at once. Best is: the child (the nominee's
// queue, or the child Cohort it came through) not borrowing from the
// Cohort on the flavor-resources the head asks for, then the lower
// share of the child with the head admitted, then the higher priority,
// then the earlier queue order time. Kueue takes the trees in map order
// and the children of a Cohort in set order; here, the trees in the
// order of their first queue by name, and the children by name (child
// Cohorts before ClusterQueues), the first winning a tie.

// fairKey is a head's standing in one Cohort's tournament.
type fairKey struct {
	cohort *node
	e      *entry
}

// processFair processes the heads in fair-sharing order and returns them
// in that order.
func (a *Admitter) processFair(entries []*entry, preempted map[*info]bool) []*entry {
	pending := map[*clusterQueue]*entry{}
	for _, e := range entries {
		pending[e.q] = e
	}
	order := make([]*entry, 0, len(entries))
	for len(order) < len(entries) {
		var first *entry
		for _, e := range entries {
			if pending[e.q] == e {
				first = e
				break
			}
		}
		next := first
		if first.q.node.parent != nil {
			root := first.q.node.root()
			next = a.tournament(root, a.tournamentShares(root, pending), pending)
		}
		delete(pending, next.q)
		a.process(next, preempted)
		order = append(order, next)
	}
	return order
}

// tournamentShares is, for every pending head of the tree and every
// Cohort on its path, the share of the Cohort's child on that path with
// the head's usage added to its queue.
func (a *Admitter) tournamentShares(root *node, pending map[*clusterQueue]*entry) map[fairKey]drs {
	out := make(map[fairKey]drs, 4*len(pending))
	saved := a.savedUsage // the usage of the path's nodes, put back after
	var walk func(n *node)
	walk = func(n *node) {
		for _, c := range n.cohorts {
			walk(c)
		}
		for _, qn := range n.queues {
			e, ok := pending[qn.cq]
			if !ok {
				continue
			}
			k := 0
			for p := qn; p != nil; p = p.parent {
				if k == len(saved) {
					saved = append(saved, nil)
				}
				saved[k] = append(saved[k][:0], p.usage...)
				k++
			}
			for _, u := range e.as.usageList() {
				qn.addUsage(u.fr, u.v)
			}
			d := a.dominantShare(qn, nil)
			for p := qn.parent; p != nil; p = p.parent {
				out[fairKey{p, e}] = d
				d = a.dominantShare(p, nil)
			}
			k = 0
			for p := qn; p != nil; p = p.parent {
				copy(p.usage, saved[k])
				k++
			}
		}
	}
	walk(root)
	a.savedUsage = saved
	return out
}

// tournament is the Cohort's nominee, nil when no head is pending in its
// subtree.
func (a *Admitter) tournament(c *node, shares map[fairKey]drs, pending map[*clusterQueue]*entry) *entry {
	var cands []*entry
	for _, child := range c.cohorts {
		if e := a.tournament(child, shares, pending); e != nil {
			cands = append(cands, e)
		}
	}
	for _, qn := range c.queues {
		if e, ok := pending[qn.cq]; ok {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	best := cands[0]
	for _, e := range cands[1:] {
		if a.fairLess(e, best, c, shares) {
			best = e
		}
	}
	return best
}

// fairLess reports whether head x beats head y in the Cohort's
// tournament.
func (a *Admitter) fairLess(x, y *entry, c *node, shares map[fairKey]drs) bool {
	xd, yd := shares[fairKey{c, x}], shares[fairKey{c, y}]
	if xb, yb := xd.borrowingOn(x.as.usageList()), yd.borrowingOn(y.as.usageList()); xb != yb {
		return !xb
	}
	if k := cmpDRS(xd, yd); k != 0 {
		return k < 0
	}
	if xp, yp := x.wi.w.Priority, y.wi.w.Priority; xp != yp {
		return xp > yp
	}
	return a.orderTime(x.wi) < a.orderTime(y.wi)
}
