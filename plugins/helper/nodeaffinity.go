package helper

import "github.com/gangsim/gangsim/cluster"

// PodNodeAffinity returns the pod's node affinity, or nil.
func PodNodeAffinity(p *cluster.Pod) *cluster.NodeAffinity {
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
	return PodNodeAffinity(p).MatchesNode(node)
}
