package kueue

import (
	"fmt"
	"slices"
	"sort"
)

// The admission cycle, as Kueue's scheduler runs it: the head of every
// active ClusterQueue is taken; on a snapshot of the quota, each head is
// given flavors (and, when it needs them, victims); the heads are then
// ordered (holding quota first, then those not borrowing, then higher
// priority, then earlier creation) and taken in turn: one that no longer
// fits after the admissions before it is skipped ("Workload no longer
// fits after processing another workload"), one that needs preemption has
// its victims evicted and waits for them, the rest are admitted. Heads
// not admitted go back to their queues. With fair sharing on, the heads
// of a cohort tree are taken in its tournament's order (fairshare.go).

// entry is a head in a cycle.
type entry struct {
	wi       *info
	q        *clusterQueue
	as       *assignment
	targets  []target
	status   entryStatus
	message  string
	reason   string // QuotaReserved reason
	requeue  requeueReason
	usage    []frAmount
	admitted bool
}

type entryStatus uint8

const (
	notNominated entryStatus = iota
	nominated
	skipped
	assumed
)

type requeueReason uint8

const (
	requeueGeneric requeueReason = iota
	requeueNoFit
	requeueFailedAfterNomination
	requeuePendingPreemption
	requeueNoCandidates
	requeueNamespaceMismatch
)

// runCycle runs one admission cycle at the current time and schedules
// the next.
func (a *Admitter) runCycle() {
	if a.afs != nil {
		a.afsCatchUp()
	}
	var heads []*entry
	for _, q := range a.queues {
		if !q.active {
			continue
		}
		if wi := q.pop(); wi != nil {
			heads = append(heads, &entry{wi: wi, q: q})
		}
	}
	if len(heads) == 0 {
		return // the scheduler waits for a head
	}
	a.cycle++
	emitted := len(a.events) + len(a.later)
	// the snapshot: the cycle works on the live usage and puts it back
	all := a.allNodes()
	for _, n := range all {
		copy(n.saved, n.usage)
	}
	var entries, inadmissible []*entry
	for _, e := range heads {
		switch {
		case !e.q.spec.NamespaceSelector.Matches(a.ns[e.wi.w.Namespace]):
			e.message, e.reason, e.requeue = "workload namespace doesn't match ClusterQueue selector", "Inadmissible", requeueNamespaceMismatch
			inadmissible = append(inadmissible, e)
		default:
			a.nominate(e)
			entries = append(entries, e)
		}
	}
	preempted := map[*info]bool{}
	if a.cfg.FairSharing != nil {
		entries = a.processFair(entries, preempted)
	} else {
		slices.SortStableFunc(entries, a.cmpEntries)
		for _, e := range entries {
			a.process(e, preempted)
		}
	}
	progress := false
	for _, e := range entries {
		progress = progress || e.status == assumed
	}
	// back to the cache: the usage before the cycle, and the admitted
	for _, n := range all {
		copy(n.usage, n.saved)
	}
	for _, e := range entries {
		if e.status == assumed {
			e.q.assume(e.wi)
			if e.wi.afs != nil {
				e.wi.afs.settle(e.wi)
			}
		}
	}
	changed := false
	for _, e := range append(entries, inadmissible...) {
		if e.status != assumed && a.requeueEntry(e) {
			changed = true
		}
	}
	// a cycle that changed nothing would be run again and again, the same,
	// until something happens: the scheduler sleeps until then (wake)
	a.cycleIdle = !progress && !changed && len(a.events)+len(a.later) == emitted
	if a.cycleIdle {
		a.backoff, a.next = 0, a.now+a.cfg.CycleTime
		return
	}
	// the next cycle: at once after progress, else after Kueue's back-off
	if progress {
		a.backoff = 0
	} else if a.backoff == 0 {
		a.backoff = 1e6
	} else {
		a.backoff = min(2*a.backoff, 1e7)
	}
	a.next, a.due = max(a.now+a.cfg.CycleTime+a.backoff, a.syncDone), true
}

func (a *Admitter) allNodes() []*node {
	out := make([]*node, 0, len(a.queues)+len(a.cohorts))
	for _, q := range a.queues {
		out = append(out, q.node)
	}
	for _, k := range sortedKeys(a.cohorts) {
		out = append(out, a.cohorts[k])
	}
	return out
}

// nominate gives a head its flavors and victims: the full counts, or,
// when they neither fit nor can preempt, the largest counts between the
// pod sets' minCounts and their counts that do (partial admission).
func (a *Admitter) nominate(e *entry) {
	wi, q := e.wi, e.q
	if l := wi.last; l != nil && lastOutdated(l, q.generation, a.cycle) {
		wi.last = nil
	}
	fa := &flavorAssigner{a: a, wi: wi, q: q}
	// the searches of the flavor assignment are kept for getTargets, on
	// the same quota (memo)
	a.memo, a.memoOn = a.memo[:0], true
	full := fa.assign(nil)
	e.as = full
	switch full.mode() {
	case Fit:
		a.memoOn = false
	case Preempt:
		e.targets = a.getTargets(wi, q, full)
		a.memoOn = false
		if len(e.targets) > 0 {
			break
		}
		fallthrough
	default:
		a.memoOn = false
		if a.cfg.PartialAdmission && partial(wi.w) {
			if as, targets, ok := a.reduce(fa, wi, q); ok {
				e.as, e.targets = as, targets
			}
		}
	}
	e.message = e.as.message()
	wi.last = &e.as.last
}

