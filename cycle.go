package gangsim

import (
	"fmt"
	"unsafe"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/internal/prefetch"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// scheduleOne pops the head of activeQ and runs its cycle: a pod's, or a
// root group's (a PodGroup being a hierarchy of one leaf). It fills res,
// which the caller zeroed: results are filled in place, not returned, for
// a busy cluster's cycles are mostly a few reads and the copies of a
// returned result stalled them.
func (s *Scheduler) scheduleOne(res *CycleResult) (bool, error) {
	it, ok := s.queue.Pop(s.now)
	if !ok {
		return false, nil
	}
	if a := s.queue.Ahead(); a != nil {
		// the record of a pod popped soon, fetched now: in a busy cluster
		// its misses then overlap this cycle (see Queue.Ahead)
		if r := s.records.at(a.Value.pod); r != nil {
			prefetch.Object(unsafe.Pointer(r), unsafe.Sizeof(*r))
		}
	}
	s.cycle++
	s.inCycle = s.cycle
	defer func() { s.inCycle = 0 }()
	var err error
	ev := Event{Kind: EventCycle}
	res.At, res.Item = s.now, it.Key
	if r := s.records.at(it.Value.pod); r != nil {
		err = s.schedulePod(it, res)
		ev.Pod = r.info
	} else {
		err = s.scheduleRoot(it, res)
		ev.Group = groupRef(it.Value.root)
	}
	ev.Reason = cycleReason(res.Status)
	s.emit(ev)
	if err == nil && s.cfg.CheckInvariants {
		err = s.checkCycle(*res)
	}
	return true, err
}

// cycleReason is the reason a cycle's event gives for its status.
func cycleReason(st *Status) string {
	reason := st.Message()
	if st != nil && reason == "" {
		reason = st.Code().String()
	}
	return reason
}

// retryKnownFailures runs the cycles at the head of activeQ, at most max,
// of pods that fail as a pod of their shape just failed (see failures),
// one after another; it returns how many it ran. Each is the cycle
// scheduleOne would run, with the same events and the same outcome: what
// it leaves out is the search for the head of activeQ at each pop, and
// the rest of a cycle's general path. A busy cluster's cycles are nearly
// all such retries.
func (s *Scheduler) retryKnownFailures(max int) (int, error) {
	if s.cfg.CheckInvariants || !s.failuresUsable() || len(s.failures.byShape) == 0 || max <= 0 {
		return 0, nil // with invariants checked, every cycle takes the general path, which checks them
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return 0, err
	}
	s.retry.now = s.knownNow() // what nothing in these cycles changes
	n := s.queue.ParkHead(s.now, s.version, max, s.retryKnown, s.retriedKnown)
	s.failures.inRow += n
	return n, nil
}

// retryKnown begins the cycle of it's pod if it fails as a known failure
// (else it changes nothing): scheduleOne's and schedulePod's work for
// that case up to parking, which ParkHead does.
func (s *Scheduler) retryKnown(it *queue.Item[entry]) (uint64, bool) {
	r := s.records.at(it.Value.pod)
	if r == nil {
		return 0, false
	}
	f := s.knownFailureAt(s.profileOf(r), r, s.retry.now)
	if f == nil {
		return 0, false
	}
	if a := s.queue.Ahead(); a != nil {
		if r := s.records.at(a.Value.pod); r != nil {
			prefetch.Object(unsafe.Pointer(r), unsafe.Sizeof(*r))
		}
	}
	s.cycle++
	s.inCycle = s.cycle
	f.answered()
	s.failWith(r, f.reason, f.fit)
	if s.observed() {
		s.retry.pod, s.retry.reason = r.info, f.cycle
	}
	return f.wakeOn, true
}

// retriedKnown ends the cycle retryKnown began, once the pod is parked.
func (s *Scheduler) retriedKnown(*queue.Item[entry]) {
	if s.observed() {
		s.emit(Event{Kind: EventCycle, Pod: s.retry.pod, Reason: s.retry.reason})
		s.retry.pod = nil
	} else {
		s.stats.count(EventCycle, false)
	}
	s.inCycle = 0
}

// schedulePod runs one pod-by-pod cycle: one snapshot, filter and score,
// then bind (assume and finish binding in the cache at the same instant)
// or park the pod as unschedulable with the reason, after PostFilter
// (preemption) had its chance.
func (s *Scheduler) schedulePod(it *queue.Item[entry], res *CycleResult) error {
	r := s.records.at(it.Value.pod)
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return err
	}
	p := s.profileOf(r)
	if f := s.knownFailure(p, r); f != nil {
		// a pod of its shape failed this way with the cluster as it is:
		// its rejections and its status are that pod's, shared
		res.Status = f.answered()
		s.failWith(r, f.reason, f.fit)
		return s.queue.ParkFor(it.Key, s.now, s.version, f.wakeOn)
	}
	wasNominated := r.nominated != ""
	s.explainer.start()
	idx, fitErr := p.pods.Schedule(s.snap, r.info, nil, s.nominations.index(r))
	if fitErr != nil {
		s.failFit(r, fitErr)
		res.Status = NewStatus(Unschedulable, r.reason)
		res.Evicted, res.Nominated = s.postFilterPod(p, r, fitErr)
		s.explainer.finish(s, r, "")
		wakeOn := p.wakeOn(fitErr)
		if !wasNominated && r.nominated == "" && res.Evicted == nil && res.Nominated == nil {
			s.rememberFailure(p, r, fitErr, wakeOn)
		}
		return s.queue.ParkFor(it.Key, s.now, s.version, wakeOn)
	}
	node := s.snap.Node(idx).Name()
	if err := s.bind(r, node); err != nil {
		return err
	}
	s.explainer.finish(s, r, node)
	res.Bound = []Binding{{Pod: r.info.Key(), Node: node}}
	return s.queue.Done(it.Key)
}

