package placement

import fw "github.com/gangsim/gangsim/framework"

// The kinds of cluster change that may turn each built-in filter's
// rejection into a pass, as the plugins register them in kube-scheduler
// v1.37 (pod label and spec updates are not modelled).

// EventsToRegister: a node of the pod's name may be added.
func (NodeName) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded }

// EventsToRegister: a node may be added or uncordoned.
func (NodeUnschedulable) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }

// EventsToRegister: a node may be added or relabelled.
func (NodeAffinity) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }

// EventsToRegister: a node may be added or lose taints.
func (TaintToleration) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }

// EventsToRegister: room is freed when a pod leaves a node, and comes with
// a node added or grown.
func (*NodeResourcesFit) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodDeleted | fw.NodeAdded | fw.NodeChanged
}

// EventsToRegister: pods matching a term may arrive, conflicting pods may
// leave, nodes may be added or relabelled.
func (*InterPodAffinity) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodAdded | fw.AssignedPodDeleted | fw.NodeAdded | fw.NodeChanged
}

// EventsToRegister: every change of pods or nodes moves the counts per
// domain and the domains themselves.
func (*PodTopologySpread) EventsToRegister() fw.ClusterEvent { return fw.AllEvents }

var (
	_ fw.EnqueueExtensions = NodeName{}
	_ fw.EnqueueExtensions = NodeUnschedulable{}
	_ fw.EnqueueExtensions = NodeAffinity{}
	_ fw.EnqueueExtensions = TaintToleration{}
	_ fw.EnqueueExtensions = (*NodeResourcesFit)(nil)
	_ fw.EnqueueExtensions = (*InterPodAffinity)(nil)
	_ fw.EnqueueExtensions = (*PodTopologySpread)(nil)
)
