package kueue

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The token bucket of Kueue's API client: burst 2, 1 a second. Three
// writes at 0s: two go out at once, the third waits a second; a fourth
// at 0s waits two; by 10s the bucket is full again.
func TestLimiterReserves(t *testing.T) {
	l := newLimiter(1, 2)
	got := []time.Duration{l.reserve(0), l.reserve(0), l.reserve(0), l.reserve(0)}
	assert.Equal(t, []time.Duration{0, 0, time.Second, 2 * time.Second}, got)
	assert.Equal(t, 10*time.Second, l.reserve(10*time.Second))
	assert.Equal(t, 10*time.Second, l.reserve(10*time.Second))
	assert.Equal(t, 11*time.Second, l.reserve(10*time.Second))
	assert.Equal(t, 5*time.Second, (*limiter)(nil).reserve(5*time.Second), "no limit")
}

// waitForPodsReady's back-off: 60 s for the first eviction, doubling with
// each (120 s, 240 s), never above the maximum (here 200 s).
func TestPodsReadyBackoffDoubles(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
	r.a.cfg.PodsReady = PodsReadyConfig{Timeout: time.Minute, BackoffBase: 60 * time.Second, BackoffMax: 200 * time.Second}
	r.add(wl("w", "lq-cq", 0, 0, 1, "1"))
	wi := r.a.workloads["default/w"]
	var got []time.Duration
	for range 4 {
		wi.state = stateAdmitted
		r.a.timeOut(wi)
		got = append(got, wi.backoffUntil-r.a.now)
	}
	assert.Equal(t, []time.Duration{60 * time.Second, 120 * time.Second, 200 * time.Second, 200 * time.Second}, got)
}

// backoffLimitCount 2: the first two timeouts queue the workload again,
// the third deactivates it.
func TestPodsReadyBackoffLimit(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
	limit := int32(2)
	r.a.cfg.PodsReady = PodsReadyConfig{Timeout: time.Minute, BackoffBase: time.Second, BackoffMax: time.Hour, BackoffLimit: &limit}
	r.add(wl("w", "lq-cq", 0, 0, 1, "1"))
	wi := r.a.workloads["default/w"]
	var got []bool
	for range 3 {
		wi.state = stateAdmitted
		r.a.timeOut(wi)
		got = append(got, wi.deactivated)
	}
	assert.Equal(t, []bool{false, false, true}, got)
}

// A workload evicted for its pods is queued by the time of that eviction
// (requeuingStrategy Eviction, the default): it goes behind one of equal
// priority created after it but before its eviction; with Creation it
// keeps its place.
func TestPodsReadyEvictedOrdersByEviction(t *testing.T) {
	for _, creation := range []bool{false, true} {
		r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
		r.a.cfg.PodsReady = PodsReadyConfig{Timeout: time.Minute, BackoffBase: time.Second, BackoffMax: time.Hour, CreationTimestamp: creation}
		r.add(wl("old", "lq-cq", 0, 0, 1, "1"), wl("new", "lq-cq", 0, 5, 1, "1"))
		q := r.a.cqs["cq"]
		old, young := r.a.workloads["default/old"], r.a.workloads["default/new"]
		require.NoError(t, r.a.AdvanceTo(10*time.Second))
		old.state = stateAdmitted
		r.a.timeOut(old)
		assert.Equal(t, !creation, q.before(young, old), "creation timestamp %v", creation)
	}
}

// A head that fails after the inadmissible set was moved back since it was
// popped goes straight back to the heap (Kueue's queueInadmissibleCycle),
// not to the inadmissible set; one that fails with no move goes aside.
func TestRequeueAfterAMoveGoesBackToTheHeap(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "1"})))}))
	r.add(wl("a", "lq-cq", 0, 0, 1, "1"), wl("b", "lq-cq", 0, 1, 1, "1"))
	q := r.a.cqs["cq"]
	wa := q.pop()
	q.queueInadmissible(r.a)
	q.requeue(wa, false, true)
	require.Nil(t, q.inadmissible[wa.key])
	require.Equal(t, wa, q.heap[0])
	wa = q.pop()
	q.requeue(wa, false, true)
	require.NotNil(t, q.inadmissible[wa.key], "no move since the pop")
}

// Kueue's scheduler backs off after cycles that admit nothing: 1 ms
// doubling to 10 ms, beside the cycle's own 1 ms. Workloads of different
// sizes, none fitting, are tried one a cycle (each set aside, so the
// cycles are not idle): the gaps between their attempts are 2, 3, 5, 9,
// 11, 11 ms.
func TestCycleBackoff(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "1"})))}))
	for i := range 7 {
		r.add(wl(fmt.Sprintf("w%d", i), "lq-cq", 0, 0, 1, fmt.Sprint(2+i)))
	}
	r.settle()
	var at []time.Duration
	for _, e := range r.log {
		if e.Kind == Pending {
			at = append(at, e.At)
		}
	}
	require.Len(t, at, 7)
	var gaps []time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i]-at[i-1])
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{2 * ms, 3 * ms, 5 * ms, 9 * ms, 11 * ms, 11 * ms}, gaps)
}

// Reclaimable pods are capped at the pods admitted: the quota released
// never exceeds what the workload holds.
func TestReclaimableIsCapped(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "4"})))}))
	r.add(wl("w1", "lq-cq", 0, 0, 4, "1"))
	r.settle()
	require.NoError(t, r.a.SetReclaimable("default/w1", "main", 10))
	assert.Equal(t, int64(0), r.a.cqs["cq"].node.usage[0])
	require.Error(t, r.a.SetReclaimable("default/w1", "other", 1), "no such pod set")
	require.ErrorIs(t, r.a.SetReclaimable("default/nope", "main", 1), ErrUnknownWorkload)
}
