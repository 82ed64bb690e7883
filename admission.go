package gangsim

import (
	"iter"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// The API server admits a pod at its creation, in its namespace, before
// the scheduler sees it (package admission): LimitRanger fills the
// containers' missing requests and limits from the namespace's
// LimitRanges and refuses a pod outside their bounds; ResourceQuota
// refuses a pod its namespace's quotas leave no room for. A refused pod is
// not created: AddPod emits EventPodRejected and returns a *RejectedError,
// and the scheduler keeps nothing of it. A pod that arrives already
// running (it names its node) was admitted before the simulation began: it
// is neither defaulted nor refused, and it counts against the quotas.

// ErrAdmission is wrapped by every error admission gives: a priority class
// that does not exist, a priority that contradicts its class.
var ErrAdmission = admission.ErrAdmission

// ErrRejected is wrapped by the error AddPod returns for a pod its
// namespace's admission refuses (RejectedError).
var ErrRejected = admission.ErrRejected

// RejectedError is a pod the API server's admission refused to create:
// Reason is its message, in the API server's words.
type RejectedError = admission.RejectedError

// QuotaStatus is a ResourceQuota as the scheduler holds it: its limits and
// what the pods of its namespace use of them now.
type QuotaStatus = admission.QuotaStatus

// PodPriority resolves the priority and preemption policy admission gives
// a pod (admission.PodPriority has the rules); AddPod applies exactly
// this, and file loaders call it to report problems before a run.
func PodPriority(classes *cluster.PriorityClasses, p *cluster.Pod, group *podgroup.PodGroup) (int32, cluster.PreemptionPolicy, error) {
	return admission.PodPriority(classes, p, group)
}

// GroupPriority resolves the priority and preemption policy admission gives
// a PodGroup or CompositePodGroup, given as its fields
// (admission.GroupPriority has the rules); AddPodGroup and
// AddCompositePodGroup apply exactly this.
func GroupPriority(classes *cluster.PriorityClasses, obj string, priority *int32, className string, policy cluster.PreemptionPolicy, parent *podgroup.CompositePodGroup) (int32, cluster.PreemptionPolicy, error) {
	return admission.GroupPriority(classes, obj, priority, className, policy, parent)
}

// SetLimitRange adds a LimitRange to its namespace, or replaces the one of
// the same name: pods created there from now on get its defaults and are
// checked against its bounds. It is stored as the API server stores it
// (cluster.LimitRange.WithDefaults).
func (s *Scheduler) SetLimitRange(lr cluster.LimitRange) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.limitRanger.Set(lr)
}

// LimitRanges returns the LimitRanges of a namespace, in name order, as
// stored (read-only).
func (s *Scheduler) LimitRanges(namespace string) []cluster.LimitRange {
	if s == nil {
		return nil
	}
	return s.limitRanger.List(namespace)
}

// SetResourceQuota adds a ResourceQuota to its namespace, or replaces the
// one of the same name; its usage is counted from the pods the namespace
// holds now. From now on a pod created there is refused when it would
// take a tracked resource past its limit, or leaves unset in a container a
// cpu or memory request or limit the quota tracks, as the API server's
// ResourceQuota admission refuses it.
func (s *Scheduler) SetResourceQuota(q cluster.ResourceQuota) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.quotas.Set(q, storedPods(&s.tracker.records))
}

// ResourceQuotas yields the status of every ResourceQuota, by namespace
// and name: copies, the caller's to change.
func (s *Scheduler) ResourceQuotas() iter.Seq[QuotaStatus] {
	if s == nil {
		return func(func(QuotaStatus) bool) {}
	}
	return s.quotas.All()
}

// storedPods yields what quotas count: every pod not deleted, and whether
// it succeeded (stored still, it counts count/pods only).
func storedPods(records *podTable) admission.StoredPods {
	return func(yield func(*cluster.Pod, bool) bool) {
		for r := range records.all() {
			if r.phase != PhaseDeleted && !yield(r.info.Pod(), r.phase == PhaseSucceeded) {
				return
			}
		}
	}
}
