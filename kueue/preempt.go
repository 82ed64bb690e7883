package kueue

import (
	"fmt"
	"slices"
	"strings"
)

// Classic preemption, as Kueue's: the candidates are the workloads that
// use a flavor-resource the preemptor needs preempted, in its own queue
// (by withinClusterQueue) and in the queues of its cohort tree that use
// more than their quota (by reclaimWithinCohort), each classified (in
// the queue; a hierarchical reclaim, where the preemptor's subtree has
// the quota; a reclaim without or while borrowing, by
// borrowWithinCohort). Candidates are ordered evicted first, then other
// queues' before the preemptor's own, then lower priority, then the most
// recently admitted; they are removed one by one until the preemptor
// fits, and then those that can stay are put back, last removed first
// (fill-back).

// Preemption reasons, Kueue's.
const (
	InClusterQueue                = "InClusterQueue"
	InCohortReclamation           = "InCohortReclamation"
	InCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing"
)

// variant is how a candidate may be preempted.
type variant uint8

const (
	never variant = iota
	withinCQ
	hierarchicalReclaim
	reclaimWithoutBorrowing
	reclaimWhileBorrowing
)

func (v variant) reason() string {
	switch v {
	case withinCQ:
		return InClusterQueue
	case reclaimWhileBorrowing:
		return InCohortReclaimWhileBorrowing
	}
	return InCohortReclamation
}

// target is a workload to preempt, and why.
type target struct {
	wi     *info
	reason string
}

type candidate struct {
	wi      *info
	lca     *node
	variant variant
}

// preemptionCtx is one search for victims.
type preemptionCtx struct {
	a        *Admitter
	wi       *info
	q        *clusterQueue
	frs      []int      // needing preemption
	requests []frAmount // the preemptor's usage
}

// satisfiesPolicy reports whether the preemptor may preempt the
// candidate under policy.
func satisfiesPolicy(preemptor, cand *info, policy PreemptionPolicy) bool {
	lower := preemptor.w.Priority > cand.w.Priority
	switch policy {
	case PreemptLowerPriority:
		return lower
	case PreemptLowerOrNewerEqualPriority:
		return lower || preemptor.w.Priority == cand.w.Priority && preemptor.w.Created < cand.w.Created
	case PreemptAny:
		return true
	}
	return false
}

// usesResources reports whether the workload uses one of the
// flavor-resources.
func usesResources(wi *info, frs []int) bool {
	for _, u := range wi.usage {
		if slices.Contains(frs, u.fr) {
			return true
		}
	}
	return false
}

func (c *preemptionCtx) classify(cand *info, advantage bool) variant {
	if !usesResources(cand, c.frs) {
		return never
	}
	p := c.q.spec.Preemption
	policy := p.ReclaimWithinCohort
	if cand.cq == c.q {
		policy = p.WithinClusterQueue
	}
	if !satisfiesPolicy(c.wi, cand, policy) {
		return never
	}
	if cand.cq == c.q {
		return withinCQ
	}
	if advantage {
		return hierarchicalReclaim
	}
	if p.BorrowWithinCohort == "" || p.BorrowWithinCohort == PreemptNever {
		return reclaimWithoutBorrowing
	}
	if cand.w.Priority >= c.wi.w.Priority || p.MaxPriorityThreshold != nil && cand.w.Priority > *p.MaxPriorityThreshold {
		return reclaimWithoutBorrowing
	}
	return reclaimWhileBorrowing
}

func (c *preemptionCtx) fromQueue(q *clusterQueue, lca *node, advantage bool, out *[]candidate) {
	// candidates() sorts by ordering, a total order: the map's order does
	// not reach the result
	for _, cand := range q.admitted {
		if v := c.classify(cand, advantage); v != never {
			*out = append(*out, candidate{cand, lca, v})
		}
	}
}

// inSubtree collects the candidates of the queues under cohort that use
// more than their quota, skipping the subtree already searched.
func (c *preemptionCtx) inSubtree(cohort, root, skip *node, advantage bool, out *[]candidate) {
	for _, child := range cohort.cohorts {
		if child == skip || child.withinNominal(c.frs) {
			continue
		}
		c.inSubtree(child, root, skip, advantage, out)
	}
	for _, child := range cohort.queues {
		if child.cq == c.q || child.withinNominal(c.frs) {
			continue
		}
		c.fromQueue(child.cq, root, advantage, out)
	}
}

