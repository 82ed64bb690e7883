package gangsim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// ErrInvariant is wrapped by every violation CheckInvariants finds.
var ErrInvariant = errors.New("gangsim: invariant violated")

// invariantState is what the checker remembers between checks.
type invariantState struct {
	evictions int             // evictions already checked
	wasTrue   map[string]bool // groups whose condition was True
}

// CheckInvariants verifies the simulation's state from scratch and returns
// the first violation found, or nil:
//
//   - the cache's accounts: no node over any allocatable resource, each
//     node's totals the sum of its pods, no pod on two nodes or on a node
//     that is gone (cluster.Cache.CheckConsistency);
//   - every pod accounted for: a bound or terminating pod is in the cache
//     on its node, any other is not; a pending pod waits in the queue (its
//     own item or its root group's), for its group to be defined, or names
//     a scheduler no profile has; the cache holds no pod the scheduler
//     does not know as bound or terminating;
//   - every composite's count of ready children, and every group's and
//     composite's count of pods with scheduling gates, is right; a pod with
//     gates is held in the gated pool (its own item or its root's);
//   - every ResourceQuota's usage is what the pods of its namespace use;
//   - no PodGroupInitiallyScheduled condition back from True;
//   - no preemption victim of equal or higher priority than its preemptor.
//
// With Config.CheckInvariants the scheduler runs it after every cycle and
// timer, adds the check that a cycle binding pods of a gang left it with
// at least minCount scheduled, and, when Run ends, the liveness check
// (CheckQuiescent).
func (s *Scheduler) CheckInvariants() error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.cache.CheckConsistency(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvariant, err)
	}
	if err := s.checkPodAccounts(); err != nil {
		return err
	}
	if err := s.invariants.checkConditions(&s.tracker); err != nil {
		return err
	}
	if err := s.tracker.checkReadiness(); err != nil {
		return err
	}
	if err := s.quotas.Recount(storedPods(&s.tracker.records)); err != nil {
		return invariantError("%v", err)
	}
	return s.invariants.checkVictims(&s.tracker, s.evictions)
}

// checkReadiness recounts every composite's ready children, and every
// group's members with scheduling gates.
func (t *tracker) checkReadiness() error {
	for _, key := range slices.Sorted(mapKeys(t.groups)) {
		gr := t.group(key)
		gated := 0
		for _, id := range gr.pods {
			if t.records.at(id).blocked() {
				gated++
			}
		}
		if gated != gr.gated {
			return invariantError("pod group %s counts %d members with scheduling gates, %d have", key, gr.gated, gated)
		}
	}
	for _, key := range slices.Sorted(mapKeys(t.composites)) {
		c := t.composites[key]
		ready := 0
		for _, child := range t.forest.Children(key) {
			if t.treeReady(child) {
				ready++
			}
		}
		if ready != c.readyChildren {
			return invariantError("composite %s counts %d ready children, %d are", key, c.readyChildren, ready)
		}
		pending := 0
		for _, l := range t.forest.Leaves(podgroup.Ref{Composite: true, Key: key}) {
			pending += t.group(l.Key).members.Count(podgroup.Unscheduled)
		}
		if pending != c.pending {
			return invariantError("composite %s counts %d pending pods below it, %d are", key, c.pending, pending)
		}
		gated := 0
		for _, l := range t.forest.Leaves(podgroup.Ref{Composite: true, Key: key}) {
			gated += t.group(l.Key).gated
		}
		if gated != c.gated {
			return invariantError("composite %s counts %d gated pods below it, %d are", key, c.gated, gated)
		}
		leaves := t.forest.Leaves(podgroup.Ref{Composite: true, Key: key})
		cached := t.leafRecords(podgroup.Ref{Composite: true, Key: key})
		if len(leaves) != len(cached) {
			return invariantError("composite %s lists %d leaves, it has %d", key, len(cached), len(leaves))
		}
		for i, l := range leaves {
			if t.groupRecords.at(cached[i]).group.Key() != l.Key {
				return invariantError("composite %s lists leaf %s at %d, it is %s", key, t.groupRecords.at(cached[i]).group.Key(), i, l.Key)
			}
		}
	}
	return nil
}

