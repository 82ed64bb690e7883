package gangsim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// AddPod admits a pod now. Admission resolves its priority and preemption
// policy (PodPriority: its class, its own priority, its group's, the global
// default), whatever the entry point, so a file and the Go API give the
// same pod. A pod with NodeName is running there from now on (it must fit,
// and a group member must then have its group's priority); any other pod
// is queued. duration is how long the pod runs once bound before it
// succeeds (0: until deleted or evicted). The scheduler keeps a copy of
// p's maps and slices. A pod's key may be used again once its pod has
// ended (succeeded or deleted), as a StatefulSet makes its pod web-0 again:
// Pod and Pods then report the new pod, and the old one lives on only in
// the events.
func (s *Scheduler) AddPod(p cluster.Pod, duration time.Duration) error {
	return s.addPod(p, duration, false)
}

// AdoptPod is AddPod without the copy: the scheduler keeps p's maps and
// slices as they are, and the caller must not change them from then on.
// It is for callers that hold their pods read-only, as the scenario runner
// does: every run of a scenario shares its pods' data, so a pod's labels,
// selectors and terms are stored once however many runs hold it.
func (s *Scheduler) AdoptPod(p cluster.Pod, duration time.Duration) error {
	return s.addPod(p, duration, true)
}

func (s *Scheduler) addPod(p cluster.Pod, duration time.Duration, shared bool) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if duration < 0 || duration > MaxSimulatedTime {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: string(p.Key()), Field: "duration", Detail: fmt.Sprintf("%v is not in 0..%v", duration, MaxSimulatedTime)}
	}
	if id := s.pods[p.Key()]; id != 0 && !s.records.at(id).ended() { // a key made for the lookup only, on the stack
		return fmt.Errorf("%w: pod %s", ErrDuplicate, p.Key())
	}
	group := s.group(groupKeyOf(&p))
	if !shared {
		p = p.Clone()
	}
	if p.NodeName == "" {
		s.defaultResources(&p) // LimitRanger, before the priority admission
	}
	var def *podgroup.PodGroup
	if group != nil {
		def = &group.group
	}
	info, err := s.admitPod(p, def)
	if err != nil {
		return err
	}
	if p.NodeName == "" {
		if reason := cmp.Or(s.checkLimits(&p), s.checkQuota(info.Pod())); reason != "" {
			return s.reject(*info.Pod(), reason)
		}
	}
	r := &podRecord{info: info, phase: PhasePending, duration: duration, firstSeen: s.now}
	if group == nil && inheritsGroupPriority(&p) {
		r.spec = new(p) // its group is not known yet: admission waits for it
	}
	if p.NodeName != "" {
		if err := s.checkPreBound(r, p.NodeName, group); err != nil {
			return err
		}
	}
	if _, err := s.makeTemplateClaims(info.Pod()); err != nil {
		s.deleteTemplateClaims(info.Pod())
		return err
	}
	var allocated []claimAllocation
	if p.NodeName != "" {
		if allocated, err = s.reservePreBound(info, p.NodeName); err != nil {
			s.deleteTemplateClaims(info.Pod())
			return err
		}
	}
	r, id := s.records.add(*r)
	r.id = id
	r.setInfo(r.info)
	s.pods[info.Key()] = r.id // the admitted pod's own key, shared
	if len(s.quotas) > 0 {
		s.chargeQuotas(info.Pod(), false, 1)
	}
	if p.PodGroup != "" {
		s.attach(r)
	}
	if p.NodeName != "" {
		s.emitPod(EventPodArrived, r.info, p.NodeName, "")
		for _, a := range allocated {
			s.emitClaim(EventClaimAllocated, a.key, a.node, a.alloc)
		}
		if err := s.startRunning(r, p.NodeName); err != nil {
			return err
		}
		if r.group != 0 {
			// a running member counts toward its gang's quorum: a root
			// waiting for it is ready now (kube's GangScheduling requeues
			// on an assigned pod's arrival too)
			return s.offerGroup(s.groupOf(r), nil)
		}
		return nil
	}
	s.emitPod(EventPodArrived, r.info, "", "")
	return s.setPending(r)
}

// checkPreBound checks a pod that arrives already running on node: the
// node exists and has room, as the kubelet's admission checks, and a group
// member has its group's priority (a running member cannot be fixed by a
// later cycle).
func (s *Scheduler) checkPreBound(r *podRecord, node string, group *groupRecord) error {
	ni, ok := s.cache.Node(node)
	if !ok {
		return &cluster.FieldError{Sentinel: cluster.ErrNodeNotFound, Object: "pod " + string(r.info.Key()), Field: "nodeName", Detail: fmt.Sprintf("node %q is not in the cluster", node)}
	}
	if rej := plugins.KubeletAdmission(r.info, ni); rej != nil {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: string(r.info.Key()), Field: "nodeName",
			Detail: fmt.Sprintf("node %q has no room: %s", node, rej.Message())}
	}
	if group != nil && r.info.Priority() != group.group.EffectivePriority() {
		return &cluster.FieldError{Sentinel: ErrAdmission, Object: "pod " + string(r.info.Key()), Field: "priority",
			Detail: fmt.Sprintf("%d differs from the priority %d of its pod group %s, and the pod is already running", r.info.Priority(), group.group.EffectivePriority(), group.group.Name)}
	}
	return nil
}

