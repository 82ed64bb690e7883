package preemption

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// FitsFunc reports whether the preemptor fits on the node at index node as
// the snapshot is now, tentative removals included. The caller supplies it
// (its filters, nominated pods and all): preemption never runs filters
// itself.
type FitsFunc func(node int) bool

// Candidate is a node where evicting Victims lets the preemptor fit.
type Candidate struct {
	Node          int
	Victims       []*Unit // importance order, most important first
	PDBViolations int     // victim pods whose eviction breaks a budget
	// Violators are those pods.
	Violators []cluster.PodKey
}

// VictimPods returns the pods of the candidate's victims, in order.
func (c *Candidate) VictimPods() []*cluster.PodInfo {
	var out []*cluster.PodInfo
	for _, u := range c.Victims {
		out = append(out, u.Pods...)
	}
	return out
}

// SelectVictimsOnNode chooses the victims on one node by
// remove-all-then-reprieve (docs/semantics.md §7): every unit of lower priority
// than the preemptor is removed from the node; if the preemptor still does
// not fit, the node is no candidate. Otherwise units are put back one at a
// time, those whose eviction would break a budget first, each group most
// important first; a unit stays if the preemptor still fits, and is a
// victim if not. units are the candidate units with pods on the node;
// their pods elsewhere are not touched. The snapshot is restored before
// returning.
func SelectVictimsOnNode(snap *cluster.Snapshot, node int, preemptorPriority int32, units []*Unit, fits FitsFunc, budgets []cluster.BudgetStatus) (Candidate, bool) {
	var potential []*Unit
	for _, u := range units {
		if u.Priority < preemptorPriority {
			potential = append(potential, u)
		}
	}
	if len(potential) == 0 {
		return Candidate{}, false
	}
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	for _, u := range potential {
		removeFrom(snap, node, u)
	}
	if !fits(node) {
		return Candidate{}, false
	}
	slices.SortFunc(potential, Compare)
	violating, violators, rest := budgetViolations(potential, budgets)
	c := Candidate{Node: node}
	reprieve := func(u *Unit) bool {
		mark := snap.Checkpoint()
		addTo(snap, node, u)
		if fits(node) {
			return true
		}
		snap.Rollback(mark)
		c.Victims = append(c.Victims, u)
		return false
	}
	for i, u := range violating {
		if !reprieve(u) {
			c.PDBViolations += len(violators[i])
			c.Violators = append(c.Violators, violators[i]...)
		}
	}
	for _, u := range rest {
		reprieve(u)
	}
	slices.SortFunc(c.Victims, Compare)
	return c, true
}

// removeFrom takes the unit's pods on node off it.
func removeFrom(snap *cluster.Snapshot, node int, u *Unit) {
	name := snap.Node(node).Name()
	for _, p := range u.Pods {
		if p.Pod().NodeName == name {
			_ = snap.Remove(p.Key(), node) // the unit was built from this node's pods
		}
	}
}

// addTo puts the unit's pods on node back.
func addTo(snap *cluster.Snapshot, node int, u *Unit) {
	name := snap.Node(node).Name()
	for _, p := range u.Pods {
		if p.Pod().NodeName == name {
			snap.Reserve(p, node)
		}
	}
}
