package kueue

import (
	"fmt"
	"testing"
)

// Kueue v0.19.2's TestFairPreemptions (pkg/scheduler/preemption,
// preemption_fair_test.go): the victims fair sharing's preemption picks
// for an incoming workload whose cpu of flavor default needs preemption,
// with the same harness as TestPortedPreemption. Kueue's workloads are
// all reserved at the same time and tie on their names (their UIDs), as
// the model's on their order of arrival, which is the same here.

// fairBase is the test's ClusterQueues: a, b and c with 3 cpu each
// (preempting lower priorities within, anything in the cohort), and
// preemptible with none.
func fairBase() []ClusterQueue {
	p := Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny, BorrowWithinCohort: PreemptLowerPriority, MaxPriorityThreshold: ptr(int32(-3))}
	return []ClusterQueue{
		mkCQ("a").cohort("all").preempt(p).groups(rg(fq("default", res(cpu, "3")))).obj(),
		mkCQ("b").cohort("all").preempt(p).groups(rg(fq("default", res(cpu, "3")))).obj(),
		mkCQ("c").cohort("all").preempt(p).groups(rg(fq("default", res(cpu, "3")))).obj(),
		mkCQ("preemptible").cohort("all").groups(rg(fq("default", res(cpu, "0")))).obj(),
	}
}

// units are n admitted workloads of 1 cpu, named prefix1...
func units(cq, prefix string, n int) []pwlAdm {
	var out []pwlAdm
	for i := 1; i <= n; i++ {
		out = append(out, aw(fmt.Sprintf("%s%d", prefix, i), cq, 0, "cpu=1@default"))
	}
	return out
}

func cpuW(name, cq string, prio int32, v string) pwlAdm {
	return aw(name, cq, prio, "cpu="+v+"@default")
}

