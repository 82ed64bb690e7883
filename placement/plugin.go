package placement

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// FilterPlugin decides whether a pod may run on a node as the node is now
// (its pods include the cycle's tentative reservations).
type FilterPlugin interface {
	Name() string
	// Filter returns nil when the pod fits, or why it does not.
	Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection
}

// ScorePlugin ranks the nodes that passed every filter: 0 (worst) to
// MaxNodeScore (best), after normalisation.
type ScorePlugin interface {
	Name() string
	Score(pod *cluster.PodInfo, node *cluster.NodeInfo) int64
}

// ScoreNormalizer is implemented by score plugins whose raw scores are
// rescaled over all feasible nodes before weighting (kube-scheduler's
// ScoreExtensions.NormalizeScore).
type ScoreNormalizer interface {
	NormalizeScores(scores []int64)
}

// ScoreSkipper is implemented by score plugins that take no part for some
// pods (kube-scheduler's PreScore returning Skip).
type ScoreSkipper interface {
	SkipScore(pod *cluster.PodInfo) bool
}

// MaxNodeScore is the highest score a plugin gives a node.
const MaxNodeScore int64 = 100

// Rejection says why a pod cannot run on a node. Unresolvable rejections
// cannot be cured by evicting pods (a taint, a selector), so preemption
// skips those nodes. Rejections are shared values: never modify one.
type Rejection struct {
	Plugin       string
	Reasons      []string
	Unresolvable bool
}

// NewRejection returns a resolvable rejection.
func NewRejection(plugin string, reasons ...string) *Rejection {
	return &Rejection{Plugin: plugin, Reasons: reasons}
}

// NewUnresolvable returns a rejection that preemption cannot cure.
func NewUnresolvable(plugin string, reasons ...string) *Rejection {
	return &Rejection{Plugin: plugin, Reasons: reasons, Unresolvable: true}
}

// NodeRejection is a rejection on one node.
type NodeRejection struct {
	Node int // snapshot index
	*Rejection
}

// FitError says that no node fits a pod, node by node.
type FitError struct {
	Pod         cluster.PodKey
	NumAllNodes int
	Rejections  []NodeRejection // one per node examined, in index order
}

// Error renders the kube-scheduler message: "0/5 nodes are available: 2
// node(s) had untolerated taint(s), 3 Insufficient cpu." The parts are
// "count reason" strings sorted as strings, as kube-scheduler sorts them
// (so "10 ..." comes before "2 ...").
func (e *FitError) Error() string {
	if e.NumAllNodes == 0 {
		return "no nodes available to schedule pods"
	}
	counts := map[string]int{}
	for _, r := range e.Rejections {
		for _, reason := range r.Reasons {
			counts[reason]++
		}
	}
	parts := make([]string, 0, len(counts))
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	slices.Sort(parts)
	msg := fmt.Sprintf("0/%d nodes are available", e.NumAllNodes)
	if len(parts) == 0 {
		return msg + "."
	}
	return msg + ": " + strings.Join(parts, ", ") + "."
}

// Resolvable yields the nodes whose rejection preemption might cure.
func (e *FitError) Resolvable() []int {
	var out []int
	for _, r := range e.Rejections {
		if !r.Unresolvable {
			out = append(out, r.Node)
		}
	}
	return out
}
