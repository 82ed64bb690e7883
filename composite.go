package gangsim

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
	"github.com/gangsim/gangsim/queue"
)

// compositeRecord is the scheduler's record of a CompositePodGroup.
type compositeRecord struct {
	cpg podgroup.CompositePodGroup
}

// AddCompositePodGroup defines a CompositePodGroup, as a root or under its
// parent (which must be defined, with the same priority, and leave room
// within podgroup.MaxDepth). A composite with PriorityClassName gets the
// class's value and, unless it sets its own, preemption policy.
func (s *Scheduler) AddCompositePodGroup(c podgroup.CompositePodGroup) error {
	if err := s.admitClass("composite pod group "+c.Key(), c.PriorityClassName, &c.Priority, &c.PreemptionPolicy); err != nil {
		return err
	}
	rec := &compositeRecord{cpg: c}
	if err := s.forest.AddComposite(&rec.cpg); err != nil {
		return err
	}
	s.composites[c.Key()] = rec
	return nil
}

func compositeItemKey(key string) string { return "compositepodgroup/" + key }

// offerComposite keeps a composite root's queue item in step with the pods
// of its hierarchy: queued once the hierarchical quorum is met (a leaf is
// ready with minCount known pods, a composite with minGroupCount ready
// children) and a pod is pending.
func (s *Scheduler) offerComposite(c *compositeRecord) error {
	ref := podgroup.Ref{Composite: true, Key: c.cpg.Key()}
	pending := 0
	for _, leaf := range s.forest.Leaves(ref) {
		pending += s.groups[leaf.Key].members.Count(podgroup.Unscheduled)
	}
	return s.offerItem(compositeItemKey(c.cpg.Key()), c.cpg.Priority, pending, s.treeReady(ref), entry{composite: c}, func() {
		for _, r := range s.hierarchyPending(ref) {
			r.reason = fmt.Sprintf("waiting for composite pod group %q tree to meet quorum", c.cpg.Name)
		}
	})
}

// treeReady is the hierarchical quorum of kube-scheduler's GangScheduling
// PreEnqueue.
func (s *Scheduler) treeReady(ref podgroup.Ref) bool {
	if !ref.Composite {
		return s.groups[ref.Key].ready()
	}
	ready := 0
	for _, child := range s.forest.Children(ref.Key) {
		if s.treeReady(child) {
			ready++
		}
	}
	return ready >= s.composites[ref.Key].cpg.Quorum()
}

// hierarchyPending returns the pending pods of every leaf under ref, each
// leaf's in its cycle order, leaves in child order.
func (s *Scheduler) hierarchyPending(ref podgroup.Ref) []*podRecord {
	var out []*podRecord
	for _, leaf := range s.forest.Leaves(ref) {
		out = append(out, s.groups[leaf.Key].pending()...)
	}
	return out
}

// buildTree describes the hierarchy under ref for the placement algorithm:
// each leaf's pending pods in cycle order, and each composite's scheduled
// pods (which pin its topology domain and count in its placement score).
func (s *Scheduler) buildTree(ref podgroup.Ref) *placement.TreeNode {
	if !ref.Composite {
		gr := s.groups[ref.Key]
		return &placement.TreeNode{Key: ref.Key, Leaf: s.leafRequest(gr, gr.pending())}
	}
	c := &s.composites[ref.Key].cpg
	n := &placement.TreeNode{Key: ref.Key, Composite: c, Subject: placement.Subject{Name: c.Name, TopologyKey: c.TopologyKey}}
	for _, child := range s.forest.Children(ref.Key) {
		cn := s.buildTree(child)
		n.Children = append(n.Children, cn)
		sub := cn.Subject
		if cn.Leaf != nil {
			sub = *cn.Leaf.Subject()
		}
		n.Subject.ScheduledNodes = append(n.Subject.ScheduledNodes, sub.ScheduledNodes...)
		n.Subject.Scheduled += sub.Scheduled
	}
	return n
}