// ordering is Kueue's candidate order.
func (c *preemptionCtx) ordering(x, y candidate) int {
	if x.wi.state != y.wi.state {
		if x.wi.state == stateEvicted {
			return -1
		}
		if y.wi.state == stateEvicted {
			return 1
		}
	}
	if xo, yo := x.wi.cq != c.q, y.wi.cq != c.q; xo != yo {
		if xo {
			return -1
		}
		return 1
	}
	// admission fair sharing: within one ClusterQueue, the LocalQueue that
	// used more first (Kueue compares the queue names, not the namespaces)
	if xa, ya := x.wi.afs, y.wi.afs; xa != nil && ya != nil && x.wi.cq == y.wi.cq && x.wi.w.Queue != y.wi.w.Queue && xa.value != ya.value {
		if xa.value > ya.value {
			return -1
		}
		return 1
	}
	if x.wi.w.Priority != y.wi.w.Priority {
		if x.wi.w.Priority < y.wi.w.Priority {
			return -1
		}
		return 1
	}
	if x.wi.reservedAt != y.wi.reservedAt {
		if x.wi.reservedAt > y.wi.reservedAt {
			return -1
		}
		return 1
	}
	switch {
	case x.wi.seq < y.wi.seq:
		return -1
	case x.wi.seq > y.wi.seq:
		return 1
	}
	return 0
}

// candidates returns every candidate in Kueue's order, evicted ones of
// each kind first, and whether there are none outside the queue, and none
// for a hierarchical reclaim.
func (c *preemptionCtx) candidates() (all []candidate, noneOutside, noneHierarchical bool) {
	var same, hier, prio []candidate
	if c.q.spec.Preemption.WithinClusterQueue != "" && c.q.spec.Preemption.WithinClusterQueue != PreemptNever {
		c.fromQueue(c.q, nil, false, &same)
	}
	n := c.q.node
	if n.parent != nil && c.q.spec.Preemption.ReclaimWithinCohort != "" && c.q.spec.Preemption.ReclaimWithinCohort != PreemptNever {
		advantage, rest := n.fitsInQuota(c.requests)
		var prev *node
		for cur := n.parent; cur != nil; cur = cur.parent {
			list := &prio
			if advantage {
				list = &hier
			}
			c.inSubtree(cur, cur, prev, advantage, list)
			var fits bool
			fits, rest = cur.fitsInQuota(rest)
			advantage = advantage || fits
			prev = cur
		}
	}
	for _, l := range [][]candidate{same, prio, hier} {
		slices.SortFunc(l, c.ordering)
	}
	split := func(l []candidate) ([]candidate, []candidate) {
		i := 0
		for i < len(l) && l[i].wi.state == stateEvicted {
			i++
		}
		return l[:i], l[i:]
	}
	eh, nh := split(hier)
	ep, np := split(prio)
	es, ns := split(same)
	for _, l := range [][]candidate{eh, ep, es, nh, np, ns} {
		all = append(all, l...)
	}
	return all, len(hier) == 0 && len(prio) == 0, len(hier) == 0
}

// valid reports whether a candidate may still be taken in this pass: its
// queue (and every cohort up to the one shared with the preemptor) still
// uses more than its quota.
func (c *preemptionCtx) valid(cand candidate, borrow bool) bool {
	if cand.wi.cq == c.q {
		return true
	}
	if borrow && cand.variant == reclaimWithoutBorrowing {
		return false
	}
	n := cand.wi.cq.node
	if n.withinNominal(c.frs) {
		return false
	}
	for p := n.parent; p != nil && p != cand.lca; p = p.parent {
		if p.withinNominal(c.frs) {
			return false
		}
	}
	return true
}

// fits reports whether the preemptor's requests fit its queue now.
func (c *preemptionCtx) fits(borrow bool) bool {
	n := c.q.node
	for _, r := range c.requests {
		if !borrow && n.quotas[r.fr].nominal < addAmount(n.usage[r.fr], r.v) {
			return false
		}
		if r.v > max(0, n.available(r.fr)) {
			return false
		}
	}
	return true
}

// removeWorkload and addWorkload change the snapshot's usage in a search.
func removeWorkload(wi *info) {
	for _, u := range wi.usage {
		wi.cq.node.removeUsage(u.fr, u.v)
	}
}

func addWorkload(wi *info) {
	for _, u := range wi.usage {
		wi.cq.node.addUsage(u.fr, u.v)
	}
}

