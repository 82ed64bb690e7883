package placement

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement/internal/knowngroups"
)

// GroupRequest is one PodGroup to place in a cycle.
type GroupRequest struct {
	Group *fw.Group // Pods in cycle order, Scheduled, ScheduledNodes
	// Nominated holds, per pod of Group.Pods, the snapshot index of the
	// node preemption nominated it to (tried first), or -1; nil for none.
	Nominated []int
}

func (r *GroupRequest) nominated(i int) int {
	if r.Nominated == nil {
		return -1
	}
	return r.Nominated[i]
}

// PodFailure is a member that fit no node of a placement.
type PodFailure struct {
	Pod *cluster.PodInfo
	Err *fw.FitError
}

// GroupResult is the outcome of the group algorithm.
type GroupResult struct {
	// Err is set when the group could not be evaluated at all (a topology
	// constraint its scheduled members break, a plugin failing): an error,
	// not a verdict on room.
	Err         error
	Feasible    bool
	Message     string // on failure, kube-scheduler's group status message
	Placement   string // the chosen placement's name ("" for all nodes)
	Assignments []fw.Assignment
	// Failures lists, for the reported placement (the chosen one, or the
	// first evaluated when none was feasible), the pods that fit no node;
	// Evaluated counts the pods tried there before the attempt stopped.
	Failures  []PodFailure
	Evaluated int
	// Tried are, on failure, the pods placed before the attempt stopped
	// and their nodes, whose reservations were rolled back.
	Tried []fw.Assignment
	// Changes are, for a feasible result whose evaluation was rolled
	// back, the snapshot's tentative changes that evaluation made, oldest
	// first: each placed pod's reservation followed by its Reserve
	// plugins' changes (claims). The best placement is re-applied by
	// replaying them; a result whose reservations were kept (the first
	// feasible one of a best-first search) needs none. A cycle commits
	// the snapshot's changes.
	Changes []cluster.Change
}

// errPodGroupUnschedulable is kube-scheduler's message for a group that
// did not reach its quorum without a more specific reason.
const errPodGroupUnschedulable = "pod group is unschedulable"

// quorumWalk follows a group's progress as its members (pods, or children
// of a composite) are tried in order, asking PlacementFeasible after each.
type quorumWalk struct {
	plugins  []fw.PlacementFeasiblePlugin
	group    *fw.Group
	progress fw.Progress
	answer   *fw.Status
}

// startQuorum asks PlacementFeasible before any member is tried.
func (gs *GroupScheduler) startQuorum(g *fw.Group, start fw.Progress) quorumWalk {
	return quorumWalk{plugins: gs.Feasible, group: g, progress: start, answer: runFeasible(gs.Feasible, g, start)}
}

// over reports whether the policy can no longer be met (or a plugin
// failed): stop at once.
func (w *quorumWalk) over() bool {
	c := w.answer.Code()
	return c != fw.Success && c != fw.Wait
}

// step records one member tried, placed or not, and asks again.
func (w *quorumWalk) step(placed bool) {
	w.progress.Remaining--
	if placed {
		w.progress.Scheduled++
	}
	w.answer = runFeasible(w.plugins, w.group, w.progress)
}

// verdict is the final answer: feasible, or why not (a group still
// waiting for members that never came is simply unschedulable), or a
// plugin's error.
func (w *quorumWalk) verdict() (bool, string, error) {
	switch w.answer.Code() {
	case fw.Success:
		return true, "", nil
	case fw.Wait:
		return false, errPodGroupUnschedulable, nil
	case fw.Error:
		return false, w.answer.Message(), w.answer.AsError()
	}
	return false, w.answer.Message(), nil
}

// runFeasible runs the PlacementFeasible plugins as kube-scheduler's
// framework does: Unschedulable (or worse) stops at once, Wait from any
// plugin makes the answer Wait, otherwise Success.
func runFeasible(plugins []fw.PlacementFeasiblePlugin, g *fw.Group, p fw.Progress) *fw.Status {
	var out *fw.Status
	for _, pl := range plugins {
		switch st := pl.PlacementFeasible(g, p); st.Code() {
		case fw.Success:
		case fw.Wait:
			out = st
		default:
			return named(st, pl)
		}
	}
	return out
}

