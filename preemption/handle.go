package preemption

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Handle is what DefaultPreemption needs from the scheduler beyond the
// framework's Handle: victim units and nominations. The scheduler's
// handle implements it; a replacement preemption plugin may use it too.
type Handle interface {
	fw.Handle
	// Units returns the victim units with pods on the node at index node.
	Units(node int) []*Unit
	// AllUnits returns every victim unit in the cluster.
	AllUnits() []*Unit
	// NominatedNode returns the snapshot index of the node the pod is
	// nominated to, or -1.
	NominatedNode(pod cluster.PodKey) int
	// NodeLocal reports whether every filter that runs for pod reads only
	// its own node.
	NodeLocal(pod *cluster.PodInfo) bool
}

// DryRunMemos is a capability a Handle may offer: a memo of earlier dry
// runs for one dry run of pod with its PreFilter state under the budgets
// it weighs, or nil when its nodes cannot be remembered (a filter that
// runs for it reads other nodes). A plugin that runs FindCandidates passes
// it in the Request.
type DryRunMemos interface {
	DryRunMemo(state *fw.CycleState, pod *cluster.PodInfo, budgets []cluster.BudgetStatus) DryRunMemo
}

// DryRunMemo remembers what earlier dry runs of a pod (or of pods that
// filter alike) found, for as long as nothing that decides it changes
// (the node's pods, pods nominated to it, the budgets), so that a pod
// retried cycle after cycle in a busy cluster tries again only the nodes
// that changed. It is a shortcut: FindCandidates returns with a memo what
// it returns without one.
type DryRunMemo interface {
	// Changed returns the nodes of potential that may have changed since
	// a dry run of the same list found no candidate, in potential's
	// order; false when the whole list must be tried.
	Changed(potential []int) ([]int, bool)
	// KnownNoCandidate reports a node an earlier dry run found to be no
	// candidate, with nothing that decides it changed since; it is passed
	// over as if tried.
	KnownNoCandidate(node int) bool
	// KnownCandidate returns the candidate an earlier dry run found on the
	// node, with nothing that decides it changed since; it is taken as if
	// tried (read-only: its lists are shared).
	KnownCandidate(node int) (Candidate, bool)
	// Tried is told of every node tried: its candidate, or found false.
	Tried(node int, c Candidate, found bool)
	// NoneFound is told of a dry run of the whole list that found no
	// candidate.
	NoneFound(potential []int)
}