// classical finds the fewest victims, as Kueue's classical preemption:
// it tries with and without borrowing in the order the situation
// dictates, removes candidates in order until the preemptor fits, then
// puts back those it does not need.
func (c *preemptionCtx) classical() []target {
	all, noneOutside, noneHier := c.candidates()
	p := c.q.spec.Preemption
	forbidden := p.BorrowWithinCohort == "" || p.BorrowWithinCohort == PreemptNever
	var passes []bool
	switch {
	case noneOutside || forbidden && !c.underNominal():
		passes = []bool{true}
	case forbidden && noneHier:
		passes = []bool{false, true}
	default:
		passes = []bool{true, false}
	}
	for _, borrow := range passes {
		var targets []target
		for _, cand := range all {
			if !c.valid(cand, borrow) {
				continue
			}
			removeWorkload(cand.wi)
			targets = append(targets, target{cand.wi, cand.variant.reason()})
			if c.fits(borrow) {
				targets = c.fillBack(targets, borrow)
				for _, t := range targets {
					addWorkload(t.wi)
				}
				return targets
			}
		}
		for _, t := range targets {
			addWorkload(t.wi)
		}
	}
	return nil
}

// underNominal reports whether the preemptor's queue uses less than its
// nominal quota in every resource needing preemption.
func (c *preemptionCtx) underNominal() bool {
	n := c.q.node
	for _, i := range c.frs {
		if n.quotas[i].nominal <= n.usage[i] {
			return false
		}
	}
	return true
}

// fillBack puts back, from the second last, the targets the preemptor
// fits without.
func (c *preemptionCtx) fillBack(targets []target, borrow bool) []target {
	for i := len(targets) - 2; i >= 0; i-- {
		addWorkload(targets[i].wi)
		if c.fits(borrow) {
			targets[i] = targets[len(targets)-1]
			targets = targets[:len(targets)-1]
		} else {
			removeWorkload(targets[i].wi)
		}
	}
	return targets
}

// getTargets finds the victims that let the assignment be admitted.
func (a *Admitter) getTargets(wi *info, q *clusterQueue, as *assignment) []target {
	c := &preemptionCtx{a: a, wi: wi, q: q, frs: as.frsNeedingPreemption(a), requests: as.usageList()}
	if a.memoOn && len(c.frs) == 1 && len(c.requests) == 1 && c.requests[0].fr == c.frs[0] {
		// the flavor assignment searched the same, on the same quota
		for i := len(a.memo) - 1; i >= 0; i-- {
			if m := a.memo[i]; m.fr == c.requests[0] {
				return m.targets
			}
		}
	}
	return c.search()
}

// memoEntry is a search of the flavor assignment: for v of one
// flavor-resource, the targets found.
type memoEntry struct {
	fr      frAmount
	targets []target
}

// simulatePreemption judges whether preempting could make room for v of
// flavor-resource k: no candidates, preemption within the queue, or a
// reclaim from the cohort; and the borrowing level after it.
func (a *Admitter) simulatePreemption(wi *info, q *clusterQueue, k int, v int64) (preemptionMode, int) {
	c := &preemptionCtx{a: a, wi: wi, q: q, frs: []int{k}, requests: []frAmount{{k, v}}}
	targets := c.search()
	if a.memoOn {
		a.memo = append(a.memo, memoEntry{frAmount{k, v}, targets})
	}
	if len(targets) == 0 {
		borrow, _ := q.node.lowestSubtreeThatFits(k, v)
		return pmNoCandidates, borrow
	}
	for _, t := range targets {
		removeWorkload(t.wi)
	}
	borrow, _ := q.node.lowestSubtreeThatFits(k, v)
	for _, t := range targets {
		addWorkload(t.wi)
	}
	for _, t := range targets {
		if t.wi.cq == q {
			return pmPreempt, borrow
		}
	}
	return pmReclaim, borrow
}

// preemptionMessage is the message Kueue gives the victim.
func preemptionMessage(preemptor *info, reason string, victim *info) string {
	human := map[string]string{InClusterQueue: "prioritization in the ClusterQueue", InCohortReclamation: "reclamation within the cohort",
		InCohortReclaimWhileBorrowing: "reclamation within the cohort while borrowing", InCohortFairSharing: "Fair Sharing within the cohort"}[reason]
	return fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: UNKNOWN) due to %s; preemptor path: %s; preemptee path: %s",
		preemptor.key, human, cqPath(preemptor.cq), cqPath(victim.cq))
}

// cqPath is a queue's path from the root of its cohort tree.
func cqPath(q *clusterQueue) string {
	parts := []string{q.spec.Name}
	for p := q.node.parent; p != nil; p = p.parent {
		parts = append(parts, p.name)
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