// scheduleRoot runs one cycle for a root group (docs/semantics.md §5, §9): validate
// every member of the hierarchy, one snapshot, the placement algorithm
// (recursive for a composite) with tentative reservations rolled back,
// then an all-or-nothing commit: every placed pod bound at once, or none
// and PodGroupPostFilter (workload-aware preemption).
func (s *Scheduler) scheduleRoot(it *queue.Item[entry], res *CycleResult) error {
	root := it.Value.root
	pending := s.hierarchyPending(root)
	if len(pending) == 0 {
		return s.queue.Done(it.Key)
	}
	leaves := s.leafRecords(root)
	p := s.profileFor(pending[0].info) // kube-scheduler takes the first queued pod's
	if msg := s.validateRoot(root, leaves, pending[0]); msg != "" {
		return s.errorCycle(it, leaves, pending, msg, res)
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return err
	}
	for _, r := range pending {
		r.attempts++
	}
	s.explainer.start()
	tree := s.buildTree(root)
	out := s.placeRoot(p, tree)
	if out.Err != nil {
		return s.errorCycle(it, leaves, pending, out.Err.Error(), res)
	}
	placed := out.Assignments(tree)
	if !out.Feasible || len(placed) == 0 {
		return s.failRoot(it, p, root, leaves, out, pending, res)
	}
	for _, a := range placed {
		node := s.snap.Node(a.Node).Name()
		r := s.record(a.Pod.Key())
		if err := s.bind(r, node); err != nil {
			return err
		}
		s.explainer.finish(s, r, node)
		res.Bound = append(res.Bound, Binding{Pod: a.Pod.Key(), Node: node})
	}
	s.explainLeaves(leaves, out, "")
	if root.Composite {
		s.emit(Event{Kind: EventGroupScheduled, Group: groupRef(root)})
	}
	if left := s.pendingCount(root); left > 0 {
		it.Size = left
		return s.queue.Requeue(it.Key)
	}
	return s.queue.Done(it.Key)
}

// placeRoot runs the profile's placement algorithm for the hierarchy on
// the snapshot as it is and leaves the snapshot unchanged.
func (s *Scheduler) placeRoot(p *profile, tree *placement.TreeNode) placement.TreeResult {
	cp := s.snap.Checkpoint()
	out := p.groups.ScheduleTree(s.snap, tree, fw.Placement{})
	s.snap.Rollback(cp)
	return out
}

