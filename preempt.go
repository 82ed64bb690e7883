package gangsim

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
)

// postFilterPod runs the profile's PostFilter plugins for a pod that fit
// no node (docs/semantics.md §7) and carries out the first success: its
// victims are evicted and the pod is nominated to its node. A plugin's
// result without success may still clear the nomination. It returns the
// evictions and the nomination made.
func (s *Scheduler) postFilterPod(p *profile, r *podRecord, fitErr *fw.FitError) ([]Eviction, []Binding) {
	state := fw.NewCycleState()
	for _, pl := range p.postFilter {
		res, st := pl.PostFilter(state, r.info, fitErr)
		if st.IsSuccess() && res != nil {
			return s.actuatePod(r, res, PodRef(r.info.Key()))
		}
		if res != nil && res.NominatedNode == "" {
			s.nominations.clear(r)
		}
		if st.Code() == fw.UnschedulableAndUnresolvable {
			break
		}
	}
	return nil, nil
}

// actuatePod carries out a pod's successful PostFilter: the pods nominated
// below it on the node lose their nomination, the victims are evicted, the
// pod is nominated.
func (s *Scheduler) actuatePod(r *podRecord, res *fw.PostFilterResult, by Ref) ([]Eviction, []Binding) {
	if res.NominatedNode == "" {
		s.nominations.clear(r)
		return s.evictVictims(res.Victims, by), nil
	}
	s.nominations.clearBelow(res.NominatedNode, r.info.Priority())
	s.nominate(r, res.NominatedNode)
	return s.evictVictims(res.Victims, by), []Binding{{Pod: r.info.Key(), Node: res.NominatedNode}}
}

// nominate records a pod's nominated node and tells observers.
func (s *Scheduler) nominate(r *podRecord, node string) {
	s.nominations.nominate(r, node)
	s.emit(Event{Kind: EventPodNominated, Pod: r.info, Node: node})
}

// unitsOnNode returns the victim units with pods on a node: each pod alone,
// or, for a member of a group whose disruption mode is All, every scheduled
// pod of that group. A unit's priority is its group's.
func (s *Scheduler) unitsOnNode(node int) []*preemption.Unit {
	if units, ok := s.cachedLoneUnits(node); ok {
		return units
	}
	ni := s.snap.Node(node)
	pods := ni.PodList()
	loneOnly := true
	for _, p := range pods {
		if r := s.record(p.Key()); r != nil && r.group != 0 {
			loneOnly = false
			break
		}
	}
	if loneOnly {
		return s.loneUnits(node, pods)
	}
	var out []*preemption.Unit
	seen := map[string]bool{}
	for _, p := range pods {
		u := s.unitOf(p)
		if !seen[u.Key] {
			seen[u.Key] = true
			out = append(out, u)
		}
	}
	return out
}

// loneUnits returns the units of a node whose pods belong to no group:
// one per pod, remembered while the node's snapshot stamp holds (such a
// unit depends on its pod alone), since a busy cluster's failed
// preemptions ask for the same nodes' units cycle after cycle.
func (s *Scheduler) loneUnits(node int, pods []*cluster.PodInfo) []*preemption.Unit {
	if len(s.unitCache) != s.snap.Len() {
		s.unitCache = make([]cachedUnits, s.snap.Len())
	}
	out := make([]*preemption.Unit, len(pods))
	for i, p := range pods {
		out[i] = preemption.NewPodUnit(p)
	}
	s.unitCache[node] = cachedUnits{snap: s.snap, stamp: s.snap.Stamp(node), units: out}
	return out
}

// cachedLoneUnits returns the units loneUnits remembered for the node, if
// its stamp still holds: its pods are the same, so they are still alone
// (a pod's group is fixed at admission).
func (s *Scheduler) cachedLoneUnits(node int) ([]*preemption.Unit, bool) {
	if node >= len(s.unitCache) || len(s.unitCache) != s.snap.Len() {
		return nil, false
	}
	c := &s.unitCache[node]
	if c.snap != s.snap || c.stamp != s.snap.Stamp(node) || c.snap == nil {
		return nil, false
	}
	return c.units, true
}

