package tainttoleration_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
)

const (
	E  = cluster.TolerationExists
	Eq = cluster.TolerationEqual
	NS = cluster.TaintNoSchedule
	NE = cluster.TaintNoExecute
	PN = cluster.TaintPreferNoSchedule
)

// tol is a toleration of any operator (gangsimtest's PodWrapper.Toleration
// makes Equal ones only).
func tol(key string, op cluster.TolerationOperator, value string, e cluster.TaintEffect) cluster.Toleration {
	return cluster.Toleration{Key: key, Operator: op, Value: value, Effect: e}
}

// pod is the pod "p" tolerating tols and requesting nothing.
func pod(tols ...cluster.Toleration) *cluster.PodInfo {
	p := gangsimtest.MakePod("p").Obj()
	p.Tolerations = tols
	return cluster.NewPodInfo(p)
}

func TestTaintTolerationFilter(t *testing.T) {
	// The rejection is unresolvable: no eviction changes a taint.
	untolerated := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)").WithPlugin(tainttoleration.Name)
	node := func() *gangsimtest.NodeWrapper { return gangsimtest.MakeNode("n") }
	tests := []struct {
		name string
		node *gangsimtest.NodeWrapper
		pod  *cluster.PodInfo
		want *fw.Status // nil when the pod fits
	}{
		{"no taints", node(), pod(), nil},
		{"NoSchedule rejects", node().Taint("k", "v", NS), pod(), untolerated},
		{"NoExecute rejects", node().Taint("k", "v", NE), pod(), untolerated},
		{"PreferNoSchedule does not filter", node().Taint("k", "v", PN), pod(), nil},
		{"Equal with the value", node().Taint("k", "v", NS), pod(tol("k", Eq, "v", NS)), nil},
		{"empty operator means Equal", node().Taint("k", "v", NS), pod(tol("k", "", "v", NS)), nil},
		{"Equal with another value", node().Taint("k", "v", NS), pod(tol("k", Eq, "w", NS)), untolerated},
		{"Exists on the key, empty effect", node().Taint("k", "v", NE), pod(tol("k", E, "", "")), nil},
		{"Exists on another key", node().Taint("k", "v", NS), pod(tol("j", E, "", "")), untolerated},
		{"empty key with Exists tolerates all", node().Taint("k", "v", NS).Taint("j", "", NE), pod(tol("", E, "", "")), nil},
		{"effect must match", node().Taint("k", "v", NE), pod(tol("k", E, "", NS)), untolerated},
		{"every taint must be tolerated", node().Taint("a", "", NS).Taint("b", "", NS), pod(tol("a", E, "", NS)), untolerated},
		{"PreferNoSchedule toleration does not cover NoSchedule", node().Taint("k", "v", NS), pod(tol("k", E, "", PN)), untolerated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tainttoleration.TaintToleration{}.Filter(nil, tt.pod, gangsimtest.NodeInfo(t, tt.node)))
		})
	}
}

func TestTaintTolerationScoreCounts(t *testing.T) {
	n := gangsimtest.MakeNode("n").Taint("a", "1", PN).Taint("b", "", PN).Taint("c", "", NS)
	tests := []struct {
		name string
		pod  *cluster.PodInfo
		want int64
	}{
		{"two PreferNoSchedule untolerated, NoSchedule not counted", pod(), 2},
		{"one tolerated with effect PreferNoSchedule", pod(tol("a", Eq, "1", PN)), 1},
		{"one tolerated with empty effect", pod(tol("b", E, "", "")), 1},
		{"a NoSchedule toleration does not count", pod(tol("a", E, "", NS)), 2},
		{"tolerate everything", pod(tol("", E, "", "")), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := tainttoleration.TaintToleration{}.Score(nil, tt.pod, gangsimtest.NodeInfo(t, n))
			require.Nil(t, st)
			require.Equal(t, tt.want, got)
		})
	}
}
