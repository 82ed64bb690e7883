// Package gangscheduling is the GangScheduling plugin: the group's policy
// (gang or basic) as a PlacementFeasible check, with its quorum declared so
// that placements that cannot hold it are skipped without simulation.
package gangscheduling

import (
	"fmt"

	fw "github.com/gangsim/gangsim/framework"
)

// Name is the plugin's name in profiles.
const Name = "GangScheduling"

// GangScheduling is the group policy as a PlacementFeasible plugin: a gang
// needs MinCount scheduled pods (a gang composite MinGroupCount children),
// a basic group one. It declares its quorum, so placements that cannot hold
// it are skipped without simulation.
type GangScheduling struct{}

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return GangScheduling{}, nil }

var (
	_ fw.PlacementFeasiblePlugin = GangScheduling{}
	_ fw.QuorumPlugin            = GangScheduling{}
)

// waitForMore is GangScheduling's Wait: its message is never shown (a
// group still waiting when its members run out is simply unschedulable).
var waitForMore = fw.NewStatus(fw.Wait).WithPlugin(Name)

// Name returns Name.
func (GangScheduling) Name() string { return Name }

// PlacementFeasible is kube-scheduler's GangScheduling: Unschedulable when
// even every remaining member would not reach the quorum, Wait until it is
// reached, then Success.
func (GangScheduling) PlacementFeasible(g *fw.Group, p fw.Progress) *fw.Status {
	q := g.Policy().Quorum()
	switch {
	case p.Remaining+p.Scheduled < q:
		return fw.NewStatus(fw.Unschedulable, fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", q, p.Scheduled, p.Remaining)).WithPlugin(Name)
	case p.Scheduled < q:
		return waitForMore
	}
	return nil
}

// Quorum returns the group's policy quorum.
func (GangScheduling) Quorum(g *fw.Group) int { return g.Policy().Quorum() }