// failRoot ends a cycle that bound nothing: every pending pod keeps or gets
// its reason, every leaf its condition, then workload-aware preemption
// runs; the root backs off, even when preemption succeeded (nothing is
// bound in this cycle).
func (s *Scheduler) failRoot(it *queue.Item[entry], p *profile, root podgroup.Ref, leaves []groupID, out placement.TreeResult, pending []*podRecord, res *CycleResult) error {
	msg := out.Message
	if out.Feasible {
		// the policy was met by members scheduled earlier, but no pod was
		// placed now: kube-scheduler turns that success into a failure
		msg = errPodGroupUnschedulable
	}
	res.Status = NewStatus(Unschedulable, msg)
	s.explainLeaves(leaves, out, msg)
	if root.Composite {
		s.emit(Event{Kind: EventGroupFailed, Group: groupRef(root), Reason: msg})
	}
	for _, r := range pending {
		s.explainer.finish(s, r, "")
	}
	res.Evicted, res.Nominated = s.postFilterGroup(p, root, pending)
	return s.backOff(it, false)
}

// backOff puts a failed group in backoffQ. Any change makes it worth
// retrying once its backoff ends, except a pod placed, which only helps
// groups with a pod whose filters count the pods on nodes.
func (s *Scheduler) backOff(it *queue.Item[entry], isError bool) error {
	it.WakeOn = queue.AnyChange
	if !s.waitsOnPods(it.Value) {
		it.WakeOn &^= uint64(fw.AssignedPodAdded)
	}
	return s.queue.BackOff(it.Key, s.now, s.version, isError)
}

// errPodGroupUnschedulable is kube-scheduler's message for a group whose
// cycle placed nothing without a more specific reason.
const errPodGroupUnschedulable = "pod group is unschedulable"

// explainLeaves records each leaf's outcome of a cycle: its condition, its
// event, and the reasons of its pods still pending. rootMsg is "" when the
// cycle bound pods, else why it failed; a leaf the cycle never reached (an
// earlier sibling made its composite give up) fails with that reason.
func (s *Scheduler) explainLeaves(leaves []groupID, out placement.TreeResult, rootMsg string) {
	for _, id := range leaves {
		gr := s.groupRecords.at(id)
		lr, evaluated := out.Leaves[gr.group.Key()]
		if !evaluated && rootMsg == "" {
			continue // under a composite that gave up inside a successful root
		}
		ok := rootMsg == "" && lr.Feasible
		msg := rootMsg
		if evaluated && lr.Message != "" {
			msg = lr.Message
		}
		ref := Ref{Kind: KindPodGroup, Key: gr.group.Key()}
		if ok {
			gr.setCondition(podgroup.ConditionTrue, podgroup.ReasonScheduled, "", s.now)
			s.emit(Event{Kind: EventGroupScheduled, Group: ref})
		} else {
			gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonUnschedulable, msg, s.now)
			s.emit(Event{Kind: EventGroupFailed, Group: ref, Reason: msg})
		}
		if len(lr.Failures) == 0 && msg == "" {
			continue
		}
		failed := make(map[cluster.PodKey]*fw.FitError, len(lr.Failures))
		for _, f := range lr.Failures {
			failed[f.Pod.Key()] = f.Err
		}
		for _, r := range s.pending(gr) {
			if fit, ok := failed[r.info.Key()]; ok {
				s.failFit(r, fit)
			} else if msg != "" {
				s.failAttempt(r, msg)
			}
		}
	}
}

// errorCycle ends a cycle that could not judge its groups (invalid
// members, a broken topology constraint): SchedulerError on every group,
// the reason on every pending pod, nothing bound, error backoff.
func (s *Scheduler) errorCycle(it *queue.Item[entry], leaves []groupID, pending []*podRecord, msg string, res *CycleResult) error {
	for _, r := range pending {
		s.failAttempt(r, msg)
	}
	for _, id := range leaves {
		gr := s.groupRecords.at(id)
		gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonSchedulerError, msg, s.now)
		s.emit(Event{Kind: EventGroupFailed, Group: Ref{Kind: KindPodGroup, Key: gr.group.Key()}, Reason: msg})
	}
	res.Status = NewStatus(Error, msg)
	return s.backOff(it, true)
}

