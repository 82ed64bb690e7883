package kueue

import (
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestSchedule (pkg/scheduler/scheduler_test.go), the
// cases that fit the model, each under Kueue's name. Kueue's test runs one
// admission cycle on a fresh cache and queue manager and then compares the
// admissions in the cache, the workloads left in the queues (active and
// inadmissible), the preempted workloads and the workloads' conditions;
// these do the same with one Step at time 0.

// scheduleSuite is TestSchedule's shared setup: six flavors (two tainted),
// six ClusterQueues and eight LocalQueues, and the namespaces labelled by
// department.
//
//	sales          StrictFIFO, dep=sales; default cpu 50, borrowing limit 0
//	eng-alpha      cohort eng, StrictFIFO, dep=eng; on-demand cpu 50 (borrow 50), spot cpu 100 (borrow 0)
//	eng-beta       cohort eng, StrictFIFO, dep=eng, reclaim Any, within LowerPriority;
//	               on-demand cpu 50 (borrow 10), spot cpu 0 (borrow 100); model-a gpu 20 (borrow 0)
//	flavor-nonexistent-cq  names a flavor that does not exist
//	lend-a         cohort lend, dep=lend; default cpu 3, lending limit 2
//	lend-b         cohort lend, dep=lend; default cpu 2, lending limit 2
func scheduleSuite() *cycleSuite {
	depIn := func(b *pcq, d string) ClusterQueue { return b.nsIn("dep", d).obj() }
	return &cycleSuite{
		flavors: []ResourceFlavor{{Name: "default"}, {Name: "on-demand"}, {Name: "spot"}, {Name: "model-a"},
			{Name: "spot-tainted", NodeTaints: []cluster.Taint{{Key: "key", Value: "val", Effect: cluster.TaintNoSchedule}}},
			{Name: "spot-tainted-2", NodeTaints: []cluster.Taint{{Key: "key", Value: "val2", Effect: cluster.TaintNoSchedule}}}},
		cqs: []ClusterQueue{
			depIn(mkCQ("sales").strict().groups(rg(fq("default", res(cpu, "50", "0")))), "sales"),
			depIn(mkCQ("eng-alpha").cohort("eng").strict().groups(rg(fq("on-demand", res(cpu, "50", "50")), fq("spot", res(cpu, "100", "0")))), "eng"),
			depIn(mkCQ("eng-beta").cohort("eng").strict().preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
				groups(rg(fq("on-demand", res(cpu, "50", "10")), fq("spot", res(cpu, "0", "100"))), rg(fq("model-a", res(gpu, "20", "0")))), "eng"),
			mkCQ("flavor-nonexistent-cq").strict().groups(rg(fq("nonexistent-flavor", res(cpu, "50")))).obj(),
			depIn(mkCQ("lend-a").cohort("lend").groups(rg(fq("default", res(cpu, "3", "", "2")))), "lend"),
			depIn(mkCQ("lend-b").cohort("lend").groups(rg(fq("default", res(cpu, "2", "", "2")))), "lend"),
		},
		lqs: []LocalQueue{lq("sales", "main", "sales"), lq("sales", "blocked", "eng-alpha"), lq("eng-alpha", "main", "eng-alpha"),
			lq("eng-beta", "main", "eng-beta"), lq("sales", "flavor-nonexistent-queue", "flavor-nonexistent-cq"),
			lq("sales", "cq-nonexistent-queue", "nonexistent-cq"), lq("lend", "lend-a-queue", "lend-a"), lq("lend", "lend-b-queue", "lend-b")},
		namespaces: map[string]map[string]string{"default": nil, "eng-alpha": {"dep": "eng"}, "eng-beta": {"dep": "eng"},
			"eng-gamma": {"dep": "eng"}, "sales": {"dep": "sales"}, "lend": {"dep": "lend"}},
	}
}

func TestPortedSchedule(t *testing.T) {
	cases := map[string]cycleCase{
		// other-alpha (no cohort) prefers on-demand but "admitted" holds all
		// 50 of it, at the same priority: no candidates under LowerPriority,
		// so on-demand is not a place to stop even with WhenCanPreempt
		// MayStopSearch; spot (100) fits the 20.
		"use second flavor when the first has no preemption candidates; WhenCanPreempt: MayStopSearch": {
			cqs: []ClusterQueue{mkCQ("other-alpha").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
				fung(FlavorFungibility{WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("on-demand", res(cpu, "50", "50")), fq("spot", res(cpu, "100", "0")))).obj()},
			lqs:             []LocalQueue{lq("eng-alpha", "other", "other-alpha")},
			admitted:        []admittedWorkload{{mkWl("admitted", "eng-alpha").queue("other").req(cpu, "50"), adm("other-alpha", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("new", "eng-alpha").queue("other").req(cpu, "20")},
			wantAssignments: map[string]string{"eng-alpha/admitted": "other-alpha main:1:cpu=on-demand", "eng-alpha/new": "other-alpha main:1:cpu=spot"},
		},
		// 10 × 1 cpu in sales' 50. (The admission check is not modelled:
		// the quota reservation is what is compared.)
		"workload fits in single clusterQueue, with check state ready": {
			pending:         []*pwl{mkWl("foo", "sales").queue("main").podSets(ps("one", 10, "cpu", "1"))},
			wantAssignments: map[string]string{"sales/foo": "sales one:10:cpu=default"},
		},
		// The LocalQueue does not exist: the workload is in no queue.
		"skip workload with missing or deleted ClusterQueue (NoFit)": {
			pending: []*pwl{mkWl("missing-cq-workload", "sales").queue("non-existent-queue").podSets(ps("set", 1, "cpu", "1"))},
		},
		// spot-tainted is skipped (taint not tolerated); on-demand has 15
		// nominal + 15 borrowable but no cohort, so 15 at most, 10 used:
		// 10 more needs 5 more. Reasons are sorted.
		"flavors with mixed misconfiguration and insufficient quota": {
			cqs: []ClusterQueue{mkCQ("custom-cq").strict().groups(rg(fq("spot-tainted", res(cpu, "20", "20")), fq("on-demand", res(cpu, "15", "15")))).obj()},
			lqs: []LocalQueue{lq("sales", "custom-q", "custom-cq")},
			admitted: []admittedWorkload{{mkWl("existing-on-demand-job", "sales").queue("custom-q").req(cpu, "10"),
				adm("custom-cq", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("new-job", "sales").queue("custom-q").req(cpu, "10")},
			wantAssignments: map[string]string{"sales/existing-on-demand-job": "custom-cq main:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"custom-cq": {"sales/new-job"}},
			wantMessages: map[string]string{"sales/new-job": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 5 more needed, " +
				"untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted"},
		},
		// on-demand's most is its nominal 5 (no cohort to borrow from).
		"flavors with mixed taint mismatch and exceeding limits": {
			cqs:      []ClusterQueue{mkCQ("custom-cq2").strict().groups(rg(fq("spot-tainted", res(cpu, "20", "20")), fq("on-demand", res(cpu, "5", "5")))).obj()},
			lqs:      []LocalQueue{lq("sales", "custom-q2", "custom-cq2")},
			pending:  []*pwl{mkWl("new-job2", "sales").queue("custom-q2").req(cpu, "10")},
			wantLeft: map[string][]string{"custom-cq2": {"sales/new-job2"}},
			wantMessages: map[string]string{"sales/new-job2": "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, " +
				"previously considered podsets requests (0) + current podset request (10) > maximum capacity (5), untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted"},
		},
		"flavors are structurally incompatible": {
			cqs:      []ClusterQueue{mkCQ("custom-cq3").strict().groups(rg(fq("spot-tainted", res(cpu, "20", "20")), fq("spot-tainted-2", res(cpu, "5", "5")))).obj()},
			lqs:      []LocalQueue{lq("sales", "custom-q3", "custom-cq3")},
			pending:  []*pwl{mkWl("new-job3", "sales").queue("custom-q3").req(cpu, "1")},
			wantLeft: map[string][]string{"custom-cq3": {"sales/new-job3"}},
			wantMessages: map[string]string{"sales/new-job3": "couldn't assign flavors to pod set main: untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted, " +
				"untolerated taint {key val2 NoSchedule <nil>} in flavor spot-tainted-2"},
		},
		"workload fits in single clusterQueue, with check state pending": {
			pending:         []*pwl{mkWl("foo", "sales").queue("main").podSets(ps("one", 10, "cpu", "1"))},
			wantAssignments: map[string]string{"sales/foo": "sales one:10:cpu=default"},
		},
		// 40 of sales' 50 are used: 11 more needs 1 more; StrictFIFO keeps
		// it at the head.
		"single clusterQueue full": {
			admitted:        []admittedWorkload{{mkWl("assigned", "sales").podSets(ps("one", 40, "cpu", "1")), adm("sales", "one:40:cpu=default")}},
			pending:         []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 11, "cpu", "1"))},
			wantAssignments: map[string]string{"sales/assigned": "sales one:40:cpu=default"},
			wantLeft:        map[string][]string{"sales": {"sales/new"}},
			wantMessages:    map[string]string{"sales/new": "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor default, 1 more needed"},
		},
		// LocalQueue "blocked" in namespace sales points to eng-alpha,
		// which selects dep=eng only.
		"failed to match clusterQueue selector": {
			pending:          []*pwl{mkWl("new", "sales").queue("blocked").podSets(ps("one", 1, "cpu", "1"))},
			wantInadmissible: map[string][]string{"eng-alpha": {"sales/new"}},
			wantMessages:     map[string]string{"sales/new": "workload namespace doesn't match ClusterQueue selector"},
		},
		// eng-alpha's 51 borrows 1 of on-demand from eng-beta's 50.
		"admit in different cohorts": {
			pending: []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 1, "cpu", "1")),
				mkWl("new", "eng-alpha").queue("main").podSets(ps("one", 51, "cpu", "1"))},
			wantAssignments: map[string]string{"sales/new": "sales one:1:cpu=default", "eng-alpha/new": "eng-alpha one:51:cpu=on-demand"},
		},
		"admit in same cohort with no borrowing": {
			pending: []*pwl{mkWl("new", "eng-alpha").queue("main").podSets(ps("one", 40, "cpu", "1")),
				mkWl("new", "eng-beta").queue("main").podSets(ps("one", 40, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/new": "eng-alpha one:40:cpu=on-demand", "eng-beta/new": "eng-beta one:40:cpu=on-demand"},
		},
		// one: 60 cpu on-demand (50 + 10 borrowed, eng-beta's limit) and 10
		// gpu of model-a; two: 40 more cpu no longer fit on-demand (limit
		// 60), spot (0 nominal, borrow 100) takes them from eng-alpha's 100.
		"assign multiple resources and flavors": {
			pending:         []*pwl{mkWl("new", "eng-beta").queue("main").podSets(ps("one", 10, "cpu", "6", "example.com/gpu", "1"), ps("two", 40, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-beta/new": "eng-beta one:10:cpu=on-demand,example.com/gpu=model-a two:40:cpu=spot"},
		},
		// Both fit the snapshot alone; eng-alpha's 45 goes first (no
		// borrowing), after which on-demand has 100 - 45 = 55 < 56.
		"cannot borrow if cohort was assigned and would result in overadmission": {
			pending: []*pwl{mkWl("new", "eng-alpha").queue("main").podSets(ps("one", 45, "cpu", "1")),
				mkWl("new", "eng-beta").queue("main").podSets(ps("one", 56, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/new": "eng-alpha one:45:cpu=on-demand"},
			wantLeft:        map[string][]string{"eng-beta": {"eng-beta/new"}},
			wantMessages:    map[string]string{"eng-beta/new": "Workload no longer fits after processing another workload"},
		},
		"can borrow if cohort was assigned and will not result in overadmission": {
			pending: []*pwl{mkWl("new", "eng-alpha").queue("main").podSets(ps("one", 45, "cpu", "1")),
				mkWl("new", "eng-beta").queue("main").podSets(ps("one", 55, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/new": "eng-alpha one:45:cpu=on-demand", "eng-beta/new": "eng-beta one:55:cpu=on-demand"},
		},
		// eng-beta uses on-demand 50 and spot 1 (borrowed). can-reclaim
		// (100) needs 50 more of on-demand (50 free of 100) and 1 more of
		// spot (99 free); it could reclaim but eng-alpha does not
		// preempt. needs-to-borrow borrows 1 of on-demand.
		"can borrow if needs reclaim from cohort in different flavor": {
			admitted: []admittedWorkload{
				{mkWl("user-on-demand", "eng-beta").req(cpu, "50"), adm("eng-beta", "main:1:cpu=on-demand")},
				{mkWl("user-spot", "eng-beta").req(cpu, "1"), adm("eng-beta", "main:1:cpu=spot")}},
			pending: []*pwl{mkWl("can-reclaim", "eng-alpha").queue("main").req(cpu, "100"), mkWl("needs-to-borrow", "eng-beta").queue("main").req(cpu, "1")},
			wantAssignments: map[string]string{"eng-beta/user-spot": "eng-beta main:1:cpu=spot", "eng-beta/user-on-demand": "eng-beta main:1:cpu=on-demand",
				"eng-beta/needs-to-borrow": "eng-beta main:1:cpu=on-demand"},
			wantLeft: map[string][]string{"eng-alpha": {"eng-alpha/can-reclaim"}},
			wantMessages: map[string]string{"eng-alpha/can-reclaim": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 50 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 1 more needed"},
		},
		// lend-b (2, lends 2) uses 2; lend-a lends at most 2 of its 3: the
		// cohort has 4, 2 used, and b's 3 needs 1 more.
		"workload exceeds lending limit when borrow in cohort": {
			admitted:         []admittedWorkload{{mkWl("a", "lend").req(cpu, "2"), adm("lend-b", "main:1:cpu=default")}},
			pending:          []*pwl{mkWl("b", "lend").queue("lend-b-queue").req(cpu, "3")},
			wantAssignments:  map[string]string{"lend/a": "lend-b main:1:cpu=default"},
			wantInadmissible: map[string][]string{"lend-b": {"lend/b"}},
			wantMessages:     map[string]string{"lend/b": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed"},
		},
		// root > child > {cq-lender (10, lends 3), cq-borrower (5, may
		// borrow 10)}: the borrower uses its 5; child has 5 + 3 = 8, 3 left
		// for the 4 asked: 1 more needed.
		"hierarchical cohort respects lending limit when borrowing": {
			cohorts: []Cohort{{Name: "root"}, {Name: "child", ParentName: "root"}},
			cqs: []ClusterQueue{
				mkCQ("cq-lender").cohort("child").nsIn("dep", "eng").groups(rg(fq("on-demand", res(cpu, "10", "", "3")))).obj(),
				mkCQ("cq-borrower").cohort("child").nsIn("dep", "eng").groups(rg(fq("on-demand", res(cpu, "5", "10")))).obj()},
			lqs:              []LocalQueue{lq("eng-alpha", "lq-lender", "cq-lender"), lq("eng-alpha", "lq-borrower", "cq-borrower")},
			admitted:         []admittedWorkload{{mkWl("wl-existing", "eng-alpha").req(cpu, "5"), adm("cq-borrower", "main:1:cpu=on-demand")}},
			pending:          []*pwl{mkWl("wl-pending", "eng-alpha").queue("lq-borrower").req(cpu, "4")},
			wantAssignments:  map[string]string{"eng-alpha/wl-existing": "cq-borrower main:1:cpu=on-demand"},
			wantInadmissible: map[string][]string{"cq-borrower": {"eng-alpha/wl-pending"}},
			wantMessages:     map[string]string{"eng-alpha/wl-pending": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"},
		},
		// The same with a lending limit of 5: exactly the 5 asked.
		"hierarchical cohort allows borrowing up to lending limit": {
			cohorts: []Cohort{{Name: "root"}, {Name: "child", ParentName: "root"}},
			cqs: []ClusterQueue{
				mkCQ("cq-lender").cohort("child").nsIn("dep", "eng").groups(rg(fq("on-demand", res(cpu, "10", "", "5")))).obj(),
				mkCQ("cq-borrower").cohort("child").nsIn("dep", "eng").groups(rg(fq("on-demand", res(cpu, "5", "10")))).obj()},
			lqs:             []LocalQueue{lq("eng-alpha", "lq-lender", "cq-lender"), lq("eng-alpha", "lq-borrower", "cq-borrower")},
			admitted:        []admittedWorkload{{mkWl("wl-existing", "eng-alpha").req(cpu, "5"), adm("cq-borrower", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("wl-borrowing", "eng-alpha").queue("lq-borrower").req(cpu, "5")},
			wantAssignments: map[string]string{"eng-alpha/wl-existing": "cq-borrower main:1:cpu=on-demand", "eng-alpha/wl-borrowing": "cq-borrower main:1:cpu=on-demand"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { scheduleSuite().run(t, tc) })
	}
}
