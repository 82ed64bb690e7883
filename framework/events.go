package framework

// ClusterEvent is a set of kinds of cluster change that may turn a filter
// plugin's rejection into a pass: after a pod fails, it is retried on the
// changes that may help one of the plugins that rejected it, as
// kube-scheduler's queueing hints do, and not on the others.
type ClusterEvent uint8

// The kinds of cluster change.
const (
	// AssignedPodAdded: a pod was placed on a node.
	AssignedPodAdded ClusterEvent = 1 << iota
	// AssignedPodDeleted: a pod left its node (deleted, completed,
	// evicted, or its node went away).
	AssignedPodDeleted
	// NodeAdded: a node joined the cluster.
	NodeAdded
	// NodeChanged: a node's labels, taints, allocatable or unschedulable
	// flag changed.
	NodeChanged
	// NodeDeleted: a node left the cluster.
	NodeDeleted
	// DevicesChanged: a ResourceSlice was published or withdrawn, or a
	// DeviceClass or ResourceClaim was added or removed.
	DevicesChanged

	// AllEvents is every kind: what a plugin that does not say is retried on.
	AllEvents = AssignedPodAdded | AssignedPodDeleted | NodeAdded | NodeChanged | NodeDeleted | DevicesChanged
)

// EnqueueExtensions is implemented by PreFilter and Filter plugins that
// say which kinds of cluster change may turn their rejection into a pass
// (kube-scheduler's EventsToRegister). A plugin without it counts as
// AllEvents.
type EnqueueExtensions interface {
	EventsToRegister() ClusterEvent
}

// RetryEvents returns the kinds of change that may help a pod that plugin
// rejected: its EventsToRegister, or AllEvents.
func RetryEvents(plugin Plugin) ClusterEvent {
	if e, ok := plugin.(EnqueueExtensions); ok {
		return e.EventsToRegister()
	}
	return AllEvents
}
