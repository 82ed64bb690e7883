package queue

import (
	"math"
	"time"
)

// Backoff holds the backoff parameters (kube-scheduler's defaults: 1s
// initial, 10s max).
//
// Spelling, as in kube-scheduler (podInitialBackoffSeconds, backoffQ) and
// Go's naming: the noun is one word, "backoff" (Backoff, backoffQ,
// inBackoff, Config.PodInitialBackoff), the verb two, "back off", so a
// function that puts an item into backoff is BackOff, or backOff
// unexported (Queue.BackOff, and the scheduler's backOff that calls it).
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
}

// backoffWindow is the granularity of backoff expiry: kube-scheduler
// truncates it to whole seconds so that items of one window leave together
// in activeQ order.
const backoffWindow = time.Second

// maxBackoffLimit bounds any backoff (146 years).
const maxBackoffLimit = time.Duration(1 << 62)

// Duration returns the backoff after count failed attempts for an item of
// size pods: Initial doubled per attempt after the first, capped at Max,
// where Max grows to Max*sqrt(size) for a group of more than one pod
// (kube-scheduler's calculateBackoffDuration). It is 0 for count 0.
func (b Backoff) Duration(count, size int) time.Duration {
	if count <= 0 || b.Max <= 0 {
		return 0
	}
	maxBackoff := b.Max
	if size > 1 {
		// capped so that any simulated time plus a backoff stays an int64
		maxBackoff = time.Duration(min(float64(b.Max)*math.Sqrt(float64(size)), float64(maxBackoffLimit)))
	}
	shift := count - 1
	if shift >= 62 || b.Initial > maxBackoff>>shift {
		return maxBackoff
	}
	return b.Initial << shift
}

// Expiry returns when an item requeued at timestamp after count failures
// leaves the backoff queue: timestamp plus Duration, truncated to a whole
// second.
func (b Backoff) Expiry(timestamp time.Duration, count, size int) time.Duration {
	return (timestamp + b.Duration(count, size)).Truncate(backoffWindow)
}

// failures is the count the backoff is computed from: consecutive errors
// when there are any, otherwise unschedulable attempts.
func failures[T any](it *Item[T]) int {
	if it.ConsecutiveErrors > 0 {
		return it.ConsecutiveErrors
	}
	return it.UnschedulableCount
}
