package gangsim

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins"
	"github.com/gangsim/gangsim/podgroup"
)

// AddPod admits a pod now. Admission resolves its priority and preemption
// policy (PodPriority: its class, its own priority, its group's, the global
// default), whatever the entry point, so a file and the Go API give the
// same pod. A pod with NodeName is running there from now on (it must fit,
// and a group member must then have its group's priority); any other pod
// is queued. duration is how long the pod runs once bound before it
// succeeds (0: until deleted or evicted). The scheduler keeps a copy of
// p's maps and slices, or p's own under WithSharedPods. A pod's key may be used again once its pod has
// ended (succeeded or deleted), as a StatefulSet makes its pod web-0 again:
// Pod and Pods then report the new pod, and the old one lives on only in
// the events.
func (s *Scheduler) AddPod(p cluster.Pod, duration time.Duration) error {
	return s.addPod(p, nil, duration)
}

// AddSharedPod is AddPod for a caller that holds its pods read-only, as
// the scenario runner does: the scheduler keeps p's maps and slices as
// under WithSharedPods, and, when admission leaves p as it is (its
// priority given, its namespace set, nothing for a LimitRange to fill),
// p itself rather than a copy, so that a large run holds each pod once.
// Neither p nor what it points to may change afterwards. The decisions
// are AddPod's.
func (s *Scheduler) AddSharedPod(p *cluster.Pod, duration time.Duration) error {
	if err := s.usable(); err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("%w: a nil pod", cluster.ErrInvalidPod)
	}
	return s.addPod(*p, p, duration)
}

// keyOf is p's key: own's, made once, when the pod is wrapped already,
// or one made for a lookup only, on the stack.
func keyOf(own *cluster.PodInfo, p *cluster.Pod) cluster.PodKey {
	if own != nil {
		return own.Key()
	}
	return p.Key()
}

// addPod is AddPod; shared, when not nil, is the caller's pod p is a copy
// of, which the scheduler may keep (AddSharedPod).
func (s *Scheduler) addPod(p cluster.Pod, shared *cluster.Pod, duration time.Duration) error {
	if err := s.usable(); err != nil {
		return err
	}
	// The caller's own pod, when admission may keep it (its priority
	// given), is wrapped and validated at once: admission hands the
	// wrapper back when it leaves the pod as it is, and the cache then
	// binds it without checking it again (PodInfo.Validate).
	var own *cluster.PodInfo
	var err error
	if shared != nil && shared.Priority != nil {
		own = cluster.NewPodInfoOf(shared)
		err = own.Validate()
	} else {
		err = p.Validate()
	}
	if err != nil {
		return err
	}
	if duration < 0 || duration > MaxSimulatedTime {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: string(p.Key()), Field: "duration", Detail: fmt.Sprintf("%v is not in 0..%v", duration, MaxSimulatedTime)}
	}
	prev := s.tracker.pods[keyOf(own, &p)]
	if prev != 0 && !s.tracker.records.at(prev).ended() {
		return fmt.Errorf("%w: pod %s", ErrDuplicate, p.Key())
	}
	var group *groupRecord
	if p.PodGroup != "" { // most pods: no group key made and looked up
		group = s.tracker.group(groupKeyOf(&p))
	}
	if !s.sharedPods && shared == nil {
		p = p.Clone()
	}
	if p.NodeName == "" {
		s.limitRanger.Default(&p) // before the priority admission
	}
	var def *podgroup.PodGroup
	if group != nil {
		def = &group.group
	}
	var info *cluster.PodInfo
	if own != nil && p.Resources == shared.Resources { // no LimitRange filled a default
		info, err = admission.AdmitSharedPod(&s.classes, own, def)
	} else {
		info, err = admission.AdmitPod(&s.classes, p, def)
	}
	if err != nil {
		return err
	}
	if p.NodeName == "" { // a pod arriving running was admitted before
		if rej := cmp.Or(s.limitRanger.Check(info.Pod()), s.quotas.Check(info.Pod())); rej != nil {
			s.emit(podEvent(EventPodRejected, info, "", rej.Reason)) // not created: nothing else is kept
			return rej
		}
	}
	r := &podRecord{info: info, phase: PhasePending, duration: duration, firstSeen: s.now}
	if group == nil && admission.InheritsGroupPriority(&p) {
		r.spec = new(p) // its group is not known yet: admission waits for it
	}
	if p.NodeName != "" {
		if err := checkPreBound(s.cache, r, p.NodeName, group); err != nil {
			return err
		}
	}
	var allocated []claimAllocation
	if p.NodeName != "" {
		if allocated, err = reservePreBound(s.cache, s.selectors, info, p.NodeName); err != nil {
			return err
		}
	}
	r, id := s.tracker.records.add(*r)
	r.id = id
	r.setInfo(r.info)
	if prev != 0 { // admission keeps the pod's namespace and name: its key is prev's
		s.tracker.records.at(prev).superseded = true
	}
	s.tracker.pods[info.Key()] = r.id // the admitted pod's own key, shared
	s.quotas.Charge(info.Pod())
	s.preEnqueue(r)
	if p.PodGroup != "" {
		s.tracker.attach(r)
	}
	if p.NodeName != "" {
		s.emit(podEvent(EventPodArrived, r.info, p.NodeName, ""))
		for _, a := range allocated {
			s.emit(claimEvent(EventClaimAllocated, a.key, a.node, a.alloc))
		}
		if err := s.startRunning(r, p.NodeName); err != nil {
			return err
		}
		if r.group != 0 {
			// a running member counts toward its gang's quorum: a root
			// waiting for it is ready now (kube's GangScheduling requeues
			// on an assigned pod's arrival too)
			return s.offerGroup(s.tracker.groupOf(r), nil)
		}
		return nil
	}
	s.emit(podEvent(EventPodArrived, r.info, "", ""))
	return s.setPending(r)
}

