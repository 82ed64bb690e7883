package gangsim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// The API server admits a pod at its creation, in its namespace, before
// the scheduler sees it: LimitRanger fills the containers' missing
// requests and limits from the namespace's LimitRanges and refuses a pod
// outside their bounds; ResourceQuota refuses a pod its namespace's
// quotas leave no room for. A refused pod is not created: AddPod emits
// EventPodRejected and returns a *RejectedError, and the scheduler keeps
// nothing of it. A pod that arrives already running (it names its node)
// was admitted before the simulation began: it is neither defaulted nor
// refused, and it counts against the quotas.

// ErrRejected is wrapped by the error AddPod returns for a pod its
// namespace's admission refuses (RejectedError).
var ErrRejected = errors.New("gangsim: pod refused at admission")

// RejectedError is a pod the API server's admission refused to create:
// Reason is its message, in the API server's words (`pods "web-3" is
// forbidden: exceeded quota: compute, requested: requests.cpu=1, used:
// requests.cpu=2, limited: requests.cpu=2`).
type RejectedError struct {
	Pod    cluster.PodKey
	Reason string
}

func (e *RejectedError) Error() string { return "gangsim: " + e.Reason }

// Unwrap returns ErrRejected.
func (e *RejectedError) Unwrap() error { return ErrRejected }

// SetLimitRange adds a LimitRange to its namespace, or replaces the one of
// the same name: pods created there from now on get its defaults and are
// checked against its bounds. It is stored as the API server stores it
// (cluster.LimitRange.WithDefaults).
func (s *Scheduler) SetLimitRange(lr cluster.LimitRange) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := lr.Validate(); err != nil {
		return err
	}
	if lr.Namespace == "" {
		lr.Namespace = cluster.DefaultNamespace
	}
	lr = cluster.LimitRange{Namespace: lr.Namespace, Name: lr.Name, Limits: cloneLimitItems(lr.Limits)}.WithDefaults()
	if s.limitRanges == nil {
		s.limitRanges = map[string][]cluster.LimitRange{}
	}
	list := slices.DeleteFunc(slices.Clone(s.limitRanges[lr.Namespace]), func(o cluster.LimitRange) bool { return o.Name == lr.Name })
	list = append(list, lr)
	slices.SortFunc(list, func(a, b cluster.LimitRange) int { return cmp.Compare(a.Name, b.Name) })
	s.limitRanges[lr.Namespace] = list
	return nil
}

// LimitRanges returns the LimitRanges of a namespace, in name order, as
// stored (read-only).
func (s *Scheduler) LimitRanges(namespace string) []cluster.LimitRange {
	if s == nil {
		return nil
	}
	if namespace == "" {
		namespace = cluster.DefaultNamespace
	}
	return slices.Clone(s.limitRanges[namespace])
}

func cloneLimitItems(items []cluster.LimitRangeItem) []cluster.LimitRangeItem {
	out := slices.Clone(items)
	for i := range out {
		it := &out[i]
		it.Max, it.Min, it.Default = it.Max.Clone(), it.Min.Clone(), it.Default.Clone()
		it.DefaultRequest, it.MaxLimitRequestRatio = it.DefaultRequest.Clone(), it.MaxLimitRequestRatio.Clone()
	}
	return out
}

// defaultResources fills the pod's missing container requests and limits
// from its namespace's LimitRanges (the mutating half of LimitRanger),
// and computes its requests anew when anything was filled. p is the
// scheduler's copy, or the caller's pod handed over: its maps are never
// changed, only replaced.
func (s *Scheduler) defaultResources(p *cluster.Pod) {
	ranges := s.limitRanges[namespaceOf(p)]
	if len(ranges) == 0 {
		return
	}
	res, changed := cluster.PodResourcesOf(p), false
	for i := range ranges {
		var filled bool
		if res, filled = ranges[i].Default(res); filled {
			changed = true
		}
	}
	if changed {
		p.Resources = res
		p.Requests = res.Requests().Resources()
	}
}

// checkLimits is the validating half of LimitRanger, and the API server's
// check that no request is above its limit once defaults are filled: the
// refusal's message, or "".
func (s *Scheduler) checkLimits(p *cluster.Pod) string {
	ranges := s.limitRanges[namespaceOf(p)]
	if len(ranges) == 0 {
		return ""
	}
	res := cluster.PodResourcesOf(p)
	for i := range ranges {
		if msgs := ranges[i].Check(res); len(msgs) > 0 {
			return fmt.Sprintf("pods %q is forbidden: %s", p.Name, cluster.AggregateMessage(msgs))
		}
	}
	if field, detail := res.Problem(); detail != "" {
		return fmt.Sprintf("Pod %q is invalid: spec.%s: %s", p.Name, field, detail)
	}
	return ""
}

func namespaceOf(p *cluster.Pod) string {
	if p.Namespace == "" {
		return cluster.DefaultNamespace
	}
	return p.Namespace
}

// reject refuses to create a pod: it is told to observers and returned as
// a *RejectedError. p is the pod as admission left it.
func (s *Scheduler) reject(p cluster.Pod, reason string) error {
	if p.Namespace == "" {
		p.Namespace = cluster.DefaultNamespace
	}
	s.emit(podEvent(EventPodRejected, cluster.NewPodInfoShared(p), "", reason))
	return &RejectedError{Pod: p.Key(), Reason: reason}
}
