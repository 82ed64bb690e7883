package kueue

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

const cpu = cluster.ResourceCPU

// One queue of 10 cpu, BestEffortFIFO: w1 and w2 (4 each) take 8; w3 (4)
// needs 2 more than the 2 left and is set aside; w4 (2) fits past it.
// When w1 finishes, the requeue batch moves w3 back and it is admitted.
func TestNominalQuotaBestEffortFIFO(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq-a", "", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
	r.add(wl("w1", "lq-cq-a", 0, 0, 4, "1"), wl("w2", "lq-cq-a", 0, 1, 4, "1"), wl("w3", "lq-cq-a", 0, 2, 4, "1"), wl("w4", "lq-cq-a", 0, 3, 2, "1"))
	r.settle()
	assert.Equal(t, "cq-a: w1 w2 w4", r.admitted())
	assert.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed", r.message("w3"))
	r.finish("w1")
	r.settle()
	assert.Equal(t, "cq-a: w2 w3 w4", r.admitted())
	assert.Equal(t, []string{"w1", "w2", "w4", "w3"}, r.order())
}

// admittedWl adds w as already admitted by q in flavor "default".
func (r *run) admittedWl(q string, ws ...*Workload) {
	r.t.Helper()
	for _, w := range ws {
		if err := r.a.AddAdmitted(w, Admission{ClusterQueue: q, PodSets: []PodSetAssignment{{Name: "main", Flavors: map[cluster.ResourceName]string{cpu: "default"}}}}); err != nil {
			r.t.Fatal(err)
		}
	}
	r.log = append(r.log, r.a.Events()...)
}

// Two queues of 10 cpu in a cohort; cq-a may borrow 4. a1 (8) and b1 (3)
// fit their own quota; a2 (5) needs 3 beyond cq-a's 2 left, which the
// cohort has (cq-b's 7 unused) within the limit of 4: admitted, borrowing
// 3. a3 (2) would borrow 5 > 4: its maximum is 10 + 4 = 14, and
// 13 + 2 = 15: "1 more needed" of the 1 still borrowable.
func TestBorrowingLimit(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{
		newCQ("cq-a", "team", group(quotas("default", rq{name: cpu, nominal: "10", borrowing: "4"}))),
		newCQ("cq-b", "team", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
	r.add(wl("a1", "lq-cq-a", 0, 0, 8, "1"), wl("a2", "lq-cq-a", 0, 1, 5, "1"), wl("a3", "lq-cq-a", 0, 2, 2, "1"), wl("b1", "lq-cq-b", 0, 3, 3, "1"))
	r.settle()
	assert.Equal(t, "cq-a: a1 a2; cq-b: b1", r.admitted())
	assert.Equal(t, []string{"a1", "b1", "a2"}, r.order())
	assert.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed", r.message("a3"))
}

// StrictFIFO: big (6) waits behind w1 (6 of 10) and blocks small (2),
// which would fit; when w1 finishes both are admitted in order.
func TestStrictFIFOBlocks(t *testing.T) {
	q := newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))
	q.QueueingStrategy = StrictFIFO
	r := newRun(t, objects([]ClusterQueue{q}))
	r.add(wl("w1", "lq-cq", 0, 0, 6, "1"), wl("big", "lq-cq", 0, 1, 6, "1"), wl("small", "lq-cq", 0, 2, 2, "1"))
	r.settle()
	assert.Equal(t, "cq: w1", r.admitted())
	assert.Equal(t, "", r.message("small"), "never tried")
	r.finish("w1")
	r.settle()
	assert.Equal(t, []string{"w1", "big", "small"}, r.order())
}

// The same under BestEffortFIFO: small goes past big.
func TestBestEffortFIFOSkipsTheHead(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))}))
	r.add(wl("w1", "lq-cq", 0, 0, 6, "1"), wl("big", "lq-cq", 0, 1, 6, "1"), wl("small", "lq-cq", 0, 2, 2, "1"))
	r.settle()
	assert.Equal(t, "cq: small w1", r.admitted())
	r.finish("w1")
	r.settle()
	assert.Equal(t, []string{"w1", "small", "big"}, r.order())
}