// checkPreBound checks a pod that arrives already running on node: the
// node exists and has room, as the kubelet's admission checks, and a group
// member has its group's priority (a running member cannot be fixed by a
// later cycle).
func checkPreBound(cache *cluster.Cache, r *podRecord, node string, group *groupRecord) error {
	ni, ok := cache.Node(node)
	if !ok {
		return &cluster.FieldError{Sentinel: cluster.ErrNodeNotFound, Object: "pod " + string(r.info.Key()), Field: "nodeName", Detail: fmt.Sprintf("node %q is not in the cluster", node)}
	}
	if rej := plugins.KubeletAdmission(r.info, ni); rej != nil {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: string(r.info.Key()), Field: "nodeName",
			Detail: fmt.Sprintf("node %q has no room: %s", node, rej.Message())}
	}
	if group != nil && r.info.Priority() != group.group.EffectivePriority() {
		return &cluster.FieldError{Sentinel: ErrAdmission, Object: "pod " + string(r.info.Key()), Field: "priority",
			Detail: fmt.Sprintf("%d differs from the priority %d of its pod group %s, and the pod is already running", r.info.Priority(), group.group.EffectivePriority(), group.group.Name)}
	}
	return nil
}

// waitsOnPods reports whether a pod's filters may pass once another pod
// is placed: it has required pod affinity or a DoNotSchedule spread
// constraint.
func waitsOnPods(p *cluster.Pod) bool {
	if a := p.Affinity; a != nil && a.PodAffinity != nil && len(a.PodAffinity.Required) > 0 {
		return true
	}
	for _, c := range p.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == cluster.DoNotSchedule {
			return true
		}
	}
	return false
}

// DeletePod deletes a pod for good, wherever it is.
func (s *Scheduler) DeletePod(key cluster.PodKey) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.tracker.record(key)
	if r == nil || r.phase == PhaseDeleted || r.phase == PhaseSucceeded {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	node := r.node
	wasOnNode := r.phase == PhaseBound || r.phase == PhaseTerminating
	if wasOnNode {
		if err := s.removeFromNode(key); err != nil {
			return err
		}
	} else {
		node = ""
	}
	if err := s.markGone(r, PhaseDeleted); err != nil {
		return err
	}
	s.emit(podEvent(EventPodDeleted, r.info, node, ""))
	if wasOnNode {
		s.clusterChanged(fw.AssignedPodDeleted)
	}
	return nil
}

// addTime adds a duration to a simulated time, saturating instead of
// wrapping past the largest time.
func addTime(t, d time.Duration) time.Duration {
	if d > 0 && t > maxTime-d {
		return maxTime
	}
	return t + d
}

// maxTime is the largest time.Duration; simulated time stays below
// MaxSimulatedTime, and sums of two such times cannot reach it.
const maxTime = time.Duration(1<<63 - 1)

// MaxSimulatedTime bounds simulated times and the durations the scheduler
// is given (run times, grace periods, backoffs, RunUntil): a hundred years.
// Any time plus any duration then stays far from overflowing.
const MaxSimulatedTime = 100 * 365 * 24 * time.Hour

// ErrUnknownGate is wrapped by UngatePod's error for a gate the pod does
// not have.
var ErrUnknownGate = errors.New("gangsim: the pod has no such scheduling gate")

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
	s.tracker.changePod(r, func(p *cluster.Pod) { p.SchedulingGates = left })
	wasBlocked := r.blocked()
	s.preEnqueue(r) // the pod changed: its PreEnqueue plugins are asked again
	r.reason, r.reasonFit = r.enqueueBlock, false
	s.emit(podEvent(EventPodUngated, r.info, "", r.reason))
	if r.blocked() || !wasBlocked {
		return nil
	}
	return s.released(r)
}

