package gangsim

// The scheduling cycle, in the order it runs (docs/semantics.md §3-§9):
//
//	ScheduleOne / scheduleOne      pop the head of activeQ
//	  schedulePod                  a pod: one snapshot, Filter and Score
//	    postFilterPod, actuatePod  no node fits: PostFilter, evict, nominate
//	  scheduleRoot                 a root group: validate, place the tree
//	    failRoot                   nothing placed: conditions, backoff
//	      postFilterGroup          workload-aware preemption
//	        actuateGroup           evict, nominate the group's pods
//	  commit                       the cycle's reservations, at once:
//	    bind                       each placed pod; claims reserved
//
// The run loop that calls it is in run.go; the shortcut that retries, in a
// row, pods failing as a pod of their shape just failed is in
// shortcuts.go.

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

// ScheduleOne runs one scheduling cycle at the current time for the head
// of the active queue, and reports false when the active queue is empty.
func (s *Scheduler) ScheduleOne() (CycleResult, bool, error) {
	if err := s.usable(); err != nil {
		return CycleResult{}, false, err
	}
	if err := s.fireTimers(); err != nil {
		return CycleResult{}, false, err
	}
	var res CycleResult
	ok, err := s.scheduleOne(&res)
	res.finishStatus()
	return res, ok, err
}

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
	s.beginCycle()
	defer func() { s.inCycle = 0 }()
	var err error
	var pod *cluster.PodInfo
	var group Ref
	res.At, res.Item = s.now, it.Key
	if r := s.tracker.records.at(it.Value.pod); r != nil {
		err = s.schedulePod(it, res)
		pod = r.info
	} else {
		err = s.scheduleRoot(it, res)
		group = groupRef(it.Value.root)
	}
	if s.wants(EventCycle) {
		res.finishStatus()
		s.emit(cycleEvent(pod, group, cycleReason(res.Status)))
	} else {
		s.stats.count(EventCycle, false)
	}
	if err == nil && s.cfg.CheckInvariants {
		err = s.checkCycle(*res)
	}
	return true, err
}

// beginCycle starts a cycle: it is counted, and the events made until it
// ends carry its number. The record of the pod popped a few pops ahead is
// fetched now: in a busy cluster its misses then overlap this cycle (see
// Queue.Ahead).
func (s *Scheduler) beginCycle() {
	if a := s.queue.Ahead(); a != nil {
		if r := s.tracker.records.at(a.Value.pod); r != nil {
			prefetch.Object(unsafe.Pointer(r), unsafe.Sizeof(*r))
		}
	}
	s.cycle++
	s.inCycle = s.cycle
}

// cycleReason is the reason a cycle's event gives for its status.
func cycleReason(st *Status) string {
	reason := st.Message()
	if st != nil && reason == "" {
		reason = st.Code().String()
	}
	return reason
}

