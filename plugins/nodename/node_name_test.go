package nodename_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/nodename"
)

func pod(w *gangsimtest.PodWrapper) *cluster.PodInfo { return cluster.NewPodInfo(w.Obj()) }

func TestNodeNameFilter(t *testing.T) {
	// The rejection is unresolvable: no eviction renames a node.
	other := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match the requested node name").WithPlugin(nodename.Name)
	tests := []struct {
		name string
		node string
		pod  *cluster.PodInfo
		want *fw.Status // nil when the pod fits
	}{
		{"no node named", "n1", pod(gangsimtest.MakePod("p")), nil},
		{"this node named", "n1", pod(gangsimtest.MakePod("p").NodeName("n1")), nil},
		{"another node named", "n2", pod(gangsimtest.MakePod("p").NodeName("n1")), other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, nodename.NodeName{}.Filter(nil, tt.pod, gangsimtest.NodeInfo(t, gangsimtest.MakeNode(tt.node))))
		})
	}
}

// FilterSkips holds exactly for the pods that name no node, which pass
// every node.
func TestNodeNameFilterSkips(t *testing.T) {
	require.True(t, nodename.NodeName{}.FilterSkips(pod(gangsimtest.MakePod("p"))))
	require.False(t, nodename.NodeName{}.FilterSkips(pod(gangsimtest.MakePod("p").NodeName("n1"))))
}

// Pods sign alike exactly when they name the same node (or none): the
// signature stands for the pod in the filter memo, so two pods of one
// signature must get one verdict on every node.
func TestNodeNameSign(t *testing.T) {
	pl := nodename.NodeName{}
	nodes := []*cluster.NodeInfo{gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n1")), gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n2")), gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n10"))}
	tests := []struct {
		name string
		a, b *gangsimtest.PodWrapper
		same bool
	}{
		{"neither names a node", gangsimtest.MakePod("a"), gangsimtest.MakePod("b").CPU("1"), true},
		{"both name n1", gangsimtest.MakePod("a").NodeName("n1"), gangsimtest.MakePod("b").NodeName("n1").Label("x", "y"), true},
		{"one names n1", gangsimtest.MakePod("a"), gangsimtest.MakePod("b").NodeName("n1"), false},
		{"n1 and n2", gangsimtest.MakePod("a").NodeName("n1"), gangsimtest.MakePod("b").NodeName("n2"), false},
		{"n1 and n10", gangsimtest.MakePod("a").NodeName("n1"), gangsimtest.MakePod("b").NodeName("n10"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pod(tt.a), pod(tt.b)
			sigA, okA := pl.Sign(a, []byte("prefix:"))
			sigB, okB := pl.Sign(b, []byte("prefix:"))
			require.True(t, okA && okB, "the plugin always signs")
			require.Equal(t, tt.same, string(sigA) == string(sigB), "%q and %q", sigA, sigB)
			var verdictsA, verdictsB []bool
			for _, n := range nodes {
				verdictsA = append(verdictsA, pl.Filter(nil, a, n) == nil)
				verdictsB = append(verdictsB, pl.Filter(nil, b, n) == nil)
			}
			if tt.same {
				require.Equal(t, verdictsA, verdictsB, "one signature, one verdict per node")
			} else {
				require.NotEqual(t, verdictsA, verdictsB, "the pods are told apart on some node")
			}
		})
	}
	require.Equal(t, fw.NodeAdded, pl.EventsToRegister(), "only a node added may be the one named")
}
