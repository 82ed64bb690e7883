// Package gangsim simulates the Kubernetes workload scheduler
// (kube-scheduler v1.37) in memory and in simulated time: pods and nodes,
// priority and preemption, PodGroups scheduled all-or-nothing, topology-
// aware placement, CompositePodGroup hierarchies and workload-aware
// preemption. A Scheduler is a pure state machine: no goroutines, no wall
// clock, no I/O; the same calls give the same results, byte for byte.
//
// # Glossary
//
//   - Cycle: one scheduling attempt for the head of the active queue, a pod
//     or a root group. ScheduleOne runs one and returns a CycleResult.
//   - Snapshot: the consistent copy of the cluster a cycle decides against;
//     tentative reservations are made on it and rolled back exactly.
//   - Gang: a PodGroup with minCount; at least minCount of its pods are
//     placed together, or none is.
//   - Placement: a candidate set of nodes for a group (one rack, block or
//     zone under a topology key); the best feasible one wins.
//   - Root: the group the queue holds for a hierarchy: a PodGroup without a
//     parent, or the top CompositePodGroup.
//   - Unit: what preemption evicts as one: a pod, or every scheduled pod
//     under the highest group whose disruption mode is All.
//   - Nomination: the node preemption chose for a pod; it is tried first
//     and its room is held for the pod while the victims terminate.
//   - Gated: held out of scheduling, never tried: a gang short of members,
//     or a pod a PreEnqueue plugin refuses, as SchedulingGates refuses a
//     pod with scheduling gates (and its whole root group) until
//     UngatePod removes them, and DynamicResources a pod whose claim from
//     a template is not made until SetResourceClaimStatuses records it.
//   - Rejected: refused at creation by its namespace's admission (a
//     LimitRange's bounds, a ResourceQuota): the pod is never created.
//
// # The cycle
//
//	          queue.Pop (activeQ: priority desc, first seen asc)
//	                            │
//	      ┌─────────── pod ─────┴──── root group ──────────┐
//	      ▼                                                ▼
//	UpdateSnapshot                         validate members (SchedulerError)
//	filter + score                         UpdateSnapshot, Checkpoint
//	      │                                generate placements ─┐ per domain:
//	 fits? ──yes──▶ Reserve, commit        S5a: pod by pod,     │ reserve,
//	      │no                              PlacementFeasible    │ judge, roll
//	      ▼                                after each pod ◀─────┘ back
//	PostFilter: remove-all-                score feasible placements, pick
//	then-reprieve preemption,              Rollback
//	nominate, park                                │
//	                                 quorum met and ≥1 placed?
//	                               yes ◀───────────┴──────────▶ no
//	                     bind all placed pods at once     PodGroupPostFilter:
//	                     leftovers straight back          workload-aware
//	                     to activeQ                       preemption, backoff
//
// schedule_one.go holds this cycle in reading order; the plugins it runs
// are in plugins/, one folder each, and run through package placement.
//
// Time moves only through RunUntil, AdvanceTo and Run; graceful
// termination, pod durations, backoff and the unschedulable pool's
// five-minute flush all run on that clock.
//
// # Events
//
// Every change of the simulation is an Event with its simulated time: pods
// arriving, bound, nominated, unschedulable, evicted (with a typed
// preemptor), terminated, succeeded, deleted; groups scheduled or failed;
// nodes added, updated, cordoned, uncordoned, removed, drained; the end of
// each cycle. WithObserver receives them as they happen; Stats and
// Evictions are built from them. docs/events.md lists every kind.
//
// # Admission
//
// AddPod, AddPodGroup and AddCompositePodGroup resolve priorities the same
// way for every caller (PodPriority, GroupPriority): a class's value, an
// explicit priority, the group's or parent's, the global default. A pod is
// also admitted into its namespace, as the API server admits it when it is
// created: the LimitRanges (SetLimitRange) fill its containers' defaults
// and bound them, the ResourceQuotas (SetResourceQuota) refuse it when
// their usage, counted at its arrival, leaves no room (RejectedError,
// EventPodRejected). The rules live in package admission, which the
// scheduler asks before a pod exists.
//
// # Shortcuts
//
// The engine caches answers the plain cycle would compute again (the
// filter memo, known failures, dry-run memos, victim units). None changes
// a decision; WithoutShortcuts switches any of them off and ShortcutStats
// counts their answers (docs/architecture.md).
//
// # Layout
//
// The root holds the Scheduler and nothing else: the API, the cycle
// (schedule_one.go), the pod life-cycle (lifecycle.go, with its state
// diagram), requeueing (requeue.go), the records and the tracker that owns
// them (records.go, groups.go, hierarchy.go). API-server admission is
// package admission, the device allocator package dra, the workload
// controllers, the resourceclaim controller (which makes the claims of
// pods from ResourceClaimTemplates: the Scheduler never reads a template)
// and the autoscaler sit beside the Scheduler in packages of their own
// (docs/architecture.md).
//
// The engine does no I/O: file formats live above it, in the scenario
// package (docs/scenario-format.md). docs/semantics.md describes the
// scheduling rules the cycle follows, section by section.
//
// Concurrency: a Scheduler is single-threaded and not safe for concurrent
// use; separate Schedulers share nothing and may run on separate
// goroutines.
package gangsim