// schedulePod runs one pod-by-pod cycle: one snapshot, filter and score,
// then assume the pod on the node in the snapshot (its Reserve plugins
// run) and commit (assume and finish binding in the cache at the same
// instant), or park the pod as unschedulable with the reason, after
// PostFilter (preemption) had its chance. A Reserve failure fails the
// attempt with its status, as kube-scheduler's does: no other node is
// tried, no PostFilter runs, the nomination is cleared.
func (s *Scheduler) schedulePod(it *queue.Item[entry], res *CycleResult) error {
	r := s.tracker.records.at(it.Value.pod)
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return err
	}
	p := s.profiles.of(r)
	if f := s.knownFailureFor(p, r); f != nil {
		// a pod of its shape failed this way with the cluster as it is:
		// its rejections and its status are that pod's, shared
		s.failFit(r, f.fit)
		res.failedUnschedulable(r)
		return s.queue.ParkItem(it, s.now, s.clusterEvents.version, f.wakeOn)
	}
	wasNominated := r.nominated != ""
	s.explainer.start()
	idx, fitErr := p.pods.Schedule(s.snap, r.info, nil, s.nominations.index(r))
	if fitErr != nil {
		s.failFit(r, fitErr)
		res.failedUnschedulable(r)
		res.Evicted, res.Nominated = s.postFilterPod(p, r, fitErr)
		s.explainer.finish(s, r, "")
		wakeOn := p.wakeOn(fitErr)
		if !wasNominated && r.nominated == "" && res.Evicted == nil && res.Nominated == nil {
			s.rememberKnownFailure(p, r, fitErr, wakeOn)
		}
		return s.queue.ParkItem(it, s.now, s.clusterEvents.version, wakeOn)
	}
	if !p.pods.Reserves() {
		// the hot path: with no Reserve plugin, assuming the pod in the
		// snapshot and rolling it back at the commit would change
		// nothing; the commit is of the pod's reservation alone
		p.changes = append(p.changes[:0], cluster.Change{Pod: r.info, Node: idx, Added: true})
		if err := s.commitChanges(p.changes, res); err != nil {
			return err
		}
		return s.queue.DoneItem(it)
	}
	cp := s.snap.Checkpoint()
	if st := p.pods.Assume(s.snap, r.info, idx); st != nil {
		return s.failReserve(it, p, r, idx, st, res)
	}
	if err := s.commit(p, cp, res); err != nil {
		return err
	}
	return s.queue.DoneItem(it)
}

// failReserve ends a pod's cycle whose Reserve failed on the node chosen
// (kube-scheduler's schedulingCycle): the attempt fails with a FitError of
// that node alone, the nomination is cleared, and the pod waits in the
// unschedulable pool for a change, or backs off on an Error status.
func (s *Scheduler) failReserve(it *queue.Item[entry], p *profile, r *podRecord, idx int, st *fw.Status, res *CycleResult) error {
	fit := placement.ReserveFailure(r.info, idx, st)
	s.failFit(r, fit)
	s.nominations.clear(r)
	s.explainer.finish(s, r, "")
	if st.Code() == fw.Error {
		res.Status = NewStatus(Error, r.reasonText())
		return s.queue.BackOffItem(it, s.now, s.clusterEvents.version, true)
	}
	res.failedUnschedulable(r)
	return s.queue.ParkItem(it, s.now, s.clusterEvents.version, p.wakeOn(fit))
}

// commit is a successful cycle's one commit point: the snapshot's
// tentative changes since cp (the chosen result's reservations, oldest
// first) go to the cache in order, each pod reserved bound and each claim
// reserved counted there, and the snapshot is rolled back to cp (the
// cache brings the same state at the next UpdateSnapshot). Bindings are
// appended to res.
func (s *Scheduler) commit(p *profile, cp cluster.Checkpoint, res *CycleResult) error {
	p.changes = s.snap.AppendChanges(p.changes[:0], cp)
	s.snap.Rollback(cp)
	return s.commitChanges(p.changes, res)
}

// commitChanges commits a cycle's changes, oldest first, to the cache.
func (s *Scheduler) commitChanges(changes []cluster.Change, res *CycleResult) error {
	defer clear(changes) // the buffer keeps no pod alive
	for _, ch := range changes {
		node := s.snap.Node(ch.Node).Name()
		var err error
		switch {
		case ch.Pod != nil && ch.Added:
			r := s.tracker.recordOf(ch.Pod)
			if err = s.bind(r, node); err != nil {
				return err
			}
			s.explainer.finish(s, r, node)
			res.Bound = append(res.Bound, Binding{Pod: ch.Pod.Key(), Node: node})
		case ch.Pod != nil:
			err = fmt.Errorf("committing a cycle: pod %s taken off node %q tentatively", ch.Pod.Key(), node)
		case ch.Added:
			if err = s.cache.ReserveClaim(node, ch.Claim, ch.Alloc); err == nil && ch.Alloc != nil {
				s.emit(claimEvent(EventClaimAllocated, ch.Claim, node, ch.Alloc))
			}
		default:
			_, err = s.cache.UnreserveClaim(node, ch.Claim)
		}
		if err != nil {
			return fmt.Errorf("committing a cycle: %w", err)
		}
	}
	return nil
}

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

