package gangsim

import (
	"cmp"
	"fmt"
	"iter"
	"slices"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// GroupStatus is what the scheduler knows of a PodGroup.
type GroupStatus struct {
	Key        string
	Group      podgroup.PodGroup // as admitted: Priority resolved
	Known      int               // member pods known (scheduled or not)
	Scheduled  int               // members assumed or bound
	Conditions podgroup.Conditions
}

// AddPodGroup defines a PodGroup, as a root or under its parent
// CompositePodGroup (which must be defined, with the same priority).
// Admission resolves its priority and preemption policy (GroupPriority:
// its class, its own priority, its parent's, the global default). Pods
// that named the group before it existed join it now, and a pending one
// that takes its priority from the group takes it now.
func (s *Scheduler) AddPodGroup(g podgroup.PodGroup) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return err
	}
	if s.tracker.groups[g.Key()] != 0 {
		return fmt.Errorf("%w: pod group %s", ErrDuplicate, g.Key())
	}
	prio, policy, err := GroupPriority(&s.classes, "pod group "+g.Key(), g.Priority, g.PriorityClassName, g.PreemptionPolicy, s.tracker.parentOf(g.Namespace, g.Parent))
	if err != nil {
		return err
	}
	g.Priority, g.PreemptionPolicy = &prio, policy
	g.ResourceClaims = slices.Clone(g.ResourceClaims) // the scheduler's own copy: Group of GroupStatus shares it, read-only
	// the members that arrived first are admitted again before anything
	// changes: an error leaves the scheduler as it was
	waiting := s.tracker.orphans[g.Key()]
	readmitted, err := s.tracker.readmit(waiting, &g, &s.classes)
	if err != nil {
		return err
	}
	gr, id := s.tracker.groupRecords.add(groupRecord{group: g, key: g.Key(), pods: map[cluster.PodKey]podID{}, itemKey: "podgroup/" + g.Key()})
	gr.id = id
	gr.self = []groupID{gr.id}
	if err := s.tracker.forest.AddGroup(&gr.group); err != nil {
		s.tracker.groupRecords.dropLast()
		return err
	}
	s.tracker.extendLeaves(gr)
	s.tracker.forestVersion++
	s.tracker.groups[g.Key()] = gr.id
	delete(s.tracker.orphans, g.Key())
	for i, id := range waiting {
		r := s.tracker.records.at(id)
		if readmitted[i] != nil {
			r.setInfo(readmitted[i])
			r.spec = nil
			s.preEnqueue(r)
		}
		s.tracker.join(gr, r)
	}
	return s.offerGroup(gr, s.tracker.pending(gr))
}

// readmit returns, for the pods that arrived before their group, the pod
// admission gives them now that the group is known (nil: unchanged). A
// member already running must have the group's priority: no later cycle
// could fix it.
func (t *tracker) readmit(waiting []podID, g *podgroup.PodGroup, classes *cluster.PriorityClasses) ([]*cluster.PodInfo, error) {
	out := make([]*cluster.PodInfo, len(waiting))
	for i, id := range waiting {
		r := t.records.at(id)
		if r.phase != PhasePending {
			if p := g.EffectivePriority(); r.info.Priority() != p {
				return nil, &cluster.FieldError{Sentinel: ErrAdmission, Object: "pod group " + g.Key(), Field: "priority",
					Detail: fmt.Sprintf("%d differs from the priority %d of its running member %s", p, r.info.Priority(), r.info.Key())}
			}
			continue
		}
		if r.spec == nil {
			continue
		}
		info, err := admission.AdmitPod(classes, *r.spec, g)
		if err != nil {
			return nil, err
		}
		out[i] = info
	}
	return out, nil
}

// parentOf returns the named parent composite of a group, or nil.
func (t *tracker) parentOf(namespace, parent string) *podgroup.CompositePodGroup {
	if parent == "" {
		return nil
	}
	return t.forest.Composite(podgroup.Key(namespace, parent))
}

