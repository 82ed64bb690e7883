package preemption

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// Sim is the what-if world pod preemption works in for one node: the
// snapshot, and whatever the preemptor's filters keep about it (their
// PreFilter state), changed together. The caller supplies it: preemption
// never runs filters itself.
type Sim interface {
	Snapshot() *cluster.Snapshot
	// Remove and Add take a pod off, or put it back on, the node at index
	// node, tentatively.
	Remove(p *cluster.PodInfo, node int)
	Add(p *cluster.PodInfo, node int)
	// Rollback undoes every change since cp.
	Rollback(cp cluster.Checkpoint)
	// Fits reports whether the preemptor passes its filters on the node
	// as the world is now.
	Fits(node int) bool
}

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
func SelectVictimsOnNode(sim Sim, node int, preemptorPriority int32, units []*Unit, budgets []cluster.BudgetStatus) (Candidate, bool) {
	snap := sim.Snapshot()
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
	defer sim.Rollback(cp)
	for _, u := range potential {
		removeFrom(sim, node, u)
	}
	if !sim.Fits(node) {
		return Candidate{}, false
	}
	slices.SortFunc(potential, Compare)
	violating, violators, rest := budgetViolations(potential, budgets)
	c := Candidate{Node: node}
	reprieve := func(u *Unit) bool {
		mark := snap.Checkpoint()
		addTo(sim, node, u)
		if sim.Fits(node) {
			return true
		}
		sim.Rollback(mark)
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
func removeFrom(sim Sim, node int, u *Unit) {
	name := sim.Snapshot().Node(node).Name()
	for _, p := range u.Pods {
		if p.NodeName() == name {
			sim.Remove(p, node) // the unit was built from this node's pods
		}
	}
}

// addTo puts the unit's pods on node back.
func addTo(sim Sim, node int, u *Unit) {
	name := sim.Snapshot().Node(node).Name()
	for _, p := range u.Pods {
		if p.NodeName() == name {
			sim.Add(p, node)
		}
	}
}
