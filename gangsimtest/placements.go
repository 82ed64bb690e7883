package gangsimtest

import (
	"iter"
	"maps"
	"strings"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// Cluster is what the checks read: the nodes with the pods on them, in
// name order. *gangsim.Scheduler is one.
type Cluster interface {
	Nodes() iter.Seq[*cluster.NodeInfo]
}

// Placements maps every pod placed on a node, bound or assumed, to its
// node. A pod evicted and still terminating on its node is no longer
// placed. Printed with fmt, the map lists its keys in order.
func Placements(c Cluster) map[cluster.PodKey]string {
	out := map[cluster.PodKey]string{}
	for ni := range c.Nodes() {
		for pi := range ni.Pods() {
			if pi.State() != cluster.PodTerminating {
				out[pi.Key()] = ni.Name()
			}
		}
	}
	return out
}

// RequireOn fails the test unless every one of pods is placed on node. A
// pod is named "name" in the default namespace or "namespace/name". The
// failure shows where each of them is instead.
func RequireOn(t require.TestingT, c Cluster, node string, pods ...string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	placed := Placements(c)
	want, got := map[cluster.PodKey]string{}, map[cluster.PodKey]string{}
	for _, p := range pods {
		key := podKey(p)
		want[key], got[key] = node, placed[key]
	}
	require.Equal(t, want, got, "where the pods are (\"\": not placed)")
}

// RequireNotPlaced fails the test if any of pods is placed on a node,
// naming them as RequireOn does.
func RequireNotPlaced(t require.TestingT, c Cluster, pods ...string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	RequireOn(t, c, "", pods...) // on no node
}

// podKey reads "name" (default namespace) or "namespace/name".
func podKey(pod string) cluster.PodKey {
	if ns, name, ok := strings.Cut(pod, "/"); ok {
		return cluster.MakePodKey(ns, name)
	}
	return cluster.MakePodKey("", pod)
}

// NodeLabels returns the labels of the named node, nil when c has no such
// node. The scheduler adds kubernetes.io/hostname to every node.
func NodeLabels(c Cluster, node string) map[string]string {
	for ni := range c.Nodes() {
		if ni.Name() == node {
			return maps.Clone(ni.Node().Labels)
		}
	}
	return nil
}
