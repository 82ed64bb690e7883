// Package nodeaffinity is the NodeAffinity plugin: a pod's nodeSelector
// and required node affinity filter nodes, its preferred terms score them.
package nodeaffinity

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "NodeAffinity"

// NodeAffinity rejects nodes that do not match a pod's nodeSelector and
// required node affinity, and scores nodes by the weights of the pod's
// preferred node affinity terms they match (stretched so that the best
// node gets 100).
type NodeAffinity struct{}

var (
	_ fw.FilterPlugin         = NodeAffinity{}
	_ fw.FilterSkipper        = NodeAffinity{}
	_ fw.Signer               = NodeAffinity{}
	_ fw.PreScorePlugin       = NodeAffinity{}
	_ fw.PreScoreIgnoresNodes = NodeAffinity{}
	_ fw.ScorePlugin          = NodeAffinity{}
	_ fw.ScoreNormalizer      = NodeAffinity{}
	_ fw.PointwiseNormalizer  = NodeAffinity{}
	_ fw.EnqueueExtensions    = NodeAffinity{}
)

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return NodeAffinity{}, nil }

var (
	errReason  = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector").WithPlugin(Name)
	statusSkip = fw.NewStatus(fw.Skip)
)

// Name returns Name.
func (NodeAffinity) Name() string { return Name }

// Filter rejects node unless it matches both the selector and the affinity.
func (NodeAffinity) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if !helper.NodeMatches(pod.Pod(), node.Node()) {
		return errReason
	}
	return nil
}

// FilterSkips reports that a pod without a node selector and without
// required node affinity passes every node.
func (NodeAffinity) FilterSkips(pod *cluster.PodInfo) bool {
	p := pod.Pod()
	na := helper.PodNodeAffinity(p)
	return len(p.NodeSelector) == 0 && (na == nil || na.Required == nil)
}

// Sign appends the node selector (sorted) and the node affinity.
func (NodeAffinity) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return helper.AppendNodeAffinity(sig, pod.Pod()), true
}

// PreScoreIgnoresNodes declares that PreScore reads only the pod.
func (NodeAffinity) PreScoreIgnoresNodes() {}

// PreScore skips pods without preferred node affinity.
func (NodeAffinity) PreScore(_ *fw.CycleState, pod *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	if na := helper.PodNodeAffinity(pod.Pod()); na == nil || len(na.Preferred) == 0 {
		return statusSkip
	}
	return nil
}

// Score sums the weights of the preferred terms the node matches.
func (NodeAffinity) Score(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	return PreferredWeight(pod.Pod(), node.Node()), nil
}

// NormalizeScore scales the sums so that the highest gets 100.
func (NodeAffinity) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	helper.NormalizeScores(scores, false)
	return nil
}

// NormalizeOne is kube-scheduler's DefaultNormalizeScore for one score.
func (NodeAffinity) NormalizeOne(raw, highest int64) int64 {
	return helper.DefaultNormalizeScore(raw, highest)
}

// EventsToRegister: a node may be added or relabelled.
func (NodeAffinity) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }

// PreferredWeight sums the weights of the pod's preferred node affinity
// terms that node matches.
func PreferredWeight(p *cluster.Pod, node *cluster.Node) int64 {
	var sum int64
	if na := helper.PodNodeAffinity(p); na != nil {
		for i := range na.Preferred {
			if t := &na.Preferred[i]; t.Weight != 0 && t.Preference.MatchesNode(node) {
				sum += int64(t.Weight)
			}
		}
	}
	return sum
}
