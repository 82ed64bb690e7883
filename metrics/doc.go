// Package metrics turns a simulation's event stream into capacity-planning
// numbers: the allocation of every resource over time, cluster-wide and
// per topology domain; pending pods and groups over time; each pod's wait
// and each group's time to schedule, with quantiles; preemptions and their
// victims by priority; unschedulable reasons; and fragmentation, the free
// resources no pending pod can use (for GPUs, stranded devices).
//
// A Recorder is an observer of the stream (gangsim.WithObserver(r.Observe)).
// It keeps the simulation's state as step functions of simulated time, so
// every number is exact: a series changes only where an event changed it,
// and time averages are integrals over those steps, with no sampling.
// Within one instant only the state after the instant's last event counts
// (an eviction and the binding that follows it at the same time leave no
// zero-length peak). Report assembles a Report, which renders as JSON, as
// a CSV time series and as a terminal table; package metrics/plots draws
// it and package metrics/htmlreport writes it as one HTML page. A report
// of one instant (every event at one time, as for a cluster dump with no
// pod ending) has the values at that instant.
//
// Definitions (docs/capacity-planning.md):
//
//   - allocated: the requests of the pods holding a node (bound, or
//     evicted and still terminating), plus one pod each for the pods
//     resource; capacity: the allocatable of the nodes in the cluster.
//   - wait: from a pod's arrival to its first binding; pods that arrive
//     already running have none. Time to schedule: from the arrival of a
//     PodGroup's first pod to the first binding of any of its pods.
//   - workload (Workload): a pod's controller, else its PodGroup, else
//     its name, without the copy number a scenario gives; the waits and
//     the pending pods are also given by workload.
//   - pending pods at the end: with the scheduler's reason and an
//     explanation of what the nodes leave them (no node could hold the
//     pod even empty, none has room now, or a rule beyond room holds it).
//   - fragmented: on each schedulable node holding at least one pod, the
//     free amount of a resource when at least one pending pod eligible for
//     the node (it could run there were the node empty: requests, taints,
//     node selector, node affinity) requests that resource and no such pod
//     fits the node's free resources. For a GPU resource these are the
//     stranded GPUs. Pod slots are never counted.
//   - devices (Dynamic Resource Allocation, with a DeviceSource: see
//     Recorder.Attach): per device class and per model attribute, the
//     devices on the nodes, those a claim holds (allocated devices) and
//     the part of each the claims take (allocated capacity, in devices).
//   - device fragmentation, per class, as Weng et al. define it ("Beware
//     of Fragmentation", USENIX ATC '23): the free capacity of the
//     class's devices that the task types of the pods arrived so far,
//     weighed by popularity, cannot use, over the free capacity.
//
// With Kueue (Report.AddKueue, from Kueue's events and objects), per
// ClusterQueue and per LocalQueue:
//
//   - pending workloads, active (not yet refused) and inadmissible (Kueue
//     said why it could not admit them), and admitted ones (holding
//     quota, from admission until the quota is released or the workload
//     finishes);
//   - quota used per flavor and resource (the admitted pods' requests),
//     against a ClusterQueue's nominal quota, and borrowed: the usage
//     above the nominal quota;
//   - time to admission, from a workload's creation to its first
//     admission; the wait for quota (the same, to the end when never
//     admitted) and for nodes (from that admission until the admitted
//     pods were all bound); evictions by preemption reason;
//   - preemptions: the queue's workloads evicted by preemption (as
//     victims) and those evicted for its own (as preemptors), and the
//     victims between each pair of ClusterQueues (preemptor's, victim's);
//   - the times to admission themselves, for their distribution.
//
// Determinism: no map order reaches a Report; resources, domains, reasons
// and priorities are sorted, and the same stream gives the same bytes.
//
// Concurrency: a Recorder belongs to the goroutine driving its Scheduler,
// as the Scheduler does. A Report is a value, safe to read from anywhere
// once built.
package metrics
