package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrResourceQuota is wrapped by every ResourceQuota.Validate error.
var ErrResourceQuota = errors.New("cluster: invalid resource quota")

// QuotaScope is a scope of a ResourceQuota: which pods it counts.
type QuotaScope string

// The scopes of a quota on pods.
const (
	// ScopeTerminating: pods with activeDeadlineSeconds, which the model
	// has not: it matches none, and NotTerminating every pod.
	ScopeTerminating               QuotaScope = "Terminating"
	ScopeNotTerminating            QuotaScope = "NotTerminating"
	ScopeBestEffort                QuotaScope = "BestEffort" // pods of QoS class BestEffort
	ScopeNotBestEffort             QuotaScope = "NotBestEffort"
	ScopePriorityClass             QuotaScope = "PriorityClass" // by priorityClassName, with an operator
	ScopeCrossNamespacePodAffinity QuotaScope = "CrossNamespacePodAffinity"
)

// The operators of a scope selector.
const (
	ScopeOpIn           = "In"
	ScopeOpNotIn        = "NotIn"
	ScopeOpExists       = "Exists"
	ScopeOpDoesNotExist = "DoesNotExist"
)

// ScopeRequirement is an entry of a quota's scopeSelector.matchExpressions.
type ScopeRequirement struct {
	Scope    QuotaScope
	Operator string
	Values   []string
}

// ResourceQuota is a namespace's v1 ResourceQuota: the API server refuses
// to create a pod the quotas of its namespace do not leave room for.
// Hard holds the limits by quota resource name ("pods", "requests.cpu",
// "limits.memory", "requests.nvidia.com/gpu", "count/pods", ...), in the
// unit of the resource they count (millicores for the cpu ones). A pod is
// counted when it matches every scope of Scopes and ScopeSelector.
type ResourceQuota struct {
	Namespace     string
	Name          string
	Hard          ResourceList
	Scopes        []QuotaScope
	ScopeSelector []ScopeRequirement
}

// Key returns "namespace/name".
func (q *ResourceQuota) Key() string { return string(MakePodKey(q.Namespace, q.Name)) }

// The quota resources that count pods, besides huge pages and extended
// resources (the pod evaluator's own list).
var podQuotaResources = []ResourceName{"count/pods", ResourceCPU, ResourceMemory, "ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
	"limits.ephemeral-storage", ResourcePods}

// quotaMustSpecify are the tracked resources every container must set
// (a rule Kubernetes keeps for compatibility, for cpu and memory only).
var quotaMustSpecify = []ResourceName{ResourceCPU, ResourceMemory, "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}

// IsPodQuotaResource reports whether a quota resource counts pods:
// Kubernetes' quota evaluator for pods tracks it. Other names (services,
// configmaps, count/deployments.apps, requests.storage, limits of
// extended resources...) count other objects, or nothing.
func IsPodQuotaResource(name ResourceName) bool {
	if slices.Contains(podQuotaResources, name) {
		return true
	}
	s := string(name)
	if strings.HasPrefix(s, "hugepages-") || strings.HasPrefix(s, "requests.hugepages-") {
		return true
	}
	rest, ok := strings.CutPrefix(s, "requests.")
	return ok && isExtendedResource(ResourceName(rest))
}

// isExtendedResource reports whether a resource is an extended one: a
// domain-prefixed name outside kubernetes.io.
func isExtendedResource(name ResourceName) bool {
	s := string(name)
	return strings.Contains(s, "/") && !strings.HasPrefix(s, "kubernetes.io/") && !strings.Contains(s, ".kubernetes.io/")
}

// Tracked returns the quota's resources that count pods, in name order.
func (q *ResourceQuota) Tracked() []ResourceName {
	var out []ResourceName
	for _, name := range slices.Sorted(maps.Keys(q.Hard)) {
		if IsPodQuotaResource(name) {
			out = append(out, name)
		}
	}
	return out
}

// Validate reports the first problem the API server would refuse the
// quota for: a negative limit, an unknown scope or operator, scopes that
// contradict each other, a BestEffort scope on anything but pod counts.
func (q *ResourceQuota) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fieldError(ErrResourceQuota, "resource quota "+q.Key(), field, format, args...)
	}
	if field, detail := namespacedNameProblem(q.Name, q.Namespace); detail != "" {
		return fieldError(ErrResourceQuota, "", field, "%s", detail)
	}
	for _, name := range slices.Sorted(maps.Keys(q.Hard)) {
		if q.Hard[name] < 0 {
			return bad("hard."+string(name), "must be greater than or equal to 0")
		}
	}
	for i, s := range q.Scopes {
		if !knownScope(s) {
			return bad(fmt.Sprintf("scopes[%d]", i), "%q is not a scope of pods (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity)", s)
		}
	}
	for i, r := range q.ScopeSelector {
		if field, detail := r.validate(); detail != "" {
			return bad(JoinField(fmt.Sprintf("scopeSelector.matchExpressions[%d]", i), field), "%s", detail)
		}
	}
	scopes := q.allScopes()
	has := func(s QuotaScope) bool {
		return slices.ContainsFunc(scopes, func(r ScopeRequirement) bool { return r.Scope == s })
	}
	for _, pair := range [][2]QuotaScope{{ScopeTerminating, ScopeNotTerminating}, {ScopeBestEffort, ScopeNotBestEffort}} {
		if has(pair[0]) && has(pair[1]) {
			return bad("scopes", "conflicting scopes: %s and %s", pair[0], pair[1])
		}
	}
	if has(ScopeBestEffort) {
		for _, name := range slices.Sorted(maps.Keys(q.Hard)) {
			if standardQuotaResource(name) && name != ResourcePods {
				return bad("hard."+string(name), "unsupported scope applied to resource: the BestEffort scope counts pods only")
			}
		}
	}
	return nil
}

