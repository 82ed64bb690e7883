package framework

import (
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// Group is what the group extension points see of a PodGroup or a
// CompositePodGroup being placed.
type Group struct {
	Ref podgroup.Ref
	// PodGroup is set for a PodGroup (a leaf), Composite for a
	// CompositePodGroup; exactly one of them.
	PodGroup  *podgroup.PodGroup
	Composite *podgroup.CompositePodGroup
	// Pods are a PodGroup's pending pods in cycle order.
	Pods []*cluster.PodInfo
	// Scheduled counts the pods of the group's subtree already assumed or
	// bound; ScheduledNodes names their nodes.
	Scheduled      int
	ScheduledNodes []string
}

// Name returns the group's name.
func (g *Group) Name() string {
	if g.Composite != nil {
		return g.Composite.Name
	}
	return g.PodGroup.Name
}

// TopologyKey returns the group's topology key ("": none).
func (g *Group) TopologyKey() string {
	if g.Composite != nil {
		return g.Composite.TopologyKey
	}
	return g.PodGroup.TopologyKey
}

// Policy returns the group's scheduling policy as PlacementFeasible sees
// it: a PodGroup counts pods, a CompositePodGroup counts children.
func (g *Group) Policy() podgroup.QuorumPolicy {
	if g.Composite != nil {
		return g.Composite
	}
	return g.PodGroup
}

// Placement is a candidate set of nodes for a group (snapshot indexes;
// nil means every node).
type Placement struct {
	Name  string
	Nodes []int
	// Key is set when the placement is exactly one whole domain of a
	// topology key: the one at index Domain among the snapshot's Domains
	// of Key. Plugins may then read the snapshot's DomainTotals instead of
	// summing the nodes.
	Key    string
	Domain int
}

// Assignment is a pod placed on a node (snapshot index).
type Assignment struct {
	Pod  *cluster.PodInfo
	Node int
}

// Progress is how far a placement attempt got: members (pods, or children
// of a composite) still to try, and members scheduled (already running
// ones included, for a PodGroup).
type Progress struct {
	Remaining int
	Scheduled int
}

// PlacementGeneratePlugin proposes candidate placements for a group within
// its parent's placement. A profile has at most one; without one the
// parent placement is the only candidate.
type PlacementGeneratePlugin interface {
	Plugin
	GeneratePlacements(snap *cluster.Snapshot, g *Group, parent Placement) ([]Placement, *Status)
}

// PlacementFeasiblePlugin judges a group's progress after each member is
// tried: nil when the group's policy is met, Wait while it may still be
// met, Unschedulable when it cannot be met any more (the attempt stops),
// Error on a failure.
type PlacementFeasiblePlugin interface {
	Plugin
	PlacementFeasible(g *Group, p Progress) *Status
}

// QuorumPlugin is a PlacementFeasible plugin that declares the least
// number of scheduled members it accepts. When every PlacementFeasible
// plugin declares one, the engine skips placements whose free capacity
// cannot hold that many pods, without simulating them.
type QuorumPlugin interface {
	Quorum(g *Group) int
}

// PlacementScorePlugin scores a feasible placement for a group; proposed
// are the pods the placement would take (every leaf's, for a composite),
// and the snapshot holds the cluster without them. Scores lie in
// 0..MaxNodeScore after normalisation.
type PlacementScorePlugin interface {
	Plugin
	ScorePlacement(snap *cluster.Snapshot, g *Group, p *Placement, proposed []Assignment) (int64, *Status)
}

// PlacementScoreNormalizer rescales a plugin's placement scores over all
// candidates before weighting.
type PlacementScoreNormalizer interface {
	NormalizePlacementScores(g *Group, scores []int64) *Status
}

// NodeIndependentScorer is a PlacementScore plugin whose score depends on
// the placement's nodes as a whole and on which pods it takes, not on the
// node each pod lands on. When all are, an all-or-nothing gang's
// candidates are simulated best predicted score first and the first
// feasible one wins.
type NodeIndependentScorer interface {
	ScoreIgnoresNodes()
}

// PodGroupPostFilterPlugin runs when a group's cycle fails. place runs the
// group's whole placement algorithm on the snapshot as it is then (after
// tentative removals, for preemption) and returns the proposed
// assignments in cycle order. A Success result ends the phase: the
// scheduler evicts the victims and nominates the pods; nothing is bound in
// this cycle.
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(g *Group, pending []*cluster.PodInfo, place PlaceFunc) (*PodGroupPostFilterResult, *Status)
}

// PlaceFunc runs a group's placement algorithm on the snapshot as it is
// and leaves the snapshot unchanged.
type PlaceFunc func() ([]Assignment, *Status)

// PodGroupPostFilterResult is what a PodGroupPostFilter plugin decided:
// victims to evict and nominations for the group's pods.
type PodGroupPostFilterResult struct {
	Victims     []Victim
	Nominations []Assignment
}
