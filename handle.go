package gangsim

import (
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
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

func (h *handle) Units(node int) []*preemption.Unit { return h.s.unitsOnNode(node) }
func (h *handle) AllUnits() []*preemption.Unit      { return h.s.allUnits() }

// NominatedNode returns the snapshot index of the node pod is nominated
// to, or -1.
func (h *handle) NominatedNode(pod cluster.PodKey) int {
	if h.s.nominations.none() {
		return -1 // asked for every pending member of a group at its failures
	}
	r := h.s.record(pod)
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