func invariantError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvariant, fmt.Sprintf(format, args...))
}

func (s *Scheduler) checkPodAccounts() error {
	for _, key := range slices.Sorted(mapKeys(s.tracker.pods)) {
		r := s.tracker.record(key)
		pi, cached := s.cache.Pod(key)
		switch r.phase {
		case PhaseBound, PhaseTerminating:
			if !cached {
				return invariantError("pod %s is %s on %q but not in the cache", key, r.phase, r.node)
			}
			if pi.NodeName() != r.node {
				return invariantError("pod %s is %s on %q but the cache has it on %q", key, r.phase, r.node, pi.NodeName())
			}
			if (pi.State() == cluster.PodTerminating) != (r.phase == PhaseTerminating) {
				return invariantError("pod %s is %s but the cache has it %v", key, r.phase, pi.State())
			}
		case PhasePending, PhaseSucceeded, PhaseDeleted:
			if cached {
				return invariantError("pod %s is %s but the cache has it on %q", key, r.phase, pi.NodeName())
			}
			if r.phase == PhasePending {
				if err := s.checkWaiting(r); err != nil {
					return err
				}
			}
		default:
			return invariantError("pod %s has no known phase (%q)", key, r.phase)
		}
	}
	for pi := range s.cache.Pods() {
		if r := s.tracker.record(pi.Key()); r == nil || r.phase != PhaseBound && r.phase != PhaseTerminating {
			return invariantError("the cache holds pod %s, which the scheduler does not count as running", pi.Key())
		}
	}
	return nil
}

// checkWaiting reports a pending pod that waits nowhere.
func (s *Scheduler) checkWaiting(r *podRecord) error {
	key := r.info.Key()
	if r.info.Pod().PodGroup != "" {
		if r.group == 0 {
			gk := podgroup.Key(r.info.Pod().Namespace, r.info.Pod().PodGroup)
			if !slices.Contains(s.tracker.orphans[gk], r.id) {
				return invariantError("pod %s waits for group %s but is not among its waiting pods", key, gk)
			}
			return nil
		}
		if st, ok := s.tracker.groupOf(r).members.State(key); !ok || st != podgroup.Unscheduled {
			return invariantError("pending pod %s is not an unscheduled member of its group", key)
		}
		root := s.tracker.forest.Root(podgroup.Ref{Key: s.tracker.groupOf(r).key})
		it, queued := s.queue.Get(s.tracker.rootItemKey(root))
		if !queued {
			return invariantError("pending pod %s: its root group %s is not queued", key, root.Key)
		}
		if r.blocked() && !it.Gated() && !it.InFlight() {
			return invariantError("pending pod %s has scheduling gates, but its root group %s is not held", key, root.Key)
		}
		return nil
	}
	if s.profiles.forPod(r.info) == nil {
		return nil // it names a scheduler no profile has: it stays pending
	}
	it := r.item
	if !r.queued() {
		return invariantError("pending pod %s is not queued", key)
	}
	if it.Gated() != r.blocked() {
		return invariantError("pending pod %s has %d scheduling gates, and its item is gated: %v", key, len(r.info.Pod().SchedulingGates), it.Gated())
	}
	return nil
}

// checkConditions finds a PodGroupInitiallyScheduled condition back from
// True.
func (inv *invariantState) checkConditions(t *tracker) error {
	if inv.wasTrue == nil {
		inv.wasTrue = map[string]bool{}
	}
	for _, key := range slices.Sorted(mapKeys(t.groups)) {
		c, ok := t.group(key).conditions.Get(podgroup.ConditionInitiallyScheduled)
		isTrue := ok && c.Status == podgroup.ConditionTrue
		if inv.wasTrue[key] && !isTrue {
			return invariantError("group %s: condition %s went back from True", key, podgroup.ConditionInitiallyScheduled)
		}
		if isTrue {
			inv.wasTrue[key] = true
		}
	}
	return nil
}

