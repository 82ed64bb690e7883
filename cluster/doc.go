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
// # Change tracking
//
// Whatever is derived from the cluster (copies, memos, counts) is kept
// while what it was derived from holds. One word per idea says how its
// keeper knows:
//
//   - generation (Cache.Generation, NodeInfo.Generation,
//     Snapshot.Generation): the cache's count of its changes; a NodeInfo
//     holds the generation of its last change, a snapshot that of the
//     cache it reflects. Read by UpdateSnapshot, which copies only the
//     nodes of a later generation than the snapshot's, as kube-scheduler's
//     cache does.
//   - version: a <Thing>Version counts the changes of one thing; data
//     derived from that thing is valid while its version holds. This
//     package's are the next four, the root package's the two after.
//   - NodeSetVersion: nodes added or removed. Read by the keepers of node
//     indexes (the root package's nominator and dry-run memo).
//   - NodeVersion: nodes added, updated or removed (labels, taints,
//     allocatable). Read by Domains and DomainTotals,
//     plugins/topologyplacement and plugins/helper.TopologyCounts.
//   - NamespaceVersion: changes of namespace labels. Read by
//     plugins/interpodaffinity and TopologyCounts.
//   - the budget version (unexported): budgets added or removed, and
//     changes of their counts. Read by UpdateSnapshot, which copies the
//     budgets when it moved.
//   - the forest version (the root package's Scheduler.forestVersion):
//     groups and composites joining the podgroup forest. Read by the
//     composites' cached leaf lists.
//   - the cluster-event version (the root package's
//     Scheduler.clusterEventVersion, queue.Item.ClusterEventVersion):
//     cluster events (framework.ClusterEvent) that may help pending pods,
//     a dropped nomination counting as one of every kind. Read by the run
//     loop, whose next wakeup considers a parked item only once an event
//     of a kind it waits for came after its last attempt, and by the
//     queue's unschedulable pool, which remembers the items its last
//     search for a wakeup passed over while the version holds.
//   - feed: the list of the nodes touched in a snapshot (refreshed,
//     reserved on, removed from, rolled back), in order with repeats. A
//     reader takes a FeedPos (Snapshot.FeedPos) and later asks
//     NodesChangedSince for the nodes touched since. The feed drops its
//     older half when it grows long, and restarts when the node list
//     changes; a FeedPos carries the feed's restart count, so a position
//     from before a restart, or in the half dropped, answers false and
//     its reader recomputes. Read by placement's memo and memo
//     tree, TopologyCounts, and the root package's dry-run memo and known
//     failures. The root package's nominator keeps a feed of its own, of
//     the nodes whose nominations changed, in the same words (feedPos,
//     nodesChangedSince), read by the same dry-run memo and known
//     failures.
//   - stamp (Snapshot.Stamp): a node's content identity within a
//     snapshot. It changes with every change of the node, and a rollback
//     gives back the stamp of the content it restores, so data keyed by a
//     stamp never goes stale. Read by placement's memo and memo tree and
//     TopologyCounts, which keep what they derive per node under its
//     stamp (and skip the feed's repeats by it), and by the root
//     package's victim units and dry-run memo.
//   - checkpoint (Snapshot.Checkpoint): a position in the snapshot's log
//     of tentative changes. Rollback(cp) undoes the changes made since
//     cp, newest first; TentativeChanges(since) lists them in that order,
//     AppendChanges in the order they were made (for Replay and the commit).
//     Read by placement, preemption and the scheduler's cycles around
//     every tentative placement.
//
// A count of restarts (the feed's; in the root package, the known
// failures' shape ids') tells a reader that a position or an id it holds
// is from before the last restart, and means nothing now.
//
// Determinism: nodes are always listed in name order, pods in key order;
// no map order reaches a result or an error message.
//
// Concurrency: nothing here starts a goroutine or takes a lock. A Cache and
// its Snapshots must be used from one goroutine (or guarded by the caller);
// separate caches are independent.
package cluster
