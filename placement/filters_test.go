package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

const (
	NS = cluster.TaintNoSchedule
	NE = cluster.TaintNoExecute
	PN = cluster.TaintPreferNoSchedule
)

func TestFits(t *testing.T) {
	// Node "n": 2000m, 4Gi, 3 pods, 2 GPUs, with 1000m, 1Gi, 1 GPU used:
	// 1000m, 3Gi, 2 pods and 1 GPU free.
	n := func() *nodeBuilder { return node("n").milli(2000).mem(4 * gi).pods(3).gpus(2) }
	used := func() *podBuilder { return pod("used").milli(1000).mem(gi).gpus(1) }
	// Node "full": the same sizes, but room for one pod, which is taken.
	full := func() *nodeBuilder { return node("full").milli(2000).mem(4 * gi).pods(1).gpus(2) }
	tests := []struct {
		name         string
		node         *nodeBuilder
		used         *podBuilder
		pod          *podBuilder
		reasons      []string // nil when the pod fits
		unresolvable bool
	}{
		{"fits", n(), used(), pod("p").milli(500).mem(gi), nil, false},
		{"exactly fills what is free", n(), used(), pod("p").milli(1000).mem(3 * gi).gpus(1), nil, false},
		{"cpu short", n(), used(), pod("p").milli(1500), []string{"Insufficient cpu"}, false},
		{"cpu beyond allocatable", n(), used(), pod("p").milli(2500), []string{"Insufficient cpu"}, true},
		{"memory short, equal to allocatable", n(), used(), pod("p").mem(4 * gi), []string{"Insufficient memory"}, false},
		{"memory beyond allocatable", n(), used(), pod("p").mem(5 * gi), []string{"Insufficient memory"}, true},
		{"gpu short", n(), used(), pod("p").gpus(2), []string{"Insufficient nvidia.com/gpu"}, false},
		{"gpu beyond allocatable", n(), used(), pod("p").gpus(3), []string{"Insufficient nvidia.com/gpu"}, true},
		{"extended resource the node lacks", n(), used(), pod("p").fpgas(1), []string{"Insufficient example.com/fpga"}, true},
		{"cpu then memory", n(), used(), pod("p").milli(1500).mem(4 * gi), []string{"Insufficient cpu", "Insufficient memory"}, false},
		{"one unresolvable reason makes the rejection unresolvable", n(), used(), pod("p").milli(2500).mem(4 * gi), []string{"Insufficient cpu", "Insufficient memory"}, true},
		{"extended after cpu, by name", n(), used(), pod("p").milli(1500).gpus(2).fpgas(1), []string{"Insufficient cpu", "Insufficient example.com/fpga", "Insufficient nvidia.com/gpu"}, true},
		{"too many pods, pod requests nothing", full(), pod("used"), pod("p"), []string{"Too many pods"}, false},
		{"too many pods and cpu", full(), pod("used"), pod("p").milli(2500), []string{"Too many pods", "Insufficient cpu"}, true},
		{"too many pods, the gpu asked for is free", full(), pod("used"), pod("p").gpus(1), []string{"Too many pods"}, false},
		{"every reason in order", full(), pod("used").milli(1000).mem(gi).gpus(1), pod("p").milli(1500).mem(4 * gi).gpus(2).fpgas(1),
			[]string{"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient example.com/fpga", "Insufficient nvidia.com/gpu"}, true},
		{"a pod requesting nothing only checks the pod count", node("bare"), nil, pod("p"), nil, false},
		{"any cpu request fails on a node without cpu", node("bare"), nil, pod("p").milli(1), []string{"Insufficient cpu"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ni *cluster.NodeInfo
			if tt.used != nil {
				ni = nodeInfo(t, tt.node, tt.used)
			} else {
				ni = nodeInfo(t, tt.node)
			}
			pi := tt.pod.info()
			r := noderesources.Fits(pi, ni)
			require.Equal(t, r, noderesources.NewFitStrategy(noderesources.LeastAllocated, nil).Filter(nil, pi, ni), "the plugin filters the same")
			if tt.reasons == nil {
				require.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			require.Equal(t, noderesources.Name, r.Plugin())
			require.Equal(t, tt.reasons, r.Reasons())
			require.Equal(t, tt.unresolvable, r.Code() == fw.UnschedulableAndUnresolvable)
		})
	}
}
