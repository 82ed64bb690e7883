// Package cluster is the model of a Kubernetes cluster the scheduler decides
// against, and the cache that holds it.
//
// Objects are plain values: Resources (cpu millicores, memory bytes, pod
// count, extended resources), Node, Pod, PriorityClass and
// PodDisruptionBudget. ParseQuantity reads Kubernetes quantity notation with
// Kubernetes' rounding.
//
// The Cache owns the state: nodes (NodeInfo: a node, its pods, their summed
// requests) and the pods on them, through the life-cycle documented on
// Cache. A Snapshot is a consistent copy of it, refreshed incrementally by
// node generation, and doubles as the working copy of a scheduling cycle:
// tentative reservations and removals are logged and rolled back exactly.
//
// Determinism: nodes are always listed in name order, pods in key order;
// no map order reaches a result or an error message.
//
// Concurrency: nothing here starts a goroutine or takes a lock. A Cache and
// its Snapshots must be used from one goroutine (or guarded by the caller);
// separate caches are independent.
package cluster
