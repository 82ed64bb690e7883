package placement

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

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

var (
	_ fw.FilterPlugin = NodeName{}
	_ fw.Signer       = NodeName{}
)

var errNodeName = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match the requested node name").WithPlugin(NodeNameName)

// Name returns NodeNameName.
func (NodeName) Name() string { return NodeNameName }

// Filter rejects node unless the pod names no node or names this one.
func (NodeName) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if want := pod.Pod().NodeName; want != "" && want != node.Name() {
		return errNodeName
	}
	return nil
}

// Sign appends the pod's node name.
func (NodeName) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return append(sig, pod.Pod().NodeName...), true
}

// NodeUnschedulable rejects cordoned nodes unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
type NodeUnschedulable struct{}

var (
	_ fw.FilterPlugin = NodeUnschedulable{}
	_ fw.Signer       = NodeUnschedulable{}
)

// TaintNodeUnschedulable is the taint a cordoned node is treated as having.
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

var (
	errUnschedulable    = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) were unschedulable").WithPlugin(NodeUnschedulableName)
	unschedulableTaint  = cluster.Taint{Key: TaintNodeUnschedulable, Effect: cluster.TaintNoSchedule}
	errUntoleratedTaint = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)").WithPlugin(TaintTolerationName)
	errAffinityMismatch = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector").WithPlugin(NodeAffinityName)
)

// Name returns NodeUnschedulableName.
func (NodeUnschedulable) Name() string { return NodeUnschedulableName }

// Filter rejects an unschedulable node the pod does not tolerate.
func (NodeUnschedulable) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if node.Node().Unschedulable && !cluster.TolerationsTolerate(pod.Pod().Tolerations, &unschedulableTaint) {
		return errUnschedulable
	}
	return nil
}

// Sign appends whether the pod tolerates the unschedulable taint.
func (NodeUnschedulable) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	if cluster.TolerationsTolerate(pod.Pod().Tolerations, &unschedulableTaint) {
		return append(sig, 't'), true
	}
	return append(sig, 'f'), true
}

// NodeAffinity rejects nodes that do not match a pod's nodeSelector and
// required node affinity.
type NodeAffinity struct{}

var (
	_ fw.FilterPlugin = NodeAffinity{}
	_ fw.Signer       = NodeAffinity{}
)

// Name returns NodeAffinityName.
func (NodeAffinity) Name() string { return NodeAffinityName }

// Filter rejects node unless it matches both the selector and the affinity.
func (NodeAffinity) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if !NodeMatches(pod.Pod(), node.Node()) {
		return errAffinityMismatch
	}
	return nil
}

// Sign appends the node selector (sorted) and the required affinity.
func (NodeAffinity) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	p := pod.Pod()
	if len(p.NodeSelector) > 0 {
		for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
			sig = append(sig, k...)
			sig = append(sig, '=')
			sig = append(sig, p.NodeSelector[k]...)
			sig = append(sig, ',')
		}
	}
	sig = append(sig, '|')
	if na := nodeAffinity(p); na != nil {
		sig = fmt.Appendf(sig, "%q", na.Required)
	}
	return sig, true
}

// nodeAffinity returns the pod's node affinity, or nil.
func nodeAffinity(p *cluster.Pod) *cluster.NodeAffinity {
	if p.Affinity == nil {
		return nil
	}
	return p.Affinity.NodeAffinity
}

// NodeMatches reports whether node satisfies p's nodeSelector and required
// node affinity.
func NodeMatches(p *cluster.Pod, node *cluster.Node) bool {
	if !cluster.MatchesSelector(p.NodeSelector, node.Labels) {
		return false
	}
	return nodeAffinity(p).MatchesNode(node)
}
