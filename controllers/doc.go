// Package controllers runs Kubernetes' workload controllers in simulated
// time, beside a gangsim.Scheduler: the Job controller; the controllers
// that keep services running (ReplicaSet, which a Deployment makes;
// StatefulSet; DaemonSet); those of workloads that run others (owners.go:
// a JobSet's Jobs, with its startup order, success and failure policies,
// restarts and exclusive placement; the Kubeflow operators' MPIJob and
// PyTorchJob and their replicas); the controllers of other projects
// that keep a list of named pods in groups (a PodSet: LeaderWorkerSet's,
// KubeRay's RayCluster, Volcano's Job; podset.go), with the links by which
// one workload waits for or ends another (a RayJob's submitter Job and
// its cluster; links.go); and the resourceclaim controller
// (ResourceClaims), which makes the claims of pods that name a
// ResourceClaimTemplate and deletes them when their pods end. Like the
// cluster autoscaler (package
// autoscaler), each is a loop over the Scheduler's public API, never a
// part of the scheduler: it watches the event stream and makes and
// deletes pods at the simulated time Kubernetes' controller would.
//
// A Workload is the Go value of one workload object: its kind, its pod
// template, how long its pods run, its rules (replicas, a Job's
// completions, parallelism, backoff limit...) and the pods it owns at
// time 0. A Manager runs the controllers of several workloads, as
// kube-controller-manager runs Kubernetes' controllers in one process:
//
//   - NewManager takes the workloads; Attach gives New the pause hook
//     through which the Manager follows the stream; Start gives it the
//     Scheduler.
//   - When an event concerns a controller (its pod succeeded, was
//     deleted, evicted, refused by admission), the Manager asks the
//     Scheduler to pause, at that event's time; the caller then calls
//     React, and each controller concerned syncs: it makes the pods its
//     workload lacks (AddPod) and deletes those it no longer wants
//     (DeletePod). A controller that must act later (a Job's backoff,
//     its active deadline) asks for a wakeup (NextWakeup, Wake).
//   - Run is that loop for a caller with nothing else to do; the
//     scenario runner writes it with its own timeline and the
//     autoscaler.
//   - Made, Pod, Failed, Jobs and Parents say what the controllers did,
//     for a result.
//
// A queue in front of the scheduler (Kueue) changes a workload's
// spec.suspend while it runs, and the Manager lets it (suspend.go):
// Suspend does what the workload's controller does when the flag turns
// true (a Job deletes its active pods, none counted as failed, and stops
// its active deadline's clock; a JobSet suspends its Jobs; an MPIJob, a
// PyTorchJob and a RayCluster delete their pods), and Unsuspend what it
// does when the flag turns false, every pod made from then on made from
// its template changed by the caller's patch (the node selector and the
// tolerations of the flavor the queue admitted it to). WithSuspended
// holds workloads from time 0, as Kueue's webhook suspends those it
// manages. Active and Finished tell what the queue waits for (its
// workload's pods gone, to release its quota; its end), and
// WithWorkloadChange's hook is called from React as either happens. A
// LeaderWorkerSet, a Volcano Job and the services have no suspend: a
// queue holds their pods instead, through WithPodHook, which sees each
// pod the Manager makes before it is added (Kueue's webhook gates it).
//
// ResourceClaims is the resourceclaim controller: it holds the
// templates (AddTemplate), makes a pod's claims, owned by the pod, and
// records them in the pod's status (SetResourceClaimStatuses) as the pod
// is added (Prepare; the Manager calls it for the pods it makes, given
// WithResourceClaims) or at its next Sync for a pod added without it;
// until then DynamicResources' PreEnqueue holds the pod. It follows the
// stream as an observer (Attach) and deletes the claims of the pods that
// ended at its next Prepare or Sync. Its claims are named <pod>-<entry>,
// or <pod>-<entry>-<k> (the first free k) when a claim has that name. A
// PodGroup's claims from templates (its spec.resourceClaims) are made once
// for the group, <group>-<entry>, and shared by the pods whose entry
// equals the group's.
//
// The rules are those of Kubernetes' controllers, where the simulator
// names the pods a controller would name with a random suffix in a
// deterministic way (<job>-<k>, <job>-<index>-<k>, <replicaset>-<k>,
// <daemonset>-<node>-<k>, a PodSet member's <prefix>-<k>; a Kubeflow
// job's replicas are named by the operator, <job>-<role>-<index>);
// docs/kubernetes-inputs.md ("Controllers")
// lists them, with what is modelled and what is not. The services run
// for ever: their pods end and are replaced as long as the run goes on,
// so InProgress tells a caller whether anything besides that churn is
// left (a Job's pod, or a pod given to WaitFor, running; a victim
// terminating).
//
// Determinism: the Manager keeps its workloads in the order NewManager
// got them; the controllers act on the events in stream order, and
// controllers due at once sync in workload order; every name a
// controller makes is the first free one in a fixed sequence. No map
// order reaches the Scheduler or a result, and there is no randomness
// but the run times a Workload's RunTime draws (which depend on the pod's
// key and how many times it was made, not on the order pods are made in).
//
// Concurrency: a Manager and its Scheduler are driven from one goroutine;
// the pause hook runs inside the Scheduler's calls, on that goroutine.
// A Workload is read, never written: several Managers (one per run of a
// what-if search, say) may share the same workloads concurrently, when
// their RunTime functions may be called at once.
package controllers