// standardQuotaResource reports whether the API server checks a quota's
// scopes against the resource: its standard quota resources and huge
// pages. Object counts (count/pods, count/services) and extended
// resources are not checked, so a BestEffort quota of count/pods is
// valid, as in Kubernetes.
func standardQuotaResource(name ResourceName) bool {
	switch name {
	case "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage", "requests.ephemeral-storage",
		"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers",
		"secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers":
		return true
	}
	return strings.HasPrefix(string(name), "hugepages-") || strings.HasPrefix(string(name), "requests.hugepages-")
}

func knownScope(s QuotaScope) bool {
	switch s {
	case ScopeTerminating, ScopeNotTerminating, ScopeBestEffort, ScopeNotBestEffort, ScopePriorityClass, ScopeCrossNamespacePodAffinity:
		return true
	}
	return false
}

func (r *ScopeRequirement) validate() (field, detail string) {
	if !knownScope(r.Scope) {
		return "scopeName", fmt.Sprintf("%q is not a scope of pods", r.Scope)
	}
	switch r.Operator {
	case ScopeOpIn, ScopeOpNotIn:
		if len(r.Values) == 0 {
			return "values", "must be at least one value when operator is In or NotIn"
		}
	case ScopeOpExists, ScopeOpDoesNotExist:
		if len(r.Values) != 0 {
			return "values", "must be no value when operator is Exists or DoesNotExist"
		}
	default:
		return "operator", fmt.Sprintf("%q is not In, NotIn, Exists or DoesNotExist", r.Operator)
	}
	if r.Scope != ScopePriorityClass && r.Operator != ScopeOpExists {
		return "operator", fmt.Sprintf("must be Exists when the scope is %s", r.Scope)
	}
	return "", ""
}

// allScopes are the quota's scopes and scope selector as one list of
// requirements (a scope is Exists).
func (q *ResourceQuota) allScopes() []ScopeRequirement {
	out := make([]ScopeRequirement, 0, len(q.Scopes)+len(q.ScopeSelector))
	for _, s := range q.Scopes {
		out = append(out, ScopeRequirement{Scope: s, Operator: ScopeOpExists})
	}
	return append(out, q.ScopeSelector...)
}

// Matches reports whether the quota counts the pod (as admitted, its
// resources defaulted): the quota tracks a resource of pods and the pod
// is in every one of its scopes.
func (q *ResourceQuota) Matches(p *Pod) bool {
	if len(q.Tracked()) == 0 {
		return false
	}
	for _, r := range q.allScopes() {
		if !scopeMatches(r, p) {
			return false
		}
	}
	return true
}

func scopeMatches(r ScopeRequirement, p *Pod) bool {
	switch r.Scope {
	case ScopeTerminating:
		return false
	case ScopeNotTerminating:
		return true
	case ScopeBestEffort:
		return IsBestEffort(p)
	case ScopeNotBestEffort:
		return !IsBestEffort(p)
	case ScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(p.Affinity)
	}
	class := p.PriorityClassName
	switch r.Operator {
	case ScopeOpExists:
		return class != ""
	case ScopeOpDoesNotExist:
		return class == ""
	case ScopeOpIn:
		return class != "" && slices.Contains(r.Values, class)
	}
	return class == "" || !slices.Contains(r.Values, class) // NotIn
}