// scheduleInPlacement is the sequential PodGroup algorithm (docs/semantics.md
// §5) on the nodes of one placement: each pod in order is filtered and
// scored; if a node fits it is assumed there (reserved in the snapshot,
// so later pods see it, and the Reserve plugins run; a Reserve failure
// leaves the pod unplaced, as a pod that fits no node); after each pod
// PlacementFeasible judges the progress. On success the reservations stay
// in the snapshot; on failure they are rolled back.
func (gs *GroupScheduler) scheduleInPlacement(snap *cluster.Snapshot, req *GroupRequest, nodes []int) GroupResult {
	cp := snap.Checkpoint()
	res := GroupResult{}
	g := req.Group
	walk := gs.startQuorum(g, fw.Progress{Remaining: len(g.Pods), Scheduled: g.Scheduled})
	for i, pod := range g.Pods {
		if walk.over() {
			break
		}
		node, fitErr := gs.Pods.Schedule(snap, pod, nodes, req.nominated(i))
		res.Evaluated++
		if fitErr == nil {
			if st := gs.Pods.Assume(snap, pod, node); st != nil {
				fitErr = ReserveFailure(pod, node, st)
			}
		}
		if fitErr == nil {
			res.Assignments = append(res.Assignments, fw.Assignment{Pod: pod, Node: node})
		} else {
			res.Failures = append(res.Failures, PodFailure{Pod: pod, Err: fitErr})
		}
		walk.step(fitErr == nil)
	}
	res.Feasible, res.Message, res.Err = walk.verdict()
	if !res.Feasible {
		res.Tried, res.Assignments = res.Assignments, nil
		snap.Rollback(cp)
	}
	return res
}

// ReserveFailure is the FitError of a pod whose Reserve failed on the
// node chosen for it: that node's rejection alone, as kube-scheduler
// reports it.
func ReserveFailure(pod *cluster.PodInfo, node int, st *fw.Status) *fw.FitError {
	return &fw.FitError{Pod: pod.Key(), NumAllNodes: 1, Statuses: []fw.NodeStatus{{Node: node, Status: st}}}
}

// WeightedPlacementScorer is a placement score plugin with its weight.
type WeightedPlacementScorer struct {
	Plugin fw.PlacementScorePlugin
	Weight int64
}

// GroupScheduler places a group: it generates candidate placements, runs
// the sequential algorithm in each on the cycle's snapshot (rolling back
// after each), scores the feasible ones and re-applies the best
// (docs/semantics.md §6). With no generator, or a group without a
// topology key, the parent placement is the only candidate and this is
// exactly the sequential algorithm.
//
// Ties between placements with equal total scores go to the first in
// generation order (label-value order for topology domains).
type GroupScheduler struct {
	Pods      *PodScheduler
	Feasible  []fw.PlacementFeasiblePlugin
	Generator fw.PlacementGeneratePlugin // nil: the parent placement only
	Scorers   []WeightedPlacementScorer

	spare []candidate // scheduleBestFirst's candidates, reused; nil while in use
	// known is the KnownGroupFailures shortcut's (known_groups.go)
	known knowngroups.Groups[GroupResult]
}

// candidate is one evaluated placement.
type candidate struct {
	placement *fw.Placement
	result    GroupResult
}

// generate asks the generator for candidates within parent.
func (gs *GroupScheduler) generate(snap *cluster.Snapshot, g *fw.Group, parent fw.Placement) ([]fw.Placement, error) {
	if gs.Generator == nil {
		return []fw.Placement{parent}, nil
	}
	ps, st := gs.Generator.GeneratePlacements(snap, g, parent)
	if !st.IsSuccess() {
		return nil, named(st, gs.Generator).AsError()
	}
	return ps, nil
}

// noPlacementsMessage is kube-scheduler's message when no placement was
// generated, with the cause when it is that no node (of the parent's
// placement) carries the group's topology key.
func noPlacementsMessage(snap *cluster.Snapshot, g *fw.Group, parent fw.Placement) string {
	const msg = "no feasible placements found"
	key := g.TopologyKey()
	if key == "" {
		return msg
	}
	doms := snap.Domains(key)
	carried := false
	if parent.Nodes == nil {
		carried = len(doms.Values) > 0
	} else {
		carried = slices.ContainsFunc(parent.Nodes, func(i int) bool { return doms.NodeDomain[i] >= 0 })
	}
	if carried {
		return msg
	}
	where := "no node"
	if parent.Nodes != nil {
		where = "no node of the parent's placement"
	}
	return fmt.Sprintf("%s: %s carries the topology key %q", msg, where, key)
}

