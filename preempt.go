package gangsim

import (
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
)

// postFilterPod is DefaultPreemption's PostFilter for a pod that fit no
// node (docs/semantics.md §7): it returns the victims evicted and the nomination,
// or none when the pod may not preempt or no eviction would help.
func (s *Scheduler) postFilterPod(r *podRecord, fitErr *placement.FitError) ([]Eviction, []Binding) {
	pod := r.info
	if pod.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever {
		return nil, nil
	}
	if s.waitingForVictims(r, fitErr) {
		return nil, nil
	}
	cands := preemption.FindCandidates(preemption.Request{
		Snapshot:          s.snap,
		PreemptorPriority: pod.Priority(),
		Potential:         fitErr.Resolvable(),
		Units:             s.unitsOnNode,
		Fits:              func(node int) bool { return s.podAlgo.FilterNode(s.snap, pod, node) == nil },
		Budgets:           slices.Collect(s.snap.Budgets()),
	})
	best := preemption.PickOne(cands)
	if best < 0 {
		s.nominations.clear(r)
		return nil, nil
	}
	c := cands[best]
	node := s.snap.Node(c.Node).Name()
	s.nominations.clearBelow(node, pod.Priority())
	s.nominate(r, node)
	return s.evictUnits(c.Victims, PodRef(pod.Key()), c.Violators), []Binding{{Pod: pod.Key(), Node: node}}
}

// nominate records a pod's nominated node and tells observers.
func (s *Scheduler) nominate(r *podRecord, node string) {
	s.nominations.nominate(r, node)
	s.emit(Event{Kind: EventPodNominated, Pod: r.info, Node: node})
}

// waitingForVictims is the second eligibility rule: a pod whose nominated
// node still holds lower-priority pods terminating from an earlier
// preemption waits for them instead of preempting again (unless the node
// no longer suits it at all).
func (s *Scheduler) waitingForVictims(r *podRecord, fitErr *placement.FitError) bool {
	idx := s.nominations.index(r)
	if idx < 0 {
		return false
	}
	for _, rej := range fitErr.Rejections {
		if rej.Node == idx && rej.Unresolvable {
			return false
		}
	}
	for p := range s.snap.Node(idx).Pods() {
		if p.State() == cluster.PodTerminating && p.Priority() < r.info.Priority() {
			return true
		}
	}
	return false
}

// unitsOnNode returns the victim units with pods on a node: each pod alone,
// or, for a member of a group whose disruption mode is All, every scheduled
// pod of that group. A unit's priority is its group's.
func (s *Scheduler) unitsOnNode(node int) []*preemption.Unit {
	var out []*preemption.Unit
	seen := map[string]bool{}
	for p := range s.snap.Node(node).Pods() {
		u := s.unitOf(p)
		if !seen[u.Key] {
			seen[u.Key] = true
			out = append(out, u)
		}
	}
	return out
}

// unitOf returns the victim unit of a pod: the pod alone, or every
// scheduled pod under the highest group above it (its PodGroup or a
// CompositePodGroup) whose disruption mode is All. A group member's unit
// has its root's priority; a member's own unit is typed PodGroup, as
// kube-scheduler types it.
func (s *Scheduler) unitOf(p *cluster.PodInfo) *preemption.Unit {
	r := s.pods[p.Key()]
	if r == nil || r.group == nil {
		return preemption.NewPodUnit(p)
	}
	chain := append([]podgroup.Ref{{Key: r.group.group.Key()}}, s.forest.Ancestors(podgroup.Ref{Key: r.group.group.Key()})...)
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
		for k, st := range s.groups[leaf.Key].members.Members() {
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
	return s.groups[ref.Key].group.EffectiveDisruptionMode() == podgroup.DisruptAll
}

// evictUnits evicts every pod of the units for the preemptor by: each
// starts its graceful termination, holding its resources until it ends.
// violators are the victim pods whose eviction breaks a budget.
func (s *Scheduler) evictUnits(units []*preemption.Unit, by Ref, violators []cluster.PodKey) []Eviction {
	var out []Eviction
	for _, u := range units {
		for _, p := range u.Pods {
			if ev, ok := s.evict(p.Key(), by, slices.Contains(violators, p.Key())); ok {
				out = append(out, ev)
			}
		}
	}
	return out
}

// evict starts the eviction of one bound pod; a pod already terminating
// is left as it is.
func (s *Scheduler) evict(key cluster.PodKey, by Ref, violation bool) (Eviction, bool) {
	r := s.pods[key]
	if r == nil || r.phase != PhaseBound {
		return Eviction{}, false
	}
	if err := s.cache.EvictPod(key, s.now); err != nil {
		return Eviction{}, false
	}
	r.phase = PhaseTerminating
	s.emit(Event{Kind: EventPodEvicted, Pod: r.info, Node: r.node, By: by, BudgetViolation: violation})
	s.addTimer(timer{at: addTime(s.now, s.cfg.gracePeriod()), kind: timerTerminated, pod: key, token: r.runs})
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
	s.clusterChanged()
	return nil
}