// NarrowNodeSelection adds node selector entries and tolerations to a
// pod that still has scheduling gates, as the API server lets a gated
// pod's scheduling directives be narrowed (never widened): Kueue writes
// the node labels and tolerations of the flavor it admitted the pod under
// before it removes its gate. A selector entry the pod sets to another
// value is an error, since it would widen nothing but match no node the
// pod asked for; one it sets to the same value is kept once. A pod without
// gates is an error (ErrNotGated), as is one that is gone (ErrUnknownPod).
func (s *Scheduler) NarrowNodeSelection(key cluster.PodKey, selector map[string]string, tolerations []cluster.Toleration) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.tracker.record(key)
	if r == nil || r.phase == PhaseDeleted || r.phase == PhaseSucceeded {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	pod := r.info.Pod()
	if len(pod.SchedulingGates) == 0 {
		return fmt.Errorf("%w: %s", ErrNotGated, key)
	}
	for k, v := range selector {
		if had, ok := pod.NodeSelector[k]; ok && had != v {
			return fmt.Errorf("pod %s: nodeSelector %s=%s cannot become %s: a gated pod's selector may only be narrowed", key, k, had, v)
		}
	}
	s.tracker.changePod(r, func(p *cluster.Pod) {
		sel := maps.Clone(p.NodeSelector) // a new map: the pod's is shared, read-only
		if sel == nil {
			sel = map[string]string{}
		}
		maps.Copy(sel, selector)
		p.NodeSelector = sel
		p.Tolerations = append(slices.Clip(p.Tolerations), tolerations...)
	})
	return nil
}

// ErrNotGated is returned by NarrowNodeSelection for a pod without
// scheduling gates.
var ErrNotGated = errors.New("gangsim: the pod has no scheduling gates")

// SetResourceClaimStatuses records on a pending pod the claims the
// resourceclaim controller made for its entries that name a template (its
// status.resourceClaimStatuses, which the controller writes through the
// API server): an entry not recorded yet is added, one recorded keeps its
// claim. The pod's PreEnqueue plugins are asked again, as kube-scheduler
// asks them when a pod's generated claims change: a pod that
// DynamicResources held for want of its claims is queued once each is
// recorded. A pod arriving running has its statuses when it is added.
func (s *Scheduler) SetResourceClaimStatuses(key cluster.PodKey, statuses ...cluster.PodResourceClaimStatus) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.tracker.record(key)
	if r == nil || r.phase == PhaseDeleted || r.phase == PhaseSucceeded {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	p := r.info.Pod()
	merged := slices.Clone(p.ResourceClaimStatuses)
	for _, st := range statuses {
		i := slices.IndexFunc(merged, func(o cluster.PodResourceClaimStatus) bool { return o.Name == st.Name })
		if i < 0 {
			merged = append(merged, st)
		} else if merged[i] != st {
			return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: "pod " + string(key), Field: "status.resourceClaimStatuses",
				Detail: fmt.Sprintf("entry %q records claim %q already, not %q", st.Name, merged[i].ResourceClaimName, st.ResourceClaimName)}
		}
	}
	if field, detail := cluster.ValidateClaimStatuses(p.ResourceClaims, merged); detail != "" {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: "pod " + string(key), Field: "status." + field, Detail: detail}
	}
	if len(merged) == len(p.ResourceClaimStatuses) {
		return nil
	}
	if r.phase != PhasePending {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: "pod " + string(key), Field: "status.resourceClaimStatuses",
			Detail: fmt.Sprintf("the pod is %s: its claims are recorded before it runs", r.phase)}
	}
	s.tracker.changePod(r, func(p *cluster.Pod) { p.ResourceClaimStatuses = merged })
	wasBlocked := r.blocked()
	s.preEnqueue(r)
	if r.blocked() {
		s.setReason(r, r.enqueueBlock)
		return nil
	}
	if !wasBlocked {
		return nil
	}
	r.reason, r.reasonFit = "", false
	return s.released(r)
}

// WithSharedPods makes AddPod keep a pod's maps and slices as the caller
// gave them, without a copy: the caller must not change them from then
// on, and nothing the scheduler does to the pod (binding, preemption,
// eviction, returning it to the queue) writes to them. It is for callers
// that hold their pods read-only, as the scenario runner and the workload
// controllers do: every run of a scenario shares its pods' data, so a
// pod's labels, selectors and terms are stored once however many runs
// hold it. A fork keeps its parent's choice.
func WithSharedPods() Option { return func(s *Scheduler) { s.sharedPods = true } }

// WithExpectedPods sizes the scheduler's indexes of pods (its records, its
// queue and its cache, each keyed by the pod's name) for n pods, as a
// capacity hint: a run adding a million pods otherwise grows each of them
// twenty times over, rehashing every key it holds. It changes no decision;
// more pods than n are taken as before.
func WithExpectedPods(n int) Option {
	return func(s *Scheduler) { s.expectedPods = max(0, min(n, maxExpectedPods)) }
}

// maxExpectedPods bounds WithExpectedPods' hint, twice the largest run
// measured (BENCHMARKS.md), so that a wrong one costs at most about 320 MB
// and a second at the start: the indexes of 2 million pods.
const maxExpectedPods = 1 << 21

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
