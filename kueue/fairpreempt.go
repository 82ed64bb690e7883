package kueue

import (
	"math"
	"slices"
)

// Fair-sharing preemption, as Kueue's when fair sharing is on. The
// candidates are the workloads using a flavor-resource the preemptor
// needs preempted: in its own queue by withinClusterQueue, and by
// reclaimWithinCohort in every other queue of its cohort tree that
// borrows one of those flavor-resources; in Kueue's candidate order. With
// the preemptor's usage added, the queues to take them from are visited
// from the root down, each time into the child (Cohort or ClusterQueue)
// of the highest share that still borrows or leads to the preemptor (on a
// tie between queues, the one whose next candidate comes first; between
// Cohorts, the last; a Cohort before a queue). A candidate of the
// preemptor's own queue is always taken; while the preemptor's queue does
// not borrow the flavor-resources needing preemption, any candidate is
// (a reclaim of its nominal quota, FairSharingPreemptWithinNominal);
// otherwise the first strategy decides, on the shares of the two
// children of the lowest Cohort the preemptor and the candidate share:
// LessThanOrEqualToFinalShare, the preemptor's side's share (with the
// preemptor) is no more than the candidate's side's without the
// candidate; LessThanInitialShare, less than the candidate's side's
// before. After a candidate taken by a strategy the search starts again
// at the root. Candidates refused are retried with the second strategy
// (LessThanInitialShare), the first of each queue only. Once the
// preemptor fits, the victims it can do without are put back, last taken
// first.

// InCohortFairSharing is Kueue's reason for a victim of fair sharing.
const InCohortFairSharing = "InCohortFairSharing"

// strategy is a fair-sharing preemption strategy: whether a candidate
// may be preempted, given the preemptor's side's share with it, and the
// target's side's before and after the candidate is removed.
type strategy func(preemptorNew, targetOld, targetNew drs) bool

func lessThanOrEqualToFinalShare(preemptorNew, _, targetNew drs) bool {
	return cmpDRS(preemptorNew, targetNew) <= 0
}

func lessThanInitialShare(preemptorNew, targetOld, _ drs) bool {
	return cmpDRS(preemptorNew, targetOld) < 0
}

// strategies are the Configuration's, Kueue's pair when none is given.
func (a *Admitter) strategies() []strategy {
	names := a.cfg.FairSharing.PreemptionStrategies
	if len(names) == 0 {
		return []strategy{lessThanOrEqualToFinalShare, lessThanInitialShare}
	}
	out := make([]strategy, len(names))
	for i, n := range names {
		out[i] = lessThanOrEqualToFinalShare
		if n == "LessThanInitialShare" {
			out[i] = lessThanInitialShare
		}
	}
	return out
}

// search finds the victims with fair sharing's preemption when it is on,
// else with the classical one.
func (c *preemptionCtx) search() []target {
	if c.a.cfg.FairSharing != nil {
		return c.fair()
	}
	return c.classical()
}

// borrowingIn reports whether the queue, in a cohort, uses more than its
// subtree quota of one of the flavor-resources.
func borrowingIn(n *node, frs []int) bool {
	if n.parent == nil {
		return false
	}
	for _, i := range frs {
		if n.borrowingWith(i, 0) {
			return true
		}
	}
	return false
}

// fairCandidates are the candidates, each queue's in Kueue's order (the
// search takes them queue by queue: the order between queues does not
// matter).
func (c *preemptionCtx) fairCandidates() []candidate {
	out := c.a.candBuf[:0] // one search at a time: the buffer is reused
	defer func() { c.a.candBuf = out[:0] }()
	take := func(q *clusterQueue, policy PreemptionPolicy) {
		for _, cand := range c.ordered(q) {
			if satisfiesPolicy(c.wi, cand, policy) && usesResources(cand, c.frs) {
				out = append(out, candidate{wi: cand})
			}
		}
	}
	p := c.q.spec.Preemption
	if p.WithinClusterQueue != "" && p.WithinClusterQueue != PreemptNever {
		take(c.q, p.WithinClusterQueue)
	}
	if c.q.node.parent != nil && p.ReclaimWithinCohort != "" && p.ReclaimWithinCohort != PreemptNever {
		for _, q := range c.a.queues {
			if q != c.q && q.node.root() == c.q.node.root() && borrowingIn(q.node, c.frs) {
				take(q, p.ReclaimWithinCohort)
			}
		}
	}
	return out
}