// cachedUnits are a node's units at a snapshot stamp.
type cachedUnits struct {
	snap  *cluster.Snapshot
	stamp uint64
	units []*preemption.Unit
}

// unitOf returns the victim unit of a pod: the pod alone, or every
// scheduled pod under the highest group above it (its PodGroup or a
// CompositePodGroup) whose disruption mode is All. A group member's unit
// has its root's priority; a member's own unit is typed PodGroup, as
// kube-scheduler types it.
func (s *Scheduler) unitOf(p *cluster.PodInfo) *preemption.Unit {
	r := s.record(p.Key())
	if r == nil || r.group == 0 {
		return preemption.NewPodUnit(p)
	}
	chain := append([]podgroup.Ref{{Key: s.groupOf(r).group.Key()}}, s.forest.Ancestors(podgroup.Ref{Key: s.groupOf(r).group.Key()})...)
	var top *podgroup.Ref
	for i := range chain {
		if s.disruptsAll(chain[i]) {
			top = &chain[i]
		}
	}
	priority := s.rootPriority(chain[len(chain)-1])
	if top == nil {
		return preemption.NewUnit(string(p.Key()), preemption.KindPodGroup, priority, []*cluster.PodInfo{p})
	}
	var pods []*cluster.PodInfo
	for _, leaf := range s.forest.Leaves(*top) {
		for k, st := range s.group(leaf.Key).members.Members() {
			if st == podgroup.Unscheduled {
				continue
			}
			if pi, ok := s.cache.Pod(k); ok {
				pods = append(pods, pi)
			}
		}
	}
	if top.Composite {
		return preemption.NewUnit("compositepodgroup/"+top.Key, preemption.KindCompositePodGroup, priority, pods)
	}
	return preemption.NewUnit("podgroup/"+top.Key, preemption.KindPodGroup, priority, pods)
}

func (s *Scheduler) disruptsAll(ref podgroup.Ref) bool {
	if ref.Composite {
		return s.composites[ref.Key].cpg.EffectiveDisruptionMode() == podgroup.DisruptAll
	}
	return s.group(ref.Key).group.EffectiveDisruptionMode() == podgroup.DisruptAll
}

// evictVictims evicts the victims a preemption chose, for the preemptor by:
// each starts its graceful termination, holding its resources until it
// ends. A victim that is not running (a plugin's mistake, or a pod already
// terminating) is left alone.
func (s *Scheduler) evictVictims(victims []fw.Victim, by Ref) []Eviction {
	var out []Eviction
	for _, v := range victims {
		if ev, ok := s.evict(v.Pod, by, v.BudgetViolation); ok {
			out = append(out, ev)
		}
	}
	return out
}

// evict starts the eviction of one bound pod; a pod already terminating
// is left as it is.
func (s *Scheduler) evict(key cluster.PodKey, by Ref, violation bool) (Eviction, bool) {
	r := s.record(key)
	if r == nil || r.phase != PhaseBound {
		return Eviction{}, false
	}
	if err := s.cache.EvictPod(key, s.now); err != nil {
		return Eviction{}, false
	}
	r.phase = PhaseTerminating
	s.emit(Event{Kind: EventPodEvicted, Pod: r.info, Node: r.node, By: by, BudgetViolation: violation})
	s.addTimer(timer{at: addTime(s.now, s.cfg.gracePeriod()), kind: timerTerminated, pod: r.id, token: r.runs})
	return s.evictions[len(s.evictions)-1], true
}

// finishEviction ends a victim's termination: it leaves its node and goes
// back to the queue as a pending pod, free to preempt in turn.
func (s *Scheduler) finishEviction(r *podRecord) error {
	if _, err := s.cache.RemovePod(r.info.Key()); err != nil {
		return fmt.Errorf("ending the eviction of pod %s: %w", r.info.Key(), err)
	}
	if err := s.terminate([]*cluster.PodInfo{r.info}, r.node, TerminatedPreempted); err != nil {
		return err
	}
	s.clusterChanged(fw.AssignedPodDeleted)
	return nil
}
