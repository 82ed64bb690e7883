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