// startRunning puts a pod that arrives with its node in the cache, bound.
func (s *Scheduler) startRunning(r *podRecord, node string) error {
	if err := s.cache.BindPod(r.info, node, s.now); err != nil {
		return err
	}
	s.markBound(r, node)
	r.info, _ = s.cache.Pod(r.info.Key()) // kept once, as bind does
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
			s.changeMembers(s.groupOf(r), func(m *podgroup.Membership) { m.Set(r.info.Key(), podgroup.Unscheduled) })
			return s.offerGroup(s.groupOf(r), []*podRecord{r})
		}
		p := r.info.Pod()
		if hasGates(r) { // its gates come first, as kube-scheduler's PreEnqueue plugins
			s.setReason(r, GatesMessage(p.SchedulingGates))
			return nil
		}
		s.setReason(r, fmt.Sprintf("pod group %s does not exist: the pod waits until it is created", displayName(p.Namespace, p.PodGroup)))
		return nil
	}
	if s.profileFor(r.info) == nil {
		s.setReason(r, fmt.Sprintf("pod names scheduler %q, which no profile has", r.info.Pod().EffectiveSchedulerName()))
		return nil
	}
	if hasGates(r) {
		return s.holdGated(r)
	}
	return s.enqueue(r)
}

// setReason records why a pending pod is not placed and tells observers
// when the reason is new: a pod waiting on its gang hears the same reason at
// every arrival, and an attempt's failure is told by failAttempt.
func (s *Scheduler) setReason(r *podRecord, reason string) {
	r.unschedulable = false
	if r.reasonText() == reason {
		return
	}
	r.reason = reason
	s.emitPod(EventPodUnschedulable, r.info, "", reason)
}

// failAttempt records the failed attempt of a pod to be placed.
func (s *Scheduler) failAttempt(r *podRecord, reason string) { s.failWith(r, reason, nil) }

