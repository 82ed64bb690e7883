package gangsim

import (
	"errors"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/podgroup"
)

// ErrForkInCycle is returned by Fork called from an observer during a
// cycle: a fork is taken between cycles.
var ErrForkInCycle = errors.New("gangsim: Fork during a scheduling cycle")

// Fork returns an independent copy of the simulation as it stands now,
// for what-if questions asked mid-run: both go on from here on their own,
// and one given the same calls as the other makes the same decisions. It
// costs a copy of the records, the queue and the node accounts, not a
// replay: pods and node objects, which never change once made, are
// shared. The fork has the observers opts give it (none of s's); its
// plugins are new instances from the same registry and configuration, so a
// plugin's own state starts afresh, while what the scheduler keeps for
// them (the scan position of each profile) carries over.
func (s *Scheduler) Fork(opts ...Option) (*Scheduler, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if s.inCycle != 0 {
		return nil, ErrForkInCycle
	}
	f, err := New(s.cfg, append([]Option{WithRegistry(s.userRegistry), WithStartTime(s.now), WithoutShortcuts(s.shortcutsOff)}, opts...)...)
	f.sharedPods = s.sharedPods
	if err != nil {
		return nil, err
	}
	f.cache = s.cache.Clone()
	f.snap = f.cache.Snapshot()
	f.nominations = newNominator(f.snap, &f.tracker.records)
	f.nominations.dropped = f.clusterEvents.nominationDropped
	f.explainer = s.explainer.clone()
	for i, p := range f.profiles.list {
		p.pods.Nominations = f.nominations
		p.pods.SetScanPosition(s.profiles.list[i].pods.ScanPosition())
		f.explainer.wire(p.pods)
	}

	// records, each copied once, linked by ID as they were; what a record
	// holds that changes in place is copied too
	f.tracker.records = s.tracker.records.clone()
	f.tracker.pods = maps.Clone(s.tracker.pods)
	f.tracker.groupRecords = s.tracker.groupRecords.clone()
	f.tracker.groups = maps.Clone(s.tracker.groups)
	leaves := make(map[*podgroup.PodGroup]*podgroup.PodGroup, len(s.tracker.groups))
	for _, id := range f.tracker.groups {
		g := f.tracker.groupRecords.at(id)
		g.members = g.members.Clone()
		g.conditions = slices.Clone(g.conditions)
		g.pods = maps.Clone(g.pods)
		g.memo = memberMemo{} // its records are the parent's
		leaves[&s.tracker.groupRecords.at(id).group] = &g.group
	}
	composites := make(map[*podgroup.CompositePodGroup]*podgroup.CompositePodGroup, len(s.tracker.composites))
	for key, c := range s.tracker.composites {
		cp := *c
		cp.leaves = slices.Clone(c.leaves)
		f.tracker.composites[key] = &cp
		composites[&c.cpg] = &cp.cpg
	}
	f.tracker.forest = s.tracker.forest.Clone(func(g *podgroup.PodGroup) *podgroup.PodGroup { return leaves[g] },
		func(c *podgroup.CompositePodGroup) *podgroup.CompositePodGroup { return composites[c] })
	f.tracker.forestVersion = s.tracker.forestVersion
	for key, list := range s.tracker.orphans {
		f.tracker.orphans[key] = slices.Clone(list)
	}
	for node, list := range s.nominations.byNode {
		f.nominations.byNode[node] = slices.Clone(list)
	}
	f.queue = s.queue.Clone(func(e entry) entry { return e })

	f.invariants = invariantState{evictions: s.invariants.evictions, wasTrue: maps.Clone(s.invariants.wasTrue)}
	f.classes = s.classes.Clone()
	f.templates = maps.Clone(s.templates) // read-only
	f.limitRanger, f.quotas = s.limitRanger.Clone(), s.quotas.Clone()
	f.clusterEvents = s.clusterEvents
	f.knownFailures = knownFailures{restarts: s.knownFailures.restarts + 1} // the pods' shape ids are the parent's
	f.timers = s.timers.clone()
	f.timers.firstKnown = false
	f.shortcutStats = s.shortcutStats
	f.cycle = s.cycle
	f.evictions = slices.Clone(s.evictions)
	f.stats = s.stats
	return f, nil
}

// clone copies the explainer's requests and results.
func (e *explainer) clone() explainer {
	return explainer{want: maps.Clone(e.want), done: maps.Clone(e.done)}
}
