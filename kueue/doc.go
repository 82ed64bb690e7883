// Package kueue is Kueue's model beside the scheduler, as the autoscaler
// is: the objects Kueue admits workloads by (ResourceFlavor, ClusterQueue,
// LocalQueue, Cohort, WorkloadPriorityClass, Topology) and its
// Configuration, as plain Go values, and their validation by the rules
// Kueue's admission webhooks and its CRD schemas apply (enums, name
// patterns, the most items of a list, the quota rules). Values in, errors
// out: the package reads no file and knows no scheduler type; the
// Kubernetes importer (scenario/kube) reads kueue.x-k8s.io/v1beta2 and
// v1beta1 objects into these types.
//
// Quantities are int64 in the model's units (cluster.ParseResourceQuantity):
// millicores for cpu, whole units (bytes, devices) for every other
// resource. A fair-sharing weight is in billionths.
//
// Nothing runs these objects yet: admission, quotas and preemption come
// later (docs/kubernetes-inputs.md says what is read and what runs).
package kueue
