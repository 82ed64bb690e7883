package kube

import (
	"slices"
	"strings"
)

// Kinds of other projects found in clusters: scheduler-plugins' PodGroup
// shares its kind's name with Kubernetes' own and is told apart by its API
// group, and so is Kueue's Workload (kueueworkload.go); Kueue's other
// kinds and scheduler-plugins' quotas are skipped with a warning that says
// what is not modelled.

// kubeForeignKinds are the kinds the importer reads whose name a kind of
// kubeKinds has too, by "group Kind".
var kubeForeignKinds = map[string]kubeKind{
	pluginsGroup + " PodGroup": {[]string{pluginsGroup + "/v1alpha1"}, true, func() any { return new(pluginsPodGroup) }},
	legacyGroup + " PodGroup":  {[]string{legacyGroup + "/v1alpha1"}, true, func() any { return new(pluginsPodGroup) }},
	volcanoBatchGroup + " Job": {[]string{volcanoBatchGroup + "/v1alpha1"}, true, func() any { return new(volcanoJob) }},
	kueueGroup + " Workload":   {[]string{kueueGroup + "/v1beta2", kueueGroup + "/v1beta1"}, true, func() any { return new(kueueWorkload) }},
}

// apiGroup is the group of an apiVersion ("" for the core group's "v1").
func apiGroup(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

// kubeVersionedKinds are the versions of a kind of kubeKinds whose
// fields differ from the version the kind's entry decodes, by "apiVersion
// Kind": older versions of the scheduling.k8s.io objects (versions.go).
var kubeVersionedKinds = map[string]kubeKind{}

// kubernetesGroup reports whether an API group is Kubernetes' own: the
// core and the groups without a dot (apps, batch, extensions), and those
// of k8s.io. Other projects' groups are domains of their own, since a
// custom resource's group has a dot (batch.volcano.sh, kueue.x-k8s.io).
func kubernetesGroup(group string) bool {
	return !strings.Contains(group, ".") || strings.HasSuffix(group, ".k8s.io")
}

// lookupKind finds what the importer knows of a kind, its API group first.
// A kind of kubeKinds is matched in its own API group, or in another of
// Kubernetes' own (an old group such as extensions/v1beta1, or a typo:
// the version is then an error); in another project's group it is
// another kind of the same name (Volcano's batch.volcano.sh Job, Kueue's
// kueue.x-k8s.io Workload), skipped as kinds not read are.
func lookupKind(apiVersion, kind string) (kubeKind, bool) {
	group := apiGroup(apiVersion)
	if k, ok := kubeForeignKinds[group+" "+kind]; ok {
		return k, true
	}
	if k, ok := kubeVersionedKinds[apiVersion+" "+kind]; ok {
		return k, true
	}
	k, ok := kubeKinds[kind]
	if !ok || kubernetesGroup(group) {
		return k, ok
	}
	for _, v := range k.versions {
		if apiGroup(v) == group {
			return k, true
		}
	}
	return kubeKind{}, false
}

// ReadsKind reports whether the importer reads objects of a kind in an
// API version: false for a kind it skips with a warning (a JobSet, a
// Volcano Job...) and for a version of a kind it reads that it does not
// (an error when loaded).
func ReadsKind(apiVersion, kind string) bool {
	k, ok := lookupKind(apiVersion, kind)
	return ok && slices.Contains(k.versions, apiVersion)
}

// skippedKinds say, for the API groups of schedulers and queues beside
// kube-scheduler, why their objects are skipped; any other kind not read
// is "kind not modelled".
var skippedKinds = map[string]string{
	"kueue.x-k8s.io": "Kueue's admission checks and MultiKueue are not modelled: objects skipped; " +
		"workloads are admitted once they have quota",
	pluginsGroup + " ElasticQuota": "scheduler-plugins' CapacityScheduling quotas are not modelled: objects skipped",
	"scheduling.volcano.sh":        "Volcano's scheduler is not modelled: objects skipped (its PodGroups are not read as gangs)",
	"batch.volcano.sh":             "Volcano's job controller is not modelled: objects skipped, and the pods they would make with them",
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
