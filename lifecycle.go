package gangsim

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
)

// A pod's life, as its record's Phase (the cache's own states, assumed
// and bound, are cluster.Cache's):
//
//	                     AddPod with a node
//	           +-----------------------------------+
//	           |                                   v
//	AddPod --> Pending ------- bind -------------> Bound ---- run time ends ---> Succeeded
//	           ^  ^                                |   |
//	           |  +-- node removed or drained -----+   | evicted
//	           |                                       v
//	           +------- grace period over -------- Terminating
//
//	           any of them ---- DeletePod ---> Deleted
//
// and the function of this file that makes each transition:
//
//	from                  to           when                            by
//	(new)                 Pending      AddPod                          setPending
//	(new)                 Bound        AddPod naming its node          startRunning, markBound
//	Pending               Bound        a cycle binds it                markBound (from bind)
//	Bound                 Terminating  preemption evicts it            (evict, schedule_one.go)
//	Terminating           Pending      its grace period is over        finishEviction, terminate
//	Bound, Terminating    Pending      its node is removed or drained  terminate
//	Bound                 Succeeded    its run time ends               markGone (from fire)
//	any                   Deleted      DeletePod                       markGone
//
// A pending pod waits through setPending: a member of a PodGroup through
// its root group's queue item (requeue.go), any other pod as its own item,
// or in the gated pool while a PreEnqueue plugin refuses it (its
// scheduling gates). setReason, failWith and failFit record why it waits.
// Succeeded and Deleted end its life: its key may name a new pod from
// then on.

// startRunning puts a pod that arrives with its node in the cache, bound.
func (s *Scheduler) startRunning(r *podRecord, node string) error {
	bound, err := s.cache.BindPod(r.info, node, s.now)
	if err != nil {
		return err
	}
	s.markBound(r, node)
	r.info = bound // kept once, as bind does
	return nil
}

// setPending makes a pod wait for placement: a group member through its
// group, any other pod as its own queue item.
func (s *Scheduler) setPending(r *podRecord) error {
	r.phase, r.node, r.unschedulable = PhasePending, "", false
	if r.info.State() != cluster.PodPending {
		r.setInfo(r.info.Pending())
		if r.nominated != "" {
			s.nominations.forgetIndex()
		}
	}
	if r.info.Pod().PodGroup != "" {
		if r.group != 0 {
			s.tracker.changeMembers(s.tracker.groupOf(r), func(m *podgroup.Membership) { m.Set(r.info.Key(), podgroup.Unscheduled) })
			return s.offerGroup(s.tracker.groupOf(r), []*podRecord{r})
		}
		p := r.info.Pod()
		if r.blocked() { // its gates come first, as kube-scheduler's PreEnqueue plugins
			s.setReason(r, r.enqueueBlock)
			return nil
		}
		s.setReason(r, fmt.Sprintf("pod group %s does not exist: the pod waits until it is created", displayName(p.Namespace, p.PodGroup)))
		return nil
	}
	if s.profiles.forPod(r.info) == nil {
		s.setReason(r, fmt.Sprintf("pod names scheduler %q, which no profile has", r.info.Pod().EffectiveSchedulerName()))
		return nil
	}
	return s.enqueue(r) // or held, while a PreEnqueue plugin refuses it
}

// setReason records why a pending pod is not placed and tells observers
// when the reason is new: a pod waiting on its gang hears the same reason at
// every arrival, and an attempt's failure is told by failWith.
func (s *Scheduler) setReason(r *podRecord, reason string) {
	r.unschedulable = false
	if r.reasonText() == reason {
		return
	}
	r.reason = reason
	s.emit(podEvent(EventPodUnschedulable, r.info, "", reason))
}

// failWith records the failed attempt of a pod to be placed, with its
// node by node rejections fit (nil for none).
func (s *Scheduler) failWith(r *podRecord, reason string, fit *fw.FitError) {
	r.reason, r.lastFit, r.gated, r.unschedulable, r.reasonFit = reason, fit, false, true, false
	if s.wants(EventPodUnschedulable) {
		s.emit(podEvent(EventPodUnschedulable, r.info, "", reason))
	} else {
		s.stats.count(EventPodUnschedulable, false)
	}
}

