package placement

import "github.com/gangsim/gangsim/cluster"

// Plugin names, as kube-scheduler spells them.
const (
	NodeNameName           = "NodeName"
	NodeUnschedulableName  = "NodeUnschedulable"
	TaintTolerationName    = "TaintToleration"
	NodeAffinityName       = "NodeAffinity"
	NodeResourcesFitName   = "NodeResourcesFit"
	BalancedAllocationName = "NodeResourcesBalancedAllocation"
)

// NodeName rejects every node but the one a pod names in nodeName.
type NodeName struct{}

var _ FilterPlugin = NodeName{}

var errNodeName = NewUnresolvable(NodeNameName, "node(s) didn't match the requested node name")

// Name returns NodeNameName.
func (NodeName) Name() string { return NodeNameName }

// Filter rejects node unless the pod names no node or names this one.
func (NodeName) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	if want := pod.Pod().NodeName; want != "" && want != node.Name() {
		return errNodeName
	}
	return nil
}

// NodeUnschedulable rejects cordoned nodes unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
type NodeUnschedulable struct{}

var _ FilterPlugin = NodeUnschedulable{}

// TaintNodeUnschedulable is the taint a cordoned node is treated as having.
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

var (
	errUnschedulable    = NewUnresolvable(NodeUnschedulableName, "node(s) were unschedulable")
	unschedulableTaint  = cluster.Taint{Key: TaintNodeUnschedulable, Effect: cluster.TaintNoSchedule}
	errUntoleratedTaint = NewUnresolvable(TaintTolerationName, "node(s) had untolerated taint(s)")
	errAffinityMismatch = NewUnresolvable(NodeAffinityName, "node(s) didn't match Pod's node affinity/selector")
)

// Name returns NodeUnschedulableName.
func (NodeUnschedulable) Name() string { return NodeUnschedulableName }

// Filter rejects an unschedulable node the pod does not tolerate.
func (NodeUnschedulable) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	if node.Node().Unschedulable && !cluster.TolerationsTolerate(pod.Pod().Tolerations, &unschedulableTaint) {
		return errUnschedulable
	}
	return nil
}

// NodeAffinity rejects nodes that do not match a pod's nodeSelector and
// required node affinity.
type NodeAffinity struct{}

var _ FilterPlugin = NodeAffinity{}

// Name returns NodeAffinityName.
func (NodeAffinity) Name() string { return NodeAffinityName }

// Filter rejects node unless it matches both the selector and the affinity.
func (NodeAffinity) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
	if !NodeMatches(pod.Pod(), node.Node()) {
		return errAffinityMismatch
	}
	return nil
}

// NodeMatches reports whether node satisfies p's nodeSelector and required
// node affinity.
func NodeMatches(p *cluster.Pod, node *cluster.Node) bool {
	if !cluster.MatchesSelector(p.NodeSelector, node.Labels) {
		return false
	}
	return p.Affinity == nil || p.Affinity.Matches(node.Labels)
}