// Schedule places req within the parent placement (Nodes nil: every
// node). On success the chosen assignments are left reserved in snap, so
// that a caller placing more groups in the same cycle sees them; the caller
// rolls the snapshot back once it has committed or discarded them.
func (gs *GroupScheduler) Schedule(snap *cluster.Snapshot, req GroupRequest, parent fw.Placement) GroupResult {
	placements, err := gs.generate(snap, req.Group, parent)
	if err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	if len(placements) == 0 {
		return GroupResult{Message: noPlacementsMessage(snap, req.Group, parent)}
	}
	need := gs.quorum(&req)
	bound := newQuorumBound(&req, need)
	if need == len(req.Group.Pods) && len(placements) > 1 && gs.scoresIgnoreNodes() {
		return gs.scheduleBestFirst(snap, &req, placements, parent, bound)
	}
	var first GroupResult // the first placement's, always evaluated
	var feasible []candidate
	for i := range placements {
		if i > 0 && !bound.mayFit(snap, &placements[i]) {
			continue // cannot reach the quorum: fails without simulation
		}
		res := gs.evaluate(snap, &req, &placements[i], false)
		if res.Err != nil {
			return res
		}
		if i == 0 {
			first = res
		}
		if res.Feasible {
			feasible = append(feasible, candidate{placement: &placements[i], result: res})
		}
	}
	if len(feasible) == 0 {
		return noPlacement(first, len(placements))
	}
	best, err := gs.best(snap, req.Group, feasible)
	if err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	return reapply(snap, best)
}

// evaluate runs the sequential algorithm in one placement and rolls the
// snapshot back, recording a feasible result's changes for reapply; with
// keep, a feasible result's reservations stay in the snapshot instead.
func (gs *GroupScheduler) evaluate(snap *cluster.Snapshot, req *GroupRequest, p *fw.Placement, keep bool) GroupResult {
	cp := snap.Checkpoint()
	res := gs.scheduleInPlacement(snap, req, p.Nodes)
	if res.Feasible {
		res.Placement = p.Name
		if keep {
			return res
		}
		res.Changes = snap.AppendChanges(nil, cp)
	}
	snap.Rollback(cp)
	return res
}

func noPlacement(first GroupResult, n int) GroupResult {
	first.Message = fmt.Sprintf("0/%d placements are available, first placement status: %s", n, first.Message)
	return first
}

// reapply makes the best placement's changes again on the snapshot its
// evaluation was rolled back from: the pods' reservations and their
// Reserve plugins' changes, replayed without running plugins (the pods'
// cycle states are gone).
func reapply(snap *cluster.Snapshot, best GroupResult) GroupResult {
	if err := snap.Replay(best.Changes); err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	return best
}

// FeasibleStateless reports whether every PlacementFeasible plugin is
// framework.Stateless: a group's verdict then depends on its progress
// alone.
func (gs *GroupScheduler) FeasibleStateless() bool { return allStateless(gs.Feasible) }

// Placements returns the candidates of g's search within parent, when a
// stateless generator (or none) makes them: they are then the same while
// the nodes are.
func (gs *GroupScheduler) Placements(snap *cluster.Snapshot, g *fw.Group, parent fw.Placement) ([]fw.Placement, bool) {
	if gs.Generator != nil {
		if _, ok := gs.Generator.(fw.Stateless); !ok {
			return nil, false
		}
	}
	ps, err := gs.generate(snap, g, parent)
	return ps, err == nil && len(ps) > 0
}

