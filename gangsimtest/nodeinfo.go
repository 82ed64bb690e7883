package gangsimtest

import (
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// NodeInfo returns the node built by node with pods running on it, as a
// plugin's Filter or Score receives it: the node is added to a new cache,
// each pod bound to it (whatever node the wrapper named; the wrappers are
// not changed), and the snapshot's NodeInfo returned. A node or pod the
// cache refuses fails the test through t, as RequireOn does; nil is
// returned if t lets the test go on.
//
// It is for tests of one plugin on one node; a test of several nodes
// builds a cluster.Cache itself, or runs a gangsim.Scheduler.
func NodeInfo(t require.TestingT, node *NodeWrapper, pods ...*PodWrapper) *cluster.NodeInfo {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	n := node.Obj()
	c := cluster.NewCache()
	if err := c.AddNode(n); err != nil {
		require.NoError(t, err, "node %q", n.Name)
		return nil // t did not stop the test
	}
	for _, w := range pods {
		p := w.Obj()
		p.NodeName = n.Name
		if err := c.AddPod(p); err != nil {
			require.NoError(t, err, "pod %q", p.Name)
			return nil
		}
	}
	return c.Snapshot().Node(0)
}

// Snapshot returns the snapshot of a new cache holding the nodes and the
// pods, each running on the node its wrapper names (NodeName), for tests
// of a plugin or of the runner over several nodes. A node or pod the cache
// refuses fails the test through t; nil is returned if t lets the test go
// on.
func Snapshot(t require.TestingT, nodes []*NodeWrapper, pods ...*PodWrapper) *cluster.Snapshot {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	c := cluster.NewCache()
	for _, w := range nodes {
		n := w.Obj()
		if err := c.AddNode(n); err != nil {
			require.NoError(t, err, "node %q", n.Name)
			return nil
		}
	}
	for _, w := range pods {
		p := w.Obj()
		if err := c.AddPod(p); err != nil {
			require.NoError(t, err, "pod %q", p.Name)
			return nil
		}
	}
	return c.Snapshot()
}
