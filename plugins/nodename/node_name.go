// Package nodename is the NodeName plugin: a pod that names a node in
// nodeName runs there or nowhere.
package nodename

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "NodeName"

// NodeName rejects every node but the one a pod names in nodeName.
type NodeName struct{}

var (
	_ fw.FilterPlugin      = NodeName{}
	_ fw.Signer            = NodeName{}
	_ fw.FilterSkipper     = NodeName{}
	_ fw.EnqueueExtensions = NodeName{}
)

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return NodeName{}, nil }

var errReason = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match the requested node name").WithPlugin(Name)

// Name returns Name.
func (NodeName) Name() string { return Name }

// Filter rejects node unless the pod names no node or names this one.
func (NodeName) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if !Fits(pod.Pod(), node.Node()) {
		return errReason
	}
	return nil
}

// FilterSkips reports that a pod naming no node passes every node.
func (NodeName) FilterSkips(pod *cluster.PodInfo) bool { return pod.Pod().NodeName == "" }

// Sign appends the pod's node name.
func (NodeName) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return helper.AppendString(sig, pod.Pod().NodeName), true
}

// EventsToRegister: a node of the pod's name may be added.
func (NodeName) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded }

// Fits reports whether the pod names no node or names this one.
func Fits(pod *cluster.Pod, node *cluster.Node) bool {
	return pod.NodeName == "" || pod.NodeName == node.Name
}