// failWith is failAttempt for an attempt whose node by node rejections
// are fit (nil for none).
func (s *Scheduler) failWith(r *podRecord, reason string, fit *fw.FitError) {
	r.reason, r.lastFit, r.gated, r.unschedulable, r.reasonFit = reason, fit, false, true, false
	if s.wants(EventPodUnschedulable) {
		s.emitPod(EventPodUnschedulable, r.info, "", reason)
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

// enqueue puts a pending pod in activeQ, keeping its first-seen time.
func (s *Scheduler) enqueue(r *podRecord) error {
	return s.queue.Add(&queue.Item[entry]{
		Key: podItemKey(r.info.Key()), Kind: queue.KindPod, Priority: r.info.Priority(),
		FirstSeen: r.firstSeen, Timestamp: s.now, Size: 1, Value: entry{pod: r.id},
	})
}

func podItemKey(k cluster.PodKey) string { return "pod/" + string(k) }

// markBound records a binding and arms the pod's completion timer.
func (s *Scheduler) markBound(r *podRecord, node string) {
	r.phase, r.node, r.reason, r.boundAt, r.gated, r.unschedulable, r.reasonFit = PhaseBound, node, "", s.now, false, false, false
	r.runs++
	s.nominations.taken(r, node)
	s.dryRuns.forget(r.info)
	if r.group != 0 {
		s.changeMembers(s.groupOf(r), func(m *podgroup.Membership) { m.Set(r.info.Key(), podgroup.Bound) })
	}
	if r.duration > 0 {
		s.addTimer(timer{at: addTime(s.now, r.duration), kind: timerPodDone, pod: r.id, token: r.runs})
	}
	s.podPlaced()
}

// podPlaced notes a pod placed on a node: the unschedulable pods that a
// plugin counting the pods on nodes rejected (required pod affinity, which
// the new pod may satisfy; a spread constraint, whose least populated
// domain it may fill) are retried, as kube-scheduler requeues them on a
// pod's arrival. Anything else a placement cannot help.
func (s *Scheduler) podPlaced() { s.clusterChanged(fw.AssignedPodAdded) }

// waitsOnPods reports whether a queue item has a pod that a placement may
// help.
func (s *Scheduler) waitsOnPods(e entry) bool {
	if r := s.records.at(e.pod); r != nil {
		return waitsOnPods(r.info.Pod())
	}
	for _, id := range s.leafRecords(e.root) {
		if s.membersWaitOnPods(s.groupRecords.at(id)) {
			return true
		}
	}
	return false
}

// membersWaitOnPods reports whether some pending member of gr waits on
// pods (waitsOnPods), kept while the members stay as they are.
func (s *Scheduler) membersWaitOnPods(gr *groupRecord) bool {
	m := s.memberMemo(gr)
	if m.waits == 0 {
		m.waits = 1
		if slices.ContainsFunc(s.pending(gr), func(r *podRecord) bool { return waitsOnPods(r.info.Pod()) }) {
			m.waits = 2
		}
	}
	return m.waits == 2
}

// waitsOnPods reports whether a pod's filters may pass once another pod
// is placed: it has required pod affinity or a DoNotSchedule spread
// constraint.
func waitsOnPods(p *cluster.Pod) bool {
	if a := p.Affinity; a != nil && a.PodAffinity != nil && len(a.PodAffinity.Required) > 0 {
		return true
	}
	for _, c := range p.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == cluster.DoNotSchedule {
			return true
		}
	}
	return false
}

// DeletePod deletes a pod for good, wherever it is.
func (s *Scheduler) DeletePod(key cluster.PodKey) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.record(key)
	if r == nil || r.phase == PhaseDeleted || r.phase == PhaseSucceeded {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	node := r.node
	wasOnNode := r.phase == PhaseBound || r.phase == PhaseTerminating
	if wasOnNode {
		if err := s.removeFromNode(key); err != nil {
			return err
		}
	} else {
		node = ""
	}
	if err := s.markGone(r, PhaseDeleted); err != nil {
		return err
	}
	s.emitPod(EventPodDeleted, r.info, node, "")
	if wasOnNode {
		s.clusterChanged(fw.AssignedPodDeleted)
	}
	return nil
}

// markGone ends a pod's life (deleted or succeeded): it leaves the queue
// and its group. The caller has taken it out of the cache.
func (s *Scheduler) markGone(r *podRecord, phase Phase) error {
	s.quotaEnded(r, phase)
	pending := r.phase == PhasePending
	r.phase, r.reason, r.endedAt, r.reasonFit = phase, "", s.now, false
	s.nominations.clear(r)
	s.dryRuns.forget(r.info)
	s.deleteTemplateClaims(r.info.Pod())
	if phase == PhaseDeleted {
		r.node = ""
	}
	switch {
	case r.group != 0:
		if hasGates(r) {
			s.countGated(s.groupOf(r), -1)
		}
		s.changeMembers(s.groupOf(r), func(m *podgroup.Membership) { m.Remove(r.info.Key()) })
		delete(s.groupOf(r).pods, r.info.Key())
		if pending {
			return s.offerGroup(s.groupOf(r), nil)
		}
	case r.info.Pod().PodGroup != "":
		s.dropOrphan(r)
	case pending:
		_, _ = s.queue.Delete(podItemKey(r.info.Key())) // absent when it names another scheduler
	}
	return nil
}

// clusterChanged notes a change that may let pending pods fit: every
// unschedulable item is retried.
func (s *Scheduler) clusterChanged(kinds fw.ClusterEvent) {
	s.clusterEventVersion++
	for b := range s.lastChange {
		if kinds&(1<<b) != 0 {
			s.lastChange[b] = s.clusterEventVersion
		}
	}
	s.queue.MoveOn(s.now, uint64(kinds))
}

// nominationDropped notes that a nomination went without its pod: the
// room it held may help any pending pod, which Run then waits for, though
// nothing moves now.
func (s *Scheduler) nominationDropped() {
	s.clusterEventVersion++
	for b := range s.lastChange {
		s.lastChange[b] = s.clusterEventVersion
	}
}

// clusterEventSince reports whether a cluster event of a kind in wakeOn
// came after cluster-event version v.
func (s *Scheduler) clusterEventSince(v int64, wakeOn uint64) bool {
	for b, at := range s.lastChange {
		if wakeOn&(1<<b) != 0 && at > v {
			return true
		}
	}
	return false
}

// terminate takes pods off a node that is going away or being drained:
// each leaves the cache, is told to observers and waits again.
func (s *Scheduler) terminate(pods []*cluster.PodInfo, node, reason string) error {
	for _, pi := range pods {
		r := s.record(pi.Key())
		r.reason, r.reasonFit = reason, false
		s.emitPod(EventPodTerminated, r.info, node, reason)
		if err := s.setPending(r); err != nil {
			return err
		}
	}
	return nil
}

// addTime adds a duration to a simulated time, saturating instead of
// wrapping past the largest time.
func addTime(t, d time.Duration) time.Duration {
	if d > 0 && t > maxTime-d {
		return maxTime
	}
	return t + d
}

// maxTime is the largest time.Duration; simulated time stays below
// MaxSimulatedTime, and sums of two such times cannot reach it.
const maxTime = time.Duration(1<<63 - 1)

// MaxSimulatedTime bounds simulated times and the durations the scheduler
// is given (run times, grace periods, backoffs, RunUntil): a hundred years.
// Any time plus any duration then stays far from overflowing.
const MaxSimulatedTime = 100 * 365 * 24 * time.Hour

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
