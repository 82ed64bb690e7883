package placement

import (
	"fmt"

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
// required node affinity, and scores nodes by the weights of the pod's
// preferred node affinity terms they match (stretched so that the best
// node gets 100).
type NodeAffinity struct{}

var (
	_ fw.FilterPlugin         = NodeAffinity{}
	_ fw.Signer               = NodeAffinity{}
	_ fw.PreScorePlugin       = NodeAffinity{}
	_ fw.PreScoreIgnoresNodes = NodeAffinity{}
	_ fw.ScorePlugin          = NodeAffinity{}
	_ fw.ScoreNormalizer      = NodeAffinity{}
	_ fw.PointwiseNormalizer  = NodeAffinity{}
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

// Sign appends the node selector (sorted) and the node affinity.
func (NodeAffinity) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	p := pod.Pod()
	sig = appendLabels(sig, p.NodeSelector)
	if na := nodeAffinity(p); na != nil {
		sig = fmt.Appendf(sig, "%q|%q", na.Required, na.Preferred)
	}
	return sig, true
}

// PreScoreIgnoresNodes declares that PreScore reads only the pod.
func (NodeAffinity) PreScoreIgnoresNodes() {}

// PreScore skips pods without preferred node affinity.
func (NodeAffinity) PreScore(_ *fw.CycleState, pod *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	if na := nodeAffinity(pod.Pod()); na == nil || len(na.Preferred) == 0 {
		return statusSkip
	}
	return nil
}

// Score sums the weights of the preferred terms the node matches.
func (NodeAffinity) Score(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	var sum int64
	if na := nodeAffinity(pod.Pod()); na != nil {
		for i := range na.Preferred {
			if t := &na.Preferred[i]; t.Weight != 0 && t.Preference.MatchesNode(node.Node()) {
				sum += int64(t.Weight)
			}
		}
	}
	return sum, nil
}

// NormalizeScore scales the sums so that the highest gets 100.
func (NodeAffinity) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	var most int64
	for _, s := range scores {
		most = max(most, s.Score)
	}
	for i := range scores {
		scores[i].Score = NodeAffinity{}.NormalizeOne(scores[i].Score, most)
	}
	return nil
}

// NormalizeOne is kube-scheduler's DefaultNormalizeScore: 100*score/max,
// or the score unchanged when the highest is 0 or less.
func (NodeAffinity) NormalizeOne(raw, highest int64) int64 {
	if highest <= 0 {
		return raw
	}
	return fw.MaxNodeScore * raw / highest
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

// statusSkip is the Skip status the built-in plugins return; statuses are
// never changed, so one serves all.
var statusSkip = fw.NewStatus(fw.Skip)