// scheduleRoot runs one cycle for a root group (docs/semantics.md §5, §9): validate
// every member of the hierarchy, one snapshot, the placement algorithm
// (recursive for a composite) with tentative reservations rolled back,
// then an all-or-nothing commit: every placed pod bound at once, or none
// and PodGroupPostFilter (workload-aware preemption).
func (s *Scheduler) scheduleRoot(it *queue.Item[entry], res *CycleResult) error {
	root := it.Value.root
	pending := s.tracker.hierarchyPending(root)
	if len(pending) == 0 {
		return s.queue.DoneItem(it)
	}
	leaves := s.tracker.leafRecords(root)
	p := s.profiles.of(pending[0]) // kube-scheduler takes the first queued pod's
	if msg := s.tracker.validateRoot(root, leaves, pending[0], &s.profiles); msg != "" {
		return s.errorCycle(it, leaves, pending, msg, res)
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return err
	}
	for _, r := range pending {
		r.attempts++
	}
	s.explainer.start()
	if k := s.knownSearch(p, root, pending); k != nil {
		// nothing since the last search could help: it fails as it did
		p.pods.SetScanPosition(k.after)
		s.answered(root, k)
		return s.failRoot(it, p, root, leaves, k.out, pending, res)
	}
	tree := s.tracker.buildTree(root, s.nominations)
	cp := s.snap.Checkpoint()
	start := p.pods.ScanPosition()
	out := p.groups.ScheduleTree(s.snap, tree, fw.Placement{})
	placed := out.Assignments(tree)
	if out.Err != nil || !out.Feasible || len(placed) == 0 {
		s.snap.Rollback(cp)
		if out.Err != nil {
			return s.errorCycle(it, leaves, pending, out.Err.Error(), res)
		}
		s.rememberSearch(p, root, pending, tree, out, start)
		return s.failRoot(it, p, root, leaves, out, pending, res)
	}
	// the snapshot holds the chosen result's changes: the placed pods'
	// reservations, in placed's order, with their Reserve plugins' changes
	if err := s.commit(p, cp, res); err != nil {
		return err
	}
	s.explainLeaves(leaves, out, "")
	if root.Composite {
		s.emit(groupEvent(EventGroupScheduled, groupRef(root), ""))
	}
	if left := s.tracker.pendingCount(root); left > 0 {
		it.Size = left
		return s.queue.RequeueItem(it)
	}
	return s.queue.DoneItem(it)
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
		s.emit(groupEvent(EventGroupFailed, groupRef(root), msg))
	}
	for _, r := range pending {
		s.explainer.finish(s, r, "")
	}
	res.Evicted, res.Nominated = s.postFilterGroup(p, root, pending)
	return s.backOff(it, false)
}

// errPodGroupUnschedulable is kube-scheduler's message for a group whose
// cycle placed nothing without a more specific reason.
const errPodGroupUnschedulable = "pod group is unschedulable"

// postFilterGroup runs the profile's PodGroupPostFilter plugins when a
// root's cycle failed (workload-aware preemption, docs/semantics.md §8) and
// carries out the first success: victims evicted, the group's pods
// nominated to the nodes found. Nothing is bound in this cycle; the group
// retries, nominated nodes first, once the victims are gone.
func (s *Scheduler) postFilterGroup(p *profile, root podgroup.Ref, pending []*podRecord) ([]Eviction, []Binding) {
	if s.groupPostFilterFutile(p, s.tracker.rootPriority(root)) {
		return nil, nil // none can succeed, and a failure changes nothing
	}
	g := s.tracker.rootGroup(root, s.nominations)
	pods := make([]*cluster.PodInfo, len(pending))
	for i, r := range pending {
		pods[i] = r.info
	}
	place := func() ([]fw.Assignment, *fw.Status) { return s.placeForPreemption(p, root) }
	for _, pl := range p.groupPostFilter {
		res, st := pl.PodGroupPostFilter(g, pods, place)
		if st.IsSuccess() && res != nil {
			return s.actuateGroup(root, res)
		}
		if st.Code() == fw.UnschedulableAndUnresolvable {
			break
		}
	}
	return nil, nil
}

