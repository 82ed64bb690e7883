package gangsim

import (
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// Requeueing: what puts a pending pod or root group in the queue, and what
// moves the unschedulable ones back when the cluster changes. A change is
// a cluster event (fw.ClusterEvent); the queue keeps items by the kinds of
// change that may help them (queueing hints, docs/semantics.md §4).

// enqueue puts a pending pod in activeQ, keeping its first-seen time; a
// pod a PreEnqueue plugin refuses (its scheduling gates, its claims not
// made) goes to the gated pool instead, pending with the plugin's reason.
func (s *Scheduler) enqueue(r *podRecord) error {
	it := &queue.Item[entry]{
		Key: podItemKey(r.info.Key()), Kind: queue.KindPod, Priority: r.info.Priority(),
		FirstSeen: r.firstSeen, Timestamp: s.now, Size: 1, Value: entry{pod: r.id},
	}
	r.item = it // the queue keeps no index of pods' items: the record reaches its own
	if r.blocked() {
		s.setReason(r, r.enqueueBlock)
		return s.queue.PutGated(it)
	}
	return s.queue.Put(it)
}

func podItemKey(k cluster.PodKey) string { return "pod/" + string(k) }

// clusterEvents counts the cluster events (fw.ClusterEvent) that may help
// pending pods, a dropped nomination counting as one of every kind; a
// queue item's ClusterEventVersion is the version its last attempt saw.
type clusterEvents struct {
	version int64
	// last is, by bit of fw.ClusterEvent, the version of the last event
	// of that kind.
	last [8]int64
}

// note counts an event of the kinds given.
func (c *clusterEvents) note(kinds fw.ClusterEvent) {
	c.version++
	for b := range c.last {
		if kinds&(1<<b) != 0 {
			c.last[b] = c.version
		}
	}
}

// nominationDropped notes that a nomination went without its pod: the
// room it held may help any pending pod, which Run then waits for, though
// nothing moves now.
func (c *clusterEvents) nominationDropped() { c.note(^fw.ClusterEvent(0)) }

// since reports whether an event of a kind in wakeOn came after version v.
func (c *clusterEvents) since(v int64, wakeOn uint64) bool {
	for b, at := range c.last {
		if wakeOn&(1<<b) != 0 && at > v {
			return true
		}
	}
	return false
}

// clusterChanged notes a change that may let pending pods fit: every
// unschedulable item that waits for a change of those kinds is retried.
func (s *Scheduler) clusterChanged(kinds fw.ClusterEvent) {
	s.clusterEvents.note(kinds)
	s.queue.MoveOn(s.now, uint64(kinds))
}

// waitsOnPods reports whether a queue item has a pod that a placement may
// help.
func (t *tracker) waitsOnPods(e entry) bool {
	if r := t.records.at(e.pod); r != nil {
		return waitsOnPods(r.info.Pod())
	}
	for _, id := range t.leafRecords(e.root) {
		if t.membersWaitOnPods(t.groupRecords.at(id)) {
			return true
		}
	}
	return false
}

// membersWaitOnPods reports whether some pending member of gr waits on
// pods (waitsOnPods), kept while the members stay as they are.
func (t *tracker) membersWaitOnPods(gr *groupRecord) bool {
	m := t.memberMemo(gr)
	if m.waits == 0 {
		m.waits = 1
		if slices.ContainsFunc(t.pending(gr), func(r *podRecord) bool { return waitsOnPods(r.info.Pod()) }) {
			m.waits = 2
		}
	}
	return m.waits == 2
}

// offerGroup keeps the queue item of the group's root in step with its
// members; fresh are the members that have just become pending.
func (s *Scheduler) offerGroup(gr *groupRecord, fresh []*podRecord) error {
	return s.offerRoot(s.tracker.forest.Root(podgroup.Ref{Key: gr.key}), fresh)
}

// offerRoot keeps a root's queue item in step with the pods of its
// hierarchy: absent when no pod is pending, gated while the root is not
// ready (kube-scheduler's GangScheduling PreEnqueue: a leaf is ready with
// minCount known pods, a composite with minGroupCount ready children) or
// a pending pod of it has scheduling gates, otherwise queued. A new item's
// first-seen time is now: a root enters the queue when its objects and a
// pending pod are all known.
func (s *Scheduler) offerRoot(root podgroup.Ref, fresh []*podRecord) error {
	key := s.tracker.rootItemKey(root)
	pending := s.tracker.pendingCount(root)
	ready := s.tracker.treeReady(root) && s.tracker.gatedCount(root) == 0
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
		if err := s.queue.Update(key, func(it *queue.Item[entry]) {
			if it.Size != pending {
				// its members changed since its last attempt: that attempt
				// says nothing about the next one, which must happen even
				// if nothing else in the cluster changes
				it.ClusterEventVersion = changedSinceAttempt
			}
			it.Size = pending
		}); err != nil {
			return err
		}
		if ready {
			return s.queue.Activate(key, s.now)
		}
		if it.Gated() {
			s.explainGate(fresh) // the others were told when they became pending
			return nil
		}
		s.explainGate(s.tracker.hierarchyPending(root))
		return s.queue.Gate(key)
	}
	item := &queue.Item[entry]{Key: key, Kind: queue.KindGroup, Priority: s.tracker.rootPriority(root),
		FirstSeen: s.now, Timestamp: s.now, Size: pending, Value: entry{root: root}}
	if ready {
		return s.queue.Add(item)
	}
	s.explainGate(s.tracker.hierarchyPending(root))
	return s.queue.AddGated(item)
}

