package gangsim

import (
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
)

// handle is what a profile's plugins see of the scheduler: the cycle's
// snapshot, the profile's filters with nominated pods, and, for preemption,
// victim units and nominations. It implements preemption.Handle.
type handle struct {
	s *Scheduler
	p *profile
}

var _ preemption.Handle = (*handle)(nil)

func (h *handle) Snapshot() *cluster.Snapshot { return h.s.snap }
func (h *handle) Now() time.Duration          { return h.s.now }

// PreFilter runs the profile's PreFilter plugins for pod into a new state.
func (h *handle) PreFilter(pod *cluster.PodInfo) (*fw.CycleState, *fw.Status) {
	state := fw.NewCycleState()
	return state, h.p.pods.PreFilter(state, h.s.snap, pod)
}

// Filter filters pod on a node with nominated pods honoured; a nil state
// runs PreFilter first.
func (h *handle) Filter(state *fw.CycleState, pod *cluster.PodInfo, node int) *fw.Status {
	if state == nil {
		var st *fw.Status
		if state, st = h.PreFilter(pod); st != nil {
			return st
		}
	}
	return h.p.pods.FilterNode(state, h.s.snap, pod, node)
}

func (h *handle) AddPod(state *fw.CycleState, pod, other *cluster.PodInfo, node int) {
	h.p.pods.AddPod(state, h.s.snap, pod, other, node)
}

func (h *handle) RemovePod(state *fw.CycleState, pod, other *cluster.PodInfo, node int) error {
	return h.p.pods.RemovePod(state, h.s.snap, pod, other, node)
}

func (h *handle) Rollback(state *fw.CycleState, pod *cluster.PodInfo, cp cluster.Checkpoint) {
	h.p.pods.Rollback(state, h.s.snap, pod, cp)
}

// NominatedNode returns the snapshot index of the node pod is nominated
// to, or -1.
func (h *handle) NominatedNode(pod cluster.PodKey) int {
	if h.s.nominations.none() {
		return -1 // asked for every pending member of a group at its failures
	}
	r := h.s.tracker.record(pod)
	if r == nil {
		return -1
	}
	return h.s.nominations.index(r)
}

// NodeLocal reports whether every filter that runs for pod reads only its
// own node.
func (h *handle) NodeLocal(pod *cluster.PodInfo) bool {
	state, st := h.PreFilter(pod)
	return st == nil && h.p.pods.NodeLocalFor(state)
}

// Units returns the victim units with pods on a node: each pod alone,
// or, for a member of a group whose disruption mode is All, every scheduled
// pod of that group. A unit's priority is its group's.
func (h *handle) Units(node int) []*preemption.Unit {
	s := h.s
	if units, ok := s.unitCache.lone(s.snap, node); ok {
		return units
	}
	pods := s.snap.Node(node).PodList()
	loneOnly := true
	for _, p := range pods {
		if r := s.tracker.recordOf(p); r != nil && r.group != 0 {
			loneOnly = false
			break
		}
	}
	if loneOnly {
		return s.unitCache.keep(s.snap, node, pods, s.uses(VictimUnits))
	}
	var out []*preemption.Unit
	seen := map[string]bool{}
	for _, p := range pods {
		u := s.tracker.unitOf(p, s.cache)
		if !seen[u.Key] {
			seen[u.Key] = true
			out = append(out, u)
		}
	}
	return out
}

// AllUnits returns every victim unit in the cluster, in node order and
// pod order on the node of their first pod.
func (h *handle) AllUnits() []*preemption.Unit {
	var out []*preemption.Unit
	seen := map[string]bool{}
	for i := range h.s.snap.Len() {
		for _, u := range h.Units(i) {
			if !seen[u.Key] {
				seen[u.Key] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// unitOf returns the victim unit of a pod: the pod alone, or every
// scheduled pod under the highest group above it (its PodGroup or a
// CompositePodGroup) whose disruption mode is All. A group member's unit
// has its root's priority; a member's own unit is typed PodGroup, as
// kube-scheduler types it.
func (t *tracker) unitOf(p *cluster.PodInfo, cache *cluster.Cache) *preemption.Unit {
	r := t.recordOf(p)
	if r == nil || r.group == 0 {
		return preemption.NewPodUnit(p)
	}
	chain := append([]podgroup.Ref{{Key: t.groupOf(r).key}}, t.forest.Ancestors(podgroup.Ref{Key: t.groupOf(r).key})...)
	var top *podgroup.Ref
	for i := range chain {
		if t.disruptsAll(chain[i]) {
			top = &chain[i]
		}
	}
	priority := t.rootPriority(chain[len(chain)-1])
	if top == nil {
		return preemption.NewUnit(string(p.Key()), preemption.KindPodGroup, priority, []*cluster.PodInfo{p})
	}
	var pods []*cluster.PodInfo
	for _, leaf := range t.forest.Leaves(*top) {
		for k, st := range t.group(leaf.Key).members.Members() {
			if st == podgroup.Unscheduled {
				continue
			}
			if pi, ok := cache.Pod(k); ok {
				pods = append(pods, pi)
			}
		}
	}
	if top.Composite {
		return preemption.NewUnit("compositepodgroup/"+top.Key, preemption.KindCompositePodGroup, priority, pods)
	}
	return preemption.NewUnit("podgroup/"+top.Key, preemption.KindPodGroup, priority, pods)
}

func (t *tracker) disruptsAll(ref podgroup.Ref) bool {
	if ref.Composite {
		return t.composites[ref.Key].cpg.EffectiveDisruptionMode() == podgroup.DisruptAll
	}
	return t.group(ref.Key).group.EffectiveDisruptionMode() == podgroup.DisruptAll
}