// actuateGroup carries out a successful PodGroupPostFilter.
func (s *Scheduler) actuateGroup(root podgroup.Ref, res *fw.PodGroupPostFilterResult) ([]Eviction, []Binding) {
	prio := s.tracker.rootPriority(root)
	var nominated []Binding
	for _, a := range res.Nominations {
		node := s.snap.Node(a.Node).Name()
		s.nominations.clearBelow(node, prio)
		s.nominate(s.tracker.record(a.Pod.Key()), node)
		nominated = append(nominated, Binding{Pod: a.Pod.Key(), Node: node})
	}
	return s.evictVictims(res.Victims, groupRef(root)), nominated
}

// placeForPreemption runs the root's placement algorithm on the snapshot
// as preemption left it (victims removed) and leaves it unchanged.
func (s *Scheduler) placeForPreemption(p *profile, root podgroup.Ref) ([]fw.Assignment, *fw.Status) {
	tree := s.tracker.buildTree(root, s.nominations)
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

// errorCycle ends a cycle that could not judge its groups (invalid
// members, a broken topology constraint): SchedulerError on every group,
// the reason on every pending pod, nothing bound, error backoff.
func (s *Scheduler) errorCycle(it *queue.Item[entry], leaves []groupID, pending []*podRecord, msg string, res *CycleResult) error {
	for _, r := range pending {
		s.failWith(r, msg, nil)
		r.unschedulable = false // kube's SchedulerError, not Unschedulable
	}
	for _, id := range leaves {
		gr := s.tracker.groupRecords.at(id)
		gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonSchedulerError, msg, s.now)
		s.emit(groupEvent(EventGroupFailed, Ref{Kind: KindPodGroup, Key: gr.key}, msg))
	}
	res.Status = NewStatus(Error, msg)
	return s.backOff(it, true)
}

// backOff puts a failed group in backoffQ. Any change makes it worth
// retrying once its backoff ends, except a pod placed, which only helps
// groups with a pod whose filters count the pods on nodes.
func (s *Scheduler) backOff(it *queue.Item[entry], isError bool) error {
	it.WakeOn = queue.AnyChange
	if !s.tracker.waitsOnPods(it.Value) {
		it.WakeOn &^= uint64(fw.AssignedPodAdded)
	}
	return s.queue.BackOffItem(it, s.now, s.clusterEvents.version, isError)
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
	r := s.tracker.record(key)
	if r == nil || r.phase != PhaseBound {
		return Eviction{}, false
	}
	if err := s.cache.EvictPod(key, s.now); err != nil {
		return Eviction{}, false
	}
	r.phase = PhaseTerminating
	s.emit(evictionEvent(r.info, r.node, by, violation))
	s.timers.add(timer{at: addTime(s.now, s.cfg.gracePeriod()), kind: timerTerminated, pod: r.id, token: r.binds})
	return s.evictions[len(s.evictions)-1], true
}

// nominate records a pod's nominated node and tells observers.
func (s *Scheduler) nominate(r *podRecord, node string) {
	s.nominations.nominate(r, node)
	s.emit(podEvent(EventPodNominated, r.info, node, ""))
}

// bind assumes the pod on node and completes its binding at once.
func (s *Scheduler) bind(r *podRecord, node string) error {
	bound, err := s.cache.BindPod(r.info, node, s.now)
	if err != nil {
		return fmt.Errorf("binding pod %s: %w", r.info.Key(), err)
	}
	s.markBound(r, node)
	s.emit(podEvent(EventPodBound, r.info, node, ""))
	if r.info.NodeName() == "" && r.info.StartTime() == 0 {
		// a running pod is kept once, in its bound form (setPending makes
		// the pending form again)
		r.info = bound
	}
	return nil
}