// checkVictims finds a victim, among the evictions not checked yet, of
// equal or higher priority than its preemptor.
func (inv *invariantState) checkVictims(t *tracker, evictions []Eviction) error {
	for _, e := range evictions[inv.evictions:] {
		victim := t.record(e.Pod)
		if victim == nil {
			return invariantError("eviction of unknown pod %s", e.Pod)
		}
		var prio int32
		switch e.By.Kind {
		case KindPod:
			r := t.record(cluster.PodKey(e.By.Key))
			if r == nil {
				return invariantError("pod %s evicted by unknown pod %s", e.Pod, e.By.Key)
			}
			prio = r.info.Priority()
		case KindPodGroup:
			prio = t.group(e.By.Key).group.EffectivePriority()
		case KindCompositePodGroup:
			prio = t.composites[e.By.Key].cpg.EffectivePriority()
		default:
			continue // a drain, not a preemption
		}
		if victim.info.Priority() >= prio {
			return invariantError("pod %s (priority %d) was evicted by %s of priority %d", e.Pod, victim.info.Priority(), e.By.Key, prio)
		}
	}
	inv.evictions = len(evictions)
	return nil
}

// checkCycle adds to CheckInvariants what a cycle's result tells: a cycle
// that bound pods of a gang left it with at least minCount scheduled.
func (s *Scheduler) checkCycle(res CycleResult) error {
	for _, b := range res.Bound {
		r := s.tracker.record(b.Pod)
		if r == nil || r.group == 0 {
			continue
		}
		g := &s.tracker.groupOf(r).group
		if n := s.tracker.groupOf(r).members.Scheduled(); n < g.Quorum() {
			return invariantError("cycle at %v bound pods of group %s, leaving %d scheduled below its quorum %d", res.At, g.Key(), n, g.Quorum())
		}
	}
	return s.CheckInvariants()
}

// CheckQuiescent is the liveness check for when a run has ended: no
// pending pod or ready group could be placed by trying it again now. A
// pod that could was not retried after the change that made room for it.
// It changes nothing (the dry runs are rolled back).
func (s *Scheduler) CheckQuiescent() error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return err
	}
	restore := s.profiles.saveScanPositions()
	defer restore()
	for it := range s.queue.All() {
		if it.InFlight() {
			continue
		}
		if r := s.tracker.records.at(it.Value.pod); r != nil {
			p := s.profiles.forPod(r.info)
			if p == nil || r.blocked() {
				continue // held by its gates: it is not to be tried
			}
			if idx, fit := p.pods.Schedule(s.snap, r.info, nil, s.nominations.index(r)); fit == nil {
				return invariantError("pending pod %s fits node %q now but the run ended without retrying it", r.info.Key(), s.snap.Node(idx).Name())
			}
			continue
		}
		root := it.Value.root
		if !s.tracker.treeReady(root) || s.tracker.gatedCount(root) > 0 {
			continue // gated: it waits for members or gates, not for room
		}
		pending := s.tracker.hierarchyPending(root)
		if len(pending) == 0 {
			continue
		}
		leaves := s.tracker.leafRecords(root)
		if s.tracker.validateRoot(root, leaves, pending[0], &s.profiles) != "" {
			continue
		}
		p := s.profiles.forPod(pending[0].info)
		if p == nil {
			continue
		}
		tree := s.tracker.buildTree(root, s.nominations)
		out := s.placeRoot(p, tree)
		if out.Err == nil && out.Feasible && len(out.Assignments(tree)) > 0 {
			return invariantError("group %s can be placed now but the run ended without retrying it", root.Key)
		}
	}
	return nil
}

// saveScanPositions remembers where every profile's filter scan starts,
// so that dry runs leave later decisions unchanged.
func (ps *profiles) saveScanPositions() func() {
	saved := map[*profile]int{}
	for _, p := range ps.list {
		saved[p] = p.pods.ScanPosition()
	}
	return func() {
		for p, pos := range saved {
			p.pods.SetScanPosition(pos)
		}
	}
}
