package placement

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// PlacementFeasiblePlugin judges a group's progress after each pod:
// kube-scheduler's PlacementFeasible extension point. GangScheduling is the
// built-in.
type PlacementFeasiblePlugin interface {
	Name() string
	PlacementFeasible(g podgroup.QuorumPolicy, p podgroup.Progress) (podgroup.Feasibility, string)
}

// GangSchedulingName is the built-in PlacementFeasible plugin's name.
const GangSchedulingName = "GangScheduling"

// GangScheduling is the group policy as a PlacementFeasible plugin: a gang
// needs MinCount scheduled pods, a basic group one.
type GangScheduling struct{}

var _ PlacementFeasiblePlugin = GangScheduling{}

// Name returns GangSchedulingName.
func (GangScheduling) Name() string { return GangSchedulingName }

// PlacementFeasible applies the group's (or composite's) CheckQuorum.
func (GangScheduling) PlacementFeasible(g podgroup.QuorumPolicy, p podgroup.Progress) (podgroup.Feasibility, string) {
	return g.CheckQuorum(p)
}

// GroupRequest is one group to place in a cycle.
type GroupRequest struct {
	Group     *podgroup.PodGroup
	Pods      []*cluster.PodInfo // pending members, in cycle order
	Scheduled int                // members already assumed or bound
	// ScheduledNodes names the nodes of the members already scheduled;
	// topology placement pins the group to their domain.
	ScheduledNodes []string
	// Nominated holds, per pod of Pods, the snapshot index of the node
	// preemption nominated it to (tried first), or -1; nil for none.
	Nominated []int
}

// Subject describes the group for placement generation and scoring.
func (r *GroupRequest) Subject() *Subject {
	return &Subject{Name: r.Group.Name, TopologyKey: r.Group.TopologyKey, ScheduledNodes: r.ScheduledNodes, Scheduled: r.Scheduled}
}

