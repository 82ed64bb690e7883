package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// PreemptionPolicy says whether a pod may evict lower-priority pods.
type PreemptionPolicy string

// The preemption policies. The empty policy means PreemptLowerPriority.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// DefaultSchedulerName is the scheduler name of pods that do not set one.
const DefaultSchedulerName = "default-scheduler"

// Pod is a unit of work to place on a node. It is a plain value; the cache
// keeps its own deep copy, or the pod itself when its owner hands it over
// read-only (the Scheduler's AddSharedPod, NewPodInfoOf).
//
// Priority is the pod's priority as given, as spec.priority is in
// Kubernetes: nil means "not given", and admission (the Scheduler's AddPod)
// resolves it from PriorityClassName, the pod's group or the global
// default. The resolved value is PodInfo.Priority.
type Pod struct {
	Namespace string
	Name      string
	Labels    map[string]string
	Requests  Resources // cpu, memory, extended; Pods must be 0 (each pod counts 1)
	// Resources are the pod's containers' requests and limits, for
	// admission (LimitRange, ResourceQuota); nil for a pod that is its
	// Requests alone. When set, Requests must be their total
	// (PodResources.Requests); admission computes both anew when a
	// LimitRange fills defaults.
	Resources         *PodResources
	Priority          *int32
	PriorityClassName string
	PreemptionPolicy  PreemptionPolicy // "" means PreemptLowerPriority
	SchedulerName     string           // "" means DefaultSchedulerName
	NodeSelector      map[string]string
	Affinity          *Affinity // node affinity, pod affinity and anti-affinity; nil: none
	Tolerations       []Toleration
	// TopologySpreadConstraints spread the pods their selectors select
	// over topology domains.
	TopologySpreadConstraints []TopologySpreadConstraint
	// Owner is the controller the pod belongs to (nil: none).
	Owner    *Owner
	NodeName string // set: already bound to that node
	PodGroup string // the leaf PodGroup this pod belongs to; "" for none
	// ResourceClaims are the pod's spec.resourceClaims: claims of devices
	// (Dynamic Resource Allocation) it needs on its node.
	ResourceClaims []PodResourceClaim
	// ResourceClaimStatuses are the pod's status.resourceClaimStatuses:
	// for each entry of ResourceClaims that names a template, the claim
	// the resourceclaim controller made for it (package controllers),
	// once made. The scheduler holds a pod until each such entry has one.
	ResourceClaimStatuses []PodResourceClaimStatus `json:",omitempty"`
	// SchedulingGates are the names of the pod's spec.schedulingGates:
	// while one is left the scheduler holds the pod and never tries it
	// (kube-scheduler's SchedulingGates plugin). Gates are only ever
	// removed, never added, and a pod with gates cannot name its node.
	SchedulingGates []string
	StartTime       time.Duration // simulated time the pod started running
}

// PodKey identifies a pod: "namespace/name".
type PodKey string

// Key returns the pod's "namespace/name".
func (p *Pod) Key() PodKey { return MakePodKey(p.Namespace, p.Name) }

// DefaultNamespace is the namespace of objects that name none.
const DefaultNamespace = "default"

// MakePodKey joins a namespace and a name into a PodKey.
func MakePodKey(namespace, name string) PodKey {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	return PodKey(namespace + "/" + name)
}

// EffectivePreemptionPolicy returns the policy with the default applied.
func (p *Pod) EffectivePreemptionPolicy() PreemptionPolicy {
	if p.PreemptionPolicy == "" {
		return PreemptLowerPriority
	}
	return p.PreemptionPolicy
}

// EffectiveSchedulerName returns the scheduler name with the default applied.
func (p *Pod) EffectiveSchedulerName() string {
	if p.SchedulerName == "" {
		return DefaultSchedulerName
	}
	return p.SchedulerName
}

// The requests kube-scheduler assumes, for scoring only, when a pod asks for
// no cpu or no memory (schedutil.DefaultMilliCPURequest, DefaultMemoryRequest).
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// NonZeroRequests returns the cpu and memory the scoring plugins count for
// p: its requests, with 100m cpu and 200Mi memory in place of a zero.
// The model has no containers, so a zero request stands for an absent one.
func (p *Pod) NonZeroRequests() (milliCPU, memory int64) { return p.Requests.nonZero() }

// nonZero is NonZeroRequests of requests r.
func (r *Resources) nonZero() (milliCPU, memory int64) {
	milliCPU, memory = r.MilliCPU, r.Memory
	if milliCPU == 0 {
		milliCPU = DefaultMilliCPURequest
	}
	if memory == 0 {
		memory = DefaultMemoryRequest
	}
	return milliCPU, memory
}

// ErrInvalidPod is wrapped by every Pod.Validate error.
var ErrInvalidPod = errors.New("cluster: invalid pod")

