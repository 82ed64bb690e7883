// Package gangscheduling is the GangScheduling plugin: the group's policy
// (gang or basic) as a PlacementFeasible check, with its quorum declared so
// that placements that cannot hold it are skipped without simulation.
package gangscheduling

import (
	"fmt"
	"sync"

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
	_ fw.Stateless               = GangScheduling{}
)

// waitForMore is GangScheduling's Wait: its message is never shown (a
// group still waiting when its members run out is simply unschedulable).
var waitForMore = fw.NewStatus(fw.Wait).WithPlugin(Name)

// Name returns Name.
func (GangScheduling) Name() string { return Name }

// Stateless declares that its answers depend on the group and the
// progress alone (framework.Stateless).
func (GangScheduling) Stateless() {}

// PlacementFeasible is kube-scheduler's GangScheduling: Unschedulable when
// even every remaining member would not reach the quorum, Wait until it is
// reached, then Success.
func (GangScheduling) PlacementFeasible(g *fw.Group, p fw.Progress) *fw.Status {
	q := g.Policy().Quorum()
	switch {
	case p.Remaining+p.Scheduled < q:
		return cannotSatisfy(q, p.Scheduled, p.Remaining)
	case p.Scheduled < q:
		return waitForMore
	}
	return nil
}

// Quorum returns the group's policy quorum.
func (GangScheduling) Quorum(g *fw.Group) int { return g.Policy().Quorum() }

// cannotSatisfy is the Unschedulable status of a group that cannot reach
// its quorum q. A busy cluster's failed gangs end every placement they
// try with one, so the statuses of small groups are made once and shared
// (a Status is read-only).
func cannotSatisfy(q, scheduled, remaining int) *fw.Status {
	small := q <= maxShared && scheduled >= 0 && remaining >= 0
	key := [3]int{q, scheduled, remaining}
	if small {
		if st, ok := shared.Load(key); ok {
			return st.(*fw.Status)
		}
	}
	st := fw.NewStatus(fw.Unschedulable, fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", q, scheduled, remaining)).WithPlugin(Name)
	if small {
		shared.Store(key, st)
	}
	return st
}

// maxShared bounds the quorums whose statuses are shared: fewer than
// maxShared squared statuses for each.
const maxShared = 64

var shared sync.Map // [3]int{quorum, scheduled, remaining} -> *fw.Status
