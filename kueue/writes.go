package kueue

import (
	"math"
	"time"
)

// Kueue's writes to the API server go through its client's rate limiter
// (Configuration's clientConnection: 300 queries a second, bursts of 500,
// by default), and on a busy cluster that limiter, not the cycle's own
// work, sets the pace at which a deep queue drains. The Admitter counts
// the writes of Kueue's scheduler and workload controller:
//
//   - an admission's status patch, sent in the background: the workload is
//     counted in the cache at once, and is admitted (the QuotaReserved
//     event) when the patch lands;
//   - a failed attempt's status patch (when Kueue's message changes) and a
//     preemption's eviction patches, which the scheduler sends before its
//     next cycle: the cycle ends when they land;
//   - the requeue of a workload whose quota was released.
//
// The writes of the job integrations (unsuspending a Job, lifting a pod's
// gate, marking a Workload finished) are not counted.

// limiter is a token bucket, as client-go's: qps tokens a second up to
// burst; a write takes a token, and waits for one when none is left.
type limiter struct {
	qps, burst, tokens float64
	at                 time.Duration // when tokens was counted
}

func newLimiter(qps float64, burst int) *limiter {
	if qps <= 0 {
		return nil // no limit
	}
	b := math.Max(1, float64(burst))
	return &limiter{qps: qps, burst: b, tokens: b}
}

// reserve takes a token for a write sent at now and returns when it goes
// out: now, or when the bucket has refilled enough for it (writes go out
// in the order they were sent).
func (l *limiter) reserve(now time.Duration) time.Duration {
	if l == nil {
		return now
	}
	if now > l.at {
		l.tokens = math.Min(l.burst, l.tokens+(now-l.at).Seconds()*l.qps)
		l.at = now
	}
	l.tokens--
	if l.tokens >= 0 {
		return l.at
	}
	return l.at + time.Duration(math.Ceil(-l.tokens/l.qps*1e9))
}

// write sends a write for the event at the current time: the event is
// emitted when the write lands. A synchronous write holds the scheduler:
// its next cycle starts no sooner than the write lands.
func (a *Admitter) write(e Event, sync bool) {
	at := a.lim.reserve(a.now)
	if sync {
		a.syncDone = max(a.syncDone, at)
	}
	if at <= a.now {
		a.emit(e)
		return
	}
	e.At = at
	a.later = append(a.later, e)
}

// deliver emits the events whose writes have landed by now.
func (a *Admitter) deliver() {
	n := 0
	for n < len(a.later) && a.later[n].At <= a.now {
		a.events = append(a.events, a.later[n])
		n++
	}
	a.later = a.later[n:]
}
