package nodeunschedulable_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/nodeunschedulable"
)

const (
	E  = cluster.TolerationExists
	NS = cluster.TaintNoSchedule
	NE = cluster.TaintNoExecute

	key = nodeunschedulable.TaintNodeUnschedulable
)

// pod is the pod "p" tolerating tols and requesting nothing.
func pod(tols ...cluster.Toleration) *cluster.PodInfo {
	p := gangsimtest.MakePod("p").Obj()
	p.Tolerations = tols
	return cluster.NewPodInfo(p)
}

// exists tolerates the taints of key (every key when "") with effect e
// (every effect when "").
func exists(key string, e cluster.TaintEffect) cluster.Toleration {
	return cluster.Toleration{Key: key, Operator: E, Effect: e}
}

func TestNodeUnschedulableFilter(t *testing.T) {
	// The rejection is unresolvable: no eviction uncordons a node.
	cordoned := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) were unschedulable").WithPlugin(nodeunschedulable.Name)
	node := func() *gangsimtest.NodeWrapper { return gangsimtest.MakeNode("n") }
	tests := []struct {
		name string
		node *gangsimtest.NodeWrapper
		pod  *cluster.PodInfo
		want *fw.Status // nil when the pod fits
	}{
		{"schedulable node", node(), pod(), nil},
		{"cordoned node", node().Unschedulable(), pod(), cordoned},
		{"tolerates the unschedulable taint", node().Unschedulable(), pod(exists(key, NS)), nil},
		{"tolerates it with an empty effect", node().Unschedulable(), pod(exists(key, "")), nil},
		{"tolerates everything", node().Unschedulable(), pod(exists("", "")), nil},
		{"NoExecute toleration is not enough", node().Unschedulable(), pod(exists(key, NE)), cordoned},
		{"another key is not enough", node().Unschedulable(), pod(exists("other", NS)), cordoned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, nodeunschedulable.NodeUnschedulable{}.Filter(nil, tt.pod, gangsimtest.NodeInfo(t, tt.node)))
		})
	}
}

// Pods sign alike exactly when they tolerate a cordoned node alike: the
// signature stands for the pod in the filter memo, so two pods of one
// signature must get one verdict on every node.
func TestNodeUnschedulableSign(t *testing.T) {
	pl := nodeunschedulable.NodeUnschedulable{}
	sign := func(p *cluster.PodInfo) string {
		sig, ok := pl.Sign(p, []byte("prefix:"))
		require.True(t, ok, "the plugin always signs")
		return string(sig)
	}
	intolerant, tolerant := sign(pod()), sign(pod(exists(key, NS)))
	require.NotEqual(t, intolerant, tolerant)
	tests := []struct {
		name      string
		pod       *cluster.PodInfo
		tolerates bool
	}{
		{"no toleration", pod(), false},
		{"Exists on the taint", pod(exists(key, NS)), true},
		{"empty effect", pod(exists(key, "")), true},
		{"everything", pod(exists("", "")), true},
		{"Equal with the empty value", pod(cluster.Toleration{Key: key, Operator: cluster.TolerationEqual, Effect: NS}), true},
		{"NoExecute only", pod(exists(key, NE)), false},
		{"another key", pod(exists("other", NS)), false},
		{"another key and the taint", pod(exists("other", NS), exists(key, NS)), true},
	}
	cordoned := gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n").Unschedulable())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.tolerates, nodeunschedulable.ToleratesUnschedulable(tt.pod.Pod()))
			require.Equal(t, tt.tolerates, pl.Filter(nil, tt.pod, cordoned) == nil, "the filter agrees")
			want := intolerant
			if tt.tolerates {
				want = tolerant
			}
			require.Equal(t, want, sign(tt.pod))
		})
	}
	require.Equal(t, fw.NodeAdded|fw.NodeChanged, pl.EventsToRegister(), "a node added or uncordoned may take the pod")
}
