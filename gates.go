package gangsim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// Scheduling gates (a pod's spec.schedulingGates) hold a pod out of
// scheduling until a controller removes them, as kube-scheduler's
// SchedulingGates PreEnqueue plugin does: the pod is pending, never tried,
// and waits in the queue's gated pool, not in activeQ. A pod of a group
// holds its whole root group there, as kube-scheduler's queue gates a
// pod-group entity when any of its pods is gated: the group is tried
// once none of its pending pods has a gate left. The gated pod counts
// among the group's known pods for minCount (kube's AllPodsCount), but
// nothing of its hierarchy is placed without it.

// ErrUnknownGate is wrapped by UngatePod's error for a gate the pod does
// not have.
var ErrUnknownGate = errors.New("gangsim: the pod has no such scheduling gate")

// GatesMessage is the pending reason of a pod held by its scheduling
// gates, in kube-scheduler's words ("waiting for scheduling gates: [a b]").
func GatesMessage(gates []string) string {
	return fmt.Sprintf("waiting for scheduling gates: %v", gates)
}

// hasGates reports whether r's pod has scheduling gates left.
func hasGates(r *podRecord) bool { return len(r.info.Pod().SchedulingGates) > 0 }

// UngatePod removes scheduling gates from a pod, as a controller removing
// entries of its spec.schedulingGates does, at the current simulated
// time: the gates named, or every gate when none is named. Once no gate is
// left the pod (or its root group) is queued to be tried. It emits
// EventPodUngated. A pod without gates is left as it is; a gate the pod
// does not have is an error (ErrUnknownGate), as is a pod that is gone
// (ErrUnknownPod).
func (s *Scheduler) UngatePod(key cluster.PodKey, gates ...string) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.tracker.record(key)
	if r == nil || r.phase == PhaseDeleted || r.phase == PhaseSucceeded {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	have := r.info.Pod().SchedulingGates
	for _, g := range gates {
		if !slices.Contains(have, g) {
			return fmt.Errorf("%w: pod %s has no gate %q (it has %v)", ErrUnknownGate, key, g, have)
		}
	}
	if len(have) == 0 {
		return nil
	}
	var left []string // a new list: the pod's is shared, read-only
	if len(gates) > 0 {
		for _, g := range have {
			if !slices.Contains(gates, g) {
				left = append(left, g)
			}
		}
	}
	s.tracker.setGates(r, left)
	if len(left) > 0 {
		r.reason, r.reasonFit = GatesMessage(left), false
		s.emit(podEvent(EventPodUngated, r.info, "", r.reason))
		return nil
	}
	r.reason, r.reasonFit = "", false
	s.emit(podEvent(EventPodUngated, r.info, "", ""))
	return s.released(r)
}

// setGates gives r's pod the gates left, in its admitted form and in the
// form kept for a later admission.
func (t *tracker) setGates(r *podRecord, left []string) {
	p := *r.info.Pod()
	p.SchedulingGates = left
	r.setInfo(cluster.NewPodInfoShared(p))
	if r.group != 0 {
		t.groupOf(r).version++ // a member's pod changed
	}
	if r.spec != nil {
		sp := *r.spec
		sp.SchedulingGates = left
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