// ordered is the queue's admitted workloads in the candidate order,
// sorted again only when they changed. Within one queue, ordering's term
// on the preemptor's queue is the same for all; the rest is a total order
// (it ends with the order of arrival), so the map's order does not reach
// the result.
func (c *preemptionCtx) ordered(q *clusterQueue) []*info {
	if q.orderOK {
		return q.byOrder
	}
	q.byOrder = q.byOrder[:0]
	for _, wi := range q.admitted {
		q.byOrder = append(q.byOrder, wi)
	}
	slices.SortFunc(q.byOrder, func(x, y *info) int { return c.ordering(candidate{wi: x}, candidate{wi: y}) })
	q.orderOK = true
	return q.byOrder
}

// fitsFair reports whether the preemptor fits, its simulated usage set
// aside.
func (c *preemptionCtx) fitsFair() bool {
	for _, r := range c.requests {
		c.q.node.removeUsage(r.fr, r.v)
	}
	ok := c.fits(true)
	for _, r := range c.requests {
		c.q.node.addUsage(r.fr, r.v)
	}
	return ok
}

// withinNominal reports whether the preemptor's queue borrows none of
// the flavor-resources needing preemption.
func (c *preemptionCtx) withinNominal() bool {
	for _, i := range c.frs {
		if c.q.node.borrowingWith(i, 0) {
			return false
		}
	}
	return true
}

func (c *preemptionCtx) fair() []target {
	cands := c.fairCandidates()
	if len(cands) == 0 {
		return nil
	}
	strategies := c.a.strategies()
	for _, r := range c.requests {
		c.q.node.addUsage(r.fr, r.v)
	}
	fits, targets, retry := c.firstStrategy(cands, strategies[0])
	if !fits && len(strategies) > 1 {
		fits, targets = c.secondStrategy(retry, targets)
	}
	for _, r := range c.requests {
		c.q.node.removeUsage(r.fr, r.v)
	}
	if !fits {
		for _, t := range targets {
			addWorkload(t.wi)
		}
		return nil
	}
	targets = c.fillBack(targets, true)
	for _, t := range targets {
		addWorkload(t.wi)
	}
	return targets
}

func (c *preemptionCtx) take(targets []target, wi *info, reason string) []target {
	removeWorkload(wi)
	return append(targets, target{wi, reason})
}

func (c *preemptionCtx) firstStrategy(cands []candidate, s strategy) (bool, []target, []candidate) {
	o := c.newFairOrdering(cands)
	var targets []target
	var retry []candidate
	withinNominal := c.withinNominal()
	for t := range o.targets {
		if t == c.q {
			targets = c.take(targets, o.pop(t), InClusterQueue)
			if c.fitsFair() {
				return true, targets, nil
			}
			continue
		}
		if withinNominal {
			targets = c.take(targets, o.pop(t), InCohortReclamation)
			if c.fitsFair() {
				return true, targets, nil
			}
			continue
		}
		pNew, tOld := o.shares(t)
		if math.IsInf(pNew.share(), 1) && !math.IsInf(tOld.share(), 1) {
			for o.has(t) {
				retry = append(retry, candidate{wi: o.pop(t)})
			}
			continue
		}
		for o.has(t) {
			wi := o.pop(t)
			if s(pNew, tOld, o.shareAfterRemoval(t, wi)) {
				targets = c.take(targets, wi, InCohortFairSharing)
				if c.fitsFair() {
					return true, targets, nil
				}
				break
			}
			retry = append(retry, candidate{wi: wi})
		}
	}
	return false, targets, retry
}

func (c *preemptionCtx) secondStrategy(retry []candidate, targets []target) (bool, []target) {
	o := c.newFairOrdering(retry)
	for t := range o.targets {
		pNew, tOld := o.shares(t)
		wi := o.pop(t)
		if lessThanInitialShare(pNew, tOld, drs{}) {
			targets = c.take(targets, wi, InCohortFairSharing)
			if c.fitsFair() {
				return true, targets
			}
		}
		o.pruned[t] = true
	}
	return false, targets
}

// fairOrdering is the order of the queues victims are taken from.
type fairOrdering struct {
	c         *preemptionCtx
	ancestors map[*node]bool
	byQueue   map[*clusterQueue][]*info
	pruned    map[*clusterQueue]bool
	prunedC   map[*node]bool
}