func (r *GroupRequest) nominated(i int) int {
	if r.Nominated == nil {
		return -1
	}
	return r.Nominated[i]
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
	// Err is set when the group could not be evaluated at all (a topology
	// constraint its scheduled members break, a scorer failing): an error,
	// not a verdict on room.
	Err         error
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

// quorumWalk follows a group's progress as its members (pods, or children
// of a composite) are tried in order, asking PlacementFeasible after each.
type quorumWalk struct {
	plugins  []PlacementFeasiblePlugin
	policy   podgroup.QuorumPolicy
	progress podgroup.Progress
	answer   podgroup.Feasibility
	msg      string
}

// startQuorum asks PlacementFeasible before any member is tried.
func (gs *GroupScheduler) startQuorum(policy podgroup.QuorumPolicy, start podgroup.Progress) *quorumWalk {
	w := &quorumWalk{plugins: gs.Feasible, policy: policy, progress: start}
	w.answer, w.msg = runFeasible(w.plugins, policy, start)
	return w
}

// over reports whether the policy can no longer be met: stop at once.
func (w *quorumWalk) over() bool { return w.answer == podgroup.Infeasible }

// step records one member tried, placed or not, and asks again.
func (w *quorumWalk) step(placed bool) {
	w.progress.Remaining--
	if placed {
		w.progress.Scheduled++
	}
	w.answer, w.msg = runFeasible(w.plugins, w.policy, w.progress)
}

// verdict is the final answer: feasible, or why not (a group still
// waiting for members that never came is simply unschedulable).
func (w *quorumWalk) verdict() (bool, string) {
	switch w.answer {
	case podgroup.Feasible:
		return true, ""
	case podgroup.Wait:
		return false, errPodGroupUnschedulable
	}
	return false, w.msg
}

// runFeasible runs the PlacementFeasible plugins as kube-scheduler's
// framework does: Infeasible stops at once, Wait from any plugin makes the
// answer Wait, otherwise Feasible.
func runFeasible(plugins []PlacementFeasiblePlugin, g podgroup.QuorumPolicy, p podgroup.Progress) (podgroup.Feasibility, string) {
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
	res := GroupResult{}
	walk := gs.startQuorum(req.Group, podgroup.Progress{Remaining: len(req.Pods), Scheduled: req.Scheduled})
	for i, pod := range req.Pods {
		if walk.over() {
			break
		}
		node, fitErr := gs.Pods.ScheduleNominated(snap, pod, nodes, req.nominated(i))
		res.Evaluated++
		if fitErr == nil {
			snap.Reserve(pod, node)
			res.Assignments = append(res.Assignments, Assignment{Pod: pod, Node: node})
		} else {
			res.Failures = append(res.Failures, PodFailure{Pod: pod, Err: fitErr})
		}
		walk.step(fitErr == nil)
	}
	var msg string
	res.Feasible, msg = walk.verdict()
	if !res.Feasible {
		res.Message = msg
		res.Assignments = nil
		snap.Rollback(cp)
	}
	return res
}

// GroupScheduler places a group: it generates candidate placements, runs
// the sequential algorithm in each on the cycle's snapshot (rolling back
// after each), scores the feasible ones and re-applies the best
// (docs/semantics.md §6). With no generator, or a group without a topology key,
// the parent placement is the only candidate and this is exactly S5a.
//
// Ties between placements with equal total scores go to the first in
// generation order (label-value order for topology domains).
type GroupScheduler struct {
	Pods      *PodScheduler
	Feasible  []PlacementFeasiblePlugin
	Generator PlacementGeneratePlugin // nil: the parent placement only
	Scorers   []WeightedPlacementScorer
}

// candidate is one evaluated placement.
type candidate struct {
	placement *Placement
	result    GroupResult
}

// Schedule places req within the parent placement (Nodes nil: every
// node). On success the chosen assignments are left reserved in snap, so
// that a caller placing more groups in the same cycle sees them; the caller
// rolls the snapshot back once it has committed or discarded them.
func (gs *GroupScheduler) Schedule(snap *cluster.Snapshot, req GroupRequest, parent Placement) GroupResult {
	placements := []Placement{parent}
	if gs.Generator != nil {
		var err error
		if placements, err = gs.Generator.GeneratePlacements(snap, req.Subject(), parent); err != nil {
			return GroupResult{Err: err, Message: err.Error()}
		}
	}
	if len(placements) == 0 {
		return GroupResult{Message: "no feasible placements found"}
	}
	need := gs.quorum(&req)
	bound := newQuorumBound(&req, need)
	if need == len(req.Pods) && len(placements) > 1 && gs.scoresIgnoreNodes() {
		return gs.scheduleBestFirst(snap, &req, placements, bound)
	}
	var first *GroupResult
	var feasible []candidate
	for i := range placements {
		if i > 0 && !bound.mayFit(snap, placements[i].Nodes) {
			continue // cannot reach the quorum: fails without simulation
		}
		res := gs.evaluate(snap, &req, &placements[i])
		if first == nil {
			first = &res
		}
		if res.Feasible {
			feasible = append(feasible, candidate{placement: &placements[i], result: res})
		}
	}
	if len(feasible) == 0 {
		return noPlacement(*first, len(placements))
	}
	best, err := gs.best(snap, &req, feasible)
	if err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	return reapply(snap, best)
}

// evaluate runs the sequential algorithm in one placement and rolls the
// snapshot back.
func (gs *GroupScheduler) evaluate(snap *cluster.Snapshot, req *GroupRequest, p *Placement) GroupResult {
	cp := snap.Checkpoint()
	res := gs.scheduleInPlacement(snap, req, p.Nodes)
	snap.Rollback(cp)
	if res.Feasible {
		res.Placement = p.Name
	}
	return res
}

func noPlacement(first GroupResult, n int) GroupResult {
	first.Message = fmt.Sprintf("0/%d placements are available, first placement status: %s", n, first.Message)
	return first
}

func reapply(snap *cluster.Snapshot, best GroupResult) GroupResult {
	for _, a := range best.Assignments {
		snap.Reserve(a.Pod, a.Node)
	}
	return best
}

// NodeIndependentScorer marks a placement score plugin whose score depends
// only on which of the group's pods a placement takes, not on the nodes
// they land on (both built-ins qualify).
type NodeIndependentScorer interface {
	ScoreIgnoresNodes()
}

func (gs *GroupScheduler) scoresIgnoreNodes() bool {
	for _, ws := range gs.Scorers {
		if _, ok := ws.Plugin.(NodeIndependentScorer); !ok {
			return false
		}
	}
	return true
}

// scheduleBestFirst is Schedule for the common all-or-nothing case: every
// pending pod is needed for the quorum, so a feasible placement takes
// exactly all of them, and with node-independent scorers its score is
// known before simulating it. Candidates are simulated best score first
// (generation order among equals) and the first feasible one is the one
// evaluating them all would pick. The cost per group is then one
// simulation in the usual case, not one per domain.
func (gs *GroupScheduler) scheduleBestFirst(snap *cluster.Snapshot, req *GroupRequest, placements []Placement, bound quorumBound) GroupResult {
	all := make([]Assignment, len(req.Pods))
	for i, p := range req.Pods {
		all[i] = Assignment{Pod: p, Node: -1}
	}
	cands := make([]candidate, len(placements))
	for i := range placements {
		cands[i] = candidate{placement: &placements[i], result: GroupResult{Assignments: all}}
	}
	totals, err := gs.totals(snap, req.Subject(), cands)
	if err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	order := make([]int, len(placements))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(totals[b], totals[a]) })
	var first *GroupResult
	for _, i := range order {
		if !bound.mayFit(snap, placements[i].Nodes) {
			continue
		}
		res := gs.evaluate(snap, req, &placements[i])
		if res.Feasible {
			return reapply(snap, res)
		}
		if i == 0 {
			first = &res
		}
	}
	if first == nil { // the first placement was pruned: its status is still the one reported
		res := gs.evaluate(snap, req, &placements[0])
		first = &res
	}
	return noPlacement(*first, len(placements))
}