// lastOutdated reports whether the flavor scan's progress recorded in
// last is stale: it was made before the previous cycle, and quota was
// released or changed in the queue since (Kueue's
// FlavorFungibilityPreserveScanProgress, on by default in v0.19: progress
// from the previous cycle is kept whatever happened since).
func lastOutdated(l *lastAssignment, generation, cycle int64) bool {
	return cycle-l.cycle > 1 && generation > l.generation
}

// cmpEntries is the order a cycle takes its heads in: not borrowing
// before borrowing (the lower borrowing level first), then higher
// priority, then earlier creation, then the order of arrival.
func (a *Admitter) cmpEntries(x, y *entry) int {
	if xb, yb := x.as.borrowing, y.as.borrowing; xb != yb {
		return xb - yb
	}
	if xp, yp := x.wi.w.Priority, y.wi.w.Priority; xp != yp {
		if xp > yp {
			return -1
		}
		return 1
	}
	if xc, yc := a.orderTime(x.wi), a.orderTime(y.wi); xc != yc {
		if xc < yc {
			return -1
		}
		return 1
	}
	return int(x.wi.seq - y.wi.seq)
}

// partial reports whether a pod set may be admitted with fewer pods.
func partial(w *Workload) bool {
	for i := range w.PodSets {
		if w.PodSets[i].minCount() < w.PodSets[i].Count {
			return true
		}
	}
	return false
}

// reduce searches, by bisection as Kueue does, the largest reduction of
// the pod sets' counts toward their minCounts that fits or can preempt.
func (a *Admitter) reduce(fa *flavorAssigner, wi *info, q *clusterQueue) (*assignment, []target, bool) {
	ps := wi.w.PodSets
	full := make([]int32, len(ps))
	deltas := make([]int32, len(ps))
	var total int32
	for i := range ps {
		full[i] = ps[i].Count
		deltas[i] = ps[i].Count - ps[i].minCount()
		total += deltas[i]
	}
	if total == 0 {
		return nil, nil, false
	}
	var best *assignment
	var bestTargets []target
	lastGood := 0
	counts := make([]int32, len(ps))
	idx := sort.Search(int(total)+1, func(i int) bool {
		for k, d := range deltas {
			counts[k] = full[k] - int32(int64(d)*int64(i)/int64(total))
		}
		as := fa.assign(slices.Clone(counts))
		switch as.mode() {
		case Fit:
			best, bestTargets, lastGood = as, nil, i
			return true
		case Preempt:
			if t := a.getTargets(wi, q, as); len(t) > 0 {
				best, bestTargets, lastGood = as, t, i
				return true
			}
		}
		return false
	})
	return best, bestTargets, best != nil && idx == lastGood
}

// process takes one entry of the cycle.
func (a *Admitter) process(e *entry, preempted map[*info]bool) {
	q := e.q
	e.usage = slices.Clone(e.as.usageList()) // the admitted workload's own (SetReclaimable changes it)
	mode := e.as.mode()
	fits := a.fitsAfterPreemptions(e, preempted)
	switch {
	case mode == NoFit:
		e.requeue, e.reason = requeueNoFit, "Pending"
		return
	case mode == Preempt && len(e.targets) == 0:
		e.requeue, e.reason = requeueNoCandidates, "Pending"
		if !a.canAlwaysReclaim(q) {
			for _, r := range a.reserveForPreempt(e) {
				q.node.addUsage(r.fr, r.v)
			}
		}
		return
	}
	for _, t := range e.targets {
		if preempted[t.wi] {
			e.status, e.reason = skipped, "Pending"
			e.message = "Workload has overlapping preemption targets with another workload"
			e.wi.last = nil
			return
		}
	}
	if fits && mode == Fit && !a.tasFits(e) {
		fits = a.recomputeTAS(e, preempted)
	}
	if !fits {
		e.status, e.reason = skipped, "Pending"
		e.message = "Workload no longer fits after processing another workload"
		return
	}
	for _, t := range e.targets {
		preempted[t.wi] = true
	}
	for _, u := range e.usage {
		q.node.addUsage(u.fr, u.v)
	}
	if mode == Preempt {
		n := a.issuePreemptions(e)
		e.wi.last = nil
		e.reason = "Pending"
		if n > 0 {
			e.message += fmt.Sprintf(". Pending the preemption of %d workload(s)", n)
			e.requeue = requeuePendingPreemption
		}
		return
	}
	e.status = nominated
	a.tasAdmit(e)
	a.admit(e)
}

