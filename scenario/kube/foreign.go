package kube

import (
	"slices"
	"strings"
)

// Kinds of other projects found in clusters: scheduler-plugins' PodGroup
// shares its kind's name with Kubernetes' own and is told apart by its API
// group; the kinds of Kueue and of scheduler-plugins' quotas are skipped
// with a warning that says what is not modelled.

// kubeForeignKinds are the kinds the importer reads whose name a kind of
// kubeKinds has too, by "group Kind".
var kubeForeignKinds = map[string]kubeKind{
	pluginsGroup + " PodGroup": {[]string{pluginsGroup + "/v1alpha1"}, true, func() any { return new(pluginsPodGroup) }},
	legacyGroup + " PodGroup":  {[]string{legacyGroup + "/v1alpha1"}, true, func() any { return new(pluginsPodGroup) }},
}

// apiGroup is the group of an apiVersion ("" for the core group's "v1").
func apiGroup(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

// lookupKind finds what the importer knows of a kind, its API group first.
func lookupKind(apiVersion, kind string) (kubeKind, bool) {
	if k, ok := kubeForeignKinds[apiGroup(apiVersion)+" "+kind]; ok {
		return k, true
	}
	k, ok := kubeKinds[kind]
	if ok && strings.Contains(apiGroup(apiVersion), ".") && !slices.ContainsFunc(k.versions, func(v string) bool { return apiGroup(v) == apiGroup(apiVersion) }) {
		return kubeKind{}, false // another project's kind of the same name (Volcano's Job): not read
	}
	return k, ok
}

// skippedKinds say, for the API groups of schedulers and queues beside
// kube-scheduler, why their objects are skipped; any other kind not read
// is "kind not modelled".
var skippedKinds = map[string]string{
	"kueue.x-k8s.io": "Kueue's admission (queues, quotas, flavors, workloads, admission checks) is not modelled: objects skipped; " +
		"pods are scheduled as if Kueue had admitted them",
	pluginsGroup + " ElasticQuota": "scheduler-plugins' CapacityScheduling quotas are not modelled: objects skipped",
	"scheduling.volcano.sh":        "Volcano's scheduler is not modelled: objects skipped (its PodGroups are not read as gangs)",
}

// skippedKindDetail is the warning's detail for a kind the importer does
// not read.
func skippedKindDetail(apiVersion, kind string) string {
	group := apiGroup(apiVersion)
	if d, ok := skippedKinds[group+" "+kind]; ok {
		return d
	}
	if d, ok := skippedKinds[group]; ok {
		return d
	}
	return "kind not modelled, objects skipped"
}

// versionHint says, for an old version of a configuration, what
// kube-scheduler v1.37 says of it too: only v1 is read.
func versionHint(o *Object) string {
	if o.kind == "KubeSchedulerConfiguration" && strings.HasPrefix(o.apiVersion, "kubescheduler.config.k8s.io/v1beta") {
		return "; kube-scheduler v1.37 reads only v1 too: v1beta3 differs little from v1, and changing the apiVersion is usually enough" +
			" (v1beta2 and older name plugins since removed)"
	}
	return ""
}
