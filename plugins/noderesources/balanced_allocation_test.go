package noderesources_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

func TestBalancedAllocationScore(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	// s(f) = int((1 - std)*100), std = |f_cpu - f_mem|/2 with fractions
	// capped at 1; score = 50 + (50 + s(with pod) - s(without pod))/2.
	// Requests count as they are (no 100m/200Mi defaults).
	tests := []struct {
		name string
		node *gangsimtest.NodeWrapper
		used []*gangsimtest.PodWrapper
		pod  *gangsimtest.PodWrapper
		want int64
	}{
		// without: 0.25, 0.1 -> std 0.075 -> 92; with: 0.5, 0.5 -> 100.
		// 50 + (50+100-92)/2 = 50 + 29 = 79.
		{"pod evens the node out", node("n").CPU("4000m").Memory("10Gi"), pods(pod("u").CPU("1000m").Memory("1Gi")), pod("p").CPU("1000m").Memory("4Gi"), 79},
		// with: 0.75, 0.1 -> std 0.325 -> 67. 50 + (50+67-92)/2 = 50 + 12 = 62.
		{"pod skews the node", node("n").CPU("4000m").Memory("10Gi"), pods(pod("u").CPU("1000m").Memory("1Gi")), pod("p").CPU("2000m"), 62},
		// without: 0.5, 0.5 -> 100; with: cpu 2.5 capped to 1, memory 0.75
		// -> std 0.125 -> 87. 50 + (50+87-100)/2 = 50 + 18 = 68
		// (uncapped: std 0.875 -> 12 -> 50 + (-38)/2 = 31).
		{"fractions capped at 1", node("n").CPU("1000m").Memory("1Gi"), pods(pod("u").CPU("500m").Memory("512Mi")), pod("p").CPU("2000m").Memory("256Mi"), 68},
		// with 0.25, 0.25 and without 0, 0 both 100: 50 + 50/2 = 75.
		{"empty node, balanced pod", node("n").CPU("4000m").Memory("8Gi"), nil, pod("p").CPU("1000m").Memory("2Gi"), 75},
		// with: 0.25, 0 -> std 0.125 -> 87: 50 + (50+87-100)/2 = 68. With
		// the 200Mi default memory it would be std 0.1128 -> 88 -> 69.
		{"actual requests, not the scoring defaults", node("n").CPU("4000m").Memory("8Gi"), nil, pod("p").CPU("1000m"), 68},
		// Memory capacity 0 leaves one fraction: std 0 on both sides.
		{"one resource: 75", node("n").CPU("4000m"), nil, pod("p").CPU("1000m").Memory("1Gi"), 75},
	}
	ba := noderesources.NewBalancedCPUMemory()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, score(ba, tt.pod, gangsimtest.NodeInfo(t, tt.node, tt.used...)))
		})
	}
}

func TestBalancedAllocationThreeResources(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	ba := &noderesources.BalancedAllocation{Resources: []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory, gangsimtest.ResourceGPU}}
	n := node("n").CPU("4000m").Memory("8Gi").GPU(4)
	// with: 0.25, 0.25, 0.75: mean 0.41667, variance (2*0.16667^2 +
	// 0.33333^2)/3 = 0.05556, std 0.23570 -> int(76.43) = 76; without: all
	// 0 -> 100. 50 + (50+76-100)/2 = 50 + 13 = 63.
	require.Equal(t, int64(63), score(ba, pod("p").CPU("1000m").Memory("2Gi").GPU(3), gangsimtest.NodeInfo(t, n)))
	// Without a GPU request the GPU is left out: 0.25, 0.25 -> 75.
	require.Equal(t, int64(75), score(ba, pod("p").CPU("1000m").Memory("2Gi"), gangsimtest.NodeInfo(t, n)))
}

func TestBalancedAllocationSkipsBestEffort(t *testing.T) {
	pod := gangsimtest.MakePod
	ba := noderesources.NewBalancedCPUMemory()
	skips := func(p *gangsimtest.PodWrapper) bool {
		return ba.PreScore(nil, cluster.NewPodInfo(p.Obj()), nil).IsSkip()
	}
	require.True(t, skips(pod("p")), "best-effort pod")
	require.True(t, skips(pod("p").GPU(1)), "only resources it does not compare")
	require.False(t, skips(pod("p").CPU("1m")))
	require.False(t, skips(pod("p").Memory("1")))
}