// AddCompositePodGroup defines a CompositePodGroup, as a root or under its
// parent (which must be defined, with the same priority, and leave room
// within podgroup.MaxDepth). Admission resolves its priority as for a
// PodGroup.
func (s *Scheduler) AddCompositePodGroup(c podgroup.CompositePodGroup) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	prio, policy, err := GroupPriority(&s.classes, "composite pod group "+c.Key(), c.Priority, c.PriorityClassName, c.PreemptionPolicy, s.tracker.parentOf(c.Namespace, c.Parent))
	if err != nil {
		return err
	}
	c.Priority, c.PreemptionPolicy = &prio, policy
	rec := &compositeRecord{cpg: c, itemKey: "compositepodgroup/" + c.Key()}
	if err := s.tracker.forest.AddComposite(&rec.cpg); err != nil {
		return err
	}
	s.tracker.forestVersion++
	s.tracker.composites[c.Key()] = rec
	return nil
}

// GroupRoot returns the root of the hierarchy ref is in: its topmost
// CompositePodGroup, or ref itself when it has no parent or is unknown.
// The root is what the scheduler queues and places as one unit.
func (s *Scheduler) GroupRoot(ref podgroup.Ref) podgroup.Ref {
	if s == nil {
		return ref
	}
	return s.tracker.forest.Root(ref)
}

// PodGroup returns the status of a PodGroup by "namespace/name".
func (s *Scheduler) PodGroup(key string) (GroupStatus, bool) {
	if s == nil {
		return GroupStatus{}, false
	}
	gr := s.tracker.group(key)
	if gr == nil {
		return GroupStatus{}, false
	}
	return gr.status(), true
}

// PodGroups yields every PodGroup's status in key order.
func (s *Scheduler) PodGroups() iter.Seq[GroupStatus] {
	return func(yield func(GroupStatus) bool) {
		if s == nil {
			return
		}
		for _, k := range slices.Sorted(mapKeys(s.tracker.groups)) {
			if !yield(s.tracker.group(k).status()) {
				return
			}
		}
	}
}

func groupKeyOf(p *cluster.Pod) string { return podgroup.Key(p.Namespace, p.PodGroup) }

// attach links a new member pod to its group, or parks it until the group
// is defined.
func (t *tracker) attach(r *podRecord) {
	key := groupKeyOf(r.info.Pod())
	if gr := t.group(key); gr != nil {
		t.join(gr, r)
		return
	}
	t.orphans[key] = append(t.orphans[key], r.id)
}

func (t *tracker) join(gr *groupRecord, r *podRecord) {
	r.group = gr.id
	gr.pods[r.info.Key()] = r.id
	state := podgroup.Unscheduled
	if r.phase == PhaseBound {
		state = podgroup.Bound
	}
	if r.blocked() {
		t.countGated(gr, 1)
	}
	t.changeMembers(gr, func(m *podgroup.Membership) { m.Set(r.info.Key(), state) })
}

func (t *tracker) dropOrphan(r *podRecord) {
	key := groupKeyOf(r.info.Pod())
	t.orphans[key] = slices.DeleteFunc(t.orphans[key], func(o podID) bool { return o == r.id })
	if len(t.orphans[key]) == 0 {
		delete(t.orphans, key)
	}
}

// pending returns the group's unscheduled members in cycle order: priority
// desc, attempts desc, then the time each entered the queue (kube-
// scheduler's PodGroupMemberPodsOrderingFunc): first seen asc, and input
// order within an instant, as kube's queue timestamps keep creation order
// (so w-9 goes before w-10 when both arrive at once).
func (t *tracker) pending(gr *groupRecord) []*podRecord {
	m := t.memberMemo(gr)
	if m.pending == nil {
		m.pending = t.sortPending(gr)
	}
	return m.pending[:len(m.pending):len(m.pending)] // shared: an append copies
}

// memberMemo returns gr's memo, emptied when its members changed since.
// A cycle adds one to the attempts of every pending member, which keeps
// their order.
func (t *tracker) memberMemo(gr *groupRecord) *memberMemo {
	if gr.memo.version != gr.version+1 {
		gr.memo = memberMemo{version: gr.version + 1}
	}
	return &gr.memo
}