// withinClusterQueue LowerPriority: low-1 and low-2 (4 each, priority
// 100) hold 8 of 10; high-1 (5, priority 1000) needs 3 more: the
// candidates, lowest priority then latest admitted then first added, are
// low-1 then low-2; removing low-1 frees enough, so low-1 alone is
// preempted. Then high-1 takes 5 (9 used); low-1, queued again ahead of
// low-3 (created earlier), needs 3 more and is set aside; low-3 (1) fits;
// the requeue batch a second after low-1's release moves it back, and it
// now needs 4 more (10 used).
func TestPreemptLowerPriorityInQueue(t *testing.T) {
	q := newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "10"})))
	q.Preemption.WithinClusterQueue = PreemptLowerPriority
	r := newRun(t, objects([]ClusterQueue{q}))
	r.admittedWl("cq", wl("low-1", "lq-cq", 100, 0, 4, "1"), wl("low-2", "lq-cq", 100, 1, 4, "1"))
	r.add(wl("high-1", "lq-cq", 1000, 10, 5, "1"), wl("low-3", "lq-cq", 100, 11, 1, "1"))
	r.settle()
	assert.Equal(t, []string{"low-1<-high-1(InClusterQueue)"}, r.evictions())
	assert.Equal(t, "cq: high-1 low-2 low-3", r.admitted())
	assert.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 4 more needed", r.message("low-1"))
	assert.Equal(t, []string{"low-1", "low-2", "high-1", "low-3"}, r.order(), "the first two were admitted before")
}

// reclaimWithinCohort Any: cq-a (6) borrows 6 from cq-b (6) with a1 (6),
// a2 and a3 (3 each); b1 (4, lower priority) reclaims: cq-a's workloads
// are candidates (cq-a is above its nominal quota); the first in order
// (equal priority and admission time: the first added) is a1, whose 6
// free enough. a1 requeued needs 4 more.
func TestReclaimWithinCohort(t *testing.T) {
	qb := newCQ("cq-b", "team", group(quotas("default", rq{name: cpu, nominal: "6"})))
	qb.Preemption.ReclaimWithinCohort = PreemptAny
	r := newRun(t, objects([]ClusterQueue{newCQ("cq-a", "team", group(quotas("default", rq{name: cpu, nominal: "6"}))), qb}))
	r.admittedWl("cq-a", wl("a1", "lq-cq-a", 1000, 0, 6, "1"), wl("a2", "lq-cq-a", 1000, 1, 3, "1"), wl("a3", "lq-cq-a", 1000, 2, 3, "1"))
	r.add(wl("b1", "lq-cq-b", 0, 10, 4, "1"))
	r.settle()
	assert.Equal(t, []string{"a1<-b1(InCohortReclamation)"}, r.evictions())
	assert.Equal(t, "cq-a: a2 a3; cq-b: b1", r.admitted())
	assert.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 4 more needed", r.message("a1"))
}

// reclaimablePods: w1 (4 pods of 1 cpu) fills the queue's 4; w2 (2) is
// set aside. Two of w1's pods finish for good: their 2 cpu are released
// at once, and the requeue batch moves w2 back, which now fits; a smaller
// count later changes nothing.
func TestReclaimablePodsReleaseQuota(t *testing.T) {
	r := newRun(t, objects([]ClusterQueue{newCQ("cq", "", group(quotas("default", rq{name: cpu, nominal: "4"})))}))
	r.add(wl("w1", "lq-cq", 0, 0, 4, "1"), wl("w2", "lq-cq", 0, 1, 2, "1"))
	r.settle()
	assert.Equal(t, "cq: w1", r.admitted())
	if err := r.a.SetReclaimable("default/w1", "main", 2); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, int64(2000), r.a.cqs["cq"].node.usage[0])
	r.settle()
	assert.Equal(t, "cq: w1 w2", r.admitted())
	if err := r.a.SetReclaimable("default/w1", "main", 1); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, int64(4000), r.a.cqs["cq"].node.usage[0])
	r.finish("w1")
	assert.Equal(t, int64(2000), r.a.cqs["cq"].node.usage[0], "w1's release counts what it still held")
}
