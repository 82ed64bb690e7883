package gangsim

import (
	"strings"

	"github.com/gangsim/gangsim/placement"
)

// Shortcut names one of the engine's shortcuts. Each is a cache of
// something the straightforward code computes, kept in one place, and
// none changes a decision: the event stream with it equals the stream
// without it (each has an equivalence test beside it). WithoutShortcuts
// switches them off, to check that on one's own workload or to measure
// what one buys; ShortcutStats tells how often each answered.
type Shortcut uint8

// The shortcuts.
const (
	// FilterMemo remembers, per pod signature and node, the verdicts and
	// raw scores of the plugins that are framework.Signers while the node
	// is unchanged, and a signature's last failure on every node
	// (placement/memo.go).
	FilterMemo Shortcut = 1 << iota
	// MemoTree finds, over FilterMemo's answers, the node a filter scan
	// would pick without visiting the nodes (placement/memotree.go).
	MemoTree
	// KnownFailures answers the cycle of a pod of the same shape as one
	// that just found no node and no preemption, while nothing changed,
	// from that pod's failure, and retries such pods in a row
	// (known_failures.go).
	KnownFailures
	// DryRunMemo passes over, in a preemption dry run, the nodes an
	// earlier dry run found to be no candidate while they hold the same
	// pods and no nomination, and tries only the nodes changed since a
	// fruitless dry run of the same list (dryrun_memo.go).
	DryRunMemo
	// RememberedCandidates takes again the candidate an earlier dry run
	// of the same class found on an unchanged node (dryrun_memo.go).
	RememberedCandidates
	// VictimUnits keeps a node's victim units while it holds the same
	// pods, none of them in a group (victim_units.go).
	VictimUnits
	// KnownGroupFailures passes over, in a gang's search, the placements
	// its last search found infeasible while their nodes hold what they
	// held and carry the same nominations (placement/known_groups.go).
	KnownGroupFailures

	allShortcuts = FilterMemo | MemoTree | KnownFailures | DryRunMemo | RememberedCandidates | VictimUnits | KnownGroupFailures
)

var shortcutNames = []string{"FilterMemo", "MemoTree", "KnownFailures", "DryRunMemo", "RememberedCandidates", "VictimUnits", "KnownGroupFailures"}

// String names the shortcuts in sc, joined by "|".
func (sc Shortcut) String() string {
	var names []string
	for i, name := range shortcutNames {
		if sc&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// WithoutShortcuts switches the shortcuts named off (several may be
// or-ed into one value). The decisions stay the same; only the time they
// take changes. A fork keeps its parent's choice.
func WithoutShortcuts(off ...Shortcut) Option {
	return func(s *Scheduler) {
		for _, sc := range off {
			s.shortcutsOff |= sc & allShortcuts
		}
	}
}

// uses reports whether shortcut sc is on.
func (s *Scheduler) uses(sc Shortcut) bool { return s.shortcutsOff&sc == 0 }

// placementShortcuts are the shortcuts of the pod scan, as placement
// takes them.
func (s *Scheduler) placementShortcuts() placement.Shortcuts {
	return placement.Shortcuts{NoMemo: !s.uses(FilterMemo), NoTree: !s.uses(MemoTree), NoKnownGroups: !s.uses(KnownGroupFailures)}
}

// ShortcutStats counts the answers the scheduler's own shortcuts gave
// over the run (FilterMemo's and MemoTree's are the pod scan's, not
// counted here).
type ShortcutStats struct {
	// KnownFailures are cycles answered from another pod's failure,
	// InRow those of them retried in a row.
	KnownFailures, InRow int
	// DryRunNodesKnown are nodes a dry run passed over as known to be no
	// candidate; DryRunNodesSkipped those it did not try for nothing
	// changed since a fruitless dry run of the same list.
	DryRunNodesKnown, DryRunNodesSkipped int
	// RememberedCandidates are candidates taken again.
	RememberedCandidates int
	// GroupPlacementsKnown are placements a gang's search passed over
	// as known to fail (KnownGroupFailures).
	GroupPlacementsKnown int
}

// ShortcutStats returns how often each shortcut answered so far.
func (s *Scheduler) ShortcutStats() ShortcutStats {
	if s == nil {
		return ShortcutStats{}
	}
	st := s.shortcutStats
	for _, p := range s.profiles {
		st.GroupPlacementsKnown += p.groups.KnownPlacements()
	}
	return st
}
