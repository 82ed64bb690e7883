package plugins

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// KubeletAdmission is the check a kubelet's admission makes of a pod bound
// to its node before running it: the node has room for the pod's requests
// and one more pod, by NodeResourcesFit's rules (the kubelet runs the
// scheduler's own fit check, so that the two never disagree). A nil
// status admits the pod; otherwise its message says what is short. The
// Scheduler runs it on a pod that arrives already running, which no cycle
// checked.
func KubeletAdmission(pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	return noderesources.Fits(pod, node)
}
