// Package defaultpreemption is the DefaultPreemption plugin: pod priority
// preemption at PostFilter and workload-aware preemption at
// PodGroupPostFilter, running the victim searches of package preemption
// through the scheduler's handle.
package defaultpreemption

import (
	"errors"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/preemption"
)

// Name is DefaultPreemption's name in profiles.
const Name = "DefaultPreemption"

// ErrHandle is returned by New when the scheduler's handle lacks what
// DefaultPreemption needs.
var ErrHandle = errors.New("defaultpreemption: the handle does not offer victim units")

// DefaultPreemption is kube-scheduler's preemption plugin: PostFilter for
// a pod (docs/semantics.md §7) and PodGroupPostFilter for a whole group
// (§8). It returns its decisions as values; the scheduler evicts and
// nominates.
type DefaultPreemption struct {
	h preemption.Handle
}

var (
	_ fw.Stateless                = (*DefaultPreemption)(nil)
	_ fw.PostFilterPlugin         = (*DefaultPreemption)(nil)
	_ fw.PodGroupPostFilterPlugin = (*DefaultPreemption)(nil)
)

// New builds the plugin, as the registry does; it takes no arguments.
func New(_ any, h fw.Handle) (fw.Plugin, error) {
	d, err := NewDefaultPreemption(h)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// NewDefaultPreemption returns the plugin working through h, which must be
// a preemption.Handle (nil while a configuration is only being checked).
func NewDefaultPreemption(h fw.Handle) (*DefaultPreemption, error) {
	if h == nil {
		return &DefaultPreemption{}, nil
	}
	ph, ok := h.(preemption.Handle)
	if !ok {
		return nil, ErrHandle
	}
	return &DefaultPreemption{h: ph}, nil
}

// Stateless declares that the plugin's answers depend on the pod, the
// snapshot and the nominations alone: the memos of its dry runs are the scheduler's.
func (*DefaultPreemption) Stateless() {}

// LowerPriorityVictims says PostFilter evicts only pods of lower
// priority than the preemptor's, and fails at once without one
// (victimsCanExist).
func (*DefaultPreemption) LowerPriorityVictims() {}

// Name returns Name.
func (*DefaultPreemption) Name() string { return Name }

var (
	errNever   = fw.NewStatus(fw.Unschedulable, "not eligible due to preemptionPolicy=Never.").WithPlugin(Name)
	errWaiting = fw.NewStatus(fw.Unschedulable, "not eligible: victims of an earlier preemption are still terminating on the nominated node").WithPlugin(Name)
	errNoRoom  = fw.NewStatus(fw.Unschedulable, "preemption: no node where evicting lower-priority pods would help").WithPlugin(Name)
)

// PostFilter chooses victims on one node by remove-all-then-reprieve and
// picks the node by kube-scheduler's criteria. A pod with policy Never, or
// one whose nominated node still holds its earlier victims, does not
// preempt (its nomination stays); when no node can help, the nomination
// is cleared.
func (d *DefaultPreemption) PostFilter(_ *fw.CycleState, pod *cluster.PodInfo, fit *fw.FitError) (*fw.PostFilterResult, *fw.Status) {
	if pod.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever {
		return nil, errNever
	}
	if d.waitingForVictims(pod, fit) {
		return nil, errWaiting
	}
	snap := d.h.Snapshot()
	base, st := d.h.PreFilter(pod)
	if !st.IsSuccess() {
		return &fw.PostFilterResult{}, st
	}
	if !victimsCanExist(snap, pod.Priority()) {
		return &fw.PostFilterResult{}, errNoRoom
	}
	req := preemption.Request{
		PreemptorPriority: pod.Priority(),
		Potential:         fit.Resolvable(),
		Units:             d.h.Units,
		Sim:               func(int) preemption.Sim { return &podSim{h: d.h, base: base, pod: pod} },
		Budgets:           slices.Collect(snap.Budgets()),
	}
	if m, ok := d.h.(preemption.DryRunMemos); ok {
		req.Memo = m.DryRunMemo(base, pod, req.Budgets)
	}
	cands := preemption.FindCandidates(req)
	best := preemption.PickOne(cands)
	if best < 0 {
		return &fw.PostFilterResult{}, errNoRoom
	}
	c := cands[best]
	return &fw.PostFilterResult{NominatedNode: snap.Node(c.Node).Name(), Victims: victims(c.Victims, c.Violators)}, nil
}

// victims lists the pods of the units, marking those that break budgets.
func victims(units []*preemption.Unit, violators []cluster.PodKey) []fw.Victim {
	var out []fw.Victim
	for _, u := range units {
		for _, p := range u.Pods {
			out = append(out, fw.Victim{Pod: p.Key(), BudgetViolation: slices.Contains(violators, p.Key())})
		}
	}
	return out
}

// waitingForVictims is kube-scheduler's second eligibility rule: a pod
// whose nominated node still holds lower-priority pods terminating from an
// earlier preemption waits for them instead of preempting again (unless
// the node no longer suits it at all).
func (d *DefaultPreemption) waitingForVictims(pod *cluster.PodInfo, fit *fw.FitError) bool {
	idx := d.h.NominatedNode(pod.Key())
	if idx < 0 {
		return false
	}
	if fit != nil && fit.StatusOf(idx).Code() == fw.UnschedulableAndUnresolvable {
		return false
	}
	return terminatingBelow(d.h.Snapshot().Node(idx), pod.Priority())
}

// victimsCanExist reports whether some pod in the snapshot has a lower
// priority than prio: without one there is no victim anywhere, and the
// search for candidates (which builds every victim unit) is skipped. A
// unit's priority is its pods' (a group member has its group's).
func victimsCanExist(snap *cluster.Snapshot, prio int32) bool {
	lowest, ok := snap.LowestPriority()
	return ok && lowest < prio
}

// terminatingBelow reports whether a node holds a terminating pod of lower
// priority than p.
func terminatingBelow(ni *cluster.NodeInfo, p int32) bool {
	for q := range ni.Pods() {
		if q.State() == cluster.PodTerminating && q.Priority() < p {
			return true
		}
	}
	return false
}

// podSim is the what-if world of one candidate node: the cycle's snapshot
// and a copy of the preemptor's PreFilter state, changed together. The
// copy is made at the first change: most nodes tried hold no victim.
type podSim struct {
	h     preemption.Handle
	base  *fw.CycleState
	state *fw.CycleState
	pod   *cluster.PodInfo
}

func (s *podSim) own() *fw.CycleState {
	if s.state == nil {
		s.state = s.base.Clone()
	}
	return s.state
}

func (s *podSim) Snapshot() *cluster.Snapshot { return s.h.Snapshot() }
func (s *podSim) Remove(p *cluster.PodInfo, node int) {
	_ = s.h.RemovePod(s.own(), s.pod, p, node) // units are built from the snapshot's pods
}
func (s *podSim) Add(p *cluster.PodInfo, node int) { s.h.AddPod(s.own(), s.pod, p, node) }
func (s *podSim) Rollback(cp cluster.Checkpoint)   { s.h.Rollback(s.own(), s.pod, cp) }
func (s *podSim) Fits(node int) bool               { return s.h.Filter(s.own(), s.pod, node).IsSuccess() }

var errGroupNever = fw.NewStatus(fw.Unschedulable, "not eligible due to preemptionPolicy=Never.").WithPlugin(Name)

// PodGroupPostFilter is workload-aware preemption (docs/semantics.md §8):
// every lower-priority unit in the cluster is removed at once, the group is
// placed once on that cluster, and units are put back while every
// preemptor pod still fits. A group (or any pending pod of it) whose
// policy is Never does not preempt; while a pending member's nominated
// node still holds victims of an earlier preemption, the group waits.
func (d *DefaultPreemption) PodGroupPostFilter(g *fw.Group, pending []*cluster.PodInfo, place fw.PlaceFunc) (*fw.PodGroupPostFilterResult, *fw.Status) {
	prio, policy := groupPriority(g)
	if policy == cluster.PreemptNever || slices.ContainsFunc(pending, func(p *cluster.PodInfo) bool {
		return p.Pod().EffectivePreemptionPolicy() == cluster.PreemptNever
	}) {
		return nil, errGroupNever
	}
	for _, p := range pending {
		if idx := d.h.NominatedNode(p.Key()); idx >= 0 && terminatingBelow(d.h.Snapshot().Node(idx), prio) {
			return nil, errWaiting
		}
	}
	snap := d.h.Snapshot()
	if !victimsCanExist(snap, prio) {
		return nil, errNoRoom
	}
	nodeLocal := true
	for _, p := range pending {
		nodeLocal = nodeLocal && d.h.NodeLocal(p)
	}
	out, ok := preemption.PreemptForGroup(preemption.GroupRequest{
		Snapshot:          snap,
		PreemptorPriority: prio,
		Units:             d.h.AllUnits(),
		Budgets:           slices.Collect(snap.Budgets()),
		Place:             place,
		Fits:              func(p *cluster.PodInfo, node int) bool { return d.h.Filter(nil, p, node).IsSuccess() },
		NodeLocal:         nodeLocal,
	})
	if !ok {
		return nil, errNoRoom
	}
	return &fw.PodGroupPostFilterResult{Victims: victims(out.Victims, out.Violators), Nominations: out.Assignments}, nil
}

// groupPriority is the preempting root's priority and policy.
func groupPriority(g *fw.Group) (int32, cluster.PreemptionPolicy) {
	if g.Composite != nil {
		return g.Composite.EffectivePriority(), g.Composite.EffectivePreemptionPolicy()
	}
	return g.PodGroup.EffectivePriority(), g.PodGroup.EffectivePreemptionPolicy()
}