// fitsAfterPreemptions reports whether the entry's usage fits its queue
// once every victim of this cycle, and its own, are gone, a victim in both
// counted once.
func (a *Admitter) fitsAfterPreemptions(e *entry, preempted map[*info]bool) bool {
	gone := preemptedList(preempted)
	for _, t := range e.targets {
		if !preempted[t.wi] {
			gone = append(gone, t.wi)
		}
	}
	for _, wi := range gone {
		removeWorkload(wi)
	}
	fits := true
	for _, u := range e.usage {
		if u.v > max(0, e.q.node.available(u.fr)) {
			fits = false
			break
		}
	}
	for _, wi := range gone {
		addWorkload(wi)
	}
	return fits
}

func preemptedList(m map[*info]bool) []*info {
	out := make([]*info, 0, len(m))
	for wi := range m {
		out = append(out, wi)
	}
	slices.SortFunc(out, func(x, y *info) int { return int(x.seq - y.seq) })
	return out
}

// canAlwaysReclaim reports whether the queue can always get its nominal
// quota back by reclaiming (reclaimWithinCohort Any, no lending limit
// below its subtree).
func (a *Admitter) canAlwaysReclaim(q *clusterQueue) bool {
	return q.spec.Preemption.ReclaimWithinCohort == PreemptAny
}

// reserveForPreempt is the quota a head that needs preemption but found
// no victims holds in the snapshot, so that lower workloads of other
// queues do not take it in this cycle: up to its borrowing limit when it
// borrows, else up to its nominal quota.
func (a *Admitter) reserveForPreempt(e *entry) []frAmount {
	n := e.q.node
	var out []frAmount
	for _, u := range e.usage {
		qt := n.quotas[u.fr]
		var v int64
		if e.as.borrowing > 0 {
			if qt.borrowingLimit == nil {
				v = u.v
			} else {
				v = min(u.v, subAmount(addAmount(qt.nominal, *qt.borrowingLimit), n.usage[u.fr]))
			}
		} else {
			v = max(0, min(u.v, subAmount(qt.nominal, n.usage[u.fr])))
		}
		out = append(out, frAmount{u.fr, v})
	}
	return out
}

// issuePreemptions evicts the entry's victims not already evicted, and
// returns how many victims it waits for.
func (a *Admitter) issuePreemptions(e *entry) int {
	for _, t := range e.targets {
		v := t.wi
		if v.state == stateEvicted {
			continue
		}
		v.state, v.evictedAt = stateEvicted, a.now
		v.cq.orderOK = false
		msg := preemptionMessage(e.wi, t.reason, v)
		a.write(Event{Kind: Evicted, Workload: v.key, ClusterQueue: v.cq.spec.Name, Reason: "Preempted", Preemption: t.reason, Message: msg, By: e.wi.key}, true)
	}
	if !e.q.strict {
		e.q.sticky = e.wi.key
	}
	return len(e.targets)
}

// admit reserves the entry's quota: the workload holds it from now on.
func (a *Admitter) admit(e *entry) {
	wi := e.wi
	wi.admission = e.as.admission(e.q.spec.Name)
	wi.usage = e.usage
	wi.state, wi.reservedAt = stateAdmitted, a.now
	wi.last = nil
	e.status = assumed
	wi.admissions++
	wi.ready, wi.reclaimed = false, nil
	if a.cfg.PodsReady.Timeout > 0 {
		a.addTimer(timer{at: a.now + a.cfg.PodsReady.Timeout, wi: wi, gen: wi.admissions, check: true})
	}
	a.write(Event{Kind: QuotaReserved, Workload: wi.key, ClusterQueue: e.q.spec.Name, Admission: wi.admission, Reserved: a.now}, false)
}

// requeueEntry puts back a head that was not admitted and records why;
// it reports whether that changed the queue's next head (the workload
// set aside, or flavors left to try).
func (a *Admitter) requeueEntry(e *entry) bool {
	wi, q := e.wi, e.q
	if wi.state != statePending {
		return true
	}
	if e.status != notNominated && e.requeue == requeueGeneric {
		e.requeue = requeueFailedAfterNomination
	}
	immediate := e.requeue != requeueNamespaceMismatch
	if !q.strict {
		immediate = e.requeue == requeueFailedAfterNomination || e.requeue == requeuePendingPreemption
	}
	q.requeue(wi, immediate, e.requeue == requeueNoFit || e.requeue == requeueNoCandidates)
	if e.status == notNominated || e.status == skipped {
		if wi.message != e.message || wi.reason != e.reason {
			a.write(Event{Kind: Pending, Workload: wi.key, Reason: e.reason, Message: e.message}, true)
		}
		wi.message, wi.reason = e.message, e.reason
	}
	return q.inadmissible[wi.key] != nil || wi.last.pending()
}
