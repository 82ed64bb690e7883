package placement

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement/internal/knowngroups"
)

// The GroupScheduler's side of the KnownGroupFailures shortcut
// (placement/internal/knowngroups): when it may answer, and the best-first
// search's calls into it.
//
// It answers only where an evaluation depends on its placement's nodes
// alone: the group is placed at the top (no parent placement), none of
// its pods is nominated or explained, every plugin of the profile is
// local for each of its pods (PodScheduler.localFor), every
// PlacementFeasible plugin is framework.Stateless, and every filter scan
// of the placement visits all its nodes (PodScheduler.scansAll), so that
// where the last scan stopped changes nothing but the next scan's start,
// which a pass replays.

// knownSearch is one best-first search as the shortcut follows it: what
// is known of the group (nil while nothing is, or where the shortcut
// cannot answer) and whether the search may start knowing.
//
// It does not hold the request, which each call that reads it is given:
// escape analysis does not tell a struct's fields apart, and the snapshot
// it holds is kept by what the shortcut knows, so a request held beside
// it would move to the heap at every search.
type knownSearch struct {
	gs         *GroupScheduler
	snap       *cluster.Snapshot
	placements []fw.Placement
	parent     fw.Placement
	known      *knowngroups.Group[GroupResult]
	// start tells that nothing was known when the search began: it starts
	// knowing at its first failure, so that a gang placed at once costs
	// the shortcut nothing
	start bool
}

// searchKnown follows a search of req among placements within parent.
func (gs *GroupScheduler) searchKnown(snap *cluster.Snapshot, req *GroupRequest, placements []fw.Placement, parent fw.Placement) knownSearch {
	s := knownSearch{gs: gs, snap: snap, placements: placements, parent: parent}
	s.known = s.knownGroup(req)
	s.start = s.known == nil
	return s
}

// recall is where the shortcut answers instead of an evaluation: it
// reports whether placement i is known infeasible with its nodes as they
// were, and then, for the first placement when the quorum bound let it
// through, its result. A placement the bound pruned (evaluateFirst
// evaluated it) the bound prunes again; one it let through fails again,
// its scan start replayed.
func (s *knownSearch) recall(i int) (bool, *GroupResult) {
	kg, ps := s.known, s.gs.Pods
	if kg == nil || !kg.Holds(s.snap, s.nominations(), i, &s.placements[i]) {
		return false, nil
	}
	if !kg.Bounded(i) {
		return true, nil
	}
	kg.Pass(i, &ps.nextStart)
	s.gs.known.Hits++
	if i == 0 {
		return true, kg.First()
	}
	return true, nil
}

// evaluate is the GroupScheduler's evaluation of placement i, the quorum
// bound having let it through, reservations kept when feasible; a failure
// is remembered.
func (s *knownSearch) evaluate(req *GroupRequest, i int) GroupResult {
	gs := s.gs
	scans := gs.Pods.scans
	res := gs.evaluate(s.snap, req, &s.placements[i], true)
	if res.Err != nil {
		return res
	}
	if res.Feasible {
		if s.known != nil {
			gs.known.Forget(req.Group.Ref.Key)
		}
		return res
	}
	s.startKnowing(req)
	s.remember(i, &res, gs.Pods.scans != scans, true)
	return res
}

// evaluateFirst is the evaluation of the first placement, which a search
// that found nothing reports, when the quorum bound pruned it: from what
// is known of it, or evaluated.
func (s *knownSearch) evaluateFirst(req *GroupRequest) *GroupResult {
	s.startKnowing(req)
	gs, p := s.gs, &s.placements[0]
	if kg := s.known; kg != nil && kg.Holds(s.snap, s.nominations(), 0, p) {
		kg.Pass(0, &gs.Pods.nextStart)
		gs.known.Hits++
		return kg.First()
	}
	scans := gs.Pods.scans
	res := gs.evaluate(s.snap, req, p, false)
	s.remember(0, &res, gs.Pods.scans != scans, false)
	return &res
}

// done records the end of a search that found nothing.
func (s *knownSearch) done() {
	if s.known != nil {
		s.known.Searched(s.snap, s.placements)
	}
}

// remember records placement i's evaluation when the shortcut can answer
// it later (see knowngroups.Group.Remember).
func (s *knownSearch) remember(i int, res *GroupResult, scanned, bounded bool) {
	if s.known == nil {
		return
	}
	p, ps := &s.placements[i], s.gs.Pods
	failed := res.Err == nil && !res.Feasible
	scansAll := failed && p.Nodes != nil && ps.scansAll(len(p.Nodes))
	s.known.Remember(s.snap, s.nominations(), i, p, res, failed, scansAll, scanned, bounded)
}

// startKnowing starts what is known of the search at its first failure,
// when nothing was known at its start.
func (s *knownSearch) startKnowing(req *GroupRequest) {
	if !s.start {
		return
	}
	s.start = false
	if !s.answers(req) {
		return
	}
	r := knownRequest(req.Group)
	s.known = s.gs.known.Start(s.snap, req.Group.Ref.Key, &r, len(s.placements))
}

// knownGroup returns what is known of the search, or nil when nothing is
// known of this request or the shortcut cannot answer it (what was known
// is then forgotten).
func (s *knownSearch) knownGroup(req *GroupRequest) *knowngroups.Group[GroupResult] {
	key := req.Group.Ref.Key
	r := knownRequest(req.Group)
	kg := s.gs.known.Known(s.snap, key, &r, len(s.placements))
	if kg != nil && !s.answers(req) {
		s.gs.known.Forget(key)
		return nil
	}
	return kg
}

// answers reports whether the shortcut can answer the search for req.
func (s *knownSearch) answers(req *GroupRequest) bool {
	ps := s.gs.Pods
	if ps.shortcuts.NoKnownGroups || s.parent.Nodes != nil || !allStateless(s.gs.Feasible) {
		return false
	}
	for i, pod := range req.Group.Pods {
		if req.nominated(i) >= 0 || ps.Explain != nil && ps.Explain(pod) || !ps.localFor(pod, s.snap) {
			return false
		}
	}
	return true
}

// nominations are the scheduler's, as the shortcut reads them.
func (s *knownSearch) nominations() knowngroups.Nominations {
	return s.gs.Pods.Nominations
}

// knownRequest is what identifies g's search.
func knownRequest(g *fw.Group) knowngroups.Request {
	return knowngroups.Request{PodGroup: g.PodGroup, Composite: g.Composite, Pods: g.Pods, Scheduled: g.Scheduled, ScheduledNodes: g.ScheduledNodes}
}

// allStateless reports whether every PlacementFeasible plugin declares
// framework.Stateless.
func allStateless(plugins []fw.PlacementFeasiblePlugin) bool {
	for _, pl := range plugins {
		if _, ok := pl.(fw.Stateless); !ok {
			return false
		}
	}
	return true
}

// KnownPlacements counts the placements the KnownGroupFailures shortcut
// passed over.
func (gs *GroupScheduler) KnownPlacements() int { return gs.known.Hits }