// quorum is what the PlacementFeasible plugins need placed at least: the
// built-in GangScheduling's quorum; other plugins make no promise, so no
// pruning happens with them.
func (gs *GroupScheduler) quorum(req *GroupRequest) int {
	for _, pl := range gs.Feasible {
		if _, ok := pl.(GangScheduling); !ok {
			return 0
		}
	}
	return req.Group.Quorum() - req.Scheduled
}

// best scores the feasible candidates and returns the winner: the highest
// total, the first in generation order among equals. A lone candidate is
// taken unscored.
func (gs *GroupScheduler) best(snap *cluster.Snapshot, req *GroupRequest, cands []candidate) (GroupResult, error) {
	if len(cands) == 1 || len(gs.Scorers) == 0 {
		return cands[0].result, nil
	}
	totals, err := gs.totals(snap, req.Subject(), cands)
	if err != nil {
		return GroupResult{}, err
	}
	win := 0
	for i := range cands {
		if totals[i] > totals[win] {
			win = i
		}
	}
	return cands[win].result, nil
}

// totals runs the PlacementScore plugins over the candidates: score,
// normalise, check the range, weight and sum.
func (gs *GroupScheduler) totals(snap *cluster.Snapshot, subj *Subject, cands []candidate) ([]int64, error) {
	totals := make([]int64, len(cands))
	scores := make([]int64, len(cands))
	for _, ws := range gs.Scorers {
		for i, c := range cands {
			scores[i] = ws.Plugin.ScorePlacement(snap, subj, c.placement, c.result.Assignments)
		}
		if nz, ok := ws.Plugin.(PlacementScoreNormalizer); ok {
			if err := nz.NormalizePlacementScores(scores); err != nil {
				return nil, fmt.Errorf("placement score %s: %w", ws.Plugin.Name(), err)
			}
		}
		for i, sc := range scores {
			if sc < 0 || sc > MaxNodeScore {
				return nil, fmt.Errorf("placement score %s gave %d for placement %q, outside 0..%d", ws.Plugin.Name(), sc, cands[i].placement.Name, MaxNodeScore)
			}
			totals[i] += sc * ws.Weight
		}
	}
	return totals, nil
}

// Placement is a candidate set of nodes for a group (snapshot indexes;
// nil means every node).
type Placement struct {
	Name  string
	Nodes []int
}
