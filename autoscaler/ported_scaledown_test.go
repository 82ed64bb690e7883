package autoscaler

import (
	"testing"

	"github.com/stretchr/testify/require"

	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The cases of the cluster autoscaler's scale-down eligibility test
// (core/scaledown/eligibility, TestFilterOutUnremovable): a node of 1000m
// with the case's pods is a scale-down candidate when its utilisation
// (the larger of cpu and memory requested over allocatable, DaemonSet
// pods included, as with --ignore-daemonsets-utilization=false) is under
// the 0.5 threshold, as candidates judges it.
func TestEligibilityCasesFromClusterAutoscaler(t *testing.T) {
	big := gt.MakePod("big-pod").MilliCPU(600)
	small := gt.MakePod("small-pod").MilliCPU(100)
	half := gt.MakePod("half-pod").MilliCPU(500)
	cases := []struct {
		name      string
		skip      string
		pods      []*gt.PodWrapper
		candidate bool
	}{
		// cluster autoscaler: regular node stays
		{name: "regular node stays", candidate: true},
		// cluster autoscaler: recently deleted node is filtered out
		{name: "recently deleted node is filtered out", skip: "nodes carry no ToBeDeleted taint here: a node being removed is not a candidate by the autoscaler's own state"},
		// cluster autoscaler: marked no scale down is filtered out
		{name: "marked no scale down is filtered out", skip: "nodes have no annotations in the model (scale-down-disabled, docs/autoscaling.md)"},
		// cluster autoscaler: highly utilized node is filtered out
		{name: "highly utilized node is filtered out", pods: []*gt.PodWrapper{big}},
		// cluster autoscaler: underutilized node stays
		{name: "underutilized node stays", pods: []*gt.PodWrapper{small}, candidate: true},
		// cluster autoscaler: unready node stays / unready node is filtered out when scale-down of unready is disabled
		{name: "unready node stays", skip: "unready nodes are not modelled (docs/autoscaling.md)"},
		{name: "unready node is filtered oud when scale-down of unready is disabled", skip: "unready nodes are not modelled (docs/autoscaling.md)"},
		// cluster autoscaler: high utilization daemonsets node is filtered out
		// (utilisation counts every pod's requests, a DaemonSet's too)
		{name: "high utilization daemonsets node is filtered out", pods: []*gt.PodWrapper{small, gt.MakePod("ds-pod").MilliCPU(500)}},
		// cluster autoscaler: high utilization daemonsets node stays
		{name: "high utilization daemonsets node stays", skip: "--ignore-daemonsets-utilization=true is not modelled (the default, false, is)"},
		// cluster autoscaler's eligibility rule: a utilisation equal to the threshold is not under it
		{name: "utilization at the threshold is not under it", pods: []*gt.PodWrapper{half}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			a, err := New(Config{}, []NodeGroup{{Name: "ng1", Max: 10, Template: gt.MakeNode("t").MilliCPU(1000).Memory("10Gi").Pods(10).Obj()}}, nil)
			require.NoError(t, err)
			ni := gt.NodeInfo(t, gt.MakeNode("regular").MilliCPU(1000).Memory("10Gi").Pods(10), tc.pods...)
			u, threshold := a.utilization(a.groups[0], ni)
			require.Equal(t, tc.candidate, u < threshold, "utilisation %.2f, threshold %.2f", u, threshold)
		})
	}
}