// sortPending is pending without the memo.
func (t *tracker) sortPending(gr *groupRecord) []*podRecord {
	out := []*podRecord{}
	for _, id := range gr.pods {
		if r := t.records.at(id); r.phase == PhasePending {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *podRecord) int {
		return cmp.Or(
			cmp.Compare(b.info.Priority(), a.info.Priority()),
			cmp.Compare(b.attempts, a.attempts),
			cmp.Compare(a.firstSeen, b.firstSeen),
			cmp.Compare(a.id, b.id), // added in input order
		)
	})
	return out
}

// scheduledNodes names the nodes of the bound and assumed members, in key
// order.
func (t *tracker) scheduledNodes(gr *groupRecord) []string {
	m := t.memberMemo(gr)
	if m.scheduled == nil {
		m.scheduled = t.listScheduledNodes(gr)
	}
	if len(m.scheduled) == 0 {
		return nil
	}
	return m.scheduled[:len(m.scheduled):len(m.scheduled)]
}

// listScheduledNodes is scheduledNodes without the memo.
func (t *tracker) listScheduledNodes(gr *groupRecord) []string {
	out := []string{}
	for k, st := range gr.members.Members() {
		if st != podgroup.Unscheduled {
			out = append(out, t.records.at(gr.pods[k]).node)
		}
	}
	return out
}

// rootItemKey is the queue key of a root group.
func (t *tracker) rootItemKey(ref podgroup.Ref) string {
	if ref.Composite {
		return t.composites[ref.Key].itemKey
	}
	return t.group(ref.Key).itemKey
}

// treeReady is the hierarchical quorum of kube-scheduler's GangScheduling
// PreEnqueue: a leaf is ready with minCount known pods, a composite with
// minGroupCount ready children (counted as they change, see
// readinessChanged).
func (t *tracker) treeReady(ref podgroup.Ref) bool {
	if !ref.Composite {
		gr := t.group(ref.Key)
		return gr.members.Known() >= gr.group.Quorum()
	}
	c := t.composites[ref.Key]
	return c.readyChildren >= c.cpg.Quorum()
}

// readinessChanged tells ref's parent that ref became ready (or stopped
// being ready), and so on up while the parent's own readiness flips.
func (t *tracker) readinessChanged(ref podgroup.Ref, ready bool) {
	for {
		parent, ok := t.forest.Parent(ref)
		if !ok {
			return
		}
		c := t.composites[parent.Key]
		was := c.readyChildren >= c.cpg.Quorum()
		if ready {
			c.readyChildren++
		} else {
			c.readyChildren--
		}
		if now := c.readyChildren >= c.cpg.Quorum(); now == was {
			return
		}
		ref, ready = parent, !was
	}
}

// changeMembers applies a change to a group's members and keeps the
// readiness counts of its ancestors in step.
func (t *tracker) changeMembers(gr *groupRecord, change func(*podgroup.Membership)) {
	ref := podgroup.Ref{Key: gr.key}
	was, before := t.treeReady(ref), gr.members.Count(podgroup.Unscheduled)
	change(&gr.members)
	gr.version++
	if d := gr.members.Count(podgroup.Unscheduled) - before; d != 0 {
		for _, up := range t.forest.Ancestors(ref) {
			t.composites[up.Key].pending += d
		}
	}
	if now := t.treeReady(ref); now != was {
		t.readinessChanged(ref, now)
	}
}

// explainGate tells pending pods of a gated root what they wait for, in
// the user's terms (gateMessage), once: while the root stays gated, their
// reason follows the counts without an event (see gatedReason).
func (s *Scheduler) explainGate(pods []*podRecord) {
	for _, r := range pods {
		if r.gated || r.phase != PhasePending || r.group == 0 {
			continue
		}
		s.setReason(r, s.tracker.heldReason(r))
		r.gated = true
	}
}

