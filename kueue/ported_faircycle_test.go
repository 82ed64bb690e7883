package kueue

import (
	"testing"
)

// The other thirteen cases of Kueue v0.19.2's TestScheduleForFairSharing
// (pkg/scheduler, scheduler_fs_test.go): nominal-first ordering in flat
// and hierarchical cohorts, preemptions within one cycle, and the flavor
// preferences with fair sharing on. One cycle on TestSchedule's suite, as
// in ported_fairorder_test.go. Kueue's cohorts Cohort-A, SUB-A, ... are
// not valid Kubernetes names: coh-a, sub-a, ... here.

// coh is a cohort under parent ("" for a root) with quota in the groups.
func coh(name, parent string, groups ...ResourceGroup) Cohort {
	return Cohort{Name: name, ParentName: parent, ResourceGroups: groups}
}

func TestPortedFairSharingCycle(t *testing.T) {
	s := scheduleSuite()
	noLongerFits := "Workload no longer fits after processing another workload"
	onDemand := func(n string) ResourceGroup { return rg(fq("on-demand", res(cpu, n))) }
	lqsABC := []LocalQueue{lq("eng-alpha", "lq-a", "cq-a"), lq("eng-alpha", "lq-b", "cq-b"), lq("eng-alpha", "lq-c", "cq-c")}
	// c0 holds 10 in cq-c; wl-a and wl-b ask 5 each, in cq-a and cq-b.
	abcAdmitted := []admittedWorkload{{mkWl("c0", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "10")), adm("cq-c", "one:1:cpu=on-demand")}}
	abcPending := []*pwl{mkWl("wl-a", "eng-alpha").queue("lq-a").podSets(ps("one", 1, "cpu", "5")),
		mkWl("wl-b", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "5"))}
	abcWant := map[string]string{"eng-alpha/c0": "cq-c one:1:cpu=on-demand", "eng-alpha/wl-a": "cq-a one:1:cpu=on-demand"}
	// The queues "other" of the three eng namespaces.
	otherLQs := []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta"), lq("eng-gamma", "other", "other-gamma")}
	inCQ := func(pre, cq string) string {
		return "Preempted to accommodate a workload (UID: " + pre + ", JobUID: UNKNOWN) due to prioritization in the ClusterQueue; preemptor path: " + cq + "; preemptee path: " + cq
	}
	fairMsg := func(pre, from, to string) string {
		return "Preempted to accommodate a workload (UID: " + pre + ", JobUID: UNKNOWN) due to Fair Sharing within the cohort; preemptor path: " + from + "; preemptee path: " + to
	}
	// The two "most local capacity" cases: a1 holds the 8 on-demand the
	// tree has left (3 in queue1, 5 in child-cohort); a2 the 3 spot of
	// queue1. a3 (1) would borrow spot from child-cohort (7 free) or
	// preempt on-demand: with TryNextFlavor it takes spot, the flavor
	// that fits, with or without fair sharing.
	localCapacity := func(fair bool) cycleCase {
		gpuRG := func(od, spot string) ResourceGroup {
			return rg(fq("on-demand", res("gpu", od)), fq("spot", res("gpu", spot)))
		}
		return cycleCase{
			fair:    fair,
			cohorts: []Cohort{coh("root-cohort", "", gpuRG("2", "0")), coh("child-cohort", "root-cohort", gpuRG("5", "7"))},
			cqs: []ClusterQueue{mkCQ("queue1").cohort("child-cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
				fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor, WhenCanBorrow: TryNextFlavor}).groups(gpuRG("3", "3")).obj()},
			lqs: []LocalQueue{lq("default", "queue1", "queue1")},
			admitted: []admittedWorkload{
				{mkWl("a1", "default").queue("queue1").req("gpu", "8"), adm("queue1", "main:1:gpu=on-demand")},
				{mkWl("a2", "default").queue("queue1").req("gpu", "3"), adm("queue1", "main:1:gpu=spot")},
			},
			pending: []*pwl{mkWl("a3", "default").queue("queue1").req("gpu", "1")},
			wantAssignments: map[string]string{"default/a1": "queue1 main:1:gpu=on-demand", "default/a2": "queue1 main:1:gpu=spot",
				"default/a3": "queue1 main:1:gpu=spot"},
		}
	}
	// Kueue's test sets WithinClusterQueue alone: its reclaimWithinCohort is
	// then "", which the API server defaults to Never but which Kueue's
	// canPreemptWhileBorrowing reads as not Never. The port says so with
	// LowerPriority.
	notNever := Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}
	cases := map[string]cycleCase{
		// fs-nom-a borrows 30 spot (80 of its 50), so its share is the
		// higher; fs-nom-b's borrow-wl (15, older) would borrow 10
		// on-demand. nom-wl (45 of fs-nom-a's 50 on-demand) fits within
		// nominal and goes first; on-demand then has 60-55 = 5 left and
		// borrow-wl no longer fits. Kueue's suite gives each queue two
		// resource groups both covering cpu, which its webhook rejects
		// (and New too); Kueue's flavor assigner then only ever looks at
		// the first group covering cpu. Here each queue has one group of
		// the two flavors: on-demand first, and with MayStopSearch the
		// search stops there, as it does with the first group alone.
		"with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS": {
			fair: true,
			cqs: []ClusterQueue{
				mkCQ("fs-nom-a").cohort("fs-nom").groups(rg(fq("on-demand", res(cpu, "50", "0")), fq("spot", res(cpu, "50", "50")))).obj(),
				mkCQ("fs-nom-b").cohort("fs-nom").groups(rg(fq("on-demand", res(cpu, "10", "50")), fq("spot", res(cpu, "50", "0")))).obj(),
			},
			lqs: []LocalQueue{lq("eng-alpha", "fs-nom", "fs-nom-a"), lq("eng-beta", "fs-nom", "fs-nom-b")},
			admitted: []admittedWorkload{
				{mkWl("spot-heavy", "eng-alpha").queue("fs-nom").podSets(ps("one", 80, "cpu", "1")), adm("fs-nom-a", "one:80:cpu=spot")},
				{mkWl("light-usage", "eng-beta").queue("fs-nom").podSets(ps("one", 5, "cpu", "1")), adm("fs-nom-b", "one:5:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("borrow-wl", "eng-beta").queue("fs-nom").created(0).podSets(ps("one", 15, "cpu", "1")),
				mkWl("nom-wl", "eng-alpha").queue("fs-nom").created(60).podSets(ps("one", 45, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/spot-heavy": "fs-nom-a one:80:cpu=spot",
				"eng-beta/light-usage": "fs-nom-b one:5:cpu=on-demand", "eng-alpha/nom-wl": "fs-nom-a one:45:cpu=on-demand"},
			wantLeft:     map[string][]string{"fs-nom-b": {"eng-beta/borrow-wl"}},
			wantMessages: map[string]string{"eng-beta/borrow-wl": noLongerFits},
		},
		// root over coh-a (10; cq-a 0) and coh-b (cq-b 5, cq-c 0 using
		// 10). With wl-a coh-a would use 5 of its 10, not borrowing; with
		// wl-b coh-b 15 of its 5, borrowing: wl-a wins at the root and
		// takes 5 of the 5 left.
		"with fair sharing: hierarchical nominal-first prefers non-borrowing subtree": {
			fair:    true,
			cohorts: []Cohort{coh("root", ""), coh("coh-a", "root", onDemand("10")), coh("coh-b", "root")},
			cqs: []ClusterQueue{mkCQ("cq-a").cohort("coh-a").groups(onDemand("0")).obj(), mkCQ("cq-b").cohort("coh-b").groups(onDemand("5")).obj(),
				mkCQ("cq-c").cohort("coh-b").groups(onDemand("0")).obj()},
			lqs: lqsABC, admitted: abcAdmitted, pending: abcPending,
			wantAssignments: abcWant,
			wantLeft:        map[string][]string{"cq-b": {"eng-alpha/wl-b"}},
			wantMessages:    map[string]string{"eng-alpha/wl-b": noLongerFits},
		},
		// The same with the 10 one level deeper (sub-a under coh-a): coh-a
		// would use 5 of its subtree's 10, so wl-a still wins at the root.
		"with fair sharing: hierarchical nominal-first with deeper nesting": {
			fair: true,
			cohorts: []Cohort{coh("root", ""), coh("coh-a", "root"), coh("sub-a", "coh-a", onDemand("10")),
				coh("coh-b", "root")},
			cqs: []ClusterQueue{mkCQ("cq-a").cohort("sub-a").groups(onDemand("0")).obj(), mkCQ("cq-b").cohort("coh-b").groups(onDemand("5")).obj(),
				mkCQ("cq-c").cohort("coh-b").groups(onDemand("0")).obj()},
			lqs: lqsABC, admitted: abcAdmitted, pending: abcPending,
			wantAssignments: abcWant,
			wantLeft:        map[string][]string{"cq-b": {"eng-alpha/wl-b"}},
			wantMessages:    map[string]string{"eng-alpha/wl-b": noLongerFits},
		},
		// coh-a's subtree has 10+5+3 = 18 and uses 6; coh-b's 18 and uses
		// 20. wl-a1 (7) leaves coh-a at 13 of 18, not borrowing; wl-b (4)
		// would take coh-b to 24 of 18. wl-a1 goes first; the tree's 36
		// then hold 33 and wl-b's 4 no longer fit.
		"with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas": {
			fair:    true,
			cohorts: []Cohort{coh("root", ""), coh("coh-a", "root", onDemand("10")), coh("coh-b", "root", onDemand("10"))},
			cqs: []ClusterQueue{mkCQ("cq-a1").cohort("coh-a").groups(onDemand("5")).obj(), mkCQ("cq-a2").cohort("coh-a").groups(onDemand("3")).obj(),
				mkCQ("cq-b").cohort("coh-b").groups(onDemand("5")).obj(), mkCQ("cq-c").cohort("coh-b").groups(onDemand("3")).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "lq-a1", "cq-a1"), lq("eng-alpha", "lq-a2", "cq-a2"), lq("eng-alpha", "lq-b", "cq-b"), lq("eng-alpha", "lq-c", "cq-c")},
			admitted: []admittedWorkload{
				{mkWl("a2-admitted", "eng-alpha").queue("lq-a2").podSets(ps("one", 1, "cpu", "6")), adm("cq-a2", "one:1:cpu=on-demand")},
				{mkWl("c-admitted", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "20")), adm("cq-c", "one:1:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("wl-a1", "eng-alpha").queue("lq-a1").podSets(ps("one", 1, "cpu", "7")),
				mkWl("wl-b", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "4"))},
			wantAssignments: map[string]string{"eng-alpha/a2-admitted": "cq-a2 one:1:cpu=on-demand", "eng-alpha/c-admitted": "cq-c one:1:cpu=on-demand",
				"eng-alpha/wl-a1": "cq-a1 one:1:cpu=on-demand"},
			wantLeft:     map[string][]string{"cq-b": {"eng-alpha/wl-b"}},
			wantMessages: map[string]string{"eng-alpha/wl-b": noLongerFits},
		},
		// coh-a has 10 on-demand and borrows 5 spot from coh-b; coh-b
		// uses 8 on-demand of its 5. The gate is per flavor: wl-a (4
		// on-demand) leaves coh-a within its on-demand, wl-b takes coh-b
		// to 12 of 5; wl-a goes first and 15-12 = 3 is too little for
		// wl-b.
		"with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing": {
			fair: true,
			cohorts: []Cohort{coh("root", ""), coh("coh-a", "root", onDemand("10")),
				coh("coh-b", "root", rg(fq("spot", res(cpu, "10"))))},
			cqs: []ClusterQueue{mkCQ("cq-a").cohort("coh-a").groups(rg(fq("on-demand", res(cpu, "0")), fq("spot", res(cpu, "0")))).obj(),
				mkCQ("cq-b").cohort("coh-b").groups(rg(fq("on-demand", res(cpu, "5")), fq("spot", res(cpu, "0")))).obj()},
			lqs: []LocalQueue{lq("eng-alpha", "lq-a", "cq-a"), lq("eng-alpha", "lq-b", "cq-b")},
			admitted: []admittedWorkload{
				{mkWl("spot-admitted", "eng-alpha").queue("lq-a").podSets(ps("one", 1, "cpu", "5")), adm("cq-a", "one:1:cpu=spot")},
				{mkWl("od-admitted", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "8")), adm("cq-b", "one:1:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("wl-a", "eng-alpha").queue("lq-a").podSets(ps("one", 1, "cpu", "4")),
				mkWl("wl-b", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "4"))},
			wantAssignments: map[string]string{"eng-alpha/spot-admitted": "cq-a one:1:cpu=spot", "eng-alpha/od-admitted": "cq-b one:1:cpu=on-demand",
				"eng-alpha/wl-a": "cq-a one:1:cpu=on-demand"},
			wantLeft:     map[string][]string{"cq-b": {"eng-alpha/wl-b"}},
			wantMessages: map[string]string{"eng-alpha/wl-b": noLongerFits},
		},
		// Each of the three queues (2 of their own, 3 in the bank) holds a
		// workload of 3 at priority 0; a preemptor of 3 at 100 in each
		// preempts it within its own queue. The three targets do not
		// overlap: three preemptions in one cycle. Each preemptor borrows 1
		// (3 of its 2), which it may only do while preempting because its
		// reclaimWithinCohort is not Never (notNever above); with Never,
		// as a defaulted ClusterQueue has it, none of them preempts.
		"multiple preemptions within cq when fair sharing": {
			fair: true,
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(notNever).groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(notNever).groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("other-gamma").cohort("other").preempt(notNever).groups(rg(fq("default", res(cpu, "2")))).obj(),
				mkCQ("resource-bank").cohort("other").groups(rg(fq("default", res(cpu, "3")))).obj(),
			},
			lqs: otherLQs,
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").queue("other").req(cpu, "3"), adm("other-alpha", "main:1:cpu=default")},
				{mkWl("b1", "eng-beta").queue("other").req(cpu, "3"), adm("other-beta", "main:1:cpu=default")},
				{mkWl("c1", "eng-gamma").queue("other").req(cpu, "3"), adm("other-gamma", "main:1:cpu=default")},
			},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").queue("other").prio(100).req(cpu, "3"),
				mkWl("preemptor", "eng-beta").queue("other").prio(100).req(cpu, "3"),
				mkWl("preemptor", "eng-gamma").queue("other").prio(100).req(cpu, "3")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:cpu=default", "eng-beta/b1": "other-beta main:1:cpu=default",
				"eng-gamma/c1": "other-gamma main:1:cpu=default"},
			wantLeft: map[string][]string{"other-alpha": {"eng-alpha/preemptor"}, "other-beta": {"eng-beta/preemptor"},
				"other-gamma": {"eng-gamma/preemptor"}},
			wantPreempted: []string{"eng-alpha/a1:InClusterQueue", "eng-beta/b1:InClusterQueue", "eng-gamma/c1:InClusterQueue"},
			wantMessages: map[string]string{
				"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 3 more needed. Pending the preemption of 1 workload(s)",
				"eng-beta/preemptor":  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 3 more needed. Pending the preemption of 1 workload(s)",
				"eng-gamma/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 3 more needed. Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{
				"eng-alpha/a1": inCQ("eng-alpha/preemptor", "/other/other-alpha"),
				"eng-beta/b1":  inCQ("eng-beta/preemptor", "/other/other-beta"),
				"eng-gamma/c1": inCQ("eng-gamma/preemptor", "/other/other-gamma")},
		},
		// other-gamma borrows all 9 cpu of the bank. The preemptor (100)
		// needs alpha-resource (held by a1) and 3 cpu: it preempts a1 in
		// its queue and c1 by fair sharing. pretending-preemptor (99)
		// would need b1 and c1 too: c1 is already a target, so it is
		// skipped (Kueue's gate RecomputeAssignmentUponPreemptionTargetsOverlap
		// is off in the case; the engine does not recompute). Kueue's c1
		// also requests gamma-resource, with no flavor in its admission:
		// it is not counted there, and is left out here.
		"multiple preemptions skip overlapping preemption targets": {
			fair: true,
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
					groups(rg(fq("default", res(cpu, "0"), res("alpha-resource", "1")))).obj(),
				mkCQ("other-beta").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
					groups(rg(fq("default", res(cpu, "0"), res("beta-resource", "1")))).obj(),
				mkCQ("other-gamma").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
					groups(rg(fq("default", res(cpu, "0"), res("gamma-resource", "1")))).obj(),
				mkCQ("resource-bank").cohort("other").groups(rg(fq("default", res(cpu, "9")))).obj(),
			},
			lqs: otherLQs,
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").queue("other").req("alpha-resource", "1"), adm("other-alpha", "main:1:alpha-resource=default")},
				{mkWl("b1", "eng-beta").queue("other").req("beta-resource", "1"), adm("other-beta", "main:1:beta-resource=default")},
				{mkWl("c1", "eng-gamma").queue("other").req(cpu, "9"), adm("other-gamma", "main:1:cpu=default")},
			},
			pending: []*pwl{mkWl("preemptor", "eng-alpha").queue("other").prio(100).req(cpu, "3").req("alpha-resource", "1"),
				mkWl("pretending-preemptor", "eng-beta").queue("other").prio(99).req(cpu, "3").req("beta-resource", "1")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:alpha-resource=default", "eng-beta/b1": "other-beta main:1:beta-resource=default",
				"eng-gamma/c1": "other-gamma main:1:cpu=default"},
			wantLeft:      map[string][]string{"other-alpha": {"eng-alpha/preemptor"}, "other-beta": {"eng-beta/pretending-preemptor"}},
			wantPreempted: []string{"eng-alpha/a1:InClusterQueue", "eng-gamma/c1:InCohortFairSharing"},
			wantMessages: map[string]string{
				"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for alpha-resource in flavor default, 1 more needed, " +
					"insufficient unused quota for cpu in flavor default, 3 more needed. Pending the preemption of 2 workload(s)",
				"eng-beta/pretending-preemptor": "Workload has overlapping preemption targets with another workload"},
			wantEvictMessages: map[string]string{
				"eng-alpha/a1": inCQ("eng-alpha/preemptor", "/other/other-alpha"),
				"eng-gamma/c1": fairMsg("eng-alpha/preemptor", "/other/other-alpha", "/other/other-gamma")},
		},
		// 100 cpu in sales' 50: no flavor fits, with or without fair
		// sharing; sales is StrictFIFO and keeps its head.
		"not enough resources with fair sharing enabled": {
			fair:     true,
			pending:  []*pwl{mkWl("new", "sales").queue("main").podSets(ps("one", 1, "cpu", "100"))},
			wantLeft: map[string][]string{"sales": {"sales/new"}},
			wantMessages: map[string]string{"sales/new": "couldn't assign flavors to pod set one: insufficient quota for cpu in flavor default, " +
				"previously considered podsets requests (0) + current podset request (100) > maximum capacity (50)"},
		},
		// The preemptor (8 gpu, priority 100) would preempt a1 (50) in
		// its own queue on on-demand (5 of 7 used, 10 in the cohort), or
		// reclaim spot from other-beta's b1, which borrows 2: reclaim is
		// preferred, and with fair sharing on it is a fair-sharing
		// preemption.
		"with fair sharing: prefer reclamation over cq priority based preemption; with preemption while borrowing": {
			fair: true,
			cqs: []ClusterQueue{
				mkCQ("other-alpha").cohort("other").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
					groups(rg(fq("on-demand", res("gpu", "7")), fq("spot", res("gpu", "7")))).obj(),
				mkCQ("other-beta").cohort("other").groups(rg(fq("on-demand", res("gpu", "3")), fq("spot", res("gpu", "3")))).obj(),
			},
			lqs: []LocalQueue{lq("eng-alpha", "other", "other-alpha"), lq("eng-beta", "other", "other-beta")},
			admitted: []admittedWorkload{
				{mkWl("a1", "eng-alpha").queue("other").prio(50).req("gpu", "5"), adm("other-alpha", "main:1:gpu=on-demand")},
				{mkWl("b1", "eng-beta").queue("other").prio(50).req("gpu", "5"), adm("other-beta", "main:1:gpu=spot")},
			},
			pending:         []*pwl{mkWl("preemptor", "eng-alpha").queue("other").prio(100).req("gpu", "8")},
			wantAssignments: map[string]string{"eng-alpha/a1": "other-alpha main:1:gpu=on-demand", "eng-beta/b1": "other-beta main:1:gpu=spot"},
			wantLeft:        map[string][]string{"other-alpha": {"eng-alpha/preemptor"}},
			wantPreempted:   []string{"eng-beta/b1:InCohortFairSharing"},
			wantMessages: map[string]string{"eng-alpha/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, 3 more needed, " +
				"insufficient unused quota for gpu in flavor spot, 3 more needed. Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{"eng-beta/b1": fairMsg("eng-alpha/preemptor", "/other/other-alpha", "/other/other-beta")},
		},
		"prefer flavor with most local capacity":            localCapacity(true),
		"prefer flavor with most local capacity (FS=false)": localCapacity(false),
		// A queue without cohort, fair sharing on: nc-high (100) preempts
		// nc-low (-1), which holds all 4 cpu, within the queue.
		"fair sharing: in-CQ preemption for CQ without cohort; repro for nil pointer panic": {
			fair:            true,
			cqs:             []ClusterQueue{mkCQ("no-cohort-cq").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).groups(rg(fq("default", res(cpu, "4")))).obj()},
			lqs:             []LocalQueue{lq("default", "no-cohort-queue", "no-cohort-cq")},
			admitted:        []admittedWorkload{{mkWl("nc-low", "default").queue("no-cohort-queue").prio(-1).req(cpu, "4"), adm("no-cohort-cq", "main:1:cpu=default")}},
			pending:         []*pwl{mkWl("nc-high", "default").queue("no-cohort-queue").prio(100).req(cpu, "4")},
			wantAssignments: map[string]string{"default/nc-low": "no-cohort-cq main:1:cpu=default"},
			wantLeft:        map[string][]string{"no-cohort-cq": {"default/nc-high"}},
			wantPreempted:   []string{"default/nc-low:InClusterQueue"},
			wantMessages: map[string]string{"default/nc-high": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 4 more needed. " +
				"Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{"default/nc-low": inCQ("default/nc-high", "/no-cohort-cq")},
		},
		// fs-high-pob (0) could preempt fs-low-pob (-1) on on-demand or
		// borrow spot from the lender: PreemptionOverBorrowing takes the
		// preemption.
		"PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of borrowing in second": {
			fair: true,
			cqs: []ClusterQueue{
				withWeight(mkCQ("fs-pob-cq").cohort("fs-pob-cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}).
					groups(rg(fq("on-demand", res(cpu, "5", "0")), fq("spot", res(cpu, "0", "5")))).obj(), 1),
				withWeight(mkCQ("fs-pob-lender").cohort("fs-pob-cohort").groups(rg(fq("on-demand", res(cpu, "0")), fq("spot", res(cpu, "5")))).obj(), 1),
			},
			lqs:             []LocalQueue{lq("default", "fs-pob-queue", "fs-pob-cq")},
			admitted:        []admittedWorkload{{mkWl("fs-low-pob", "default").queue("fs-pob-queue").prio(-1).req(cpu, "5"), adm("fs-pob-cq", "main:1:cpu=on-demand")}},
			pending:         []*pwl{mkWl("fs-high-pob", "default").queue("fs-pob-queue").prio(0).req(cpu, "5")},
			wantAssignments: map[string]string{"default/fs-low-pob": "fs-pob-cq main:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"fs-pob-cq": {"default/fs-high-pob"}},
			wantPreempted:   []string{"default/fs-low-pob:InClusterQueue"},
			wantMessages: map[string]string{"default/fs-high-pob": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 5 more needed. " +
				"Pending the preemption of 1 workload(s)"},
			wantEvictMessages: map[string]string{"default/fs-low-pob": inCQ("default/fs-high-pob", "/fs-pob-cohort/fs-pob-cq")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { s.run(t, tc) })
	}
}

// withWeight gives a queue a fair-sharing weight.
func withWeight(q ClusterQueue, w float64) ClusterQueue {
	q.FairSharing = fsw(w)
	return q
}
