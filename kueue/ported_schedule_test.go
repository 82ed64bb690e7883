package kueue

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
		// eng-beta's preemptor (20) fits neither flavor: on-demand's 100 are
		// all used (eng-alpha's borrower 60, low-1 30, low-2 10), spot's 100
		// too. eng-beta uses 40 of its nominal 50 and may not preempt while
		// borrowing, so the first pass must fit within 50: candidates in
		// order are borrower (another queue, above its quota), then low-2,
		// low-1 (lowest priority first). Without borrower the cohort has
		// room but eng-beta would use 60 > 50; without low-2 too it uses
		// 30 + 20 = 50. Fill-back: borrower back leaves 10 < 20 free, so
		// both stay victims. The preemptor waits in its queue.
		"preempt workloads in ClusterQueue and cohort": {
			admitted: []admittedWorkload{
				{mkWl("use-all-spot", "eng-alpha").req(cpu, "100"), adm("eng-alpha", "main:1:cpu=spot")},
				{mkWl("low-1", "eng-beta").prio(-1).req(cpu, "30"), adm("eng-beta", "main:1:cpu=on-demand")},
				{mkWl("low-2", "eng-beta").prio(-2).req(cpu, "10"), adm("eng-beta", "main:1:cpu=on-demand")},
				{mkWl("borrower", "eng-alpha").req(cpu, "60"), adm("eng-alpha", "main:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("preemptor", "eng-beta").queue("main").req(cpu, "20")},
			wantAssignments: map[string]string{"eng-alpha/use-all-spot": "eng-alpha main:1:cpu=spot", "eng-beta/low-1": "eng-beta main:1:cpu=on-demand",
				"eng-beta/low-2": "eng-beta main:1:cpu=on-demand", "eng-alpha/borrower": "eng-alpha main:1:cpu=on-demand"},
			wantLeft:      map[string][]string{"eng-beta": {"eng-beta/preemptor"}},
			wantPreempted: []string{"eng-alpha/borrower:InCohortReclamation", "eng-beta/low-2:InClusterQueue"},
			wantMessages: map[string]string{"eng-beta/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 20 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 20 more needed. Pending the preemption of 2 workload(s)"},
			wantEvictMessages: map[string]string{
				"eng-alpha/borrower": "Preempted to accommodate a workload (UID: eng-beta/preemptor, JobUID: UNKNOWN) due to reclamation within the cohort; preemptor path: /eng/eng-beta; preemptee path: /eng/eng-alpha",
				"eng-beta/low-2":     "Preempted to accommodate a workload (UID: eng-beta/preemptor, JobUID: UNKNOWN) due to prioritization in the ClusterQueue; preemptor path: /eng/eng-beta; preemptee path: /eng/eng-beta"},
		},
		// Cohort other: other-alpha (50, may borrow 50) uses all 100 with
		// use-all. pending (other-alpha) needs 1 more and its queue does not
		// preempt: inadmissible. preemptor (other-beta, using 0 of its 50)
		// reclaims use-all.
		"multiple CQs need preemption": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").groups(rg(fq("on-demand", res(cpu, "50", "50")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res(cpu, "50", "10")))).obj()},
			lqs:      []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{{mkWl("use-all", "eng-alpha").req(cpu, "100"), adm("other-alpha", "main:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("preemptor", "eng-beta").prio(-1).queue("other").req(cpu, "1"),
				mkWl("pending", "eng-alpha").prio(1).queue("other").req(cpu, "1")},
			wantAssignments:  map[string]string{"eng-alpha/use-all": "other-alpha main:1:cpu=on-demand"},
			wantLeft:         map[string][]string{"other-beta": {"eng-beta/preemptor"}},
			wantInadmissible: map[string][]string{"other-alpha": {"eng-alpha/pending"}},
			wantPreempted:    []string{"eng-alpha/use-all:InCohortReclamation"},
			wantMessages: map[string]string{
				"eng-alpha/pending":  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed",
				"eng-beta/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed. Pending the preemption of 1 workload(s)"},
		},
		"cannot borrow resource not listed in clusterQueue": {
			pending:      []*pwl{mkWl("new", "eng-alpha").queue("main").req(gpu, "1")},
			wantLeft:     map[string][]string{"eng-alpha": {"eng-alpha/new"}},
			wantMessages: map[string]string{"eng-alpha/new": "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue"},
		},
		// on-demand: 100 in the cohort, 45 used by eng-beta, eng-alpha may
		// borrow 50: 60 would fit the limit (100) but not the 55 left; spot
		// (100, no borrowing) fits.
		"not enough resources to borrow, fallback to next flavor; WhenCanPreempt: TryNextFlavor": {
			admitted:        []admittedWorkload{{mkWl("existing", "eng-beta").podSets(ps("one", 45, "cpu", "1")), adm("eng-beta", "one:45:cpu=on-demand")}},
			pending:         []*pwl{mkWl("new", "eng-alpha").queue("main").podSets(ps("one", 60, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/new": "eng-alpha one:60:cpu=spot", "eng-beta/existing": "eng-beta one:45:cpu=on-demand"},
		},
		"workload should not fit in nonexistent clusterQueue": {
			pending: []*pwl{mkWl("foo", "sales").queue("cq-nonexistent-queue").req(cpu, "1")},
		},
		// The queue names a flavor that does not exist: it is inactive,
		// and its workloads stay queued.
		"workload should not fit in clusterQueue with nonexistent flavor": {
			pending:  []*pwl{mkWl("foo", "sales").queue("flavor-nonexistent-queue").req(cpu, "1")},
			wantLeft: map[string][]string{"flavor-nonexistent-cq": {"sales/foo"}},
		},
		// eng-gamma (as eng-beta, BestEffortFIFO, every namespace) holds
		// on-demand 51 (1 borrowed) and spot 100. new-gamma (50) may have
		// on-demand up to its limit: 50 + 10 - 51 = 9, 41 more needed; spot
		// 0 + 100 - 100 = 0, 50 more needed: inadmissible. new (eng-beta,
		// 50) and new-alpha (1) fit their nominal quota and are admitted.
		"no overadmission while borrowing": {
			cqs: []ClusterQueue{mkCQ("eng-gamma").cohort("eng").preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
				groups(rg(fq("on-demand", res(cpu, "50", "10")), fq("spot", res(cpu, "0", "100")))).obj()},
			lqs: []LocalQueue{lq("eng-gamma", "main", "eng-gamma")},
			admitted: []admittedWorkload{{mkWl("existing", "eng-gamma").podSets(ps("borrow-on-demand", 51, "cpu", "1"), ps("use-all-spot", 100, "cpu", "1")),
				adm("eng-gamma", "borrow-on-demand:51:cpu=on-demand", "use-all-spot:100:cpu=spot")}},
			pending: []*pwl{mkWl("new", "eng-beta").queue("main").created(-2).podSets(ps("one", 50, "cpu", "1")),
				mkWl("new-alpha", "eng-alpha").queue("main").created(-1).podSets(ps("one", 1, "cpu", "1")),
				mkWl("new-gamma", "eng-gamma").queue("main").created(0).podSets(ps("one", 50, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-gamma/existing": "eng-gamma borrow-on-demand:51:cpu=on-demand use-all-spot:100:cpu=spot",
				"eng-beta/new": "eng-beta one:50:cpu=on-demand", "eng-alpha/new-alpha": "eng-alpha one:1:cpu=on-demand"},
			wantInadmissible: map[string][]string{"eng-gamma": {"eng-gamma/new-gamma"}},
			wantMessages: map[string]string{"eng-gamma/new-gamma": "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor on-demand, 41 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 50 more needed"},
		},
		// 50 × 2 cpu in sales' 50: the search between 20 and 50 pods finds
		// 25 (50 cpu).
		"partial admission single variable pod set": {
			pending:         []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 50, "cpu", "2").min(20))},
			wantAssignments: map[string]string{"sales/new": "sales one:25:cpu=default"},
		},
		// model-a has 20 gpu, old (priority -4) holds 10: new (20, min 10,
		// priority 4) can have all 20 by preempting old, which is preferred
		// over admitting 10 at once.
		"partial admission single variable pod set, preempt first": {
			admitted:        []admittedWorkload{{mkWl("old", "eng-beta").prio(-4).podSets(ps("one", 10, "example.com/gpu", "1")), adm("eng-beta", "one:10:example.com/gpu=model-a")}},
			pending:         []*pwl{mkWl("new", "eng-beta").queue("main").prio(4).podSets(ps("one", 20, "example.com/gpu", "1").min(10))},
			wantAssignments: map[string]string{"eng-beta/old": "eng-beta one:10:example.com/gpu=model-a"},
			wantLeft:        map[string][]string{"eng-beta": {"eng-beta/new"}},
			wantPreempted:   []string{"eng-beta/old:InClusterQueue"},
			wantMessages: map[string]string{"eng-beta/new": "couldn't assign flavors to pod set one: insufficient unused quota for example.com/gpu in flavor model-a, 10 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
		// 30 (min 10) cannot fit the 20 even with old gone; the search finds
		// 20 by preempting old: 20 asked, 10 free, 10 more needed.
		"partial admission single variable pod set, preempt with partial admission": {
			admitted:        []admittedWorkload{{mkWl("old", "eng-beta").prio(-4).podSets(ps("one", 10, "example.com/gpu", "1")), adm("eng-beta", "one:10:example.com/gpu=model-a")}},
			pending:         []*pwl{mkWl("new", "eng-beta").queue("main").prio(4).podSets(ps("one", 30, "example.com/gpu", "1").min(10))},
			wantAssignments: map[string]string{"eng-beta/old": "eng-beta one:10:example.com/gpu=model-a"},
			wantLeft:        map[string][]string{"eng-beta": {"eng-beta/new"}},
			wantPreempted:   []string{"eng-beta/old:InClusterQueue"},
			wantMessages: map[string]string{"eng-beta/new": "couldn't assign flavors to pod set one: insufficient unused quota for example.com/gpu in flavor model-a, 10 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
		// 20 + 30 + 15 = 65 of 50: reductions 0 + 20 + 10 = 30 in total,
		// 15 of them needed: two 20, three 10 (20 + 20 + 10 = 50).
		"partial admission multiple variable pod sets": {
			pending:         []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 20, "cpu", "1"), ps("two", 30, "cpu", "1").min(10), ps("three", 15, "cpu", "1").min(5))},
			wantAssignments: map[string]string{"sales/new": "sales one:20:cpu=default two:20:cpu=default three:10:cpu=default"},
		},
		"partial admission disabled, multiple variable pod sets": {
			noPartial: true,
			pending:   []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 20, "cpu", "1"), ps("two", 30, "cpu", "1").min(10), ps("three", 15, "cpu", "1").min(5))},
			wantLeft:  map[string][]string{"sales": {"sales/new"}},
			wantMessages: map[string]string{"sales/new": "couldn't assign flavors to pod set three: insufficient quota for cpu in flavor default, " +
				"previously considered podsets requests (50) + current podset request (15) > maximum capacity (50)"},
		},
		// cq1..cq3 in cohort co, each r1 10 and r2 10 (may borrow 10): wl1
		// borrows 6 of r1, wl2 6 of r2; the cohort has 30 of each.
		"two workloads can borrow different resources from the same flavor in the same cycle": {
			cqs: coCQs(), lqs: coLQs(),
			pending: []*pwl{mkWl("wl1", "sales").queue("lq1").prio(-1).podSets(ps("main", 1, "r1", "16")),
				mkWl("wl2", "sales").queue("lq2").prio(-2).podSets(ps("main", 1, "r2", "16"))},
			wantAssignments: map[string]string{"sales/wl1": "cq1 main:1:r1=default", "sales/wl2": "cq2 main:1:r2=default"},
		},
		// 16 + 14 = 30 of r1's 30.
		"two workloads can borrow the same resources from the same flavor in the same cycle if fits in the cohort quota": {
			cqs: coCQs(), lqs: coLQs(),
			pending: []*pwl{mkWl("wl1", "sales").queue("lq1").prio(-1).podSets(ps("main", 1, "r1", "16")),
				mkWl("wl2", "sales").queue("lq2").prio(-2).podSets(ps("main", 1, "r1", "14"))},
			wantAssignments: map[string]string{"sales/wl1": "cq1 main:1:r1=default", "sales/wl2": "cq2 main:1:r1=default"},
		},
		// 16 + 16 = 32 > 30: wl1 (higher priority) first; wl2 is skipped.
		"only one workload can borrow one resources from the same flavor in the same cycle if cohort quota cannot fit": {
			cqs: coCQs(), lqs: coLQs(),
			pending: []*pwl{mkWl("wl1", "sales").queue("lq1").prio(-1).podSets(ps("main", 1, "r1", "16")),
				mkWl("wl2", "sales").queue("lq2").prio(-2).podSets(ps("main", 1, "r1", "16"))},
			wantAssignments: map[string]string{"sales/wl1": "cq1 main:1:r1=default"},
			wantLeft:        map[string][]string{"cq2": {"sales/wl2"}},
			wantMessages:    map[string]string{"sales/wl2": "Workload no longer fits after processing another workload"},
		},
		// (Kueue's queue names have underscores, which its webhook and
		// New reject: cq-shared, cq-a, cq-b here.)
		// Cohort preemption-while-borrowing: cq-shared 4, cq-a 0 (may
		// borrow 3), cq-b 0. admitted_a holds 2 (borrowed). a (3) would
		// need 2 more beyond the 4 - 2 = 2 left, but its limit is 3 and
		// it uses 2: at most 1 more, NoFit. b (1) borrows 1 from
		// cq_shared and is admitted: a does not hold the quota back.
		"preemption while borrowing, workload waiting for preemption should not block a borrowing workload in another CQ": {
			cqs: []ClusterQueue{
				mkCQ("cq-shared").cohort("preemption-while-borrowing").groups(rg(fq("default", res(cpu, "4", "0")))).obj(),
				mkCQ("cq-a").cohort("preemption-while-borrowing").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("default", res(cpu, "0", "3")))).obj(),
				mkCQ("cq-b").cohort("preemption-while-borrowing").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("default", res(cpu, "0")))).obj()},
			lqs:      []LocalQueue{lq("eng-alpha", "lq-a", "cq-a"), lq("eng-beta", "lq-b", "cq-b")},
			admitted: []admittedWorkload{{mkWl("admitted_a", "eng-alpha").queue("lq-a").req(cpu, "2"), adm("cq-a", "main:1:cpu=default")}},
			pending: []*pwl{mkWl("a", "eng-alpha").queue("lq-a").created(1).req(cpu, "3"),
				mkWl("b", "eng-beta").queue("lq-b").created(2).req(cpu, "1")},
			wantAssignments:  map[string]string{"eng-alpha/admitted_a": "cq-a main:1:cpu=default", "eng-beta/b": "cq-b main:1:cpu=default"},
			wantInadmissible: map[string][]string{"cq-a": {"eng-alpha/a"}},
			wantMessages:     map[string]string{"eng-alpha/a": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"},
		},
		// other-alpha, -beta, -gamma: 2 each in cohort other (6). alpha
		// holds a1, a2 (priority -2) and a3 (-1), borrowing 1; beta holds
		// b1..b3 (0), borrowing 1. incoming (alpha, 2, priority 0): the
		// cohort is full. beta's workloads are not lower than incoming, so
		// no reclaim; in alpha, a1 and a2 (lowest) make room within its 2.
		"minimal preemptions when target queue is exhausted": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res(cpu, "2")))).obj(),
				mkCQ("other-beta").cohort("other").groups(rg(fq("on-demand", res(cpu, "2")))).obj(),
				mkCQ("other-gamma").cohort("other").groups(rg(fq("on-demand", res(cpu, "2")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta"), lq("eng-gamma", "other", "other-gamma")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").prio(-2).queue("other").req(cpu, "1"), adm("other-alpha", "main:1:cpu=on-demand")},
				{mkWl("a2", "eng-alpha").prio(-2).queue("other").req(cpu, "1"), adm("other-alpha", "main:1:cpu=on-demand")},
				{mkWl("a3", "eng-alpha").prio(-1).queue("other").req(cpu, "1"), adm("other-alpha", "main:1:cpu=on-demand")},
				{mkWl("b1", "eng-beta").queue("other").req(cpu, "1"), adm("other-beta", "main:1:cpu=on-demand")},
				{mkWl("b2", "eng-beta").queue("other").req(cpu, "1"), adm("other-beta", "main:1:cpu=on-demand")},
				{mkWl("b3", "eng-beta").queue("other").req(cpu, "1"), adm("other-beta", "main:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("incoming", "eng-alpha").queue("other").req(cpu, "2")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:cpu=on-demand", "eng-alpha/a2": "other-alpha main:1:cpu=on-demand",
				"eng-alpha/a3": "other-alpha main:1:cpu=on-demand", "eng-beta/b1": "other-beta main:1:cpu=on-demand",
				"eng-beta/b2": "other-beta main:1:cpu=on-demand", "eng-beta/b3": "other-beta main:1:cpu=on-demand"},
			wantLeft:      map[string][]string{"other-alpha": {"eng-alpha/incoming"}},
			wantPreempted: []string{"eng-alpha/a1:InClusterQueue", "eng-alpha/a2:InClusterQueue"},
			wantMessages: map[string]string{"eng-alpha/incoming": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 2 more needed. " +
				"Pending the preemption of 2 workload(s)"},
		},
		// other-alpha (2) holds a1 (1), other-beta (2) holds b1 (1).
		// incoming (3) is above alpha's nominal 2: it may not preempt
		// (borrowWithinCohort not set) and the cohort has 2 free: NoFit.
		"A workload is only eligible to do preemptions if it fits fully within nominal quota": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res(cpu, "2")))).obj(),
				mkCQ("other-beta").cohort("other").groups(rg(fq("on-demand", res(cpu, "2")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").prio(-1).queue("other").req(cpu, "1"), adm("other-alpha", "main:1:cpu=on-demand")},
				{mkWl("b1", "eng-beta").prio(-1).queue("other").req(cpu, "1"), adm("other-beta", "main:1:cpu=on-demand")}},
			pending:          []*pwl{mkWl("incoming", "eng-alpha").prio(1).queue("other").req(cpu, "3")},
			wantAssignments:  map[string]string{"eng-alpha/a1": "other-alpha main:1:cpu=on-demand", "eng-beta/b1": "other-beta main:1:cpu=on-demand"},
			wantInadmissible: map[string][]string{"other-alpha": {"eng-alpha/incoming"}},
			wantMessages:     map[string]string{"eng-alpha/incoming": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 1 more needed"},
		},
		// Each of other-alpha and other-beta (2 each) is full with a
		// workload of priority 0; each preemptor (100) preempts in its own
		// queue in the same cycle.
		"multiple preemptions without borrowing": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "2")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").queue("other").req(cpu, "2"), adm("other-alpha", "main:1:cpu=default")},
				{mkWl("b1", "eng-beta").queue("other").req(cpu, "2"), adm("other-beta", "main:1:cpu=default")}},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").prio(100).queue("other").req(cpu, "2"),
				mkWl("preemptor", "eng-beta").prio(100).queue("other").req(cpu, "2")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:cpu=default", "eng-beta/b1": "other-beta main:1:cpu=default"},
			wantLeft:        map[string][]string{"other-alpha": {"eng-alpha/preemptor"}, "other-beta": {"eng-beta/preemptor"}},
			wantPreempted:   []string{"eng-alpha/a1:InClusterQueue", "eng-beta/b1:InClusterQueue"},
			wantMessages: map[string]string{
				"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. Pending the preemption of 1 workload(s)",
				"eng-beta/preemptor":  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. Pending the preemption of 1 workload(s)"},
		},
		// other-alpha (1) and other-beta (2, full with b1). fit (1) fits
		// alpha; preemptor (2) preempts b1 in beta: the cohort's 3 hold
		// both once b1 is gone. (1 more needed: alpha's 1 free counted
		// before fit took it.)
		"multiple preemptions preemption possible after earlier workload fits": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "1")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "2")))).obj()},
			lqs:      []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{{mkWl("b1", "eng-beta").queue("other").req(cpu, "2"), adm("other-beta", "main:1:cpu=default")}},
			pending: []*pwl{mkWl("fit", "eng-alpha").prio(100).queue("other").req(cpu, "1"),
				mkWl("preemptor", "eng-beta").prio(99).queue("other").req(cpu, "2")},
			wantAssignments: map[string]string{"eng-alpha/fit": "other-alpha main:1:cpu=default", "eng-beta/b1": "other-beta main:1:cpu=default"},
			wantLeft:        map[string][]string{"other-beta": {"eng-beta/preemptor"}},
			wantPreempted:   []string{"eng-beta/b1:InClusterQueue"},
			wantMessages: map[string]string{"eng-beta/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
		// Cohort other: alpha 2 (a1 2), beta 2 (b1 2), resource-bank 1: 5.
		// preemptor (alpha, 3, priority 100) and pretending-preemptor
		// (beta, 3, 99) each need their queue's workload out and 1
		// borrowed; 3 + 3 > 5. preemptor goes first and preempts a1; the
		// other no longer fits once a1's and its own victim's quota is
		// counted, and preempts nothing. Kueue's queues leave
		// reclaimWithinCohort Never beside borrowWithinCohort, which its
		// webhook and New reject; LowerPriority here changes nothing: no
		// other queue is above its nominal quota, so none has candidates.
		"multiple preemptions skip preemption when shared limited resource": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, WithinClusterQueue: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, WithinClusterQueue: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("resource-bank").cohort("other").groups(rg(fq("default", res(cpu, "1")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").queue("other").req(cpu, "2"), adm("other-alpha", "main:1:cpu=default")},
				{mkWl("b1", "eng-beta").queue("other").req(cpu, "2"), adm("other-beta", "main:1:cpu=default")}},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").prio(100).queue("other").req(cpu, "3"),
				mkWl("pretending-preemptor", "eng-beta").prio(99).queue("other").req(cpu, "3")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:cpu=default", "eng-beta/b1": "other-beta main:1:cpu=default"},
			wantLeft:        map[string][]string{"other-alpha": {"eng-alpha/preemptor"}, "other-beta": {"eng-beta/pretending-preemptor"}},
			wantPreempted:   []string{"eng-alpha/a1:InClusterQueue"},
			wantMessages: map[string]string{
				"eng-alpha/preemptor":           "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. Pending the preemption of 1 workload(s)",
				"eng-beta/pretending-preemptor": "Workload no longer fits after processing another workload"},
		},
		"not enough resources": {
			pending:  []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 1, "cpu", "100"))},
			wantLeft: map[string][]string{"sales": {"sales/new"}},
			wantMessages: map[string]string{"sales/new": "couldn't assign flavors to pod set one: insufficient quota for cpu in flavor default, " +
				"previously considered podsets requests (0) + current podset request (100) > maximum capacity (50)"},
		},
		// other-alpha: on-demand 10 and spot 10 of gpu; other-beta 0 and 0.
		// a1 (50) holds 5 on-demand in alpha; b1 (50) borrows 5 spot in
		// beta. preemptor (100, 6 gpu): on-demand needs a1 out (within the
		// queue), spot needs b1 out (reclaim); reclaim is preferred, and
		// WhenCanPreempt TryNextFlavor lets the search see spot.
		"prefer reclamation over cq priority based preemption": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res("gpu", "10")), fq("spot", res("gpu", "10")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res("gpu", "0")), fq("spot", res("gpu", "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").prio(50).queue("other").req("gpu", "5"), adm("other-alpha", "main:1:gpu=on-demand")},
				{mkWl("b1", "eng-beta").prio(50).queue("other").req("gpu", "5"), adm("other-beta", "main:1:gpu=spot")}},
			pending:         []*pwl{mkWl("preemptor", "eng-alpha").prio(100).queue("other").req("gpu", "6")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:gpu=on-demand", "eng-beta/b1": "other-beta main:1:gpu=spot"},
			wantLeft:        map[string][]string{"other-alpha": {"eng-alpha/preemptor"}},
			wantPreempted:   []string{"eng-beta/b1:InCohortReclamation"},
			wantMessages: map[string]string{"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 1 more needed, " +
				"insufficient unused quota for gpu in flavor spot, 1 more needed. Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{"eng-beta/b1": "Preempted to accommodate a workload (UID: eng-alpha/preemptor, JobUID: UNKNOWN) due to reclamation within the cohort; " +
				"preemptor path: /other/other-alpha; preemptee path: /other/other-beta"},
		},
		// As above, with a2 also holding 5 spot in alpha: spot is full (10
		// of 10 with b1 borrowing 5), 6 more needed there and both a2 and b1
		// must go; on-demand needs only a1 out. Spot is no better: on-demand.
		"prefer first preemption flavor when second flavor requires both reclaim and cq priority preemption": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res("gpu", "10")), fq("spot", res("gpu", "10")))).obj(),
				mkCQ("other-beta").cohort("other").groups(rg(fq("on-demand", res("gpu", "0")), fq("spot", res("gpu", "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").prio(50).queue("other").req("gpu", "5"), adm("other-alpha", "main:1:gpu=on-demand")},
				{mkWl("a2", "eng-alpha").prio(50).queue("other").req("gpu", "5"), adm("other-alpha", "main:1:gpu=spot")},
				{mkWl("b1", "eng-beta").prio(50).queue("other").req("gpu", "5"), adm("other-beta", "main:1:gpu=spot")}},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").prio(100).queue("other").req("gpu", "6")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:gpu=on-demand", "eng-alpha/a2": "other-alpha main:1:gpu=spot",
				"eng-beta/b1": "other-beta main:1:gpu=spot"},
			wantLeft:      map[string][]string{"other-alpha": {"eng-alpha/preemptor"}},
			wantPreempted: []string{"eng-alpha/a1:InClusterQueue"},
			wantMessages: map[string]string{"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 1 more needed, " +
				"insufficient unused quota for gpu in flavor spot, 6 more needed. Pending the preemption of 1 workload(s)"},
		},
		// b1 (priority 9001) cannot be reclaimed by preemptor (100): both
		// flavors need preemption in the queue; the first is kept.
		"prefer first preemption flavor when second flavor also requires cq preemption": {
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res("gpu", "10")), fq("spot", res("gpu", "10")))).obj(),
				mkCQ("other-beta").cohort("other").groups(rg(fq("on-demand", res("gpu", "0")), fq("spot", res("gpu", "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").prio(50).queue("other").req("gpu", "6"), adm("other-alpha", "main:1:gpu=on-demand")},
				{mkWl("a2", "eng-alpha").prio(50).queue("other").req("gpu", "5"), adm("other-alpha", "main:1:gpu=spot")},
				{mkWl("b1", "eng-beta").prio(9001).queue("other").req("gpu", "5"), adm("other-beta", "main:1:gpu=spot")}},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").prio(100).queue("other").req("gpu", "5")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:gpu=on-demand", "eng-alpha/a2": "other-alpha main:1:gpu=spot",
				"eng-beta/b1": "other-beta main:1:gpu=spot"},
			wantLeft:      map[string][]string{"other-alpha": {"eng-alpha/preemptor"}},
			wantPreempted: []string{"eng-alpha/a1:InClusterQueue"},
			wantMessages: map[string]string{"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 1 more needed, " +
				"insufficient unused quota for gpu in flavor spot, 5 more needed. Pending the preemption of 1 workload(s)"},
		},
		// (Kueue's queue names CQ1..CQ3 are upper case, which its webhook
		// and New reject: cq-1..cq-3 here.) Cohort other: cq-1 10, cq-2 10
		// (reclaim Any), cq-3 0. cq-1 holds 5, cq-3 borrows 10 (priorities
		// 0 and 1). WL1 (cq-1, 10) would borrow: 5 more needed and cq-1
		// cannot preempt: NoFit. WL2 (cq-2, 10, within its nominal) reclaims
		// Admitted-Workload-2 (lowest priority, 5), which with cq-2's 0 used
		// and the 5 free is enough.
		"workload requiring reclaimation prioritized over wl in another full cq": {
			cqs: []ClusterQueue{
				mkCQ("cq-1").cohort("other").groups(rg(fq("on-demand", res("gpu", "10")))).obj(),
				mkCQ("cq-2").cohort("other").preempt(Preemption{ReclaimWithinCohort: PreemptAny}).groups(rg(fq("on-demand", res("gpu", "10")))).obj(),
				mkCQ("cq-3").cohort("other").groups(rg(fq("on-demand", res("gpu", "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "lq", "cq-1"), lq("eng-beta", "lq", "cq-2"), lq("eng-gamma", "lq", "cq-3")},
			admitted: []admittedWorkload{
				{mkWl("Admitted-Workload-1", "eng-alpha").queue("lq").req("gpu", "5"), adm("cq-1", "main:1:gpu=on-demand")},
				{mkWl("Admitted-Workload-2", "eng-gamma").queue("lq").req("gpu", "5"), adm("cq-3", "main:1:gpu=on-demand")},
				{mkWl("Admitted-Workload-3", "eng-gamma").queue("lq").prio(1).req("gpu", "5"), adm("cq-3", "main:1:gpu=on-demand")}},
			pending: []*pwl{mkWl("WL1", "eng-alpha").created(0).queue("lq").req("gpu", "10"), mkWl("WL2", "eng-beta").created(1).queue("lq").req("gpu", "10")},
			wantAssignments: map[string]string{"eng-alpha/Admitted-Workload-1": "cq-1 main:1:gpu=on-demand", "eng-gamma/Admitted-Workload-2": "cq-3 main:1:gpu=on-demand",
				"eng-gamma/Admitted-Workload-3": "cq-3 main:1:gpu=on-demand"},
			wantLeft:         map[string][]string{"cq-2": {"eng-beta/WL2"}},
			wantInadmissible: map[string][]string{"cq-1": {"eng-alpha/WL1"}},
			wantPreempted:    []string{"eng-gamma/Admitted-Workload-2:InCohortReclamation"},
			wantMessages: map[string]string{
				"eng-alpha/WL1": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 5 more needed",
				"eng-beta/WL2":  "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 5 more needed. Pending the preemption of 1 workload(s)"},
		},
		// (ClusterQueueA/B lower-cased.) queue-a (2, reclaim Any) holds 1;
		// a2-pending (2) would need 1 more, nothing to preempt:
		// inadmissible, holding nothing back since queue-a can always
		// reclaim; b1-pending borrows 1 in queue-b (0).
		"capacity not blocked when lending clusterqueue can reclaim (ReclaimWithinCohort=Any)": capacityBlockCase(PreemptAny),
		// The same with LowerPriority: a2-pending reserves its nominal 2
		// in the cycle, so b1-pending no longer fits.
		"capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=LowerPriority)": capacityBlockCase(PreemptLowerPriority),
		"capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=Never)":         capacityBlockCase(PreemptNever),
		// root > GUARANTEED cohort (4 cpu of its own) > queue guaranteed
		// (0); best-effort (0) under root. Both ask 4: guaranteed borrows
		// from its parent (level 1), best-effort from root (level 2), so
		// guaranteed goes first despite its lower priority, and the other
		// no longer fits.
		"in a hierarchical cohort, workload borrowing less is scheduled first": {
			cohorts: []Cohort{{Name: "root"}, {Name: "guaranteed", ParentName: "root", ResourceGroups: []ResourceGroup{rg(fq("default", res(cpu, "4")))}}},
			cqs: []ClusterQueue{
				mkCQ("guaranteed").cohort("guaranteed").groups(rg(fq("default", res(cpu, "0")))).obj(),
				mkCQ("best-effort").cohort("root").groups(rg(fq("default", res(cpu, "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "lq-guaranteed", "guaranteed"), lq("eng-alpha", "lq-best-effort", "best-effort")},
			pending: []*pwl{mkWl("guaranteed", "eng-alpha").queue("lq-guaranteed").podSets(ps("one", 1, "cpu", "4")),
				mkWl("best-effort", "eng-alpha").queue("lq-best-effort").prio(3).podSets(ps("one", 1, "cpu", "4"))},
			wantAssignments: map[string]string{"eng-alpha/guaranteed": "guaranteed one:1:cpu=default"},
			wantLeft:        map[string][]string{"best-effort": {"eng-alpha/best-effort"}},
			wantMessages:    map[string]string{"eng-alpha/best-effort": "Workload no longer fits after processing another workload"},
		},
		// cq1 (0, may borrow 1 of each) beside cq2 (1 on-demand, 1 spot).
		// admitted (priority 0) uses cq2's on-demand within its nominal
		// quota: not reclaimable, so on-demand has no candidates for new
		// (100) and is passed over; spot fits by borrowing.
		"don't assign flavor if there are no candidates for preemption": {
			cqs: []ClusterQueue{
				mkCQ("cq1").cohort("cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny, BorrowWithinCohort: PreemptLowerPriority}).
					fung(FlavorFungibility{WhenCanPreempt: MayStopSearch, WhenCanBorrow: MayStopSearch}).
					groups(rg(fq("on-demand", res(cpu, "0", "1")), fq("spot", res(cpu, "0", "1")))).obj(),
				mkCQ("cq2").cohort("cohort").groups(rg(fq("on-demand", res(cpu, "1")), fq("spot", res(cpu, "1")))).obj()},
			lqs:             []LocalQueue{lq("eng-alpha", "lq1", "cq1"), lq("eng-alpha", "lq2", "cq2")},
			admitted:        []admittedWorkload{{mkWl("admitted", "eng-alpha").queue("lq2").req(cpu, "1"), adm("cq2", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("new", "eng-alpha").queue("lq1").prio(100).req(cpu, "1")},
			wantAssignments: map[string]string{"eng-alpha/new": "cq1 main:1:cpu=spot", "eng-alpha/admitted": "cq2 main:1:cpu=on-demand"},
		},
		// on-demand (1) is full with blocker (50): test-wl (100) could
		// preempt it, but TryNextFlavor looks on and spot (1) fits.
		"admit to second flavor when first needs preemption; WhenCanPreempt: TryNextFlavor": {
			cqs: []ClusterQueue{mkCQ("preempt-attempts-cq").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor}).
				groups(rg(fq("on-demand", res(cpu, "1")), fq("spot", res(cpu, "1")))).obj()},
			lqs:      []LocalQueue{lq("eng-alpha", "preempt-attempts-lq", "preempt-attempts-cq")},
			admitted: []admittedWorkload{{mkWl("blocker", "eng-alpha").queue("preempt-attempts-lq").prio(50).req(cpu, "1"), adm("preempt-attempts-cq", "main:1:cpu=on-demand")}},
			pending:  []*pwl{mkWl("test-wl", "eng-alpha").queue("preempt-attempts-lq").prio(100).req(cpu, "1")},
			wantAssignments: map[string]string{"eng-alpha/test-wl": "preempt-attempts-cq main:1:cpu=spot",
				"eng-alpha/blocker": "preempt-attempts-cq main:1:cpu=on-demand"},
		},
		// A zero request of a resource the queue does not cover is
		// ignored.
		"admit workload with zero-quantity request for resource not in ClusterQueue": {
			pending:         []*pwl{mkWl("zero-resource-wl", "sales").queue("main").req(cpu, "1").req(gpu, "0")},
			wantAssignments: map[string]string{"sales/zero-resource-wl": "sales main:1:cpu=default"},
		},
		"preempt when workload requests zero of a resource not defined in ClusterQueue": {
			cqs:             []ClusterQueue{mkCQ("preempt-zero-gpu-cq").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "4")))).obj()},
			lqs:             []LocalQueue{lq("sales", "preempt-zero-gpu-lq", "preempt-zero-gpu-cq")},
			admitted:        []admittedWorkload{{mkWl("low-priority", "sales").prio(-1).queue("preempt-zero-gpu-lq").req(cpu, "4"), adm("preempt-zero-gpu-cq", "main:1:cpu=default")}},
			pending:         []*pwl{mkWl("preemptor", "sales").queue("preempt-zero-gpu-lq").req(cpu, "2").req(gpu, "0")},
			wantAssignments: map[string]string{"sales/low-priority": "preempt-zero-gpu-cq main:1:cpu=default"},
			wantLeft:        map[string][]string{"preempt-zero-gpu-cq": {"sales/preemptor"}},
			wantPreempted:   []string{"sales/low-priority:InClusterQueue"},
			wantMessages: map[string]string{"sales/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. " +
				"Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{"sales/low-priority": "Preempted to accommodate a workload (UID: sales/preemptor, JobUID: UNKNOWN) due to prioritization in the ClusterQueue; " +
				"preemptor path: /preempt-zero-gpu-cq; preemptee path: /preempt-zero-gpu-cq"},
		},
		// pob-cq: on-demand 5 (held by low-pob, priority -1), spot 0 (may
		// borrow 5 of pob-lender's). Preempting in on-demand (no
		// borrowing) is preferred to borrowing spot.
		"PreemptionOverBorrowing preference: preempt in first flavor instead of borrowing in second": {
			cqs: []ClusterQueue{
				mkCQ("pob-cq").cohort("pob-cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}).
					groups(rg(fq("on-demand", res(cpu, "5", "0")), fq("spot", res(cpu, "0", "5")))).obj(),
				mkCQ("pob-lender").cohort("pob-cohort").groups(rg(fq("on-demand", res(cpu, "0")), fq("spot", res(cpu, "5")))).obj()},
			lqs:             []LocalQueue{lq("default", "pob-queue", "pob-cq")},
			admitted:        []admittedWorkload{{mkWl("low-pob", "default").queue("pob-queue").prio(-1).req(cpu, "5"), adm("pob-cq", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("high-pob", "default").queue("pob-queue").req(cpu, "5")},
			wantAssignments: map[string]string{"default/low-pob": "pob-cq main:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"pob-cq": {"default/high-pob"}},
			wantPreempted:   []string{"default/low-pob:InClusterQueue"},
			wantMessages: map[string]string{"default/high-pob": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 5 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
		// nopc-root (spot 5) > nopc-mid > {nopc-cq (on-demand 5, no
		// borrowing; spot 0), nopc-sibling (on-demand 5 idle)}. on-demand is
		// full with a workload of the same priority: no candidates; spot
		// fits from the root, and a flavor without candidates never
		// outranks one that fits.
		"PreemptionOverBorrowing preference: select fitting second flavor over first flavor with no preemption candidates": {
			cohorts: []Cohort{{Name: "nopc-root", ResourceGroups: []ResourceGroup{rg(fq("on-demand", res(cpu, "0")), fq("spot", res(cpu, "5")))}},
				{Name: "nopc-mid", ParentName: "nopc-root"}},
			cqs: []ClusterQueue{
				mkCQ("nopc-cq").cohort("nopc-mid").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}).
					groups(rg(fq("on-demand", res(cpu, "5", "0")), fq("spot", res(cpu, "0")))).obj(),
				mkCQ("nopc-sibling").cohort("nopc-mid").groups(rg(fq("on-demand", res(cpu, "5")), fq("spot", res(cpu, "0")))).obj()},
			lqs:      []LocalQueue{lq("default", "nopc-queue", "nopc-cq")},
			admitted: []admittedWorkload{{mkWl("admitted-nopc", "default").queue("nopc-queue").req(cpu, "5"), adm("nopc-cq", "main:1:cpu=on-demand")}},
			pending:  []*pwl{mkWl("pending-nopc", "default").queue("nopc-queue").req(cpu, "5")},
			wantAssignments: map[string]string{"default/admitted-nopc": "nopc-cq main:1:cpu=on-demand",
				"default/pending-nopc": "nopc-cq main:1:cpu=spot"},
		},
		// As the PreemptionOverBorrowing case, with BorrowingOverPreemption:
		// spot, borrowed, is taken.
		"BorrowingOverPreemption preference: borrow in second flavor instead of preempting in first": {
			cqs: []ClusterQueue{
				mkCQ("bop-cq").cohort("bop-cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "BorrowingOverPreemption"}).
					groups(rg(fq("on-demand", res(cpu, "5", "0")), fq("spot", res(cpu, "0", "5")))).obj(),
				mkCQ("bop-lender").cohort("bop-cohort").groups(rg(fq("on-demand", res(cpu, "0")), fq("spot", res(cpu, "5")))).obj()},
			lqs:             []LocalQueue{lq("default", "bop-queue", "bop-cq")},
			admitted:        []admittedWorkload{{mkWl("low-bop", "default").queue("bop-queue").prio(-1).req(cpu, "5"), adm("bop-cq", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("high-bop", "default").queue("bop-queue").req(cpu, "5")},
			wantAssignments: map[string]string{"default/low-bop": "bop-cq main:1:cpu=on-demand", "default/high-bop": "bop-cq main:1:cpu=spot"},
		},
		// 1000 + 9223372036854775 (cpu, in cores) saturate; quota 10000.
		"prevent integer overflow when sum of requests over podsets exceeds MaxInt64": {
			cqs:              []ClusterQueue{mkCQ("overflow-cq").groups(rg(fq("default", res(cpu, "10000")))).obj()},
			lqs:              []LocalQueue{lq("default", "overflow-queue", "overflow-cq")},
			pending:          []*pwl{mkWl("vuln-wl", "default").queue("overflow-queue").podSets(ps("ps1", 1, "cpu", "1000000m"), ps("ps2", 1, "cpu", "9223372036854775000m"))},
			wantInadmissible: map[string][]string{"overflow-cq": {"default/vuln-wl"}},
			wantMessages: map[string]string{"default/vuln-wl": "couldn't assign flavors to pod set ps2: insufficient quota for cpu in flavor default, " +
				"previously considered podsets requests (1k) + current podset request (9223372036854775) > maximum capacity (10k)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { scheduleSuite().run(t, tc) })
	}
}

// coCQs are cq1, cq2, cq3 of cohort co, each with r1 and r2 10 (may
// borrow 10) in flavor default, reclaim Any, within LowerPriority.
func coCQs() []ClusterQueue {
	var out []ClusterQueue
	for _, n := range []string{"cq1", "cq2", "cq3"} {
		out = append(out, mkCQ(n).cohort("co").preempt(Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptLowerPriority}).
			groups(rg(fq("default", res("r1", "10", "10"), res("r2", "10", "10")))).obj())
	}
	return out
}

func coLQs() []LocalQueue {
	return []LocalQueue{lq("sales", "lq1", "cq1"), lq("sales", "lq2", "cq2"), lq("sales", "lq3", "cq3")}
}

// capacityBlockCase is the three "capacity ... blocked" cases of
// TestSchedule, by queue-a's reclaimWithinCohort.
func capacityBlockCase(reclaim PreemptionPolicy) cycleCase {
	tc := cycleCase{
		cqs: []ClusterQueue{
			mkCQ("queue-a").cohort("root").preempt(Preemption{ReclaimWithinCohort: reclaim}).groups(rg(fq("on-demand", res("gpu", "2")))).obj(),
			mkCQ("queue-b").cohort("root").groups(rg(fq("on-demand", res("gpu", "0")))).obj()},
		lqs:              []LocalQueue{lq("eng-alpha", "lq", "queue-a"), lq("eng-beta", "lq", "queue-b")},
		admitted:         []admittedWorkload{{mkWl("a1-admitted", "eng-alpha").queue("lq").req("gpu", "1"), adm("queue-a", "main:1:gpu=on-demand")}},
		pending:          []*pwl{mkWl("a2-pending", "eng-alpha").queue("lq").req("gpu", "2"), mkWl("b1-pending", "eng-beta").queue("lq").req("gpu", "1")},
		wantAssignments:  map[string]string{"eng-alpha/a1-admitted": "queue-a main:1:gpu=on-demand"},
		wantInadmissible: map[string][]string{"queue-a": {"eng-alpha/a2-pending"}},
		wantMessages:     map[string]string{"eng-alpha/a2-pending": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 1 more needed"},
	}
	if reclaim == PreemptAny {
		tc.wantAssignments["eng-beta/b1-pending"] = "queue-b main:1:gpu=on-demand"
	} else {
		tc.wantLeft = map[string][]string{"queue-b": {"eng-beta/b1-pending"}}
		tc.wantMessages["eng-beta/b1-pending"] = "Workload no longer fits after processing another workload"
	}
	return tc
}

// Kueue's TestEntryOrdering, the cases of the model's configuration:
// priority sorting within the cohort on (Kueue's default), requeuing by
// creation time, PrioritizePreemptorWorkloads off (its default). The
// cases that order an evicted workload by its eviction time belong to
// waitForPodsReady's requeuing, and those with priority sorting off are a
// switch the model does not have.
func TestPortedEntryOrdering(t *testing.T) {
	type in struct {
		name    string
		created int
		prio    int32
		borrow  int
	}
	mk := func(xs ...in) []*entry {
		var out []*entry
		for i, x := range xs {
			out = append(out, &entry{wi: &info{w: &Workload{Name: x.name, Priority: x.prio, Created: time.Duration(x.created) * time.Second}, seq: int64(i)},
				as: &assignment{borrowing: x.borrow}})
		}
		return out
	}
	// evicted_borrowing and recently_evicted were evicted by the pods-ready
	// timeout; ordered by creation, that does not count.
	input := mk(in{"old_borrowing", 0, 0, 1}, in{"old", 1, 0, 0}, in{"new", 3, 0, 0}, in{"high_pri_borrowing", 3, 1, 1}, in{"new_high_pri", 4, 1, 0},
		in{"new_borrowing", 3, 0, 1}, in{"evicted_borrowing", 1, 0, 1}, in{"recently_evicted", 0, 0, 0}, in{"high_pri_borrowing_more", 3, 1, 2})
	// the preempted ones' Preempted conditions do not count with priority
	// sorting on.
	preempted := mk(in{"old-mid-recently-preempted-in-queue", 0, 1, 0}, in{"old-mid-recently-reclaimed-while-borrowing", 0, 1, 0},
		in{"old-mid-more-recently-reclaimed-while-borrowing", 0, 1, 0}, in{"old-mid-not-preempted-yet", 1, 1, 0}, in{"preemptor", 7, 2, 0})
	// preemptor-* wait for their victims: that does not count with
	// PrioritizePreemptorWorkloads off.
	preemptors := mk(in{"preemptor-borrowing", 1, 1, 1}, in{"preemptor-not-borrowing", 2, 1, 0}, in{"not-preemptor-not-borrowing", 0, 2, 0})
	for _, tc := range []struct {
		name  string
		input []*entry
		want  []string
	}{
		{"Priority sorting is enabled (default) using pods-ready Creation timestamp", input,
			[]string{"new_high_pri", "recently_evicted", "old", "new", "high_pri_borrowing", "old_borrowing", "evicted_borrowing", "new_borrowing", "high_pri_borrowing_more"}},
		{"Some workloads are preempted; Priority sorting is enabled", preempted,
			[]string{"preemptor", "old-mid-recently-preempted-in-queue", "old-mid-recently-reclaimed-while-borrowing", "old-mid-more-recently-reclaimed-while-borrowing", "old-mid-not-preempted-yet"}},
		{"Some workloads are preemptors; PrioritizePreemptorWorkloads is disabled", preemptors,
			[]string{"not-preemptor-not-borrowing", "preemptor-not-borrowing", "preemptor-borrowing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := slices.Clone(tc.input)
			slices.SortStableFunc(es, (&Admitter{}).cmpEntries)
			var got []string
			for _, e := range es {
				got = append(got, e.wi.w.Name)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// Kueue's TestResourcesToReserve: what a head that needs preemption but
// found no victims holds back in the cycle (so that lower workloads of
// other queues do not take it): its usage up to the queue's nominal
// quota left, or, when it borrows, up to nominal plus borrowing limit
// (all of it without a limit). cq (cohort eng): memory on-demand 100,
// spot 0 (may borrow 100); gpu model-a 10 (borrow 0), model-b 10 (borrow
// 5). (Its case "assignment fits" is not ported: a head that fits is
// admitted with its whole usage; the model has no separate function for
// it.)
func TestPortedResourcesToReserve(t *testing.T) {
	mem := cluster.ResourceMemory
	cases := map[string]struct {
		borrowing     int
		usage, cqUsed map[string]string // "flavor/resource"
		want          map[string]string
	}{
		"Reserved memory and gpu less than assignment usage, assignment preempts": {
			usage:  map[string]string{"on-demand/memory": "50", "model-a/gpu": "6"},
			cqUsed: map[string]string{"on-demand/memory": "60", "spot/memory": "50", "model-a/gpu": "6", "model-b/gpu": "2"},
			want:   map[string]string{"on-demand/memory": "40", "model-a/gpu": "4"},
		},
		"Reserved memory equal assignment usage, assignment preempts": {
			usage:  map[string]string{"on-demand/memory": "30", "model-a/gpu": "2"},
			cqUsed: map[string]string{"on-demand/memory": "60", "spot/memory": "50", "model-a/gpu": "2", "model-b/gpu": "2"},
			want:   map[string]string{"on-demand/memory": "30", "model-a/gpu": "2"},
		},
		"Reserved memory is 0, CQ is borrowing, assignment preempts without borrowing": {
			usage:  map[string]string{"spot/memory": "50", "model-b/gpu": "2"},
			cqUsed: map[string]string{"on-demand/memory": "60", "spot/memory": "60", "model-a/gpu": "2", "model-b/gpu": "10"},
			want:   map[string]string{"spot/memory": "0", "model-b/gpu": "0"},
		},
		"Reserved memory cut by nominal+borrowing quota, assignment preempts and borrows": {
			borrowing: 1,
			usage:     map[string]string{"spot/memory": "50", "model-b/gpu": "2"},
			cqUsed:    map[string]string{"on-demand/memory": "60", "spot/memory": "60", "model-a/gpu": "2", "model-b/gpu": "10"},
			want:      map[string]string{"spot/memory": "40", "model-b/gpu": "2"},
		},
		"Reserved memory equal assignment usage, CQ borrowing limit is nil": {
			borrowing: 1,
			usage:     map[string]string{"on-demand/memory": "50", "model-b/gpu": "2"},
			cqUsed:    map[string]string{"on-demand/memory": "60", "spot/memory": "60", "model-a/gpu": "2", "model-b/gpu": "10"},
			want:      map[string]string{"on-demand/memory": "50", "model-b/gpu": "2"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := mkCQ("cq").cohort("eng").strict().groups(rg(fq("on-demand", res(mem, "100")), fq("spot", res(mem, "0", "100"))),
				rg(fq("model-a", res("gpu", "10", "0")), fq("model-b", res("gpu", "10", "5")))).obj()
			a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "on-demand"}, {Name: "spot"}, {Name: "model-a"}, {Name: "model-b"}},
				ClusterQueues: []ClusterQueue{q}}, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			idx := func(k string) int {
				f, r, _ := strings.Cut(k, "/")
				return a.frIndex[fr{f, cluster.ResourceName(r)}]
			}
			for k, v := range tc.cqUsed {
				a.cqs["cq"].node.addUsage(idx(k), qty(mem, v))
			}
			e := &entry{q: a.cqs["cq"], as: &assignment{borrowing: tc.borrowing}}
			for _, k := range slices.Sorted(maps.Keys(tc.usage)) {
				e.usage = append(e.usage, frAmount{idx(k), qty(mem, tc.usage[k])})
			}
			got := map[string]string{}
			for _, r := range a.reserveForPreempt(e) {
				f := a.frs[r.fr]
				got[f.flavor+"/"+string(f.resource)] = fmt.Sprint(r.v)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// Kueue's TestLastAssignmentOutdated, with FlavorFungibilityPreserveScanProgress
// on (its default in v0.19): the flavor scan's progress is dropped when it
// is older than the previous cycle and the queue's quota changed since.
// (Its cases of a workload whose shape changed have no counterpart: the
// model's workloads do not change; those with the gate off are a switch
// the model does not have.)
func TestPortedLastAssignmentOutdated(t *testing.T) {
	for _, tc := range []struct {
		name               string
		lastGen, lastCycle int64
		generation, cycle  int64
		want               bool
	}{
		{"Cluster queue allocatableResourceIncreasedGen increased", 0, 1, 1, 5, true},
		{"AllocatableResourceGeneration not increased", 0, 1, 0, 5, false},
		{"assignment from the immediately preceding cycle survives a generation bump", 0, 4, 1, 5, false},
		{"assignment from the current cycle survives a generation bump", 0, 5, 1, 5, false},
		{"assignment older than one cycle falls back to the generation check", 0, 3, 1, 5, true},
		{"an unchanged scheduling shape keeps the preceding cycle's assignment", 0, 4, 1, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, lastOutdated(&lastAssignment{generation: tc.lastGen, cycle: tc.lastCycle}, tc.generation, tc.cycle))
		})
	}
}

// Kueue's TestFitsDedupsOverlappingVictims: cq (10) holds victim (6) and
// other (2); an entry of 9 whose victim is also among the cycle's
// preempted counts it once: 10 - 2 = 8 free, 9 does not fit (counted
// twice it would).
func TestPortedFitsDedupsOverlappingVictims(t *testing.T) {
	a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}},
		ClusterQueues: []ClusterQueue{mkCQ("cq").groups(rg(fq("default", res(cpu, "10")))).obj()}}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	add := func(name, v string) *info {
		w := mkWl(name, "ns").req(cpu, v).w
		if err := a.AddAdmitted(w, adm("cq", "main:1:cpu=default")); err != nil {
			t.Fatal(err)
		}
		return a.workloads[w.Key()]
	}
	victim := add("victim", "6")
	add("other", "2")
	e := &entry{q: a.cqs["cq"], targets: []target{{wi: victim}}, usage: []frAmount{{a.frIndex[fr{"default", cpu}], qty(cpu, "9")}}}
	assert.False(t, a.fitsAfterPreemptions(e, map[*info]bool{victim: true}))
}

// Kueue's TestLastSchedulingContext: one cycle, then some workloads are
// deleted (their quota released, the inadmissible moved back), then the
// next cycle; the admissions after it are compared, and the first cycle's
// messages and preemptions where Kueue's test checks them. The suite:
// flavors on-demand and spot; eng-cohort-alpha, -beta (StrictFIFO,
// reclaim LowerPriority, MayStopSearch both) and -theta (the same with
// TryNextFlavor both) in cohort "cohort", each on-demand 50 (may borrow
// 50) and spot 100 (borrow 0); LocalQueues main (eng-alpha), main-alpha,
// main-beta and main-theta in namespace default.
func TestPortedLastSchedulingContext(t *testing.T) {
	cohortCQ := func(name string, f FlavorFungibilityPolicy) ClusterQueue {
		return mkCQ(name).cohort("cohort").strict().preempt(Preemption{WithinClusterQueue: PreemptNever, ReclaimWithinCohort: PreemptLowerPriority}).
			fung(FlavorFungibility{WhenCanPreempt: f, WhenCanBorrow: f}).
			groups(rg(fq("on-demand", res(cpu, "50", "50")), fq("spot", res(cpu, "100", "0")))).obj()
	}
	cohort := []ClusterQueue{cohortCQ("eng-cohort-alpha", MayStopSearch), cohortCQ("eng-cohort-beta", MayStopSearch), cohortCQ("eng-cohort-theta", TryNextFlavor)}
	type lsc struct {
		cqs      []ClusterQueue
		admitted []admittedWorkload
		at       map[string]int // reservation time (s) of admitted workloads
		pending  []*pwl
		deleted  []string
		// after the first cycle
		wantPreempted []string
		wantMessages  map[string]string
		// after the second
		want map[string]string
	}
	cases := map[string]lsc{
		// eng-alpha (no cohort, BestEffortFIFO, within LowerPriority,
		// WhenCanPreempt MayStopSearch): on-demand 50, held by low-1 (same
		// priority: no candidates), spot 10 < 20. Once low-1 is deleted,
		// preemptor gets on-demand.
		"scheduling on the first flavor is unblocked after some workloads were deleted": {
			cqs: []ClusterQueue{mkCQ("eng-alpha").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).fung(FlavorFungibility{WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("on-demand", res(cpu, "50", "50")), fq("spot", res(cpu, "10", "0")))).obj()},
			admitted: []admittedWorkload{{mkWl("low-1", "default").queue("main").req(cpu, "50"), adm("eng-alpha", "main:1:cpu=on-demand")}},
			pending:  []*pwl{mkWl("preemptor", "default").queue("main").req(cpu, "20")},
			deleted:  []string{"default/low-1"},
			wantMessages: map[string]string{"default/preemptor": "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor spot, previously considered podsets requests (0) + " +
				"current podset request (20) > maximum capacity (10), insufficient unused quota for cpu in flavor on-demand, 20 more needed"},
			want: map[string]string{"default/preemptor": "eng-alpha main:1:cpu=on-demand"},
		},
		// alpha holds 50 of on-demand; borrower (alpha, 20) borrows 20 of
		// it (MayStopSearch stops there), workload1 (beta, 20) fits its own.
		"borrow before next flavor": {
			cqs:      cohort,
			admitted: []admittedWorkload{{mkWl("placeholder", "default").req(cpu, "50"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")}},
			pending:  []*pwl{mkWl("borrower", "default").queue("main-alpha").req(cpu, "20"), mkWl("workload1", "default").queue("main-beta").req(cpu, "20")},
			want: map[string]string{"default/placeholder": "eng-cohort-alpha main:1:cpu=on-demand", "default/workload1": "eng-cohort-beta main:1:cpu=on-demand",
				"default/borrower": "eng-cohort-alpha main:1:cpu=on-demand"},
		},
		// theta (TryNextFlavor) would borrow on-demand: spot fits without.
		"borrow after all flavors": {
			cqs: cohort,
			admitted: []admittedWorkload{{mkWl("placeholder", "default").req(cpu, "50"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")},
				{mkWl("placeholder1", "default").req(cpu, "50"), adm("eng-cohort-theta", "main:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("workload", "default").queue("main-theta").req(cpu, "20")},
			want: map[string]string{"default/placeholder": "eng-cohort-alpha main:1:cpu=on-demand", "default/placeholder1": "eng-cohort-theta main:1:cpu=on-demand",
				"default/workload": "eng-cohort-theta main:1:cpu=spot"},
		},
		// theta's spot is full (placeholder2): on-demand, borrowing 10.
		"when the next flavor is full, but can borrow on first": {
			cqs: cohort,
			admitted: []admittedWorkload{{mkWl("placeholder", "default").req(cpu, "40"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")},
				{mkWl("placeholder1", "default").req(cpu, "40"), adm("eng-cohort-theta", "main:1:cpu=on-demand")},
				{mkWl("placeholder2", "default").req(cpu, "100"), adm("eng-cohort-theta", "main:1:cpu=spot")}},
			pending: []*pwl{mkWl("workload", "default").queue("main-theta").req(cpu, "20")},
			want: map[string]string{"default/placeholder": "eng-cohort-alpha main:1:cpu=on-demand", "default/placeholder1": "eng-cohort-theta main:1:cpu=on-demand",
				"default/placeholder2": "eng-cohort-theta main:1:cpu=spot", "default/workload": "eng-cohort-theta main:1:cpu=on-demand"},
		},
		// alpha (priority -1) holds all 150 of on-demand; theta's spot is
		// full. new (theta, 20) reclaims placeholder-alpha on on-demand;
		// once it is gone, new is admitted there.
		"when the next flavor is full, but can preempt on first": {
			cqs: cohort,
			admitted: []admittedWorkload{{mkWl("placeholder-alpha", "default").prio(-1).req(cpu, "150"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")},
				{mkWl("placeholder-theta-spot", "default").req(cpu, "100"), adm("eng-cohort-theta", "main:1:cpu=spot")}},
			pending:       []*pwl{mkWl("new", "default").queue("main-theta").req(cpu, "20")},
			deleted:       []string{"default/placeholder-alpha"},
			wantPreempted: []string{"default/placeholder-alpha:InCohortReclamation"},
			wantMessages: map[string]string{"default/new": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 20 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 20 more needed. Pending the preemption of 1 workload(s)"},
			want: map[string]string{"default/placeholder-theta-spot": "eng-cohort-theta main:1:cpu=spot", "default/new": "eng-cohort-theta main:1:cpu=on-demand"},
		},
		// alpha (on-demand 0, may borrow 60; spot 30, may borrow 30) holds
		// alpha1, alpha2 on on-demand (44, from beta's 30 and shared's 30)
		// and alpha3 on spot; beta (30 + 30 each) holds beta1 on spot. new
		// (beta, 22): spot has 60 - 44 = 16 left, on-demand 60 - 44 = 16:
		// 6 more needed in both; reclaiming from alpha (above its quota)
		// works on the first, on-demand: alpha2, admitted last, goes.
		"TryNextFlavor, but second flavor is full and can preempt on first": {
			cqs: []ClusterQueue{
				mkCQ("eng-cohort-alpha").cohort("cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
					fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor, WhenCanBorrow: TryNextFlavor}).
					groups(rg(fq("on-demand", res(cpu, "0", "60")), fq("spot", res(cpu, "30", "30")))).obj(),
				mkCQ("eng-cohort-beta").cohort("cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
					fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor, WhenCanBorrow: TryNextFlavor}).
					groups(rg(fq("on-demand", res(cpu, "30", "30")), fq("spot", res(cpu, "30", "30")))).obj(),
				mkCQ("eng-cohort-shared").cohort("cohort").groups(rg(fq("on-demand", res(cpu, "30")))).obj()},
			admitted: []admittedWorkload{
				{mkWl("alpha1", "default").req(cpu, "22"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")},
				{mkWl("alpha2", "default").req(cpu, "22"), adm("eng-cohort-alpha", "main:1:cpu=on-demand")},
				{mkWl("alpha3", "default").req(cpu, "22"), adm("eng-cohort-alpha", "main:1:cpu=spot")},
				{mkWl("beta1", "default").req(cpu, "22"), adm("eng-cohort-beta", "main:1:cpu=spot")}},
			at:            map[string]int{"default/alpha1": -1},
			pending:       []*pwl{mkWl("new", "default").queue("main-beta").req(cpu, "22")},
			deleted:       []string{"default/alpha2"},
			wantPreempted: []string{"default/alpha2:InCohortReclamation"},
			wantMessages: map[string]string{"default/new": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 6 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 6 more needed. Pending the preemption of 1 workload(s)"},
			want: map[string]string{"default/alpha1": "eng-cohort-alpha main:1:cpu=on-demand", "default/alpha3": "eng-cohort-alpha main:1:cpu=spot",
				"default/beta1": "eng-cohort-beta main:1:cpu=spot", "default/new": "eng-cohort-beta main:1:cpu=on-demand"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "on-demand"}, {Name: "spot"}}, ClusterQueues: tc.cqs,
				LocalQueues: []LocalQueue{lq("default", "main", "eng-alpha"), lq("default", "main-alpha", "eng-cohort-alpha"),
					lq("default", "main-beta", "eng-cohort-beta"), lq("default", "main-theta", "eng-cohort-theta")}}
			for i := range o.ClusterQueues {
				if o.ClusterQueues[i].CohortName == "" {
					o.ClusterQueues[i].ResourceGroups = dropLimits(o.ClusterQueues[i].ResourceGroups)
				}
			}
			a, err := New(o, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			a.SetNamespace("default", nil)
			for _, x := range tc.admitted {
				if err := a.AddAdmitted(x.w.w, x.adm); err != nil {
					t.Fatal(err)
				}
				a.workloads[x.w.w.Key()].reservedAt = time.Duration(tc.at[x.w.w.Key()]) * time.Second
			}
			for _, w := range tc.pending {
				if err := a.Add(w.w); err != nil {
					t.Fatal(err)
				}
			}
			a.Events()
			var preempted []string
			for _, e := range a.Step() {
				if e.Kind == Evicted {
					preempted = append(preempted, e.Workload+":"+e.Preemption)
				}
			}
			assert.Equal(t, tc.wantPreempted, preempted, "preempted in the first cycle")
			for k, m := range tc.wantMessages {
				assert.Equal(t, m, a.workloads[k].message, "message of %s", k)
			}
			for _, k := range tc.deleted {
				if err := a.Finish(k); err != nil {
					t.Fatal(err)
				}
			}
			// on to the next cycle that has heads
			for first := a.cycle; a.cycle == first; {
				at, ok := a.NextTime()
				if !ok {
					break
				}
				if err := a.AdvanceTo(max(at, a.Now())); err != nil {
					t.Fatal(err)
				}
				a.Step()
			}
			got := map[string]string{}
			for _, q := range a.queues {
				for k, wi := range q.admitted {
					got[k] = fmtAdm(wi.admission)
				}
			}
			assert.Equal(t, tc.want, got, "admissions after the second cycle")
		})
	}
}
