package podtopologyspread

import (
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ReasonConstraintsNotMatch is the reason of a node rejected for a skew
// (not for a missing label): the cluster autoscaler's estimator looks for
// it.
const ReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"

// The rejections: a node without a hard constraint's key cannot be made
// to fit by evicting pods, a skew can.
var (
	errSpreadMissingLabel = fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonConstraintsNotMatch+" (missing required label)").WithPlugin(Name)
	errSpread             = fw.NewStatus(fw.Unschedulable, ReasonConstraintsNotMatch).WithPlugin(Name)
)

// spreadAdjust is a count AddPod or RemovePod made on top of the snapshot's:
// delta to the domain dom of slot.
type spreadAdjust struct {
	slot, dom int
	delta     int64
}

// PreFilter prepares the counts of the hard constraints, or skips when the
// pod has none.
func (pl *PodTopologySpread) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	hard, soft, requireAll := pl.constraintsOf(pod.Pod())
	if len(hard) == 0 {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod, hard, soft, requireAll)
	state.Write(Name, &spreadState{snap: snap, counts: tc, c: c})
	return nil
}

// AddPod brings the counts up to date with the node the scheduler just
// changed, and counts a terminating pod as kube-scheduler does.
func (pl *PodTopologySpread) AddPod(state *fw.CycleState, pod, added *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	pl.extend(state, pod, added, node, 1)
	return nil
}

// RemovePod is AddPod's inverse.
func (pl *PodTopologySpread) RemovePod(state *fw.CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	pl.extend(state, pod, removed, node, -1)
	return nil
}

func (pl *PodTopologySpread) extend(state *fw.CycleState, pod, other *cluster.PodInfo, node *cluster.NodeInfo, delta int64) {
	s := spreadStateOf(state)
	if s == nil {
		return
	}
	s.counts.Sync(s.snap)
	op := other.Pod()
	if other.State() != cluster.PodTerminating || op.Namespace != pod.Pod().Namespace || !hasKeys(node.Node().Labels, s.c.hard) {
		return
	}
	for i := range s.c.hard {
		sc := &s.c.hard[i]
		if !sc.selector.Matches(op.Labels) || !s.c.eligible(sc, node) {
			continue
		}
		d := s.counts.Slot(sc.slot).DomainOf(node)
		s.adjust = append(s.adjust, spreadAdjust{slot: sc.slot, dom: d, delta: delta})
	}
}

// adjusted returns slot's count at domain d with the adjustments.
func (s *spreadState) adjusted(slot, d int) int64 {
	n := s.counts.Slot(slot).Count(d)
	for _, a := range s.adjust {
		if a.slot == slot && a.dom == d {
			n += a.delta
		}
	}
	return n
}

// minimum is the slot's lowest count among existing domains, with the
// adjustments, and how many domains exist.
func (s *spreadState) minimum(slot int) (int64, int) {
	sl := s.counts.Slot(slot)
	if len(s.adjust) == 0 {
		return sl.Minimum()
	}
	lo := int64(math.MaxInt64)
	for d := range sl.NumDomains() {
		if sl.Present(d) {
			lo = min(lo, s.adjusted(slot, d))
		}
	}
	return lo, sl.NumPresent()
}

// Filter rejects a node lacking a constraint's key, or whose domain would
// be more than maxSkew above the least populated one.
func (pl *PodTopologySpread) Filter(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	s := spreadStateOf(state)
	if s == nil {
		return nil
	}
	s.counts.Sync(s.snap)
	for i := range s.c.hard {
		sc := &s.c.hard[i]
		d := s.counts.Slot(sc.slot).DomainOf(node)
		if d < 0 {
			return errSpreadMissingLabel
		}
		lowest, domains := s.minimum(sc.slot)
		if domains < sc.minDomains {
			lowest = 0
		}
		if s.adjusted(sc.slot, d)+sc.self-lowest > sc.maxSkew {
			return errSpread
		}
	}
	return nil
}
