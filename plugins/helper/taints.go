package helper

import "github.com/gangsim/gangsim/cluster"

// ToleratesScheduleTaints reports whether p tolerates every NoSchedule and
// NoExecute taint of node.
func ToleratesScheduleTaints(p *cluster.Pod, node *cluster.Node) bool {
	for i := range node.Taints {
		t := &node.Taints[i]
		if (t.Effect == cluster.TaintNoSchedule || t.Effect == cluster.TaintNoExecute) && !cluster.TolerationsTolerate(p.Tolerations, t) {
			return false
		}
	}
	return true
}
