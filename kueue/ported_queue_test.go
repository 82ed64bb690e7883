package kueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's queue tests (pkg/cache/queue/cluster_queue_test.go), the
// cases of what the model keeps of a ClusterQueue's queue: its order
// (priority, then creation), where a workload goes back after a failed
// attempt (the heap or the inadmissible set) by the reason and the
// strategy, and the equivalence classes set aside whole (Kueue's
// SchedulingEquivalenceHashing, on by default since v0.18). Each case
// under Kueue's name.

// queueFixture is a lone ClusterQueue with the given strategy.
func queueFixture(t *testing.T, strategy QueueingStrategy) (*Admitter, *clusterQueue) {
	t.Helper()
	q := mkCQ("cq").groups(rg(fq("default", res(cpu, "10")))).obj()
	q.QueueingStrategy = strategy
	a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{q}}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a.SetNamespace("default", nil)
	return a, a.cqs["cq"]
}

var qseq int64

func qwl(name string, prio int32, created time.Duration) *info {
	qseq++
	w := &Workload{Namespace: "default", Name: name, Priority: prio, Created: created,
		PodSets: []PodSet{{Name: "main", Count: 1, Requests: cluster.ResourceList{cpu: 1000}}}}
	return &info{w: w, key: w.Key(), seq: qseq, shape: w.shape()}
}

// Kueue's TestStrictFIFO, the cases without eviction: the head is the
// higher priority, then the earlier created. (Its two cases that order an
// evicted workload by its eviction time belong to waitForPodsReady's
// requeuing and are left to it.)
func TestPortedStrictFIFO(t *testing.T) {
	cases := map[string]struct {
		w1, w2 *info
		want   string
	}{
		"w1.priority is higher than w2.priority":                                                  {qwl("w1", 1000, 0), qwl("w2", 0, time.Second), "w1"},
		"w1.priority equals w2.priority and w1.create time is earlier than w2.create time":        {qwl("w1", 0, 0), qwl("w2", 0, time.Second), "w1"},
		"p1.priority is lower than p2.priority and w1.create time is earlier than w2.create time": {qwl("w1", 0, 0), qwl("w2", 1000, time.Second), "w2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, q := queueFixture(t, StrictFIFO)
			q.pushOrUpdate(tc.w1)
			q.pushOrUpdate(tc.w2)
			assert.Equal(t, tc.want, q.pop().w.Name)
		})
	}
}

// Kueue's TestFIFOClusterQueue: before is popped first; after, created a
// minute earlier than now once updated, next; with now deleted the queue
// is empty. (A workload's update is its removal and a new push here: the
// model's workloads do not change.)
func TestPortedFIFOClusterQueue(t *testing.T) {
	_, q := queueFixture(t, StrictFIFO)
	now := qwl("now", 0, time.Minute)
	q.pushOrUpdate(now)
	q.pushOrUpdate(qwl("before", 0, time.Minute-time.Second))
	after := qwl("after", 0, time.Minute+time.Second)
	q.pushOrUpdate(after)
	assert.Equal(t, "before", q.pop().w.Name)
	q.remove(after)
	q.pushOrUpdate(qwl("after", 0, 0))
	assert.Equal(t, "after", q.pop().w.Name)
	q.remove(now)
	assert.Nil(t, q.pop())
}

// requeueCase puts a workload back through the cycle's requeue with
// Kueue's reason, and reports whether it went to the inadmissible set; a
// second requeue must add nothing.
func requeueCase(t *testing.T, strategy QueueingStrategy, reason requeueReason, last *lastAssignment) bool {
	t.Helper()
	a, q := queueFixture(t, strategy)
	wi := qwl("workload-1", 0, 0)
	wi.cq = q
	a.workloads[wi.key] = wi
	wi.last = last
	e := &entry{wi: wi, q: q, requeue: reason, reason: "Pending"}
	a.requeueEntry(e)
	inadmissible := q.inadmissible[wi.key] != nil
	a.requeueEntry(e)
	assert.Equal(t, 1, len(q.heap)+len(q.inadmissible), "requeued twice")
	return inadmissible
}

// Kueue's TestBestEffortFIFORequeueIfNotPresent, the reasons the model
// has (a failed API call is not modelled: "preemption failed" is not
// ported; the sticky head of "pending preemption" is set when the
// preemptions are issued, see TestPortedSchedule's preemption cases).
func TestPortedBestEffortFIFORequeueIfNotPresent(t *testing.T) {
	tried := func(m ...map[cluster.ResourceName]int) *lastAssignment { return &lastAssignment{tried: m} }
	cases := map[string]struct {
		reason requeueReason
		last   *lastAssignment
		want   bool
	}{
		"failure after nomination": {reason: requeueFailedAfterNomination},
		"pending preemption":       {reason: requeuePendingPreemption},
		"namespace doesn't match":  {reason: requeueNamespaceMismatch, want: true},
		"didn't fit and no pending flavors": {reason: requeueGeneric,
			last: tried(map[cluster.ResourceName]int{"memory": -1}, map[cluster.ResourceName]int{cpu: -1, "memory": -1}), want: true},
		"didn't fit but pending flavors": {reason: requeueGeneric,
			last: tried(map[cluster.ResourceName]int{cpu: -1, "memory": 0}, map[cluster.ResourceName]int{"memory": 1})},
		"nofit":                 {reason: requeueNoFit, want: true},
		"preempt no candidates": {reason: requeueNoCandidates, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, requeueCase(t, BestEffortFIFO, tc.reason, tc.last))
		})
	}
}

