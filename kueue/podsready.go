package kueue

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// waitForPodsReady, on by default in Kueue v0.19: a workload admitted
// whose pods are not all ready within the timeout (30 minutes) is evicted
// (PodsReadyTimeout) and queued again after a back-off of 60 s doubling
// with each such eviction up to an hour, ordered by the time of its
// eviction; past the back-off limit (none by default) it is deactivated
// for good. The caller tells when a workload's pods are ready
// (PodsReady). Kueue adds a jitter of a hundredth of a percent to the
// back-off; the simulator does not.

// PodsReadyConfig is Kueue's waitForPodsReady; a zero Timeout turns it
// off.
type PodsReadyConfig struct {
	Timeout time.Duration
	// BackoffBase and BackoffMax bound the back-off before a workload
	// evicted for its pods is queued again; BackoffLimit is how many such
	// evictions it may have before it is deactivated (nil: no limit).
	BackoffBase, BackoffMax time.Duration
	BackoffLimit            *int32
	// CreationTimestamp orders a workload evicted for its pods by its
	// creation rather than its eviction (requeuingStrategy.timestamp
	// Creation).
	CreationTimestamp bool
}

// DefaultPodsReady is Kueue v0.19's waitForPodsReady when the
// Configuration gives none.
func DefaultPodsReady() PodsReadyConfig {
	return PodsReadyConfig{Timeout: 30 * time.Minute, BackoffBase: 60 * time.Second, BackoffMax: time.Hour}
}

// timer is something due at a time: a workload's PodsReady timeout, or
// the end of its back-off.
type timer struct {
	at    time.Duration
	seq   int64
	wi    *info
	gen   int64 // the admission it is about (timeouts)
	check bool  // a timeout; else the end of a back-off
}

func (a *Admitter) addTimer(t timer) {
	a.timerSeq++
	t.seq = a.timerSeq
	i, _ := slices.BinarySearchFunc(a.timers, t, func(x, y timer) int {
		if x.at != y.at {
			return cmp.Compare(x.at, y.at)
		}
		return int(x.seq - y.seq)
	})
	a.timers = slices.Insert(a.timers, i, t)
}

// PodsReady tells that the pods of an admitted workload are all ready:
// its timeout no longer applies.
func (a *Admitter) PodsReady(key string) error {
	wi := a.workloads[key]
	if wi == nil {
		return fmt.Errorf("workload %s: %w", key, ErrUnknownWorkload)
	}
	if wi.state == stateAdmitted {
		wi.ready = true
	}
	return nil
}

// fireTimers acts on the timers due by now.
func (a *Admitter) fireTimers() {
	for len(a.timers) > 0 && a.timers[0].at <= a.now {
		t := a.timers[0]
		a.timers = a.timers[1:]
		wi := t.wi
		switch {
		case t.check && wi.state == stateAdmitted && !wi.ready && wi.admissions == t.gen:
			a.timeOut(wi)
		case !t.check && wi.state == statePending && wi.cq != nil && wi.backoffUntil <= a.now:
			wi.cq.pushOrUpdate(wi)
			a.wake()
		}
	}
}

// timeOut evicts a workload whose pods were not ready in time: queued
// again after its back-off, or deactivated past the back-off limit.
func (a *Admitter) timeOut(wi *info) {
	pr := a.cfg.PodsReady
	wi.state, wi.evictedAt = stateEvicted, a.now
	wi.cq.orderOK = false
	if pr.BackoffLimit != nil && wi.requeues+1 > *pr.BackoffLimit {
		wi.deactivated = true
		a.write(Event{Kind: Evicted, Workload: wi.key, ClusterQueue: wi.cq.spec.Name, Reason: "Deactivated",
			Message: "The workload is deactivated due to exceeding the maximum number of re-queuing retries"}, false)
		return
	}
	wi.requeues++
	backoff := pr.BackoffBase
	for i := int32(1); i < wi.requeues && backoff < pr.BackoffMax; i++ {
		backoff *= 2
	}
	backoff = min(backoff, pr.BackoffMax)
	wi.backoffUntil = a.now + backoff
	wi.podsReadyEvicted = true
	a.write(Event{Kind: Evicted, Workload: wi.key, ClusterQueue: wi.cq.spec.Name, Reason: "PodsReadyTimeout",
		Message: fmt.Sprintf("Exceeded the PodsReady timeout %s", wi.key)}, false)
}

// orderTime is the time a workload is queued by: its creation, or, when
// waitForPodsReady evicted it and orders by eviction, that eviction.
func (a *Admitter) orderTime(wi *info) time.Duration {
	if wi.podsReadyEvicted && !a.cfg.PodsReady.CreationTimestamp {
		return wi.evictedAt
	}
	return wi.w.Created
}

// OnlyTimers reports whether all the Admitter has left to do is its
// timers (PodsReady timeouts and back-offs): no cycle due, no write to
// land, no requeue batch with a workload to move. A run in which nothing
// else can change the cluster stops there: the timeouts would only evict
// and admit again, for ever, workloads whose pods cannot be placed.
func (a *Admitter) OnlyTimers() bool {
	if a.due || len(a.later) > 0 {
		return false
	}
	for _, r := range a.requeues {
		for _, q := range a.queues {
			if len(q.inadmissible) > 0 && (q == r.cq || r.root != nil && q.node.parent != nil && q.node.root() == r.root) {
				return false
			}
		}
	}
	return true
}
