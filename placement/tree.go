package placement

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// TreeNode is one group of a hierarchy to place in a cycle: a leaf
// PodGroup (Leaf set) or a CompositePodGroup (Composite set: the
// composite's Group, with its subtree's scheduled pods, and Children in
// their fixed order).
type TreeNode struct {
	Key       string
	Leaf      *GroupRequest
	Composite *fw.Group
	Children  []*TreeNode
}

// TreeResult is the outcome of placing a hierarchy: the verdict and, per
// leaf evaluated in the chosen (or, on failure, first) candidate, its
// result. A leaf's pods are bound only if the leaf and every composite
// above it succeeded.
type TreeResult struct {
	Err      error
	Feasible bool
	Message  string
	// Leaves holds one result per leaf evaluated, in the tree's
	// depth-first child order.
	Leaves []LeafResult
	// Changes are, for a composite's feasible candidate, the snapshot's
	// tentative changes its evaluation made before it was rolled back,
	// oldest first (as GroupResult.Changes): what the re-application of
	// the best candidate replays.
	Changes []cluster.Change
}

// LeafResult is one leaf's result in a TreeResult.
type LeafResult struct {
	Key string
	GroupResult
}

// Leaf returns the result of the leaf of the given key, or false when it
// was not evaluated. hint is where to look first (Leaves is in the tree's
// leaf order: a caller walking the leaves in order passes the index after
// the last found) and next is where to look for the next leaf.
func (t *TreeResult) Leaf(key string, hint int) (res *GroupResult, next int, ok bool) {
	for i := range t.Leaves {
		j := (hint + i) % len(t.Leaves)
		if t.Leaves[j].Key == key {
			return &t.Leaves[j].GroupResult, j + 1, true
		}
	}
	return nil, hint, false
}

// Assignments returns the placed pods of the feasible leaves, leaves in
// the tree's depth-first child order.
func (t *TreeResult) Assignments(root *TreeNode) []fw.Assignment {
	var out []fw.Assignment
	next := 0 // the leaves are in the tree's order: each found where the last left off
	var walk func(n *TreeNode)
	walk = func(n *TreeNode) {
		if n.Leaf != nil {
			if r, at, ok := t.Leaf(n.Key, next); ok {
				next = at
				if r.Feasible {
					out = append(out, r.Assignments...)
				}
			}
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return out
}

// ScheduleTree places a hierarchy within the parent placement (docs/semantics.md
// §9): a composite's candidate placements are generated within its
// parent's; in each, its children are placed recursively in their fixed
// order, each keeping its tentative assignments so that later siblings
// see them, and after each child PlacementFeasible judges whether the
// composite's policy can still be met (if not, the candidate is abandoned
// at once). Every candidate is rolled back after evaluation; the feasible
// ones are scored over all the pods proposed below them, and the best is
// re-applied (its recorded changes replayed). A leaf runs Schedule. On
// success the chosen assignments stay reserved in snap.
//
// The search is greedy: children are placed in a fixed order with no
// backtracking, so a placement needing another order or another split of
// the parent's domain among the children can be missed.
func (gs *GroupScheduler) ScheduleTree(snap *cluster.Snapshot, n *TreeNode, parent fw.Placement) TreeResult {
	if n.Leaf != nil {
		res := gs.Schedule(snap, *n.Leaf, parent)
		return TreeResult{Err: res.Err, Feasible: res.Feasible, Message: res.Message, Leaves: []LeafResult{{Key: n.Key, GroupResult: res}}}
	}
	placements, err := gs.generate(snap, n.Composite, parent)
	if err != nil {
		return TreeResult{Err: err, Message: err.Error()}
	}
	if len(placements) == 0 {
		return TreeResult{Message: noPlacementsMessage(snap, n.Composite, parent)}
	}
	var first *TreeResult
	var feasible []treeCandidate
	for i := range placements {
		res := gs.evaluateComposite(snap, n, placements[i])
		if res.Err != nil {
			return res
		}
		if first == nil {
			first = &res
		}
		if res.Feasible {
			feasible = append(feasible, treeCandidate{placement: &placements[i], result: res, proposed: res.Assignments(n)})
		}
	}
	if len(feasible) == 0 {
		first.Message = fmt.Sprintf("0/%d placements are available, first placement status: %s", len(placements), first.Message)
		next := 0
		clearAssignments(first, n, first.Message, &next)
		return *first
	}
	best := 0
	if len(feasible) > 1 && len(gs.Scorers) > 0 {
		cands := make([]candidate, len(feasible))
		for i, f := range feasible {
			cands[i] = candidate{placement: f.placement, result: GroupResult{Assignments: f.proposed}}
		}
		totals, err := gs.totals(snap, n.Composite, cands)
		if err != nil {
			return TreeResult{Err: err, Message: err.Error()}
		}
		for i := range totals {
			if totals[i] > totals[best] {
				best = i
			}
		}
	}
	if err := snap.Replay(feasible[best].result.Changes); err != nil {
		return TreeResult{Err: err, Message: err.Error()}
	}
	return feasible[best].result
}

type treeCandidate struct {
	placement *fw.Placement
	result    TreeResult
	proposed  []fw.Assignment
}

// evaluateComposite places a composite's children within one candidate
// placement and rolls the snapshot back.
func (gs *GroupScheduler) evaluateComposite(snap *cluster.Snapshot, n *TreeNode, p fw.Placement) TreeResult {
	cp := snap.Checkpoint()
	defer snap.Rollback(cp)
	res := TreeResult{}
	walk := gs.startQuorum(n.Composite, fw.Progress{Remaining: len(n.Children)})
	for _, child := range n.Children {
		if walk.over() {
			break
		}
		cr := gs.ScheduleTree(snap, child, p)
		if cr.Err != nil {
			return cr
		}
		res.Leaves = append(res.Leaves, cr.Leaves...)
		if !cr.Feasible {
			next := len(res.Leaves) - len(cr.Leaves)
			clearAssignments(&res, child, cr.Message, &next)
		}
		walk.step(cr.Feasible)
	}
	res.Feasible, res.Message, res.Err = walk.verdict()
	if res.Feasible {
		res.Changes = snap.AppendChanges(nil, cp)
	}
	return res
}

// clearAssignments marks every leaf under a failed composite as failed with
// the composite's message: its pods are not bound even where the leaf
// itself succeeded.
// next is where in res.Leaves to look first: the failed child's leaves
// were appended last, in its order.
func clearAssignments(res *TreeResult, n *TreeNode, msg string, next *int) {
	if n.Leaf != nil {
		if r, at, ok := res.Leaf(n.Key, *next); ok {
			*next = at
			if r.Feasible {
				r.Feasible, r.Assignments, r.Message = false, nil, msg
			}
		}
		return
	}
	for _, c := range n.Children {
		clearAssignments(res, c, msg, next)
	}
}
