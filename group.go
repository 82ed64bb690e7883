package gangsim

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// groupRecord is the scheduler's record of a PodGroup: the object, its
// known members and its status conditions.
type groupRecord struct {
	group      podgroup.PodGroup
	members    podgroup.Membership
	pods       map[cluster.PodKey]*podRecord // known members, any phase but gone
	conditions podgroup.Conditions
}

// GroupStatus is what the scheduler knows of a PodGroup.
type GroupStatus struct {
	Key        string
	Group      podgroup.PodGroup
	Known      int // member pods known (scheduled or not)
	Scheduled  int // members assumed or bound
	Conditions podgroup.Conditions
}

// AddPodGroup defines a PodGroup, as a root or under its parent
// CompositePodGroup (which must be defined, with the same priority). A
// group with PriorityClassName gets the class's value and, unless it sets
// its own, preemption policy. Pods that named the group before it existed
// join it now.
func (s *Scheduler) AddPodGroup(g podgroup.PodGroup) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if _, ok := s.groups[g.Key()]; ok {
		return fmt.Errorf("%w: pod group %s", ErrDuplicate, g.Key())
	}
	if err := s.admitClass("pod group "+g.Key(), g.PriorityClassName, &g.Priority, &g.PreemptionPolicy); err != nil {
		return err
	}
	gr := &groupRecord{group: g, pods: map[cluster.PodKey]*podRecord{}}
	if err := s.forest.AddGroup(&gr.group); err != nil {
		return err
	}
	s.groups[g.Key()] = gr
	waiting := s.orphans[g.Key()]
	delete(s.orphans, g.Key())
	for _, r := range waiting {
		s.join(gr, r)
	}
	return s.offerGroup(gr)
}

// PodGroup returns the status of a PodGroup by "namespace/name".
func (s *Scheduler) PodGroup(key string) (GroupStatus, bool) {
	gr, ok := s.groups[key]
	if !ok {
		return GroupStatus{}, false
	}
	return gr.status(), true
}

// PodGroups yields every PodGroup's status in key order.
func (s *Scheduler) PodGroups() iter.Seq[GroupStatus] {
	return func(yield func(GroupStatus) bool) {
		for _, k := range slices.Sorted(mapKeys(s.groups)) {
			if !yield(s.groups[k].status()) {
				return
			}
		}
	}
}

func (gr *groupRecord) status() GroupStatus {
	return GroupStatus{Key: gr.group.Key(), Group: gr.group, Known: gr.members.Known(),
		Scheduled: gr.members.Scheduled(), Conditions: slices.Clone(gr.conditions)}
}

func mapKeys[V any](m map[string]V) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func groupKeyOf(p *cluster.Pod) string { return podgroup.Key(p.Namespace, p.PodGroup) }

// attach links a new member pod to its group, or parks it until the group
// is defined.
func (s *Scheduler) attach(r *podRecord) {
	key := groupKeyOf(r.info.Pod())
	if gr, ok := s.groups[key]; ok {
		s.join(gr, r)
		return
	}
	s.orphans[key] = append(s.orphans[key], r)
}

func (s *Scheduler) join(gr *groupRecord, r *podRecord) {
	r.group = gr
	gr.pods[r.info.Key()] = r
	state := podgroup.Unscheduled
	if r.phase == PhaseBound {
		state = podgroup.Bound
	}
	gr.members.Set(r.info.Key(), state)
}

func (s *Scheduler) dropOrphan(r *podRecord) {
	key := groupKeyOf(r.info.Pod())
	s.orphans[key] = slices.DeleteFunc(s.orphans[key], func(o *podRecord) bool { return o == r })
	if len(s.orphans[key]) == 0 {
		delete(s.orphans, key)
	}
}

func groupItemKey(key string) string { return "podgroup/" + key }

// pending returns the group's unscheduled members in cycle order: priority
// desc, attempts desc, first seen asc, name asc (kube-scheduler's
// PodGroupMemberPodsOrderingFunc).
func (gr *groupRecord) pending() []*podRecord {
	var out []*podRecord
	for _, r := range gr.pods {
		if r.phase == PhasePending {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *podRecord) int {
		return cmp.Or(
			cmp.Compare(b.info.Priority(), a.info.Priority()),
			cmp.Compare(b.attempts, a.attempts),
			cmp.Compare(a.firstSeen, b.firstSeen),
			cmp.Compare(a.info.Key(), b.info.Key()),
		)
	})
	return out
}

// scheduledNodes names the nodes of the bound and assumed members, in key
// order.
func (gr *groupRecord) scheduledNodes() []string {
	var out []string
	for k, st := range gr.members.Members() {
		if st != podgroup.Unscheduled {
			out = append(out, gr.pods[k].node)
		}
	}
	return out
}

// ready is kube-scheduler's GangScheduling PreEnqueue: a gang waits until
// minCount members are known; a basic group is always ready.
func (gr *groupRecord) ready() bool { return gr.members.Known() >= gr.group.Quorum() }

// offerGroup keeps the queue item of the group's root in step with its
// members (a composite root for a PodGroup inside a hierarchy).
func (s *Scheduler) offerGroup(gr *groupRecord) error {
	if root := s.forest.Root(podgroup.Ref{Key: gr.group.Key()}); root.Composite {
		return s.offerComposite(s.composites[root.Key])
	}
	return s.offerItem(groupItemKey(gr.group.Key()), gr.group.Priority, gr.members.Count(podgroup.Unscheduled),
		gr.ready(), entry{group: gr}, gr.explainGate)
}

// offerItem keeps a root's queue item in step with its pods: absent when no
// pod is pending, gated while the root is not ready (a gang short of
// members), otherwise queued. A new item's first-seen time is now: a root
// enters the queue when its objects and a pending pod are all known.
func (s *Scheduler) offerItem(key string, priority int32, pending int, ready bool, value entry, explainGate func()) error {
	it, queued := s.queue.Get(key)
	switch {
	case pending == 0:
		if queued && !it.InFlight() {
			_, err := s.queue.Delete(key)
			return err
		}
		return nil
	case queued:
		if it.InFlight() {
			return nil // the cycle requeues it
		}
		if err := s.queue.Update(key, func(it *queue.Item[entry]) { it.Size = pending }); err != nil {
			return err
		}
		if ready {
			return s.queue.Activate(key, s.now)
		}
		explainGate()
		return s.queue.Gate(key)
	}
	item := &queue.Item[entry]{Key: key, Kind: queue.KindGroup, Priority: priority,
		FirstSeen: s.now, Timestamp: s.now, Size: pending, Value: value}
	if ready {
		return s.queue.Add(item)
	}
	explainGate()
	return s.queue.AddGated(item)
}

// setCondition records the PodGroupInitiallyScheduled condition.
func (gr *groupRecord) setCondition(status podgroup.ConditionStatus, reason, msg string, now time.Duration) {
	gr.conditions.Set(podgroup.Condition{Type: podgroup.ConditionInitiallyScheduled, Status: status,
		Reason: reason, Message: msg, LastTransitionTime: now})
}

// explainGate gives the pending members of a gated gang kube-scheduler's
// PreEnqueue message.
func (gr *groupRecord) explainGate() {
	for _, r := range gr.pending() {
		r.reason = "waiting for minCount pods from a gang to appear in scheduling queue"
	}
}