// Validate reports the first problem with p, naming the pod and field.
func (p *Pod) Validate() error {
	if field, detail := namespacedNameProblem(p.Name, p.Namespace); detail != "" {
		return fieldError(ErrInvalidPod, "", field, "%s", detail)
	}
	bad := func(field, format string, args ...any) error {
		return fieldError(ErrInvalidPod, string(p.Key()), field, format, args...)
	}
	if p.Requests.IsNegative() {
		return bad("requests", "%v are negative", p.Requests)
	}
	if p.Requests.Pods != 0 {
		return bad("requests.pods", "cannot be requested (each pod counts 1)")
	}
	if p.Resources != nil {
		if field, detail := p.Resources.Problem(); detail != "" {
			return bad(field, "%s", detail)
		}
		if total := p.Resources.Requests().Resources(); !total.Equal(p.Requests) {
			return bad("requests", "%v differ from %v, the total of the pod's resources", p.Requests, total)
		}
	}
	if field, detail := labelsProblem("labels", p.Labels); detail != "" {
		return bad(field, "%s", detail)
	}
	if field, detail := labelsProblem("nodeSelector", p.NodeSelector); detail != "" {
		return bad(field, "%s", detail)
	}
	switch p.PreemptionPolicy {
	case "", PreemptLowerPriority, PreemptNever:
	default:
		return bad("preemptionPolicy", "%q is not PreemptLowerPriority or Never", p.PreemptionPolicy)
	}
	for i, t := range p.Tolerations {
		if field, detail := t.validate(); detail != "" {
			return bad(JoinField(fmt.Sprintf("tolerations[%d]", i), field), "%s", detail)
		}
	}
	if p.Affinity != nil {
		if field, detail := p.Affinity.validate(); detail != "" {
			return bad(JoinField("affinity", field), "%s", detail)
		}
	}
	if field, detail := ValidateSpread("topologySpreadConstraints", p.TopologySpreadConstraints); detail != "" {
		return bad(field, "%s", detail)
	}
	if field, detail := ValidatePodClaims(p.ResourceClaims); detail != "" {
		return bad(field, "%s", detail)
	}
	if field, detail := ValidateClaimStatuses(p.ResourceClaims, p.ResourceClaimStatuses); detail != "" {
		return bad(field, "%s", detail)
	}
	if field, detail := validateGates(p.SchedulingGates); detail != "" {
		return bad(field, "%s", detail)
	}
	if p.NodeName != "" && len(p.SchedulingGates) > 0 {
		return bad("nodeName", "cannot be set until all schedulingGates have been cleared")
	}
	return nil
}

// validateGates checks scheduling gate names as the API server does:
// qualified names, none twice.
func validateGates(gates []string) (field, detail string) {
	for i, g := range gates {
		if !IsQualifiedName(g) {
			return fmt.Sprintf("schedulingGates[%d]", i), fmt.Sprintf("%q is not a qualified name (an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)", g)
		}
		if slices.Contains(gates[:i], g) {
			return fmt.Sprintf("schedulingGates[%d]", i), fmt.Sprintf("%q is given twice", g)
		}
	}
	return "", ""
}

// IsQualifiedName reports whether s is a Kubernetes qualified name, as
// label keys and scheduling gates are: an optional prefix (a DNS
// subdomain) and '/', then a name of at most 63 characters, letters,
// digits, '-', '_' and '.', beginning and ending with a letter or digit.
func IsQualifiedName(s string) bool {
	prefix, name, hasPrefix := strings.Cut(s, "/")
	if !hasPrefix {
		name = prefix
	} else if prefix == "" || !isDNSSubdomain(prefix) {
		return false
	}
	if name == "" || len(name) > 63 || !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Clone returns a deep copy of p.
func (p Pod) Clone() Pod {
	p.Labels = maps.Clone(p.Labels)
	p.NodeSelector = maps.Clone(p.NodeSelector)
	p.Tolerations = slices.Clone(p.Tolerations)
	p.Requests = p.Requests.clone()
	if p.Priority != nil {
		p.Priority = new(*p.Priority)
	}
	p.Affinity = p.Affinity.clone()
	p.TopologySpreadConstraints = cloneSpread(p.TopologySpreadConstraints)
	p.ResourceClaims = slices.Clone(p.ResourceClaims)
	p.ResourceClaimStatuses = slices.Clone(p.ResourceClaimStatuses)
	p.SchedulingGates = slices.Clone(p.SchedulingGates)
	p.Resources = p.Resources.Clone()
	if p.Owner != nil {
		o := *p.Owner
		o.Selector = o.Selector.Clone()
		p.Owner = &o
	}
	return p
}

// PodRequest is what a pod occupies on a node: its requests plus one pod.
func PodRequest(p *Pod) Resources {
	r := p.Requests
	r.Pods = 1
	return r
}

// Display renders the key as results show it: the bare name in the default
// namespace, "namespace/name" elsewhere.
func (k PodKey) Display() string { return strings.TrimPrefix(string(k), "default/") }