// IsBestEffort reports whether the pod is of QoS class BestEffort: no
// container, and not the pod itself, requests or limits any cpu or
// memory.
func IsBestEffort(p *Pod) bool {
	if p.Resources == nil {
		return p.Requests.MilliCPU == 0 && p.Requests.Memory == 0
	}
	positive := func(r *ResourceRequirements) bool {
		for _, l := range []ResourceList{r.Requests, r.Limits} {
			if l[ResourceCPU] > 0 || l[ResourceMemory] > 0 {
				return true
			}
		}
		return false
	}
	for i := range p.Resources.Containers {
		if positive(&p.Resources.Containers[i].Resources) {
			return false
		}
	}
	return p.Resources.PodLevel == nil || !positive(p.Resources.PodLevel)
}

// crossNamespaceAffinity reports whether a pod affinity or anti-affinity
// term names namespaces or a namespace selector.
func crossNamespaceAffinity(a *Affinity) bool {
	if a == nil {
		return false
	}
	for _, pa := range []*PodAffinity{a.PodAffinity, a.PodAntiAffinity} {
		if pa == nil {
			continue
		}
		for _, t := range pa.Required {
			if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
				return true
			}
		}
		for _, w := range pa.Preferred {
			if len(w.Term.Namespaces) > 0 || w.Term.NamespaceSelector != nil {
				return true
			}
		}
	}
	return false
}

// PodResourcesOf returns the pod's resources: its own, or, for a pod that
// is its Requests alone, one container named like the pod asking them.
func PodResourcesOf(p *Pod) *PodResources {
	if p.Resources != nil {
		return p.Resources
	}
	return SingleContainer(p.Name, p.Requests, nil)
}

// QuotaUsage is what a pod counts against quotas (Kubernetes' pod
// evaluator): one of pods and count/pods, its requests of cpu, memory and
// ephemeral storage as themselves and as requests.*, its limits as
// limits.*, huge pages as themselves and requests.hugepages-*, extended
// resources as requests.*. A pod in a terminal phase counts only
// count/pods, which counts every pod stored.
func QuotaUsage(p *Pod, terminal bool) ResourceList {
	out := ResourceList{"count/pods": 1}
	if terminal {
		return out
	}
	out[ResourcePods] = 1
	res := PodResourcesOf(p)
	req, lim := res.Requests(), res.Limits()
	for _, name := range []ResourceName{ResourceCPU, ResourceMemory, "ephemeral-storage"} {
		if v, ok := req[name]; ok {
			out[name], out["requests."+name] = v, v
		}
		if v, ok := lim[name]; ok {
			out["limits."+name] = v
		}
	}
	for name, v := range req {
		switch {
		case strings.HasPrefix(string(name), "hugepages-"):
			out[name], out["requests."+name] = v, v
		case isExtendedResource(name):
			out["requests."+name] = v
		}
	}
	return out
}

// QuotaMissing returns, for the tracked resources a quota requires every
// container to set (cpu and memory, requested or limited), what the pod's
// containers leave unset: "limits.cpu for: app,sidecar; requests.memory
// for: app", or "". A pod with pod-level resources is exempt, as with
// Kubernetes' PodLevelResources.
func QuotaMissing(p *Pod, tracked []ResourceName) string {
	res := PodResourcesOf(p)
	if res.PodLevel != nil {
		return ""
	}
	missing := map[ResourceName][]string{}
	for _, name := range tracked {
		if !slices.Contains(quotaMustSpecify, name) {
			continue
		}
		base, list := BaseResource(name), func(r *ResourceRequirements) ResourceList { return r.Requests }
		if strings.HasPrefix(string(name), "limits.") {
			list = func(r *ResourceRequirements) ResourceList { return r.Limits }
		}
		for i := range res.Containers {
			c := &res.Containers[i]
			if _, ok := list(&c.Resources)[base]; !ok && !slices.Contains(missing[name], c.Name) {
				missing[name] = append(missing[name], c.Name)
			}
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		names := slices.Sorted(slices.Values(missing[name]))
		parts = append(parts, fmt.Sprintf("%s for: %s", name, strings.Join(names, ",")))
	}
	return strings.Join(parts, "; ")
}