func concat(ls ...[]pwlAdm) []pwlAdm {
	var out []pwlAdm
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

func TestPortedFairPreemptions(t *testing.T) {
	in := func(v string) []string { return []string{"main:1:cpu=" + v + "@default/Preempt"} }
	on := &FairSharingConfig{}
	cases := map[string]preemptCase{
		// c is within its nominal quota with the incoming: it reclaims
		// from b, the most borrowing.
		"reclaim nominal from user using the most": {
			admitted: concat(units("a", "a", 3), units("b", "b", 5), units("c", "c", 1)),
			incoming: in("1"), target: "c", want: []string{"b1:InCohortReclamation"},
		},
		"can reclaim from queue using less, if taking the latest workload from user using the most isn't enough": {
			admitted: []pwlAdm{cpuW("a1", "a", 0, "3"), cpuW("a2", "a", 0, "1"), cpuW("b1", "b", 0, "2"), cpuW("b2", "b", 0, "3")},
			incoming: in("3"), target: "c", want: []string{"a1:InCohortReclamation"},
		},
		// a borrows with the incoming: fair sharing's first strategy
		"reclaim borrowable quota from user using the most": {
			admitted: concat(units("a", "a", 3), units("b", "b", 5), units("c", "c", 1)),
			incoming: in("1"), target: "a", want: []string{"b1:InCohortFairSharing"},
		},
		"preempt one from each CQ borrowing": {
			admitted: []pwlAdm{cpuW("a1", "a", 0, "0.5"), cpuW("a2", "a", 0, "0.5"), cpuW("a3", "a", 0, "3"),
				cpuW("b1", "b", 0, "0.5"), cpuW("b2", "b", 0, "0.5"), cpuW("b3", "b", 0, "3")},
			incoming: in("2"), target: "c", want: []string{"a1:InCohortReclamation", "b1:InCohortReclamation"},
		},
		"can't preempt when everyone under nominal": {
			admitted: concat(units("a", "a", 3), units("b", "b", 3), units("c", "c", 3)),
			incoming: in("1"), target: "c",
		},
		"can't preempt when it would switch the imbalance": {
			admitted: concat(units("a", "a", 3), units("b", "b", 5)),
			incoming: in("2"), target: "a",
		},
		"can preempt lower priority workloads from same CQ": {
			admitted: concat([]pwlAdm{cpuW("a1_low", "a", -1, "1"), cpuW("a2_low", "a", -1, "1"), cpuW("a3", "a", 0, "1"), cpuW("a4", "a", 0, "1")},
				units("b", "b", 5)),
			incoming: in("2"), target: "a", want: []string{"a1_low:InClusterQueue", "a2_low:InClusterQueue"},
		},
		"can preempt a combination of same CQ and highest user": {
			admitted: concat([]pwlAdm{cpuW("a_low", "a", -1, "1"), cpuW("a2", "a", 0, "1"), cpuW("a3", "a", 0, "1")}, units("b", "b", 6)),
			incoming: in("2"), target: "a", want: []string{"a_low:InClusterQueue", "b1:InCohortFairSharing"},
		},
		"preempt huge workload if there is no other option, as long as the target CQ gets a lower share": {
			admitted: []pwlAdm{cpuW("b1", "b", 0, "9")},
			incoming: in("2"), target: "a", want: []string{"b1:InCohortReclamation"},
		},
		"can't preempt huge workload if the incoming is also huge": {
			admitted: []pwlAdm{cpuW("a1", "a", 0, "2"), cpuW("b1", "b", 0, "7")},
			incoming: in("5"), target: "a",
		},
		"can't preempt 2 smaller workloads if the incoming is huge": {
			admitted: []pwlAdm{cpuW("b1", "b", 0, "2"), cpuW("b2", "b", 0, "2"), cpuW("b3", "b", 0, "3")},
			incoming: in("6"), target: "a",
		},
		"preempt from target and others even if over nominal": {
			admitted: []pwlAdm{cpuW("a1_low", "a", -1, "2"), cpuW("a2_low", "a", -1, "1"), cpuW("b1", "b", 0, "3"), cpuW("b2", "b", 0, "3")},
			incoming: in("4"), target: "a", want: []string{"a1_low:InClusterQueue", "b1:InCohortFairSharing"},
		},
		// b1 would pass the second strategy; the first passes b2 first.
		"prefer to preempt workloads that don't make the target CQ have the biggest share": {
			admitted: []pwlAdm{cpuW("b1", "b", 0, "2"), cpuW("b2", "b", 0, "1"), cpuW("b3", "b", 0, "2"), cpuW("c1", "c", 0, "1")},
			incoming: in("3.5"), target: "a", want: []string{"b2:InCohortFairSharing"},
		},
		"preempt from different cluster queues if the end result has a smaller max share": {
			admitted: []pwlAdm{cpuW("b1", "b", 0, "2"), cpuW("b2", "b", 0, "2.5"), cpuW("c1", "c", 0, "2"), cpuW("c2", "c", 0, "2.5")},
			incoming: in("3.5"), target: "a", want: []string{"b1:InCohortFairSharing", "c1:InCohortFairSharing"},
		},
		"scenario above does not flap": {
			admitted: []pwlAdm{cpuW("a1", "a", 0, "3.5"), cpuW("b2", "b", 0, "2.5"), cpuW("c2", "c", 0, "2.5")},
			incoming: in("2"), target: "b",
		},
		"cannot preempt if it would make the candidate CQ go under nominal after preempting one element": {
			admitted: []pwlAdm{cpuW("b1", "b", 0, "3"), cpuW("b2", "b", 0, "3"), cpuW("c1", "c", 0, "3")},
			incoming: in("4"), target: "a",
		},
		// borrowWithinCohort plays no part with fair sharing
		"workloads under priority threshold not capriciously preempted": {
			admitted: concat(units("a", "a", 3), units("b", "b", 3),
				[]pwlAdm{cpuW("preemptible1", "preemptible", -3, "1"), cpuW("preemptible2", "preemptible", -3, "1"), cpuW("preemptible3", "preemptible", -3, "1")}),
			incoming: in("2"), target: "a",
		},
		"preempt lower priority first, even if big": {
			fair:     &FairSharingConfig{PreemptionStrategies: []string{"LessThanInitialShare"}},
			admitted: []pwlAdm{cpuW("a1", "a", 0, "3"), cpuW("b_low", "b", 0, "5"), cpuW("b_high", "b", 1, "1")},
			incoming: in("1"), target: "a", want: []string{"b_low:InCohortFairSharing"},
		},
		"preempt workload that doesn't transfer the imbalance, even if high priority": {
			fair:     &FairSharingConfig{PreemptionStrategies: []string{"LessThanOrEqualToFinalShare"}},
			admitted: []pwlAdm{cpuW("a1", "a", 0, "3"), cpuW("b_low", "b", 0, "5"), cpuW("b_high", "b", 1, "1")},
			incoming: in("1"), target: "a", want: []string{"b_high:InCohortFairSharing"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.cqs = fairBase()
			tc.flavors = []ResourceFlavor{{Name: "default"}}
			if tc.fair == nil {
				tc.fair = on
			}
			tc.run(t)
		})
	}
}

// TestFairPreemptions' cases with their own queues: weights, zero
// weights, hierarchical cohorts. Kueue's cohorts ROOT, LEFT, RIGHT, A,
// AA... are written in lower case with a "co-" prefix. Kueue's queue b of
// the two "borrowing ... cohort" cases has no resource group; here it has
// 0 cpu, which changes no outcome: its cohort RIGHT, not borrowing, is
// never searched.
func TestPortedFairPreemptionsWeighted(t *testing.T) {
	in := func(v string) []string { return []string{"main:1:cpu=" + v + "@default/Preempt"} }
	reclaimAny := Preemption{ReclaimWithinCohort: PreemptAny}
	lowerAny := Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}
	cq := func(name, cohort, nominal string, w *FairSharing, p Preemption) ClusterQueue {
		q := mkCQ(name).cohort(cohort).preempt(p).groups(rg(fq("default", res(cpu, nominal)))).obj()
		q.FairSharing = w
		return q
	}
	co := func(name, parent string, w *FairSharing, nominal string) Cohort {
		c := Cohort{Name: name, ParentName: parent, FairSharing: w}
		if nominal != "" {
			c.ResourceGroups = []ResourceGroup{rg(fq("default", res(cpu, nominal)))}
		}
		return c
	}
	prioUnits := func(cq string) []pwlAdm {
		var out []pwlAdm
		for i := 1; i <= 5; i++ {
			out = append(out, cpuW(fmt.Sprintf("%s%d", cq, i), cq, int32(i), "1"))
		}
		return out
	}
	cases := map[string]preemptCase{
		"CQ with higher weight can preempt more": {
			cqs:      []ClusterQueue{cq("a", "all", "3", fsw(2), lowerAny), cq("b", "all", "3", nil, lowerAny), cq("c", "all", "3", nil, lowerAny)},
			admitted: concat(units("a", "a", 3), units("b", "b", 6)),
			incoming: in("2"), target: "a", want: []string{"b1:InCohortFairSharing", "b2:InCohortFairSharing"},
		},
		"can preempt anything borrowing from CQ with 0 weight": {
			cqs:      []ClusterQueue{cq("a", "all", "3", nil, lowerAny), cq("b", "all", "3", fsw(0), lowerAny), cq("c", "all", "3", nil, lowerAny)},
			admitted: concat(units("a", "a", 3), units("b", "b", 6)),
			incoming: in("3"), target: "a", want: []string{"b1:InCohortFairSharing", "b2:InCohortFairSharing", "b3:InCohortFairSharing"},
		},
		"can't preempt nominal from CQ with 0 weight": {
			cqs:      []ClusterQueue{cq("a", "all", "3", nil, lowerAny), cq("b", "all", "3", fsw(0), lowerAny)},
			admitted: concat(units("a", "a", 3), units("b", "b", 3)),
			incoming: in("1"), target: "a",
		},
		"can't preempt nominal from Cohort with 0 weight": {
			cqs:      []ClusterQueue{cq("left-cq", "co-root", "0", nil, reclaimAny), cq("right-cq", "right-cohort", "0", fsw(0), reclaimAny)},
			cohorts:  []Cohort{co("right-cohort", "co-root", fsw(0), "1")},
			admitted: []pwlAdm{cpuW("right-1", "right-cq", 0, "1")},
			incoming: in("1"), target: "left-cq",
		},
		"can preempt within cluster queue when no cohort": {
			cqs:      []ClusterQueue{cq("a", "", "1", nil, Preemption{WithinClusterQueue: PreemptLowerPriority})},
			admitted: []pwlAdm{cpuW("a1", "a", 0, "1")},
			prio:     1000, incoming: in("1"), target: "a", want: []string{"a1:InClusterQueue"},
		},
		// ROOT (5 of its own) over LEFT (a, b) and RIGHT (d, e), each 5 of
		// their own, and c; every queue 1. a (weight 2, LEFT too) takes 5
		// from b, c and e (weight 0.99, before d).
		"hierarchical preemption": {
			cqs: []ClusterQueue{cq("a", "co-left", "1", fsw(2), reclaimAny), cq("b", "co-left", "1", nil, Preemption{}),
				cq("c", "co-root", "1", nil, Preemption{}), cq("d", "co-right", "1", nil, Preemption{}), cq("e", "co-right", "1", fsw(0.99), Preemption{})},
			cohorts:  []Cohort{co("co-root", "", nil, "5"), co("co-left", "co-root", fsw(2), "5"), co("co-right", "co-root", nil, "5")},
			admitted: concat(prioUnits("b"), prioUnits("c"), prioUnits("d"), prioUnits("e")),
			incoming: in("5"), target: "a",
			want: []string{"b1:InCohortFairSharing", "b2:InCohortFairSharing", "c1:InCohortFairSharing", "c2:InCohortFairSharing", "e1:InCohortFairSharing"},
		},
		// b borrows but RIGHT does not: a preempts its own
		"borrowing cq in non-borrowing cohort is protected": {
			cqs:      []ClusterQueue{cq("a", "co-root", "5", fsw(10), lowerAny), cq("b", "co-right", "0", fsw(0.1), Preemption{})},
			cohorts:  []Cohort{co("co-root", "", nil, ""), co("co-right", "co-root", fsw(0.1), "1")},
			admitted: concat([]pwlAdm{cpuW("a1", "a", -1, "1"), cpuW("a2", "a", -1, "1"), cpuW("a3", "a", -1, "1"), cpuW("b1", "b", -1, "1")}),
			incoming: in("5"), target: "a", want: []string{"a1:InClusterQueue", "a2:InClusterQueue", "a3:InClusterQueue"},
		},
		"forced to preempt within clusterqueue because borrowing workload too important": {
			cqs: []ClusterQueue{cq("a", "co-root", "5", fsw(10), Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}),
				cq("b", "co-right", "0", fsw(0.1), Preemption{})},
			cohorts:  []Cohort{co("co-root", "", nil, ""), co("co-right", "co-root", fsw(0.1), "3")},
			admitted: []pwlAdm{cpuW("a1", "a", -1, "1"), cpuW("a2", "a", -1, "1"), cpuW("a3", "a", -1, "1"), cpuW("b1", "b", 100, "4")},
			incoming: in("4"), target: "a", want: []string{"a1:InClusterQueue", "a2:InClusterQueue", "a3:InClusterQueue"},
		},
		// the almost-LCAs are A (weight 1.01) and B (0.99)
		"deep preemption": {
			cqs: []ClusterQueue{cq("a", "co-aaa", "0", nil, reclaimAny), cq("b", "co-bbb", "0", nil, Preemption{})},
			cohorts: []Cohort{co("co-root", "", nil, ""), co("co-a", "co-root", fsw(1.01), ""), co("co-aa", "co-a", nil, ""), co("co-aaa", "co-aa", nil, ""),
				co("co-b", "co-root", fsw(0.99), ""), co("co-bb", "co-b", nil, ""), co("co-bbb", "co-bb", nil, ""),
				co("co-c", "co-root", nil, ""), co("co-cc", "co-c", nil, ""), co("co-ccc", "co-cc", nil, ""), co("co-cccc", "co-ccc", nil, "1")},
			admitted: []pwlAdm{cpuW("b1", "b", 0, "1")},
			incoming: in("1"), target: "a", want: []string{"b1:InCohortFairSharing"},
		},
		"cq with zero weight can reclaim nominal quota": {
			cqs:      []ClusterQueue{cq("a", "co-root", "1", fsw(0), reclaimAny), cq("b", "co-root", "0", fsw(1), Preemption{})},
			admitted: []pwlAdm{cpuW("b1", "b", 0, "1")},
			incoming: in("1"), target: "a", want: []string{"b1:InCohortReclamation"},
		},
		// a borrows from A (its share is infinite), but A, of weight 0
		// too, is within its quota: the strategy compares A with b
		"cohort with zero weight can reclaim nominal quota": {
			cqs:      []ClusterQueue{cq("a", "co-a", "0", fsw(0), reclaimAny), cq("b", "co-root", "0", fsw(1), Preemption{})},
			cohorts:  []Cohort{co("co-a", "co-root", fsw(0), "1")},
			admitted: []pwlAdm{cpuW("b1", "b", 0, "1")},
			incoming: in("1"), target: "a", want: []string{"b1:InCohortFairSharing"},
		},
		// a is within its nominal premium with the incoming (2+1 of 3),
		// although it borrows 5 cheap: it reclaims b's borrowed premium.
		"nominal first: workload fitting within nominal can preempt despite high aggregate DRS": {
			cqs: []ClusterQueue{mkCQ("a").cohort("all").preempt(reclaimAny).fung(FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("premium", res(cpu, "3")), fq("cheap", res(cpu, "0")))).obj(),
				mkCQ("b").cohort("all").groups(rg(fq("premium", res(cpu, "0")), fq("cheap", res(cpu, "6")))).obj()},
			admitted: []pwlAdm{aw("a_prem1", "a", 0, "cpu=1@premium"), aw("a_prem2", "a", 0, "cpu=1@premium"),
				aw("a_cheap1", "a", 0, "cpu=1@cheap"), aw("a_cheap2", "a", 0, "cpu=1@cheap"), aw("a_cheap3", "a", 0, "cpu=1@cheap"),
				aw("a_cheap4", "a", 0, "cpu=1@cheap"), aw("a_cheap5", "a", 0, "cpu=1@cheap"), aw("b_prem1", "b", 0, "cpu=1@premium")},
			incoming: []string{"main:1:cpu=1@premium/Preempt"}, target: "a", want: []string{"b_prem1:InCohortReclamation"},
		},
		// a (weight 0) borrows with the incoming: an infinite share, above
		// b's whatever b gives up
		"zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight": {
			cqs:      []ClusterQueue{cq("a", "all", "1", fsw(0), reclaimAny), cq("b", "all", "1", fsw(1), Preemption{})},
			admitted: []pwlAdm{cpuW("a1", "a", 0, "1"), cpuW("b1", "b", 0, "1"), cpuW("b2", "b", 0, "1")},
			incoming: in("1"), target: "a",
		},
		// both infinite: the unweighted shares decide
		"zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight": {
			cqs:      []ClusterQueue{cq("a", "all", "1", fsw(0), reclaimAny), cq("b", "all", "0", fsw(0), Preemption{})},
			cohorts:  []Cohort{co("all", "", nil, "3")},
			admitted: units("b", "b", 3),
			incoming: in("2"), target: "a", want: []string{"b1:InCohortFairSharing"},
		},
		"non-zero weight borrowing preemptor preempts from a borrowing CQ": {
			cqs:      []ClusterQueue{cq("a", "all", "1", fsw(1), reclaimAny), cq("b", "all", "0", fsw(1), Preemption{})},
			cohorts:  []Cohort{co("all", "", nil, "3")},
			admitted: units("b", "b", 3),
			incoming: in("2"), target: "a", want: []string{"b1:InCohortFairSharing"},
		},
		// A (weight 0) borrows: x's candidates fail the first strategy
		// against A's infinite share; once y1 is taken A no longer borrows
		// and the second strategy takes x1.
		"candidates skipped by the first strategy are still available to the second strategy": {
			cqs: []ClusterQueue{cq("p", "co-a", "2", fsw(1), reclaimAny), cq("y", "co-a", "2", fsw(1), Preemption{}),
				cq("x", "co-root", "1", fsw(1), Preemption{})},
			cohorts:  []Cohort{co("co-a", "co-root", fsw(0), "1")},
			admitted: []pwlAdm{cpuW("p1", "p", 0, "2"), cpuW("y1", "y", 0, "2"), cpuW("y2", "y", 0, "2"), cpuW("x1", "x", 0, "1"), cpuW("x2", "x", 0, "1")},
			incoming: in("1"), target: "p", want: []string{"x1:InCohortFairSharing", "y1:InCohortFairSharing"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.flavors = []ResourceFlavor{{Name: "default"}, {Name: "premium"}, {Name: "cheap"}}
			tc.fair = &FairSharingConfig{}
			tc.run(t)
		})
	}
}
