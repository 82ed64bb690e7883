// Package admission is what the Kubernetes API server does to a pod when it
// is created, before any scheduler sees it: the Priority admission plugin
// resolves its priority (PodPriority, GroupPriority, AdmitPod), LimitRanger
// fills its containers' missing requests and limits and bounds them
// (LimitRanger), and ResourceQuota refuses it when its namespace's quotas
// leave no room (Quotas, which also keep each quota's usage as pods are
// created and end). A pod refused is never created: the verdict is a
// *RejectedError with the API server's message. ExtendedResourceToleration,
// a plugin GKE turns on, gives a pod requesting an extended resource the
// toleration of the taint of that name; the scenario applies it when the
// cluster runs it.
//
// Values in, verdicts out: the package reads pods, groups and priority
// classes (cluster, podgroup) and knows nothing of the scheduler; the
// scheduler asks it before a pod exists and tells the quotas when a pod
// ends. The rules for the objects themselves (a LimitRange's defaults and
// bounds, a quota's scopes and a pod's usage) are cluster's; this package
// holds them by namespace, in name order, and speaks for the namespace.
//
// Everything is deterministic: namespaces and objects are visited in name
// order, and a pod's first refusal is the one reported. Nothing here is
// safe for concurrent use; a scheduler owns its LimitRanger and Quotas and
// Clone gives a fork its own.
package admission
