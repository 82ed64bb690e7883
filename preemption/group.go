package preemption

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// GroupRequest is one workload-aware preemption decision: a whole group
// preempts across the cluster, treated as one domain.
type GroupRequest struct {
	Snapshot          *cluster.Snapshot
	PreemptorPriority int32
	// Units are every victim unit in the cluster, lower priority or not.
	Units   []*Unit
	Budgets []cluster.BudgetStatus
	// Place runs the full group algorithm (placement generation and
	// scoring included) on the snapshot as it is and returns the proposed
	// assignments in cycle order, or a failure; it leaves the snapshot as
	// it found it.
	Place fw.PlaceFunc
	// Fits reports whether pod passes Filter on node as the snapshot is now.
	Fits func(pod *cluster.PodInfo, node int) bool
	// NodeLocal promises that Fits depends only on the node's own state
	// (no inter-pod affinity or spreading across nodes), so a unit is
	// checked only against the preemptor pods on its own nodes, and a unit
	// on none of their nodes is reprieved without a check. The outcome is
	// the same; the cost per unit stops growing with the group's size.
	NodeLocal bool
}

// GroupOutcome is a successful workload-aware preemption.
type GroupOutcome struct {
	Victims       []*Unit // importance order
	Assignments   []fw.Assignment
	PDBViolations int
	Violators     []cluster.PodKey // the victim pods whose eviction breaks a budget
}

// PreemptForGroup is workload-aware preemption (docs/semantics.md §8): every unit
// of lower priority than the group is removed from the cluster at once and
// the group algorithm runs once on that state; if it places the group, the
// units are put back one at a time, those whose eviction would break a
// budget first, each class most important first, and a unit stays
// (reprieved) when every preemptor pod still passes Filter on its chosen
// node with the earlier preemptor pods reserved. The units not reprieved
// are the victims. Fast rather than minimal: the placement is fixed after
// the first run. The snapshot is restored before returning.
func PreemptForGroup(req GroupRequest) (GroupOutcome, bool) {
	var potential []*Unit
	for _, u := range req.Units {
		if u.Priority < req.PreemptorPriority {
			potential = append(potential, u)
		}
	}
	if len(potential) == 0 {
		return GroupOutcome{}, false
	}
	snap := req.Snapshot
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, u := range potential {
		removeUnit(snap, u)
	}
	assignments, st := req.Place()
	if !st.IsSuccess() || len(assignments) == 0 {
		return GroupOutcome{}, false
	}
	slices.SortFunc(potential, Compare)
	violating, violators, rest := budgetViolations(potential, req.Budgets)
	out := GroupOutcome{Assignments: assignments}
	byNode := map[int][]int{} // node -> indexes of its assignments, in cycle order
	for i, a := range assignments {
		byNode[a.Node] = append(byNode[a.Node], i)
	}
	relevant := func(u *Unit) []fw.Assignment {
		if !req.NodeLocal {
			return assignments
		}
		var idx []int
		for _, p := range u.Pods {
			if n, ok := snap.Index(p.NodeName()); ok {
				idx = append(idx, byNode[n]...)
			}
		}
		slices.Sort(idx)
		idx = slices.Compact(idx)
		out := make([]fw.Assignment, len(idx))
		for j, i := range idx {
			out[j] = assignments[i]
		}
		return out
	}
	for i, u := range violating {
		if !reprieveUnit(req, u, relevant(u)) {
			out.Victims = append(out.Victims, u)
			out.PDBViolations += len(violators[i])
			out.Violators = append(out.Violators, violators[i]...)
		}
	}
	for _, u := range rest {
		if !reprieveUnit(req, u, relevant(u)) {
			out.Victims = append(out.Victims, u)
		}
	}
	slices.SortFunc(out.Victims, Compare)
	return out, true
}

// reprieveUnit puts u back and keeps it there if every preemptor pod of
// assignments still fits its node, checked in cycle order with the earlier
// ones reserved.
func reprieveUnit(req GroupRequest, u *Unit, assignments []fw.Assignment) bool {
	snap := req.Snapshot
	before := snap.Checkpoint()
	addUnit(snap, u)
	withUnit := snap.Checkpoint()
	fits := true
	for _, a := range assignments {
		if !req.Fits(a.Pod, a.Node) {
			fits = false
			break
		}
		snap.Reserve(a.Pod, a.Node)
	}
	snap.Rollback(withUnit)
	if !fits {
		snap.Rollback(before)
	}
	return fits
}

// removeUnit takes every pod of u off its node.
func removeUnit(snap *cluster.Snapshot, u *Unit) {
	for _, p := range u.Pods {
		if i, ok := snap.Index(p.NodeName()); ok {
			_ = snap.Remove(p.Key(), i) // units are built from the snapshot's pods
		}
	}
}

// addUnit puts every pod of u back on its node.
func addUnit(snap *cluster.Snapshot, u *Unit) {
	for _, p := range u.Pods {
		if i, ok := snap.Index(p.NodeName()); ok {
			snap.Reserve(p, i)
		}
	}
}
