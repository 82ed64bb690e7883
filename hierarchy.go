package gangsim

import (
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
)

// buildTree describes the hierarchy under ref for the placement algorithm:
// each leaf's pending pods in cycle order, and each composite's scheduled
// pods (which pin its topology domain and count in its placement score).
func (t *tracker) buildTree(ref podgroup.Ref, noms *nominator) *placement.TreeNode {
	if !ref.Composite {
		gr := t.group(ref.Key)
		return &placement.TreeNode{Key: ref.Key, Leaf: t.leafRequest(gr, t.pending(gr), noms)}
	}
	c := &t.composites[ref.Key].cpg
	n := &placement.TreeNode{Key: ref.Key, Composite: &fw.Group{Ref: ref, Composite: c}}
	for _, child := range t.forest.Children(ref.Key) {
		cn := t.buildTree(child, noms)
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
//
// pending is s.tracker.pending(gr): its pods are kept with it while the members
// stay, and Nominated is made only when one of them is nominated.
func (t *tracker) leafRequest(gr *groupRecord, pending []*podRecord, noms *nominator) *placement.GroupRequest {
	m := t.memberMemo(gr)
	if m.infos == nil {
		m.infos = make([]*cluster.PodInfo, len(pending))
		for i, r := range pending {
			m.infos[i] = r.info
		}
	}
	g := &fw.Group{Ref: podgroup.Ref{Key: gr.key}, PodGroup: &gr.group, Scheduled: gr.members.Scheduled(), ScheduledNodes: t.scheduledNodes(gr),
		Pods: m.infos[:len(m.infos):len(m.infos)]}
	req := &placement.GroupRequest{Group: g}
	for i, r := range pending {
		if r.nominated == "" {
			continue
		}
		if req.Nominated == nil {
			req.Nominated = make([]int, len(pending))
			for j := range req.Nominated {
				req.Nominated[j] = -1
			}
		}
		req.Nominated[i] = noms.index(r)
	}
	return req
}

// rootGroup describes a root for its PodGroupPostFilter plugins.
func (t *tracker) rootGroup(root podgroup.Ref, noms *nominator) *fw.Group {
	if root.Composite {
		return t.buildTree(root, noms).Composite
	}
	gr := t.group(root.Key)
	return t.leafRequest(gr, t.pending(gr), noms).Group
}

// validateRoot checks what kube-scheduler's validatePodGroup checks: every
// member of the hierarchy, pending or scheduled, names this scheduler, has
// the root's priority and the root's preemption policy. It returns the
// first problem, or "".
func (t *tracker) validateRoot(root podgroup.Ref, leaves []groupID, first *podRecord, ps *profiles) string {
	if root.Composite {
		return t.checkRoot(root, leaves, first, ps)
	}
	// a root PodGroup's answer holds while its members are as they were
	m := t.memberMemo(t.groupRecords.at(leaves[0]))
	if !m.validSet {
		m.valid, m.validSet = t.checkRoot(root, leaves, first, ps), true
	}
	return m.valid
}

// checkRoot is validateRoot without the memo.
func (t *tracker) checkRoot(root podgroup.Ref, leaves []groupID, first *podRecord, ps *profiles) string {
	what := "pod group"
	if root.Composite {
		what = "composite pod group"
	}
	name, prio, policy := t.rootName(root), t.rootPriority(root), t.rootPolicy(root)
	scheduler := first.info.Pod().EffectiveSchedulerName()
	if ps.named(scheduler) == nil {
		return fmt.Sprintf("pod %s names scheduler %q, which no profile has", first.info.Key().Display(), scheduler)
	}
	for _, id := range leaves {
		gr := t.groupRecords.at(id)
		for k := range gr.members.Members() {
			p := t.records.at(gr.pods[k]).info
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

// explainLeaves records each leaf's outcome of a cycle: its condition, its
// event, and the reasons of its pods still pending. rootMsg is "" when the
// cycle bound pods, else why it failed; a leaf the cycle never reached (an
// earlier sibling made its composite give up) fails with that reason.
func (s *Scheduler) explainLeaves(leaves []groupID, out placement.TreeResult, rootMsg string) {
	next := 0
	for _, id := range leaves {
		gr := s.tracker.groupRecords.at(id)
		var lr placement.GroupResult
		found, at, evaluated := out.Leaf(gr.key, next)
		if evaluated {
			lr, next = *found, at
		}
		if !evaluated && rootMsg == "" {
			continue // under a composite that gave up inside a successful root
		}
		ok := rootMsg == "" && lr.Feasible
		msg := rootMsg
		if evaluated && lr.Message != "" {
			msg = lr.Message
		}
		ref := Ref{Kind: KindPodGroup, Key: gr.key}
		if ok {
			gr.setCondition(podgroup.ConditionTrue, podgroup.ReasonScheduled, "", s.now)
			s.emit(groupEvent(EventGroupScheduled, ref, ""))
		} else {
			gr.setCondition(podgroup.ConditionFalse, podgroup.ReasonUnschedulable, msg, s.now)
			s.emit(groupEvent(EventGroupFailed, ref, msg))
		}
		if len(lr.Failures) == 0 && msg == "" {
			continue
		}
		pending := s.tracker.pending(gr)
		byKey := !allFailuresOf(lr.Failures, pending)
		for _, r := range pending {
			// a leaf's failures are its first few pods': a list, not a map
			i := slices.IndexFunc(lr.Failures, func(f placement.PodFailure) bool { return f.Pod == r.info || byKey && f.Pod.Key() == r.info.Key() })
			if i >= 0 {
				s.failFit(r, lr.Failures[i].Err)
			} else if msg != "" {
				s.failWith(r, msg, nil)
			}
		}
	}
}

// allFailuresOf says each failure names one of the records' pods by the
// very PodInfo the record holds, as a search of these pods gives them:
// then no pod needs its failure looked up by key, which compares strings
// for every failure a pod has not (a quarter of a failed gang's
// explanation in a cluster of many failing gangs).
func allFailuresOf(failures []placement.PodFailure, records []*podRecord) bool {
	for _, f := range failures {
		if !slices.ContainsFunc(records, func(r *podRecord) bool { return r.info == f.Pod }) {
			return false
		}
	}
	return true
}

// rootPriority is the priority of a root group (its hierarchy's).
func (t *tracker) rootPriority(ref podgroup.Ref) int32 {
	if ref.Composite {
		return t.composites[ref.Key].cpg.EffectivePriority()
	}
	return t.group(ref.Key).group.EffectivePriority()
}

// rootPolicy is the preemption policy of a root group.
func (t *tracker) rootPolicy(ref podgroup.Ref) cluster.PreemptionPolicy {
	if ref.Composite {
		return t.composites[ref.Key].cpg.EffectivePreemptionPolicy()
	}
	return t.group(ref.Key).group.EffectivePreemptionPolicy()
}

// rootName is the name of a root group.
func (t *tracker) rootName(ref podgroup.Ref) string {
	if ref.Composite {
		return t.composites[ref.Key].cpg.Name
	}
	return t.group(ref.Key).group.Name
}

// leafRecords returns the IDs of every leaf under ref, in child order
// (shared: never modify the slice).
func (t *tracker) leafRecords(ref podgroup.Ref) []groupID {
	if !ref.Composite {
		return t.group(ref.Key).self
	}
	c := t.composites[ref.Key]
	if c.leaves == nil || c.leavesForestVersion != t.forestVersion {
		leaves := t.forest.Leaves(ref)
		c.leaves = make([]groupID, len(leaves))
		for i, l := range leaves {
			c.leaves[i] = t.groups[l.Key]
		}
		c.leavesForestVersion = t.forestVersion
	}
	return c.leaves
}

// extendLeaves keeps the cached leaf lists of a new PodGroup's ancestors
// valid when the group comes last under each of them (children defined in
// creation order, the usual case): it is appended, so that a composite
// built child by child costs linear time, not quadratic. Other caches are
// rebuilt on use.
func (t *tracker) extendLeaves(gr *groupRecord) {
	ref := podgroup.Ref{Key: gr.key}
	last := true
	for _, up := range t.forest.Ancestors(ref) {
		kids := t.forest.Children(up.Key)
		last = last && len(kids) > 0 && kids[len(kids)-1] == ref
		c := t.composites[up.Key]
		if last && c.leaves != nil && c.leavesForestVersion == t.forestVersion {
			c.leaves = append(c.leaves, gr.id)
			c.leavesForestVersion = t.forestVersion + 1 // the version about to be
		}
		ref = up
	}
}

// hierarchyPending returns the pending pods of every leaf under ref, each
// leaf's in its cycle order, leaves in child order.
func (t *tracker) hierarchyPending(ref podgroup.Ref) []*podRecord {
	leaves := t.leafRecords(ref)
	if len(leaves) == 1 {
		return t.pending(t.groupRecords.at(leaves[0]))
	}
	var out []*podRecord
	for _, id := range leaves {
		gr := t.groupRecords.at(id)
		out = append(out, t.pending(gr)...)
	}
	return out
}

// pendingCount counts the pending pods of every leaf under ref.
func (t *tracker) pendingCount(ref podgroup.Ref) int {
	if ref.Composite {
		return t.composites[ref.Key].pending
	}
	return t.group(ref.Key).members.Count(podgroup.Unscheduled)
}

// groupRef returns the Ref of a PodGroup or CompositePodGroup.
func groupRef(ref podgroup.Ref) Ref {
	if ref.Composite {
		return Ref{Kind: KindCompositePodGroup, Key: ref.Key}
	}
	return Ref{Kind: KindPodGroup, Key: ref.Key}
}