// failFit records an attempt that found no node, keeping the node by node
// rejections for Diagnosis.
// Its message is made only when an observer reads the event; otherwise
// when the reason is read.
func (s *Scheduler) failFit(r *podRecord, fit *fw.FitError) {
	if s.wants(EventPodUnschedulable) {
		s.failWith(r, fit.Error(), fit)
		return
	}
	s.failWith(r, "", fit)
	r.reasonFit = true
}

// markBound records a binding, of a cycle or of a pod that arrived running.
// What follows a binding, in this order:
//
//  1. the pod's nomination is taken (it no longer holds room elsewhere);
//  2. the DryRunMemo forgets the pod's dry runs;
//  3. its PodGroup counts it bound (which may make a hierarchy ready);
//  4. its completion timer is armed, when it has a run time;
//  5. pending pods that a pod's arrival may help are requeued: those a
//     plugin counting the pods on nodes rejected (required pod affinity,
//     which the new pod may satisfy; a spread constraint, whose least
//     populated domain it may fill), as kube-scheduler requeues them on
//     an assigned pod's arrival. Nothing else a placement can help.
func (s *Scheduler) markBound(r *podRecord, node string) {
	r.phase, r.node, r.reason, r.boundAt, r.gated, r.unschedulable, r.reasonFit = PhaseBound, node, "", s.now, false, false, false
	r.lastFit = nil // its last attempt succeeded; a failure's rejections hold a status for every node
	r.binds++
	s.nominations.taken(r, node)
	s.dryRuns.forget(r.info)
	if r.group != 0 {
		s.tracker.changeMembers(s.tracker.groupOf(r), func(m *podgroup.Membership) { m.Set(r.info.Key(), podgroup.Bound) })
	}
	if r.duration > 0 {
		s.timers.add(timer{at: addTime(s.now, r.duration), kind: timerPodDone, pod: r.id, token: r.binds})
	}
	s.clusterChanged(fw.AssignedPodAdded)
}

// markGone ends a pod's life (deleted or succeeded): it leaves the queue
// and its group. The caller has taken it out of the cache.
func (s *Scheduler) markGone(r *podRecord, phase Phase) error {
	s.quotas.Ended(r.info.Pod(), r.phase == PhaseSucceeded, phase == PhaseSucceeded)
	pending := r.phase == PhasePending
	r.phase, r.reason, r.endedAt, r.reasonFit, r.lastFit = phase, "", s.now, false, nil
	s.nominations.clear(r)
	s.dryRuns.forget(r.info)
	if phase == PhaseDeleted {
		r.node = ""
	}
	switch {
	case r.group != 0:
		if r.blocked() {
			s.tracker.countGated(s.tracker.groupOf(r), -1)
		}
		s.tracker.changeMembers(s.tracker.groupOf(r), func(m *podgroup.Membership) { m.Remove(r.info.Key()) })
		delete(s.tracker.groupOf(r).pods, r.info.Key())
		if pending {
			return s.offerGroup(s.tracker.groupOf(r), nil)
		}
	case r.info.Pod().PodGroup != "":
		s.tracker.dropOrphan(r)
	case pending:
		if r.queued() { // not when it names another scheduler
			return s.queue.DeleteItem(r.item)
		}
	}
	return nil
}

// terminate takes pods off a node that is going away or being drained:
// each leaves the cache, is told to observers and waits again.
func (s *Scheduler) terminate(pods []*cluster.PodInfo, node, reason string) error {
	for _, pi := range pods {
		r := s.tracker.record(pi.Key())
		r.reason, r.reasonFit = reason, false
		s.emit(podEvent(EventPodTerminated, r.info, node, reason))
		if err := s.setPending(r); err != nil {
			return err
		}
	}
	return nil
}

// finishEviction ends a victim's termination: it leaves its node and goes
// back to the queue as a pending pod, free to preempt in turn.
func (s *Scheduler) finishEviction(r *podRecord) error {
	if err := s.removeFromNode(r.info.Key()); err != nil {
		return fmt.Errorf("ending the eviction of pod %s: %w", r.info.Key(), err)
	}
	if err := s.terminate([]*cluster.PodInfo{r.info}, r.node, TerminatedPreempted); err != nil {
		return err
	}
	s.clusterChanged(fw.AssignedPodDeleted)
	return nil
}
