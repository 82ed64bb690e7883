package podgroup

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// CompositePodGroup is an inner node of a group hierarchy: its children are
// CompositePodGroups or PodGroups (pods belong to PodGroups only). A gang
// composite needs MinGroupCount children schedulable together; a basic one
// needs one. DisruptionMode All makes its whole subtree one preemption
// victim.
type CompositePodGroup struct {
	Namespace         string
	Name              string
	Policy            Policy
	MinGroupCount     int32  // gang only; at least 1
	Priority          *int32 // as given; see PodGroup.Priority
	PriorityClassName string
	PreemptionPolicy  cluster.PreemptionPolicy
	DisruptionMode    DisruptionMode
	TopologyKey       string
	Parent            string        // a CompositePodGroup's name; "": a root
	CreationTime      time.Duration // orders siblings, then Name
}

// Key returns the composite's "namespace/name".
func (c *CompositePodGroup) Key() string { return Key(c.Namespace, c.Name) }

// Quorum is how many children must succeed: MinGroupCount for a gang, 1
// for a basic composite.
func (c *CompositePodGroup) Quorum() int {
	if c.Policy == Gang {
		return int(c.MinGroupCount)
	}
	return 1
}

// CheckQuorum is the composite policy as PlacementFeasible, counting
// children (kube-scheduler's GangScheduling plugin uses the same words).
func (c *CompositePodGroup) CheckQuorum(p Progress) (Feasibility, string) {
	return checkQuorum(c.Quorum(), p)
}

// EffectivePriority returns the priority, 0 when none is set.
func (c *CompositePodGroup) EffectivePriority() int32 { return derefPriority(c.Priority) }

// EffectivePreemptionPolicy returns the policy with its default applied.
func (c *CompositePodGroup) EffectivePreemptionPolicy() cluster.PreemptionPolicy {
	if c.PreemptionPolicy == "" {
		return cluster.PreemptLowerPriority
	}
	return c.PreemptionPolicy
}

// EffectiveDisruptionMode returns the mode with its default applied.
func (c *CompositePodGroup) EffectiveDisruptionMode() DisruptionMode {
	if c.DisruptionMode == "" {
		return DisruptSingle
	}
	return c.DisruptionMode
}

// Validate reports the first problem with c, naming it and the field.
func (c *CompositePodGroup) Validate() error {
	const what = "composite pod group"
	if field, detail := cluster.NamespacedNameProblem(c.Name, c.Namespace); detail != "" {
		return invalid(what, "", field, "%s", detail)
	}
	obj := c.Key()
	switch {
	case c.Policy == Gang && c.MinGroupCount < 1:
		return invalid(what, obj, "minGroupCount", "%d must be at least 1", c.MinGroupCount)
	case c.Policy == Basic && c.MinGroupCount != 0:
		return invalid(what, obj, "minGroupCount", "is set on a basic composite")
	case c.Policy != Gang && c.Policy != Basic:
		return invalid(what, obj, "policy", "%d is unknown", c.Policy)
	case c.Parent == c.Name:
		return invalid(what, obj, "parent", "%q is its own parent (a cycle)", c.Parent)
	}
	if field, detail := checkModes(c.PreemptionPolicy, c.DisruptionMode); detail != "" {
		return invalid(what, obj, field, "%s", detail)
	}
	return nil
}

// QuorumPolicy is a group's policy as PlacementFeasible sees it: a
// PodGroup counts pods, a CompositePodGroup counts children.
type QuorumPolicy interface {
	Quorum() int
	CheckQuorum(p Progress) (Feasibility, string)
}

var (
	_ QuorumPolicy = (*PodGroup)(nil)
	_ QuorumPolicy = (*CompositePodGroup)(nil)
)

func checkQuorum(q int, p Progress) (Feasibility, string) {
	switch {
	case p.Remaining+p.Scheduled < q:
		return Infeasible, fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", q, p.Scheduled, p.Remaining)
	case p.Scheduled < q:
		return Wait, fmt.Sprintf("minCount (%d) is not yet satisfied: %d scheduled, %d remaining", q, p.Scheduled, p.Remaining)
	}
	return Feasible, ""
}
