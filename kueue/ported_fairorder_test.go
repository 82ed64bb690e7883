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
		// A (200) over B (d, e) and C (f, g). With its head admitted, B
		// would use 100 with d1, C 101 with f1: d1 goes first and takes
		// the rest; e1, f1 and g1 no longer fit.
		"hierarchical fair sharing schedule workload which wins tournament": {
			fair:    true,
			cohorts: []Cohort{cohortCPU("coh-a", "200"), {Name: "coh-b", ParentName: "coh-a"}, {Name: "coh-c", ParentName: "coh-a"}},
			cqs: []ClusterQueue{fairCQ("d", "coh-b", "0", nil), fairCQ("e", "coh-b", "0", nil),
				fairCQ("f", "coh-c", "0", nil), fairCQ("g", "coh-c", "0", nil)},
			lqs: []LocalQueue{lq("eng-alpha", "lq-d", "d"), lq("eng-alpha", "lq-e", "e"), lq("eng-alpha", "lq-f", "f"), lq("eng-alpha", "lq-g", "g")},
			admitted: []admittedWorkload{
				{mkWl("d0", "eng-alpha").queue("lq-d").podSets(ps("one", 1, "cpu", "10")), adm("d", "one:1:cpu=on-demand")},
				{mkWl("e0", "eng-alpha").queue("lq-e").podSets(ps("one", 1, "cpu", "20")), adm("e", "one:1:cpu=on-demand")},
				{mkWl("g0", "eng-alpha").queue("lq-g").podSets(ps("one", 1, "cpu", "100")), adm("g", "one:1:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("d1", "eng-alpha").queue("lq-d").podSets(ps("one", 1, "cpu", "70")),
				mkWl("e1", "eng-alpha").queue("lq-e").podSets(ps("one", 1, "cpu", "61")),
				mkWl("f1", "eng-alpha").queue("lq-f").podSets(ps("one", 1, "cpu", "1")),
				mkWl("g1", "eng-alpha").queue("lq-g").podSets(ps("one", 1, "cpu", "1"))},
			wantAssignments: map[string]string{"eng-alpha/d0": "d one:1:cpu=on-demand", "eng-alpha/e0": "e one:1:cpu=on-demand",
				"eng-alpha/g0": "g one:1:cpu=on-demand", "eng-alpha/d1": "d one:1:cpu=on-demand"},
			wantLeft:     map[string][]string{"e": {"eng-alpha/e1"}, "f": {"eng-alpha/f1"}, "g": {"eng-alpha/g1"}},
			wantMessages: map[string]string{"eng-alpha/e1": noLongerFits, "eng-alpha/f1": noLongerFits, "eng-alpha/g1": noLongerFits},
		},
		// eng-beta is within its nominal quota with the preemptor: it
		// reclaims from the borrowing queues, the highest share first
		// (eng-alpha 80 of on-demand over 50, eng-gamma 70 over 50), one
		// from each.
		"with fair sharing: preempt workload from CQ with the highest share": {
			fair: true,
			cqs:  []ClusterQueue{mkCQ("eng-gamma").cohort("eng").groups(rg(fq("on-demand", res(cpu, "50", "0")))).obj()},
			admitted: []admittedWorkload{
				{mkWl("all_spot", "eng-alpha").req(cpu, "100"), adm("eng-alpha", "main:1:cpu=spot")},
				{mkWl("alpha1", "eng-alpha").req(cpu, "20"), adm("eng-alpha", "main:1:cpu=on-demand")},
				{mkWl("alpha2", "eng-alpha").req(cpu, "20"), adm("eng-alpha", "main:1:cpu=on-demand")},
				{mkWl("alpha3", "eng-alpha").req(cpu, "20"), adm("eng-alpha", "main:1:cpu=on-demand")},
				{mkWl("alpha4", "eng-alpha").req(cpu, "20"), adm("eng-alpha", "main:1:cpu=on-demand")},
				{mkWl("gamma1", "eng-gamma").req(cpu, "10"), adm("eng-gamma", "main:1:cpu=on-demand")},
				{mkWl("gamma2", "eng-gamma").req(cpu, "20"), adm("eng-gamma", "main:1:cpu=on-demand")},
				{mkWl("gamma3", "eng-gamma").req(cpu, "20"), adm("eng-gamma", "main:1:cpu=on-demand")},
				{mkWl("gamma4", "eng-gamma").req(cpu, "20"), adm("eng-gamma", "main:1:cpu=on-demand")},
			},
			pending: []*pwl{mkWl("preemptor", "eng-beta").queue("main").req(cpu, "30")},
			wantAssignments: map[string]string{"eng-alpha/all_spot": "eng-alpha main:1:cpu=spot",
				"eng-alpha/alpha1": "eng-alpha main:1:cpu=on-demand", "eng-alpha/alpha2": "eng-alpha main:1:cpu=on-demand",
				"eng-alpha/alpha3": "eng-alpha main:1:cpu=on-demand", "eng-alpha/alpha4": "eng-alpha main:1:cpu=on-demand",
				"eng-gamma/gamma1": "eng-gamma main:1:cpu=on-demand", "eng-gamma/gamma2": "eng-gamma main:1:cpu=on-demand",
				"eng-gamma/gamma3": "eng-gamma main:1:cpu=on-demand", "eng-gamma/gamma4": "eng-gamma main:1:cpu=on-demand"},
			wantLeft:      map[string][]string{"eng-beta": {"eng-beta/preemptor"}},
			wantPreempted: []string{"eng-alpha/alpha1:InCohortReclamation", "eng-gamma/gamma1:InCohortReclamation"},
			wantMessages: map[string]string{"eng-beta/preemptor": "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 30 more needed, " +
				"insufficient unused quota for cpu in flavor spot, 30 more needed. Pending the preemption of 2 workload(s)"},
			wantEvictMessages: map[string]string{
				"eng-alpha/alpha1": "Preempted to accommodate a workload (UID: eng-beta/preemptor, JobUID: UNKNOWN) due to reclamation within the cohort; preemptor path: /eng/eng-beta; preemptee path: /eng/eng-alpha",
				"eng-gamma/gamma1": "Preempted to accommodate a workload (UID: eng-beta/preemptor, JobUID: UNKNOWN) due to reclamation within the cohort; preemptor path: /eng/eng-beta; preemptee path: /eng/eng-gamma"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { s.run(t, tc) })
	}
}
