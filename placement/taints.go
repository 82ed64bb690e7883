package placement

import "github.com/gangsim/gangsim/cluster"

// TaintToleration filters out nodes with NoSchedule or NoExecute taints a
// pod does not tolerate, and scores nodes by how few PreferNoSchedule
// taints the pod does not tolerate (fewer is better).
type TaintToleration struct{}

var (
	_ FilterPlugin        = TaintToleration{}
	_ ScorePlugin         = TaintToleration{}
	_ ScoreNormalizer     = TaintToleration{}
	_ PointwiseNormalizer = TaintToleration{}
)

// Name returns TaintTolerationName.
func (TaintToleration) Name() string { return TaintTolerationName }

// Filter rejects node if one of its NoSchedule or NoExecute taints is not
// tolerated.
func (TaintToleration) Filter(pod *cluster.PodInfo, node *cluster.NodeInfo) *Rejection {
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

// Score counts the node's PreferNoSchedule taints that no toleration with
// an empty or PreferNoSchedule effect tolerates; NormalizeScores turns the
// counts into scores.
func (TaintToleration) Score(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	var n int64
	taints := node.Node().Taints
	for i := range taints {
		t := &taints[i]
		if t.Effect == cluster.TaintPreferNoSchedule && !toleratesPreferNoSchedule(pod.Pod().Tolerations, t) {
			n++
		}
	}
	return n
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

// NormalizeScores maps counts to 0..100, reversed: the node with the most
// intolerable taints gets 0, a node with none 100.
func (TaintToleration) NormalizeScores(scores []int64) { NormalizeReverse(scores) }

// NormalizeOne is NormalizeReverse for one score given the highest.
func (TaintToleration) NormalizeOne(raw, highest int64) int64 {
	if highest == 0 {
		return MaxNodeScore
	}
	return MaxNodeScore - MaxNodeScore*raw/highest
}

// NormalizeReverse is kube-scheduler's DefaultNormalizeScore with reverse:
// score = 100 - 100*score/max, or 100 everywhere when max is 0.
func NormalizeReverse(scores []int64) {
	var most int64
	for _, s := range scores {
		most = max(most, s)
	}
	for i := range scores {
		scores[i] = TaintToleration{}.NormalizeOne(scores[i], most)
	}
}
