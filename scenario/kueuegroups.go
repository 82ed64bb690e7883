package scenario

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Kueue's pod groups in a scenario file (docs/kueue.md). Kueue names a
// pod's group by the label kueue.x-k8s.io/pod-group-name and reads the
// group's size from the annotation kueue.x-k8s.io/pod-group-total-count,
// never from a label: its webhook refuses a pod of a group without the
// annotation ("both the annotation and the label should be set"), so a
// file that gives the count as a label is refused here too, with the
// annotation it needs. Two more annotations change how the group ends:
// kueue.x-k8s.io/retriable-in-group: "false" on any pod makes the group
// finish once all its pods have ended, and
// kueue.x-k8s.io/pod-group-serving: "true" makes it a serving group,
// which never finishes.

// Kueue's annotations of a pod group's pods, besides the total count.
const (
	kueueRetriable = "kueue.x-k8s.io/retriable-in-group"
	kueueServing   = "kueue.x-k8s.io/pod-group-serving"
)

// groupMeta is what Kueue reads of a pod's group: its total count (0
// for a pod in no group), whether a pod of it may not be retried
// (retriable-in-group "false"), and whether it serves.
type groupMeta struct {
	total       int
	unretriable bool
	serving     bool
}

// groupSeen is a Kueue pod group's total count as its first pod gave it,
// and where.
type groupSeen struct {
	total int
	where string
}

// kueueGroupOf reads a file's pod's Kueue group, checked as Kueue's
// webhook checks it: the field at fault (under the entry) and why, or the
// group. A pod of no queue or of no group has none.
func kueueGroupOf(labels, ann map[string]string, maxPods int) (groupMeta, string, error) {
	if labels[kueueQueueLabel] == "" || labels[kueueGroupLabel] == "" {
		return groupMeta{}, "", nil
	}
	field := "annotations[" + kueueTotalCount + "]"
	text, ok := ann[kueueTotalCount]
	if !ok {
		why := fmt.Sprintf("Required value: a pod of the Kueue pod group %q (labels[%s]) gives its group's total count as this annotation, as Kueue reads it",
			labels[kueueGroupLabel], kueueGroupLabel)
		if v, asLabel := labels[kueueTotalCount]; asLabel {
			why += fmt.Sprintf("; it is given as a label (%q), which Kueue does not read: move it to annotations", v)
		}
		return groupMeta{}, field, fmt.Errorf("%s", why)
	}
	// Kueue reads it with strconv.Atoi, a 64-bit int
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 1 {
		return groupMeta{}, field, fmt.Errorf("Invalid value: %q: group total count should be a whole number greater than zero", text)
	}
	if n > int64(maxPods) {
		return groupMeta{}, field, fmt.Errorf("%s is more than the %s pods all inputs may hold: the group could never be complete", text, schema.Commas(maxPods))
	}
	return groupMeta{total: int(n), unretriable: ann[kueueRetriable] == "false", serving: ann[kueueServing] == "true"}, "", nil
}

// kueuePodGroup checks a file's pod's Kueue group (kueueGroupOf) and
// that the pods of one group give one total count.
func (b *builder) kueuePodGroup(s *schema.Pod, line int, where string) (groupMeta, error) {
	if s.Origin != nil { // a Pod object's: the importer read its group
		return groupMeta{unretriable: s.Annotations[kueueRetriable] == "false", serving: s.Annotations[kueueServing] == "true"}, nil
	}
	g, field, err := kueueGroupOf(s.Labels, s.Annotations, b.opts.limits.Pods)
	if err != nil {
		return g, b.fail(line, where+"."+field, err)
	}
	if g.total == 0 {
		return g, nil
	}
	ns := s.Namespace
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	key := ns + "/" + s.Labels[kueueGroupLabel]
	if b.kueueGroups == nil {
		b.kueueGroups = map[string]groupSeen{}
	}
	seen, ok := b.kueueGroups[key]
	if !ok {
		b.kueueGroups[key] = groupSeen{g.total, b.file + ": " + where}
		return g, nil
	}
	if seen.total != g.total {
		return g, b.failf(line, where+".annotations["+kueueTotalCount+"]", "%d, where %s of the same pod group gives %d: the pods of a group give one total count",
			g.total, seen.where, seen.total)
	}
	return g, nil
}

// lost notes a plain pod of the unit that left its node and would be
// pending again (the scheduler preempted it, or its node went away): a
// bare pod has no controller to make it again, and Kubernetes deletes a
// victim, so it is deleted (react) and its workload goes on without it.
// A LeaderWorkerSet's pods are its controller's. It reports whether the
// run must pause for the deletion.
func (kr *kueueRun) lost(u *kueueUnit, key cluster.PodKey) bool {
	if u.group {
		return false
	}
	if hp := u.pod(key); hp == nil || hp.ended {
		return false
	}
	kr.doomed = append(kr.doomed, key)
	return true
}

// waitsForReplacements reports whether a unit whose pods have all ended,
// succeeded of them, is not finished, as Kueue's pod integration decides:
// a pod alone is finished once it has ended; a pod group once all its
// pods succeeded, or once all have ended when a pod of it says it may
// not be retried (kueue.x-k8s.io/retriable-in-group "false"); a serving
// group (kueue.x-k8s.io/pod-group-serving "true") never. A group not
// finished while admitted keeps its quota, waiting for pods to replace
// those it lost, which no controller of the run makes. Evicted (its pods
// stopped), or never admitted, it holds nothing and is never admitted
// again (Kueue keeps it out of the queue until replacements come): it
// ends here.
func (u *kueueUnit) waitsForReplacements(succeeded int) bool {
	if !u.inGroup || u.state != unitAdmitted {
		return false
	}
	return u.serving || !u.unretriable && succeeded < u.total
}

// busy reports whether Kueue's pod integration has something to do at
// once: plain pods to delete (lost).
func (kr *kueueRun) busy() bool { return kr != nil && len(kr.doomed) > 0 }

// react deletes the plain pods lost, in the order they were lost.
func (kr *kueueRun) react(s *gangsim.Scheduler) error {
	doomed := kr.doomed
	kr.doomed = nil
	for _, key := range doomed {
		if err := s.DeletePod(key); err != nil && !errors.Is(err, gangsim.ErrUnknownPod) {
			return fmt.Errorf("Kueue: deleting preempted pod %s: %w", key, err)
		}
	}
	return kr.err
}
