package placement

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

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
)

// Name returns TaintTolerationName.
func (TaintToleration) Name() string { return TaintTolerationName }

// Filter rejects node if one of its NoSchedule or NoExecute taints is not
// tolerated.
func (TaintToleration) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	taints := node.Node().Taints
	for i := range taints {
		t := &taints[i]
		if t.Effect != cluster.TaintNoSchedule && t.Effect != cluster.TaintNoExecute {
			continue
		}
		if !cluster.TolerationsTolerate(pod.Pod().Tolerations, t) {
			return errUntoleratedTaint
		}
	}
	return nil
}

// Sign appends the pod's tolerations.
func (TaintToleration) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	if t := pod.Pod().Tolerations; len(t) > 0 {
		sig = fmt.Appendf(sig, "%q", t)
	}
	return sig, true
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
	NormalizeReverse(scores)
	return nil
}

// NormalizeOne is NormalizeReverse for one score given the highest.
func (TaintToleration) NormalizeOne(raw, highest int64) int64 {
	if highest == 0 {
		return fw.MaxNodeScore
	}
	return fw.MaxNodeScore - fw.MaxNodeScore*raw/highest
}

// NormalizeReverse is kube-scheduler's DefaultNormalizeScore with reverse:
// score = 100 - 100*score/max, or 100 everywhere when max is 0.
func NormalizeReverse(scores []fw.NodeScore) {
	var most int64
	for _, s := range scores {
		most = max(most, s.Score)
	}
	for i := range scores {
		scores[i].Score = TaintToleration{}.NormalizeOne(scores[i].Score, most)
	}
}