// Kueue's TestStrictFIFORequeueIfNotPresent: a StrictFIFO head goes
// straight back unless its namespace no longer matches.
func TestPortedStrictFIFORequeueIfNotPresent(t *testing.T) {
	for name, tc := range map[string]struct {
		reason requeueReason
		want   bool
	}{
		"FailedAfterNomination": {requeueFailedAfterNomination, false},
		"NamespaceMismatch":     {requeueNamespaceMismatch, true},
		"Generic":               {requeueGeneric, false},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, requeueCase(t, StrictFIFO, tc.reason, nil))
		})
	}
}

// Kueue's TestRecordInadmissibleHash, "bulk-moves matching workloads":
// three workloads of the gpu class and two of the cpu class queued; one
// gpu workload, popped, did not fit: its whole class is set aside (3
// inadmissible, 2 active). Kueue's test records the class directly; here
// it is recorded as the cycle records it, by the requeue of a workload of
// the class. (Its two no-op cases, an empty class and a class no queued
// workload has, have no counterpart: a workload always has a class.)
func TestPortedRecordInadmissibleHash(t *testing.T) {
	_, q := queueFixture(t, BestEffortFIFO)
	for i, n := range []string{"gpu-1", "gpu-2", "gpu-3", "cpu-1", "cpu-2"} {
		wi := qwl(n, 0, time.Duration(i)*time.Second)
		wi.shape = n[:3] + "-class"
		q.pushOrUpdate(wi)
	}
	head := q.pop()
	assert.Equal(t, "gpu-1", head.w.Name)
	q.requeue(head, false, true)
	assert.Equal(t, 2, len(q.heap), "active")
	assert.Equal(t, 3, len(q.inadmissible), "inadmissible")
}

// Kueue's TestPushOrUpdateRespectsInadmissibleHashes.
func TestPortedPushOrUpdateRespectsInadmissibleHashes(t *testing.T) {
	for name, tc := range map[string]struct {
		shape                 string
		wantActive, wantInadm int
	}{
		"workload with blocked hash goes to inadmissible": {"blocked", 0, 1},
		"workload with non-blocked hash goes to heap":     {"allowed", 1, 0},
	} {
		t.Run(name, func(t *testing.T) {
			_, q := queueFixture(t, BestEffortFIFO)
			q.bulk["blocked"] = true
			wi := qwl("wl", 0, 0)
			wi.shape = tc.shape
			q.pushOrUpdate(wi)
			assert.Equal(t, tc.wantActive, len(q.heap))
			assert.Equal(t, tc.wantInadm, len(q.inadmissible))
		})
	}
}

// Kueue's TestQueueInadmissibleWorkloadsClearsHashes: moving the
// inadmissible workloads back forgets the classes set aside.
func TestPortedQueueInadmissibleWorkloadsClearsHashes(t *testing.T) {
	a, q := queueFixture(t, BestEffortFIFO)
	wi := qwl("wl", 0, 0)
	q.pushOrUpdate(wi)
	q.requeue(q.pop(), false, true)
	assert.True(t, q.bulk[wi.shape], "class recorded")
	q.queueInadmissible(a)
	assert.False(t, q.bulk[wi.shape], "class forgotten")
	assert.Equal(t, 1, len(q.heap))
	assert.Equal(t, 0, len(q.inadmissible))
}

// Kueue's TestRequeueHashTriggerByReason: only NoFit and "preemption
// without candidates" set the class aside. (Its "preemption gated" case
// is not modelled.)
func TestPortedRequeueHashTriggerByReason(t *testing.T) {
	for name, tc := range map[string]struct {
		reason requeueReason
		want   bool
	}{
		"nofit triggers hash":                      {requeueNoFit, true},
		"preempt no candidates triggers hash":      {requeueNoCandidates, true},
		"namespace mismatch does not trigger hash": {requeueNamespaceMismatch, false},
		"generic does not trigger hash":            {requeueGeneric, false},
	} {
		t.Run(name, func(t *testing.T) {
			a, q := queueFixture(t, BestEffortFIFO)
			wi := qwl("workload-1", 0, 0)
			wi.cq = q
			a.workloads[wi.key] = wi
			a.requeueEntry(&entry{wi: wi, q: q, requeue: tc.reason, reason: "Pending"})
			assert.Equal(t, tc.want, q.bulk[wi.shape])
		})
	}
}

// Kueue's TestRequeueAndUpdate, the statuses the model has: a head that
// did not fit goes to the inadmissible set and its message is recorded (a
// Pending event); one that failed after nomination goes back to the heap
// with no new condition; one skipped in the cycle goes back to the heap
// with its message. (Its "assumed" case, an admitted head, is never
// requeued in the model; "preemption gated" is not modelled.)
func TestPortedRequeueAndUpdate(t *testing.T) {
	for name, tc := range map[string]struct {
		status                 entryStatus
		msg                    string
		wantInadmissible, want bool // in the inadmissible set; a Pending event
	}{
		"workload didn't fit":  {notNominated, "didn't fit", true, true},
		"nominated":            {nominated, "failed to admit workload", false, false},
		"skipped with summary": {skipped, "cohort used in this cycle", false, true},
	} {
		t.Run(name, func(t *testing.T) {
			a, q := queueFixture(t, BestEffortFIFO)
			wi := qwl("w1", 0, 0)
			wi.cq = q
			a.workloads[wi.key] = wi
			a.requeueEntry(&entry{wi: wi, q: q, status: tc.status, message: tc.msg, reason: "Pending"})
			assert.Equal(t, tc.wantInadmissible, q.inadmissible[wi.key] != nil, "inadmissible")
			assert.Equal(t, !tc.wantInadmissible, q.inHeap(wi) >= 0, "in the heap")
			evs := a.Events()
			assert.Equal(t, tc.want, len(evs) == 1 && evs[0].Kind == Pending && evs[0].Message == tc.msg, "Pending event: %v", evs)
		})
	}
}
