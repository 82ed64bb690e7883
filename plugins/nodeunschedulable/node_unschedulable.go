// Package nodeunschedulable is the NodeUnschedulable plugin: a cordoned
// node takes only pods that tolerate its unschedulable taint.
package nodeunschedulable

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Name is the plugin's name in profiles.
const Name = "NodeUnschedulable"

// TaintNodeUnschedulable is the taint a cordoned node is treated as having.
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

// NodeUnschedulable rejects cordoned nodes unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
type NodeUnschedulable struct{}

var (
	_ fw.FilterPlugin      = NodeUnschedulable{}
	_ fw.Signer            = NodeUnschedulable{}
	_ fw.EnqueueExtensions = NodeUnschedulable{}
)

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return NodeUnschedulable{}, nil }

var (
	errReason          = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) were unschedulable").WithPlugin(Name)
	unschedulableTaint = cluster.Taint{Key: TaintNodeUnschedulable, Effect: cluster.TaintNoSchedule}
)

// Name returns Name.
func (NodeUnschedulable) Name() string { return Name }

// Filter rejects an unschedulable node the pod does not tolerate.
func (NodeUnschedulable) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if node.Node().Unschedulable && !ToleratesUnschedulable(pod.Pod()) {
		return errReason
	}
	return nil
}

// Sign appends whether the pod tolerates the unschedulable taint.
func (NodeUnschedulable) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	if ToleratesUnschedulable(pod.Pod()) {
		return append(sig, 't'), true
	}
	return append(sig, 'f'), true
}

// EventsToRegister: a node may be added or uncordoned.
func (NodeUnschedulable) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }

// ToleratesUnschedulable reports whether the pod tolerates the taint of a
// cordoned node.
func ToleratesUnschedulable(p *cluster.Pod) bool {
	return cluster.TolerationsTolerate(p.Tolerations, &unschedulableTaint)
}
