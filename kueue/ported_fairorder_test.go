package kueue

import (
	"testing"
)

// Kueue v0.19.2's TestScheduleForFairSharing (pkg/scheduler,
// scheduler_fs_test.go): the admission order with fair sharing on, one
// cycle on TestSchedule's suite of queues. The cases of fair-sharing
// preemption are in ported_fairpreempt_test.go (not yet ported: see
// testdata/ported.md).

// fairCQ is a queue of cohort with cpu of flavor on-demand and a weight
// (nil: none given).
func fairCQ(name, cohort, nominal string, w *FairSharing) ClusterQueue {
	q := mkCQ(name).cohort(cohort).groups(rg(fq("on-demand", res(cpu, nominal)))).obj()
	q.FairSharing = w
	return q
}

func cohortCPU(name, nominal string) Cohort {
	return Cohort{Name: name, ResourceGroups: []ResourceGroup{rg(fq("on-demand", res(cpu, nominal)))}}
}

func TestPortedFairSharingOrder(t *testing.T) {
	s := scheduleSuite()
	reclaimAny := Preemption{ReclaimWithinCohort: PreemptAny, WithinClusterQueue: PreemptNever}
	twoQueues := func(w *FairSharing) []ClusterQueue {
		b, c := fairCQ("b", "coh-a", "0", w), fairCQ("c", "coh-a", "0", w)
		b.Preemption, c.Preemption = reclaimAny, reclaimAny
		return []ClusterQueue{b, c}
	}
	bcLQs := []LocalQueue{lq("eng-alpha", "lq-b", "b"), lq("eng-alpha", "lq-c", "c")}
	noLongerFits := "Workload no longer fits after processing another workload"
	cases := map[string]cycleCase{
		// eng-alpha would borrow 5 of the 110 eng can lend it, eng-beta
		// (already borrowing 5) 6: new goes first, although older_new is
		// older, and takes the last of the quota.
		"with fair sharing: schedule workload with lowest share first": {
			fair: true,
			cqs:  []ClusterQueue{mkCQ("eng-shared").cohort("eng").groups(rg(fq("on-demand", res(cpu, "10", "0")))).obj()},
			admitted: []admittedWorkload{
				{mkWl("all_nominal", "eng-alpha").queue("main").podSets(ps("one", 50, "cpu", "1")), adm("eng-alpha", "one:50:cpu=on-demand")},
				{mkWl("borrowing", "eng-beta").queue("main").podSets(ps("one", 55, "cpu", "1")), adm("eng-beta", "one:55:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("older_new", "eng-beta").queue("main").created(0).podSets(ps("one", 1, "cpu", "1")),
				mkWl("new", "eng-alpha").queue("main").created(60).podSets(ps("one", 5, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/all_nominal": "eng-alpha one:50:cpu=on-demand",
				"eng-beta/borrowing": "eng-beta one:55:cpu=on-demand", "eng-alpha/new": "eng-alpha one:5:cpu=on-demand"},
			wantLeft:     map[string][]string{"eng-beta": {"eng-beta/older_new"}},
			wantMessages: map[string]string{"eng-beta/older_new": noLongerFits},
		},
		// After admission b would borrow 60 of 100, c 75: b1 goes first
		// and c1 no longer fits.
		"fair sharing schedule workload with lowest drf after admission": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "100")},
			cqs:     []ClusterQueue{fairCQ("b", "coh-a", "0", nil), fairCQ("c", "coh-a", "0", nil)},
			lqs:     bcLQs,
			admitted: []admittedWorkload{{mkWl("b0", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "10")),
				adm("b", "one:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("b1", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "50")),
				mkWl("c1", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "75"))},
			wantAssignments: map[string]string{"eng-alpha/b0": "b one:1:cpu=on-demand", "eng-alpha/b1": "b one:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"c": {"eng-alpha/c1"}},
			wantMessages:    map[string]string{"eng-alpha/c1": noLongerFits},
		},
		// Weight 0: both borrow, so both shares are infinite and the
		// unweighted ones decide (8 of 8 against 4 of 8): c1 first
		// despite b1's priority.
		"fair sharing two queues with weight 0 schedules workload which borrows less": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "8")},
			cqs:     twoQueues(fsw(0)),
			lqs:     bcLQs,
			admitted: []admittedWorkload{{mkWl("b0", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "4")),
				adm("b", "one:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("b1", "eng-alpha").queue("lq-b").prio(9001).podSets(ps("one", 1, "cpu", "4")),
				mkWl("c1", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "4"))},
			wantAssignments: map[string]string{"eng-alpha/b0": "b one:1:cpu=on-demand", "eng-alpha/c1": "c one:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"b": {"eng-alpha/b1"}},
			wantMessages:    map[string]string{"eng-alpha/b1": noLongerFits},
		},
		"fair sharing two queues with high weight schedules workload which borrows less": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "8")},
			cqs:     twoQueues(fsw(123456789)),
			lqs:     bcLQs,
			admitted: []admittedWorkload{{mkWl("b0", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "4")),
				adm("b", "one:1:cpu=on-demand")}},
			pending: []*pwl{mkWl("b1", "eng-alpha").queue("lq-b").prio(9001).podSets(ps("one", 1, "cpu", "4")),
				mkWl("c1", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "4"))},
			wantAssignments: map[string]string{"eng-alpha/b0": "b one:1:cpu=on-demand", "eng-alpha/c1": "c one:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"b": {"eng-alpha/b1"}},
			wantMessages:    map[string]string{"eng-alpha/b1": noLongerFits},
		},
		// Quota from a cohort, from a queue in a cohort of its own, and
		// in a queue without cohort: all three are admitted.
		"fair sharing schedule singleton cqs and cq without cohort": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "10"), {Name: "coh-b"}},
			cqs:     []ClusterQueue{fairCQ("a", "coh-a", "0", nil), fairCQ("b", "coh-b", "10", nil), fairCQ("c", "", "10", nil)},
			lqs:     append([]LocalQueue{lq("eng-alpha", "lq-a", "a")}, bcLQs...),
			pending: []*pwl{mkWl("a1", "eng-alpha").queue("lq-a").podSets(ps("one", 1, "cpu", "10")),
				mkWl("b1", "eng-alpha").queue("lq-b").podSets(ps("one", 1, "cpu", "10")),
				mkWl("c1", "eng-alpha").queue("lq-c").podSets(ps("one", 1, "cpu", "10"))},
			wantAssignments: map[string]string{"eng-alpha/a1": "a one:1:cpu=on-demand", "eng-alpha/b1": "b one:1:cpu=on-demand",
				"eng-alpha/c1": "c one:1:cpu=on-demand"},
		},
		// Equal shares: the higher priority goes first.
		"fair sharing schedule highest priority first": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "10"), {Name: "coh-b"}},
			cqs:     []ClusterQueue{fairCQ("b", "coh-a", "0", nil), fairCQ("c", "coh-a", "0", nil)},
			lqs:     bcLQs,
			pending: []*pwl{mkWl("b1", "eng-alpha").queue("lq-b").prio(99).podSets(ps("one", 1, "cpu", "10")),
				mkWl("c1", "eng-alpha").queue("lq-c").prio(101).podSets(ps("one", 1, "cpu", "10"))},
			wantAssignments: map[string]string{"eng-alpha/c1": "c one:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"b": {"eng-alpha/b1"}},
			wantMessages:    map[string]string{"eng-alpha/b1": noLongerFits},
		},
		// Equal shares and priorities: the earlier goes first.
		"fair sharing schedule earliest timestamp first": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "10"), {Name: "coh-b"}},
			cqs:     []ClusterQueue{fairCQ("b", "coh-a", "0", nil), fairCQ("c", "coh-a", "0", nil)},
			lqs:     bcLQs,
			pending: []*pwl{mkWl("b1", "eng-alpha").queue("lq-b").prio(101).created(1).podSets(ps("one", 1, "cpu", "10")),
				mkWl("c1", "eng-alpha").queue("lq-c").prio(101).created(0).podSets(ps("one", 1, "cpu", "10"))},
			wantAssignments: map[string]string{"eng-alpha/c1": "c one:1:cpu=on-demand"},
			wantLeft:        map[string][]string{"b": {"eng-alpha/b1"}},
			wantMessages:    map[string]string{"eng-alpha/b1": noLongerFits},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { s.run(t, tc) })
	}
}