// scheduleComposite runs one cycle for a composite root (SEMANTICS S9):
// validate the hierarchy, one snapshot, the recursive placement, then bind
// every placed pod of the hierarchy at once, or nothing.
func (s *Scheduler) scheduleComposite(it *queue.Item[entry]) (CycleResult, error) {
	c := it.Value.composite
	ref := podgroup.Ref{Composite: true, Key: c.cpg.Key()}
	res := CycleResult{At: s.now, Item: it.Key}
	pending := s.hierarchyPending(ref)
	if len(pending) == 0 {
		return res, s.queue.Done(it.Key)
	}
	leaves := s.forest.Leaves(ref)
	if msg := s.validateHierarchy(c, leaves); msg != "" {
		return s.errorCycle(it, s.leafRecords(leaves), pending, msg, res)
	}
	if err := s.cache.UpdateSnapshot(s.snap); err != nil {
		return res, err
	}
	for _, r := range pending {
		r.attempts++
	}
	tree := s.buildTree(ref)
	cp := s.snap.Checkpoint()
	out := s.groupAlgo.ScheduleTree(s.snap, tree, placement.Placement{})
	s.snap.Rollback(cp)
	if out.Err != nil {
		return s.errorCycle(it, s.leafRecords(leaves), pending, out.Err.Error(), res)
	}
	placed := out.Assignments(tree)
	s.explainLeaves(leaves, out)
	if !out.Feasible || len(placed) == 0 {
		msg := out.Message
		if out.Feasible {
			msg = "pod group is unschedulable"
		}
		res.Status = NewStatus(Unschedulable, msg)
		for _, leaf := range leaves {
			if _, ok := out.Leaves[leaf.Key]; !ok {
				s.groups[leaf.Key].failAll(msg, s.now)
			}
		}
		res.Evicted, res.Nominated = s.preemptFor(workload{name: c.cpg.Name, priority: c.cpg.Priority, policy: c.cpg.EffectivePreemptionPolicy(),
			pending: pending, place: func() ([]preemption.Assignment, bool) { return s.placeTree(ref) }})
		return res, s.queue.BackOff(it.Key, s.now, s.version, false)
	}
	for _, a := range placed {
		node := s.snap.Node(a.Node).Name()
		if err := s.bind(s.pods[a.Pod.Key()], node); err != nil {
			return res, err
		}
		res.Bound = append(res.Bound, Binding{Pod: a.Pod.Key(), Node: node})
	}
	if left := len(s.hierarchyPending(ref)); left > 0 {
		it.Size = left
		return res, s.queue.Requeue(it.Key)
	}
	return res, s.queue.Done(it.Key)
}

// explainLeaves records each evaluated leaf's outcome: conditions, and the
// reasons of its pods still pending.
func (s *Scheduler) explainLeaves(leaves []podgroup.Ref, out placement.TreeResult) {
	for _, leaf := range leaves {
		lr, ok := out.Leaves[leaf.Key]
		if !ok {
			continue
		}
		gr := s.groups[leaf.Key]
		if out.Feasible && lr.Feasible {
			gr.setCondition(podgroup.ConditionTrue, podgroup.ReasonScheduled, "", s.now)
		} else {
			gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonUnschedulable, lr.Message, s.now)
		}
		gr.explain(lr, lr.Message)
	}
}

// failAll marks a leaf not evaluated in a failed cycle: its pods wait with
// the root's reason.
func (gr *groupRecord) failAll(msg string, now time.Duration) {
	for _, r := range gr.pending() {
		r.reason = msg
	}
	gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonUnschedulable, msg, now)
}

// validateHierarchy checks every pod of the hierarchy, pending or
// scheduled, against the root: this scheduler's name, the root's priority
// and preemption policy. It returns the first problem, or "".
func (s *Scheduler) validateHierarchy(c *compositeRecord, leaves []podgroup.Ref) string {
	for _, leaf := range leaves {
		gr := s.groups[leaf.Key]
		for k := range gr.members.Members() {
			p := gr.pods[k].info.Pod()
			switch {
			case p.EffectiveSchedulerName() != s.cfg.SchedulerName:
				return fmt.Sprintf("pod %s names scheduler %q, but composite pod group %s is scheduled by %q", displayName(k), p.EffectiveSchedulerName(), c.cpg.Name, s.cfg.SchedulerName)
			case p.Priority != c.cpg.Priority:
				return fmt.Sprintf("pod %s has priority %d, but composite pod group %s has priority %d", displayName(k), p.Priority, c.cpg.Name, c.cpg.Priority)
			case p.EffectivePreemptionPolicy() != c.cpg.EffectivePreemptionPolicy():
				return fmt.Sprintf("pod %s has preemptionPolicy %s, but composite pod group %s has %s", displayName(k), p.EffectivePreemptionPolicy(), c.cpg.Name, c.cpg.EffectivePreemptionPolicy())
			}
		}
	}
	return ""
}

// placeTree runs the recursive algorithm on the snapshot as it is and
// leaves the snapshot unchanged.
func (s *Scheduler) placeTree(ref podgroup.Ref) ([]preemption.Assignment, bool) {
	tree := s.buildTree(ref)
	cp := s.snap.Checkpoint()
	out := s.groupAlgo.ScheduleTree(s.snap, tree, placement.Placement{})
	s.snap.Rollback(cp)
	placed := out.Assignments(tree)
	if out.Err != nil || !out.Feasible || len(placed) == 0 {
		return nil, false
	}
	as := make([]preemption.Assignment, len(placed))
	for i, a := range placed {
		as[i] = preemption.Assignment{Pod: a.Pod, Node: a.Node}
	}
	return as, true
}

func (s *Scheduler) leafRecords(leaves []podgroup.Ref) []*groupRecord {
	out := make([]*groupRecord, len(leaves))
	for i, l := range leaves {
		out[i] = s.groups[l.Key]
	}
	return out
}