func (gs *GroupScheduler) scoresIgnoreNodes() bool {
	for _, ws := range gs.Scorers {
		if _, ok := ws.Plugin.(fw.NodeIndependentScorer); !ok {
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
//
// A placement the search found infeasible before and whose nodes did not
// change since is passed over (known_groups.go).
func (gs *GroupScheduler) scheduleBestFirst(snap *cluster.Snapshot, req *GroupRequest, placements []fw.Placement, parent fw.Placement, bound quorumBound) GroupResult {
	all := make([]fw.Assignment, len(req.Group.Pods))
	for i, p := range req.Group.Pods {
		all[i] = fw.Assignment{Pod: p, Node: -1}
	}
	// one list per call, reused by the next (a nested call makes its own)
	cands := slices.Grow(gs.spare[:0], len(placements))[:len(placements)]
	gs.spare = nil
	defer func() {
		clear(cands)
		gs.spare = cands[:0]
	}()
	for i := range placements {
		cands[i] = candidate{placement: &placements[i], result: GroupResult{Assignments: all}}
	}
	totals, err := gs.totals(snap, req.Group, cands)
	if err != nil {
		return GroupResult{Err: err, Message: err.Error()}
	}
	order := bestFirst(totals)
	known := gs.searchKnown(snap, req, placements, parent)
	var first *GroupResult
	var firstRes GroupResult // placement 0's evaluation, kept where first points (not each res on the heap)
	for _, i := range order {
		// a placement known infeasible, its nodes as they were, is
		// passed over as its evaluation would fail again (known_groups.go)
		if recalled, res := known.recall(i); recalled {
			if res != nil {
				first = res
			}
			continue
		}
		if !bound.mayFit(snap, &placements[i]) {
			continue
		}
		// all or nothing: a failure in a placement but the first is
		// never reported
		gs.Pods.unreported = i != 0
		res := known.evaluate(req, i)
		gs.Pods.unreported = false
		if res.Err != nil || res.Feasible {
			return res // an error, or the best: its reservations were kept
		}
		if i == 0 {
			firstRes = res
			first = &firstRes
		}
	}
	if first == nil { // the first placement was pruned: its status is still the one reported
		first = known.evaluateFirst(req)
	}
	known.done()
	return noPlacement(*first, len(placements))
}

// bestFirst orders the candidates by total score, highest first, the
// first in generation order among equals (a stable sort). Totals that
// fit in 43 bits are sorted packed with their index, as plain integers:
// a gang's search sorts its candidates at every retry.
func bestFirst(totals []int64) []int {
	order := make([]int, len(totals))
	const indexBits, maxTotal = 20, 1 << 43
	packed := len(totals) < 1<<indexBits
	for _, t := range totals {
		packed = packed && t >= 0 && t < maxTotal
	}
	if !packed {
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(totals[b], totals[a]) })
		return order
	}
	keys := make([]int64, len(totals))
	for i, t := range totals {
		keys[i] = (maxTotal-1-t)<<indexBits | int64(i)
	}
	slices.Sort(keys)
	for i, k := range keys {
		order[i] = int(k & (1<<indexBits - 1))
	}
	return order
}

// quorum is what the PlacementFeasible plugins need placed at least, when
// every one declares it (QuorumPlugin); otherwise 0 and no pruning.
func (gs *GroupScheduler) quorum(req *GroupRequest) int {
	need := 0
	for _, pl := range gs.Feasible {
		q, ok := pl.(fw.QuorumPlugin)
		if !ok {
			return 0
		}
		need = max(need, q.Quorum(req.Group))
	}
	return need - req.Group.Scheduled
}

// best scores the feasible candidates and returns the winner: the highest
// total, the first in generation order among equals. A lone candidate is
// taken unscored.
func (gs *GroupScheduler) best(snap *cluster.Snapshot, g *fw.Group, cands []candidate) (GroupResult, error) {
	if len(cands) == 1 || len(gs.Scorers) == 0 {
		return cands[0].result, nil
	}
	totals, err := gs.totals(snap, g, cands)
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

// ErrPlacementScore is wrapped by placement scoring failures.
var ErrPlacementScore = errors.New("placement: placement score")

// totals runs the PlacementScore plugins over the candidates: score,
// normalise, check the range, weight and sum.
func (gs *GroupScheduler) totals(snap *cluster.Snapshot, g *fw.Group, cands []candidate) ([]int64, error) {
	totals := make([]int64, len(cands))
	scores := make([]int64, len(cands))
	for _, ws := range gs.Scorers {
		for i, c := range cands {
			v, st := ws.Plugin.ScorePlacement(snap, g, c.placement, c.result.Assignments)
			if !st.IsSuccess() {
				return nil, fmt.Errorf("%w %s: %v", ErrPlacementScore, ws.Plugin.Name(), st.Message())
			}
			scores[i] = v
		}
		if nz, ok := ws.Plugin.(fw.PlacementScoreNormalizer); ok {
			if st := nz.NormalizePlacementScores(g, scores); !st.IsSuccess() {
				return nil, fmt.Errorf("%w %s: %v", ErrPlacementScore, ws.Plugin.Name(), st.Message())
			}
		}
		for i, sc := range scores {
			if sc < 0 || sc > fw.MaxNodeScore {
				return nil, fmt.Errorf("%w %s gave %d for placement %q, outside 0..%d", ErrPlacementScore, ws.Plugin.Name(), sc, cands[i].placement.Name, fw.MaxNodeScore)
			}
			totals[i] += sc * ws.Weight
		}
	}
	return totals, nil
}