// changedSinceAttempt is the ClusterEventVersion of a queue item whose own
// content changed after its last attempt: older than any cluster-event
// version, so that Run retries it.
const changedSinceAttempt = -1

// released queues a pod whose last gate went: its own item leaves the
// gated pool, or its root group is offered again.
func (s *Scheduler) released(r *podRecord) error {
	p := r.info.Pod()
	switch {
	case r.group != 0:
		r.gated = false
		gr := s.tracker.groupOf(r)
		s.tracker.countGated(gr, -1)
		return s.offerGroup(gr, nil)
	case p.PodGroup != "":
		s.setReason(r, fmt.Sprintf("pod group %s does not exist: the pod waits until it is created", displayName(p.Namespace, p.PodGroup)))
		return nil
	}
	if !r.queued() {
		return nil // it names a scheduler no profile has
	}
	return s.queue.ActivateItem(r.item, s.now)
}

// Scheduling gates (a pod's spec.schedulingGates) hold a pod out of
// scheduling until a controller removes them: the SchedulingGates
// PreEnqueue plugin refuses the pod, which is pending, never tried, and
// waits in the queue's gated pool, not in activeQ. A pod of a group holds
// its whole root group there, as kube-scheduler's queue gates a pod-group
// entity when any of its pods is gated: the group is tried once none of
// its pending pods is refused. The gated pod counts among the group's
// known pods for minCount (kube's AllPodsCount), but nothing of its
// hierarchy is placed without it.

// preEnqueue asks the PreEnqueue plugins of the pod's profile, in order,
// whether it may be queued, and keeps the first refusal's message on its
// record ("" when all pass): what holds the pod, and a member's root
// group, in the gated pool until a change (UngatePod) lets it through. It
// runs when the pod is added and when it changes, as kube-scheduler runs
// them on a pod's addition and update. A pod that names no profile is
// held by none: this scheduler never queues it.
func (s *Scheduler) preEnqueue(r *podRecord) {
	r.enqueueBlock = ""
	p := s.profiles.of(r)
	if p == nil {
		return
	}
	for _, pl := range p.preEnqueue {
		if st := pl.PreEnqueue(r.info); !st.IsSuccess() {
			r.enqueueBlock = st.Message()
			return
		}
	}
}
