package kueue

import (
	"cmp"
	"math"

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
	extra := make([]int64, len(n.usage))
	for _, r := range req {
		extra[r.fr] = addAmount(extra[r.fr], r.v)
	}
	borrowed := map[cluster.ResourceName]int64{}
	for i := range n.usage {
		if b := subAmount(addAmount(extra[i], n.usage[i]), n.subtree[i]); b > 0 {
			r := a.frs[i].resource
			borrowed[r] = addAmount(borrowed[r], b)
			d.borrowed = append(d.borrowed, i)
		}
	}
	if len(borrowed) == 0 {
		return d
	}
	d.borrowing = true
	lendable := map[cluster.ResourceName]int64{}
	for i, k := range a.frs {
		lendable[k.resource] = addAmount(lendable[k.resource], n.parent.potentialAvailable(i))
	}
	for r, b := range borrowed {
		l := lendable[r]
		if l <= 0 {
			continue
		}
		ratio := float64(b) * 1000 / float64(l)
		if ratio > d.ratio || (ratio == d.ratio && r < d.dominant) {
			d.ratio, d.dominant = ratio, r
		}
	}
	return d
}
