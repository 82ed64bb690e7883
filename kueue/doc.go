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
// Admitter runs Kueue's admission on them in simulated time: the cache
// (quota.go: the quota tree of hierarchical cohorts), the queues
// (queue.go: StrictFIFO and BestEffortFIFO, the inadmissible set), the
// flavor assigner (flavors.go), classical preemption (preempt.go), fair
// sharing's shares, admission order and preemption (fairshare.go,
// fairpreempt.go), admission fair sharing's order of a queue by its
// LocalQueues' decayed usage (afs.go), the admission cycle (cycle.go),
// waitForPodsReady (podsready.go), the pace Kueue's API client's rate
// limit sets (writes.go), and topology-aware scheduling (tas.go: requests,
// assignments and usage; tassnapshot.go: the snapshot of a TAS flavor's
// nodes; tasplace.go: the domain choice; tasassign.go: TAS in the flavor
// assignment and the cycle). It knows no pod, and reads nodes only as
// plain values (TASNode) from the function SetNodes gives: the caller
// adds workloads, steps it at its times, carries out the decisions it
// reports as events (admit: release the job's pods with the flavor and,
// in a TAS flavor, their domains; evict: stop them) and tells it when an
// evicted workload's pods are gone (Released), when a workload's pods
// are ready and when it finishes. docs/kueue.md says what runs and what does not.
package kueue
