// Package tainttoleration is the TaintToleration plugin: NoSchedule and
// NoExecute taints a pod does not tolerate filter a node out, and
// PreferNoSchedule ones it does not tolerate score it down.
package tainttoleration

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "CopiedTaintToleration"

// TaintToleration filters out nodes with NoSchedule or NoExecute taints a
// pod does not tolerate, and scores nodes by how few PreferNoSchedule
// taints the pod does not tolerate (fewer is better).
type TaintToleration struct{}

var (
	_ fw.FilterPlugin        = TaintToleration{}
	_ fw.ScorePlugin         = TaintToleration{}
	_ fw.ScoreNormalizer     = TaintToleration{}
	_ fw.PointwiseNormalizer = TaintToleration{}
	_ fw.Signer              = TaintToleration{}
	_ fw.EnqueueExtensions   = TaintToleration{}
)

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return TaintToleration{}, nil }

var errReason = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)").WithPlugin(Name)

// Name returns Name.
func (TaintToleration) Name() string { return Name }

// Filter rejects node if one of its NoSchedule or NoExecute taints is not
// tolerated.
func (TaintToleration) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if !helper.ToleratesScheduleTaints(pod.Pod(), node.Node()) {
		return errReason
	}
	return nil
}

// Sign appends the pod's tolerations.
func (TaintToleration) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	return helper.AppendTolerations(sig, pod.Pod()), true
}

// Score counts the node's PreferNoSchedule taints that no toleration with
// an empty or PreferNoSchedule effect tolerates; NormalizeScore turns the
// counts into scores.
func (TaintToleration) Score(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	var n int64
	taints := node.Node().Taints
	for i := range taints {
		t := &taints[i]
		if t.Effect == cluster.TaintPreferNoSchedule && !toleratesPreferNoSchedule(pod.Pod().Tolerations, t) {
			n++
		}
	}
	return n, nil
}

func toleratesPreferNoSchedule(tolerations []cluster.Toleration, t *cluster.Taint) bool {
	for i := range tolerations {
		tol := &tolerations[i]
		if (tol.Effect == "" || tol.Effect == cluster.TaintPreferNoSchedule) && tol.Tolerates(t) {
			return true
		}
	}
	return false
}

// NormalizeScore maps counts to 0..100, reversed: the node with the most
// intolerable taints gets 0, a node with none 100.
func (TaintToleration) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	helper.NormalizeScores(scores, true)
	return nil
}

// NormalizeOne is the reversed DefaultNormalizeScore for one score.
func (TaintToleration) NormalizeOne(raw, highest int64) int64 {
	return helper.ReverseNormalizeScore(raw, highest)
}

// EventsToRegister: a node may be added or lose taints.
func (TaintToleration) EventsToRegister() fw.ClusterEvent { return fw.NodeAdded | fw.NodeChanged }
