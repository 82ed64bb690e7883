package placement

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement/internal/memo"
)

// The PodScheduler's side of its memo (placement/internal/memo): the
// switches, the one call Schedule makes, and what the memo leaves to the
// scheduler.

// Shortcuts switches off the PodScheduler's shortcuts, each a cache that
// never changes a decision; the zero value has them all on.
type Shortcuts struct {
	// NoMemo runs every plugin for every pod and node: no verdict or
	// score is remembered per signature, no failure reused, and so no
	// memo tree (placement/internal/memo).
	NoMemo bool
	// NoTree answers by the memo's column, or scans node by node, where
	// the memo tree would find the scan's pick without visiting the
	// nodes.
	NoTree bool
	// NoColumn answers by the memo tree, or scans node by node, where the
	// memo's column (its dense scan of remembered scores) would.
	NoColumn bool
	// NoKnownGroups evaluates every placement of a gang's search, even
	// one that failed before on nodes unchanged since (known_groups.go).
	NoKnownGroups bool
}

// newMemo returns the memo of the scheduler's plugins.
func (ps *PodScheduler) newMemo() *memo.Memo {
	p := memo.Plugins{Filter: ps.plugins.Filter, FilterPre: ps.filterPre, PreScore: ps.plugins.PreScore, ScorePre: ps.scorePre}
	for _, ws := range ps.plugins.Score {
		p.Score, p.Weight = append(p.Score, ws.Plugin), append(p.Weight, ws.Weight)
	}
	return memo.New(p, memo.Options{Off: ps.shortcuts.NoMemo, NoTree: ps.shortcuts.NoTree, NoColumn: ps.shortcuts.NoColumn})
}

// scheduleByMemo is Schedule's filter scan and scoring answered by the
// memo, after PreFilter; false when the memo cannot answer.
func (ps *PodScheduler) scheduleByMemo(snap *cluster.Snapshot, pod *cluster.PodInfo, candidates []int, n int) (int, *fw.FitError, bool) {
	p := memo.Pod{State: ps.state, Snap: snap, Pod: pod, Candidates: candidates, N: n,
		Find: NumFeasibleNodesToFind(ps.percentage, n), Nominations: ps.Nominations, Next: &ps.nextStart, Scans: &ps.scans}
	return ps.memo.Schedule((*memoScheduler)(ps), &p)
}

// FilterSignature appends to buf the signature of the pod's active filters
// under state, its PreFilter state, and reports whether every one of them
// signed: pods of equal signatures then get the same verdicts from the
// filters on nodes holding the same pods.
func (ps *PodScheduler) FilterSignature(state *fw.CycleState, pod *cluster.PodInfo, buf []byte) ([]byte, bool) {
	return ps.memo.FilterSignature(state, pod, buf)
}

// memoScheduler is the PodScheduler as its memo sees it: a
// memo.Scheduler, without those methods on the PodScheduler's API.
type memoScheduler PodScheduler

// FilterNominated is filterWithNominated.
func (ms *memoScheduler) FilterNominated(state *fw.CycleState, snap *cluster.Snapshot, pod *cluster.PodInfo, node int) *fw.Status {
	return (*PodScheduler)(ms).filterWithNominated(state, snap, pod, node)
}

// ScoreLive is scoreLive, its totals in the scheduler's buffer.
func (ms *memoScheduler) ScoreLive(snap *cluster.Snapshot, pod *cluster.PodInfo, feasible []int, answered []bool) ([]int64, bool) {
	ps := (*PodScheduler)(ms)
	live := ps.scoreLive(snap, pod, feasible, answered, nil)
	return ps.totals, live
}

// FitError is fitError.
func (ms *memoScheduler) FitError(pod *cluster.PodInfo, candidates []int, n int, rejections []fw.NodeStatus) *fw.FitError {
	return (*PodScheduler)(ms).fitError(pod, candidates, n, rejections)
}
