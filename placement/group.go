package placement

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// PlacementFeasiblePlugin judges a group's progress after each pod:
// kube-scheduler's PlacementFeasible extension point. GangScheduling is the
// built-in.
type PlacementFeasiblePlugin interface {
	Name() string
	PlacementFeasible(g *podgroup.PodGroup, p podgroup.Progress) (podgroup.Feasibility, string)
}

// GangSchedulingName is the built-in PlacementFeasible plugin's name.
const GangSchedulingName = "GangScheduling"

// GangScheduling is the group policy as a PlacementFeasible plugin: a gang
// needs MinCount scheduled pods, a basic group one.
type GangScheduling struct{}

var _ PlacementFeasiblePlugin = GangScheduling{}

// Name returns GangSchedulingName.
func (GangScheduling) Name() string { return GangSchedulingName }

// PlacementFeasible applies PodGroup.CheckQuorum.
func (GangScheduling) PlacementFeasible(g *podgroup.PodGroup, p podgroup.Progress) (podgroup.Feasibility, string) {
	return g.CheckQuorum(p)
}

// GroupRequest is one group to place in a cycle.
type GroupRequest struct {
	Group     *podgroup.PodGroup
	Pods      []*cluster.PodInfo // pending members, in cycle order
	Scheduled int                // members already assumed or bound
}

// Assignment is a pod placed on a node (snapshot index).
type Assignment struct {
	Pod  *cluster.PodInfo
	Node int
}

// PodFailure is a member that fit no node of a placement.
type PodFailure struct {
	Pod *cluster.PodInfo
	Err *FitError
}

// GroupResult is the outcome of the group algorithm.
type GroupResult struct {
	Feasible    bool
	Message     string // on failure, kube-scheduler's group status message
	Placement   string // the chosen placement's name ("" for all nodes)
	Assignments []Assignment
	// Failures lists, for the reported placement (the chosen one, or the
	// first evaluated when none was feasible), the pods that fit no node;
	// Evaluated counts the pods tried there before the attempt stopped.
	Failures  []PodFailure
	Evaluated int
}

// errPodGroupUnschedulable is kube-scheduler's message for a group that
// did not reach its quorum without a more specific reason.
const errPodGroupUnschedulable = "pod group is unschedulable"

// runFeasible runs the PlacementFeasible plugins as kube-scheduler's
// framework does: Infeasible stops at once, Wait from any plugin makes the
// answer Wait, otherwise Feasible.
func runFeasible(plugins []PlacementFeasiblePlugin, g *podgroup.PodGroup, p podgroup.Progress) (podgroup.Feasibility, string) {
	out, msg := podgroup.Feasible, ""
	for _, pl := range plugins {
		switch f, m := pl.PlacementFeasible(g, p); f {
		case podgroup.Infeasible:
			return f, m
		case podgroup.Wait:
			out, msg = podgroup.Wait, m
		}
	}
	return out, msg
}

// scheduleInPlacement is the sequential PodGroup algorithm (S5a) on the
// nodes of one placement: each pod in order is filtered and scored; if a
// node fits it is reserved in the snapshot, so later pods see it; after
// each pod PlacementFeasible judges the progress. On success the
// reservations stay in the snapshot; on failure they are rolled back.
func (gs *GroupScheduler) scheduleInPlacement(snap *cluster.Snapshot, req *GroupRequest, nodes []int) GroupResult {
	cp := snap.Checkpoint()
	progress := podgroup.Progress{Remaining: len(req.Pods), Scheduled: req.Scheduled}
	res := GroupResult{}
	f, msg := runFeasible(gs.Feasible, req.Group, progress)
	if f == podgroup.Infeasible {
		res.Message = msg
		return res
	}
	for _, pod := range req.Pods {
		node, fitErr := gs.Pods.Schedule(snap, pod, nodes)
		res.Evaluated++
		progress.Remaining--
		if fitErr == nil {
			snap.Reserve(pod, node)
			res.Assignments = append(res.Assignments, Assignment{Pod: pod, Node: node})
			progress.Scheduled++
		} else {
			res.Failures = append(res.Failures, PodFailure{Pod: pod, Err: fitErr})
		}
		if f, msg = runFeasible(gs.Feasible, req.Group, progress); f == podgroup.Infeasible {
			break
		}
	}
	switch f {
	case podgroup.Feasible:
		res.Feasible = true
	case podgroup.Wait:
		msg = errPodGroupUnschedulable
	}
	if !res.Feasible {
		res.Message = msg
		res.Assignments = nil
		snap.Rollback(cp)
	}
	return res
}

// GroupScheduler places a group: it generates candidate placements, runs
// the sequential algorithm in each on the cycle's snapshot (rolling back
// after each), scores the feasible ones and re-applies the best. With no
// generator there is one placement: the candidate nodes given.
type GroupScheduler struct {
	Pods     *PodScheduler
	Feasible []PlacementFeasiblePlugin
}

// Schedule places req within candidates (snapshot indexes; nil for all
// nodes). On success the chosen assignments are left reserved in snap, so
// that a caller placing more groups in the same cycle sees them; the caller
// rolls the snapshot back once it has committed or discarded them.
func (gs *GroupScheduler) Schedule(snap *cluster.Snapshot, req GroupRequest, candidates []int) GroupResult {
	placements := []Placement{{Nodes: candidates}}
	var first *GroupResult
	for i := range placements {
		res := gs.scheduleInPlacement(snap, &req, placements[i].Nodes)
		if res.Feasible {
			res.Placement = placements[i].Name
			return res
		}
		if first == nil {
			first = &res
		}
	}
	first.Message = fmt.Sprintf("0/%d placements are available, first placement status: %s", len(placements), first.Message)
	return *first
}

// Placement is a candidate set of nodes for a group (snapshot indexes;
// nil means every node).
type Placement struct {
	Name  string
	Nodes []int
}