func (c *preemptionCtx) newFairOrdering(cands []candidate) *fairOrdering {
	o := &fairOrdering{c: c, ancestors: map[*node]bool{}, byQueue: map[*clusterQueue][]*info{}, pruned: map[*clusterQueue]bool{}, prunedC: map[*node]bool{}}
	for p := c.q.node.parent; p != nil; p = p.parent {
		o.ancestors[p] = true
	}
	// each queue's run of candidates (fairCandidates gives them queue by
	// queue) is a slice of one array; a queue met again is appended to
	all := make([]*info, len(cands))
	for i := 0; i < len(cands); {
		q := cands[i].wi.cq
		j := i
		for ; j < len(cands) && cands[j].wi.cq == q; j++ {
			all[j] = cands[j].wi
		}
		if prev, ok := o.byQueue[q]; ok {
			o.byQueue[q] = append(slices.Clip(prev), all[i:j]...)
		} else {
			o.byQueue[q] = all[i:j:j]
		}
		i = j
	}
	return o
}

func (o *fairOrdering) has(q *clusterQueue) bool { return len(o.byQueue[q]) > 0 }

func (o *fairOrdering) pop(q *clusterQueue) *info {
	wi := o.byQueue[q][0]
	o.byQueue[q] = o.byQueue[q][1:]
	return wi
}

// targets yields the queue to take the next candidate from; the caller
// pops a candidate or prunes the queue before the next.
func (o *fairOrdering) targets(yield func(*clusterQueue) bool) {
	q := o.c.q
	if q.node.parent == nil {
		for !o.pruned[q] && o.has(q) {
			if !yield(q) {
				return
			}
		}
		return
	}
	root := q.node.root()
	for !o.prunedC[root] {
		t := o.next(root)
		if t == nil {
			continue
		}
		if !yield(t) {
			return
		}
	}
}

// next descends from the Cohort into the child of the highest share; nil
// when it only pruned.
func (o *fairOrdering) next(c *node) *clusterQueue {
	a := o.c.a
	var bestQ *clusterQueue
	bestQD := negativeDRS()
	for _, qn := range c.queues {
		q := qn.cq
		if o.pruned[q] {
			continue
		}
		d := a.dominantShare(qn, nil)
		switch k := cmpDRS(d, bestQD); {
		case (!d.borrowing && q != o.c.q) || !o.has(q):
			o.pruned[q] = true
		case k == 0:
			if o.c.ordering(candidate{wi: o.byQueue[q][0]}, candidate{wi: o.byQueue[bestQ][0]}) < 0 {
				bestQ = q
			}
		case k > 0:
			bestQ, bestQD = q, d
		}
	}
	var bestC *node
	bestCD := negativeDRS()
	for _, child := range c.cohorts {
		if o.prunedC[child] {
			continue
		}
		d := a.dominantShare(child, nil)
		if !d.borrowing && !o.ancestors[child] {
			o.prunedC[child] = true
		} else if cmpDRS(d, bestCD) >= 0 {
			bestC, bestCD = child, d
		}
	}
	if bestC == nil && bestQ == nil {
		o.prunedC[c] = true
		return nil
	}
	if cmpDRS(bestCD, bestQD) >= 0 {
		return o.next(bestC)
	}
	return bestQ
}

// almostLCAs are the children of the lowest Cohort the preemptor's and
// the target's queues share, on their paths.
func (o *fairOrdering) almostLCAs(t *clusterQueue) (*node, *node) {
	var lca *node
	for p := t.node.parent; p != nil; p = p.parent {
		if o.ancestors[p] {
			lca = p
			break
		}
	}
	below := func(n *node) *node {
		for n.parent != lca {
			n = n.parent
		}
		return n
	}
	return below(o.c.q.node), below(t.node)
}

// shares are the preemptor's side's share and the target's side's.
func (o *fairOrdering) shares(t *clusterQueue) (drs, drs) {
	p, q := o.almostLCAs(t)
	return o.c.a.dominantShare(p, nil), o.c.a.dominantShare(q, nil)
}

// shareAfterRemoval is the target's side's share without the workload.
func (o *fairOrdering) shareAfterRemoval(t *clusterQueue, wi *info) drs {
	removeWorkload(wi)
	_, q := o.almostLCAs(t)
	d := o.c.a.dominantShare(q, nil)
	addWorkload(wi)
	return d
}
