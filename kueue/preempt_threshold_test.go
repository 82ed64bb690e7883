package kueue

import "testing"

// borrowWithinCohort's maxPriorityThreshold is inclusive: Kueue lets a
// preemptor that must still borrow after the preemption reclaim from a
// workload whose priority is at most the threshold, and so a victim of
// exactly the threshold's priority may go, one just above it may not.
// The suite's with-shared-cq queues have the threshold 0.
func TestBorrowWithinCohortThresholdInclusive(t *testing.T) {
	cases := map[string]preemptCase{
		"a victim at the threshold is preempted while borrowing": {
			admitted: []pwlAdm{aw("a_best_effort_zero", "a-best-effort", 0, "cpu=10@default"), aw("b_best_effort_low", "b-best-effort", -1, "cpu=1@default")},
			prio:     1, incoming: []string{"main:1:cpu=10@default/Preempt"}, target: "a-standard",
			want: []string{"a_best_effort_zero:InCohortReclaimWhileBorrowing"},
		},
		"a victim one above the threshold is not": {
			admitted: []pwlAdm{aw("a_best_effort_one", "a-best-effort", 1, "cpu=10@default"), aw("b_best_effort_low", "b-best-effort", -1, "cpu=1@default")},
			prio:     2, incoming: []string{"main:1:cpu=10@default/Preempt"}, target: "a-standard",
		},
	}
	for name, tc := range cases {
		t.Run(name, tc.run)
	}
}
