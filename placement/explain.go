package placement

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ScoreExplanation is how one pod's feasible nodes scored, plugin by
// plugin, when the pod was placed or tried: what kube-scheduler-simulator
// shows its users.
type ScoreExplanation struct {
	Pod cluster.PodKey
	// Nodes are the scored (feasible) nodes in the order they were found.
	Nodes []NodeExplanation
	// Chosen is the snapshot index of the winning node.
	Chosen int
	// Scored is false when a lone feasible node was taken without scoring.
	Scored bool
	// Rejected are the nodes the filters rejected in the same attempt.
	Rejected []fw.NodeStatus
}

// NodeExplanation is one node's scores.
type NodeExplanation struct {
	Node    int // snapshot index
	Total   int64
	Plugins []PluginScore
}

// PluginScore is one plugin's part of a node's total: its raw score, the
// score after normalisation, its weight; Normalized*Weight is what it adds.
type PluginScore struct {
	Plugin     string
	Raw        int64
	Normalized int64
	Weight     int64
}

func (ps *PodScheduler) newExplanation(pod *cluster.PodInfo) *ScoreExplanation {
	ex := &ScoreExplanation{Pod: pod.Key(), Scored: true, Rejected: ps.sortedRejections()}
	for _, idx := range ps.feasible {
		ex.Nodes = append(ex.Nodes, NodeExplanation{Node: idx})
	}
	return ex
}

// add records one plugin's raw and normalised scores over the nodes.
func (ex *ScoreExplanation) add(ws WeightedScorer, raw []int64, norm []fw.NodeScore) {
	for k := range ex.Nodes {
		ex.Nodes[k].Plugins = append(ex.Nodes[k].Plugins, PluginScore{Plugin: ws.Plugin.Name(), Raw: raw[k], Normalized: norm[k].Score, Weight: ws.Weight})
	}
}

func (ps *PodScheduler) finishExplanation(ex *ScoreExplanation, chosen int) {
	for k := range ex.Nodes {
		ex.Nodes[k].Total = ps.totals[k]
	}
	ex.Chosen = chosen
	if ps.Explained != nil {
		ps.Explained(*ex)
	}
}

// explainLone records a pod placed on its only feasible node, unscored.
func (ps *PodScheduler) explainLone(pod *cluster.PodInfo, node int) {
	if ps.Explained != nil {
		ps.Explained(ScoreExplanation{Pod: pod.Key(), Nodes: []NodeExplanation{{Node: node}}, Chosen: node, Rejected: ps.sortedRejections()})
	}
}

// sortedRejections copies the scan's rejections in node order.
func (ps *PodScheduler) sortedRejections() []fw.NodeStatus {
	rej := append([]fw.NodeStatus(nil), ps.rejections...)
	sortStatuses(rej)
	return rej
}