// gatedReason is a pod's reason as it stands: for a pod waiting on its
// group's quorum or gates, what it waits for now.
func (t *tracker) gatedReason(r *podRecord) string {
	if r.gated && r.group != 0 {
		return t.heldReason(r)
	}
	return r.reasonText()
}

// heldReason is why a pending member of a root that is not ready waits:
// what keeps it out of the queue (its scheduling gates), else what its
// hierarchy waits for.
func (t *tracker) heldReason(r *podRecord) string {
	if r.blocked() {
		return r.enqueueBlock
	}
	return t.gateMessage(podgroup.Ref{Key: t.groupOf(r).key})
}

// gateMessage says what keeps ref's hierarchy from being ready, from ref
// up: the leaf's missing pods, else the first composite above short of
// ready children, else the pods with scheduling gates.
func (t *tracker) gateMessage(ref podgroup.Ref) string {
	if gr := t.group(ref.Key); !ref.Composite && gr.members.Known() < gr.group.Quorum() {
		missing := gr.group.Quorum() - gr.members.Known()
		return fmt.Sprintf("waiting for %d more %s of group %s: minCount %d",
			missing, plural(missing, "pod", "pods"), displayName(gr.group.Namespace, gr.group.Name), gr.group.Quorum())
	}
	for _, up := range t.forest.Ancestors(ref) {
		c := t.composites[up.Key]
		if missing := c.cpg.Quorum() - c.readyChildren; missing > 0 {
			return fmt.Sprintf("waiting for %d more ready %s of composite group %s: minGroupCount %d",
				missing, plural(missing, "group", "groups"), displayName(c.cpg.Namespace, c.cpg.Name), c.cpg.Quorum())
		}
	}
	if msg := t.gatesHeldMessage(ref); msg != "" {
		return msg
	}
	return "waiting for the rest of its group hierarchy"
}

// displayName is how results name an object: its name in the default
// namespace, namespace/name elsewhere.
func displayName(namespace, name string) string {
	if namespace == "" || namespace == cluster.DefaultNamespace {
		return name
	}
	return namespace + "/" + name
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// changePod changes r's pod (its gates, its claim statuses), in its
// admitted form and in the form kept for a later admission; the pod's
// maps and slices are shared, so change must give it new ones.
func (t *tracker) changePod(r *podRecord, change func(*cluster.Pod)) {
	p := *r.info.Pod()
	change(&p)
	r.setInfo(cluster.NewPodInfoShared(p))
	if r.group != 0 {
		t.groupOf(r).version++ // a member's pod changed
	}
	if r.spec != nil {
		sp := *r.spec
		change(&sp)
		r.spec = &sp
	}
}

// countGated adds d to the gated members of gr and of every composite
// above it.
func (t *tracker) countGated(gr *groupRecord, d int) {
	gr.gated += d
	for _, up := range t.forest.Ancestors(podgroup.Ref{Key: gr.key}) {
		t.composites[up.Key].gated += d
	}
}

// gatedCount counts the members with scheduling gates of the leaves under
// ref.
func (t *tracker) gatedCount(ref podgroup.Ref) int {
	if ref.Composite {
		return t.composites[ref.Key].gated
	}
	return t.group(ref.Key).gated
}

// gatesHeldMessage says which gated pods keep ref's hierarchy waiting,
// from ref up, or "" when none does.
func (t *tracker) gatesHeldMessage(ref podgroup.Ref) string {
	if gr := t.group(ref.Key); !ref.Composite && gr.gated > 0 {
		return fmt.Sprintf("waiting for the scheduling gates of %d %s of group %s to be removed",
			gr.gated, plural(gr.gated, "pod", "pods"), displayName(gr.group.Namespace, gr.group.Name))
	}
	for _, up := range t.forest.Ancestors(ref) {
		if c := t.composites[up.Key]; c.gated > 0 {
			return fmt.Sprintf("waiting for the scheduling gates of %d %s of composite group %s to be removed",
				c.gated, plural(c.gated, "pod", "pods"), displayName(c.cpg.Namespace, c.cpg.Name))
		}
	}
	return ""
}