// validateRoot checks what kube-scheduler's validatePodGroup checks: every
// member of the hierarchy, pending or scheduled, names this scheduler, has
// the root's priority and the root's preemption policy. It returns the
// first problem, or "".
func (s *Scheduler) validateRoot(root podgroup.Ref, leaves []groupID, first *podRecord) string {
	what := "pod group"
	if root.Composite {
		what = "composite pod group"
	}
	name, prio, policy := s.rootName(root), s.rootPriority(root), s.rootPolicy(root)
	scheduler := first.info.Pod().EffectiveSchedulerName()
	if s.profiles[scheduler] == nil {
		return fmt.Sprintf("pod %s names scheduler %q, which no profile has", first.info.Key().Display(), scheduler)
	}
	for _, id := range leaves {
		gr := s.groupRecords.at(id)
		for k := range gr.members.Members() {
			p := s.records.at(gr.pods[k]).info
			switch {
			case p.Pod().EffectiveSchedulerName() != scheduler:
				return fmt.Sprintf("pod %s names scheduler %q, but %s %s is scheduled by %q", k.Display(), p.Pod().EffectiveSchedulerName(), what, name, scheduler)
			case p.Priority() != prio:
				return fmt.Sprintf("pod %s has priority %d, but %s %s has priority %d", k.Display(), p.Priority(), what, name, prio)
			case p.Pod().EffectivePreemptionPolicy() != policy:
				return fmt.Sprintf("pod %s has preemptionPolicy %s, but %s %s has %s", k.Display(), p.Pod().EffectivePreemptionPolicy(), what, name, policy)
			}
		}
	}
	return ""
}

// buildTree describes the hierarchy under ref for the placement algorithm:
// each leaf's pending pods in cycle order, and each composite's scheduled
// pods (which pin its topology domain and count in its placement score).
func (s *Scheduler) buildTree(ref podgroup.Ref) *placement.TreeNode {
	if !ref.Composite {
		gr := s.group(ref.Key)
		return &placement.TreeNode{Key: ref.Key, Leaf: s.leafRequest(gr, s.pending(gr))}
	}
	c := &s.composites[ref.Key].cpg
	n := &placement.TreeNode{Key: ref.Key, Composite: &fw.Group{Ref: ref, Composite: c}}
	for _, child := range s.forest.Children(ref.Key) {
		cn := s.buildTree(child)
		n.Children = append(n.Children, cn)
		sub := cn.Composite
		if cn.Leaf != nil {
			sub = cn.Leaf.Group
		}
		n.Composite.ScheduledNodes = append(n.Composite.ScheduledNodes, sub.ScheduledNodes...)
		n.Composite.Scheduled += sub.Scheduled
	}
	return n
}

// leafRequest describes a PodGroup's pending pods (in cycle order) for the
// placement algorithm.
func (s *Scheduler) leafRequest(gr *groupRecord, pending []*podRecord) *placement.GroupRequest {
	g := &fw.Group{Ref: podgroup.Ref{Key: gr.group.Key()}, PodGroup: &gr.group, Scheduled: gr.members.Scheduled(), ScheduledNodes: s.scheduledNodes(gr)}
	req := &placement.GroupRequest{Group: g}
	for _, r := range pending {
		g.Pods = append(g.Pods, r.info)
		req.Nominated = append(req.Nominated, s.nominations.index(r))
	}
	return req
}

// rootGroup describes a root for its PodGroupPostFilter plugins.
func (s *Scheduler) rootGroup(root podgroup.Ref) *fw.Group {
	if root.Composite {
		return s.buildTree(root).Composite
	}
	gr := s.group(root.Key)
	return s.leafRequest(gr, s.pending(gr)).Group
}

// placeForPreemption runs the root's placement algorithm on the snapshot
// as preemption left it (victims removed) and leaves it unchanged.
func (s *Scheduler) placeForPreemption(p *profile, root podgroup.Ref) ([]fw.Assignment, *fw.Status) {
	tree := s.buildTree(root)
	out := s.placeRoot(p, tree)
	placed := out.Assignments(tree)
	switch {
	case out.Err != nil:
		return nil, fw.NewStatus(fw.Error, out.Err.Error())
	case !out.Feasible || len(placed) == 0:
		return nil, fw.NewStatus(fw.Unschedulable, out.Message)
	}
	return placed, nil
}
