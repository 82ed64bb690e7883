package noderesources_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

type shape = []noderesources.UtilizationShapePoint

const storage cluster.ResourceName = "ephemeral-storage"

// ratioFit is NodeResourcesFit with the RequestedToCapacityRatio strategy,
// built from its arguments as a configuration gives them.
func ratioFit(t *testing.T, s shape, resources []noderesources.ResourceWeight) *noderesources.Fit {
	t.Helper()
	f, err := noderesources.NewFitFromArgs(&noderesources.FitArgs{ScoringStrategy: &noderesources.ScoringStrategy{
		Type: noderesources.RequestedToCapacityRatio, Resources: resources,
		RequestedToCapacityRatio: &noderesources.RequestedToCapacityRatioParam{Shape: s}}})
	require.NoError(t, err)
	return f
}

// The scores below are worked out by hand from kube-scheduler's
// requested_to_capacity_ratio.go: a shape point's score (0..10) counts ten
// times (MaxNodeScore / MaxCustomPriorityScore); utilization is
// requested*100/capacity, truncated, and 100 when requested exceeds
// capacity; between two points the score is the line through them, in
// integer arithmetic (truncated toward zero); below the first point it is
// the first score, above the last the last. A resource whose score is 0 is
// left out with its weight, and the weighted mean is rounded, not
// truncated.
func TestRequestedToCapacityRatioScore(t *testing.T) {
	node, pod := gangsimtest.MakeNode, gangsimtest.MakePod
	binPacking := shape{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}} // f(u) = u
	spreading := shape{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}  // f(u) = 100-u
	// peaked rises to 100 at 50% and falls to 30 at 100%.
	peaked := shape{{Utilization: 0, Score: 0}, {Utilization: 50, Score: 10}, {Utilization: 100, Score: 3}}
	// offset is 50 up to 20%, 100 from 80%.
	offset := shape{{Utilization: 20, Score: 5}, {Utilization: 80, Score: 10}}
	cpuOnly := []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}}
	// Node A: 4000m, 10Gi, 4 GPUs, with a pod of 500m, 1Gi, 1 GPU; the
	// incoming pod asks 1000m and 2Gi: cpu 1500*100/4000 = 37 (37.5),
	// memory 3Gi*100/10Gi = 30.
	nodeA := func() *gangsimtest.NodeWrapper { return node("a").CPU("4000m").Memory("10Gi").GPU(4) }
	usedA := func() *gangsimtest.PodWrapper { return pod("used").CPU("500m").Memory("1Gi").GPU(1) }
	incoming := func() *gangsimtest.PodWrapper { return pod("p").CPU("1000m").Memory("2Gi") }
	// A 1000m node with 500m used: the pod's 110m makes 610*100/1000 = 61.
	half := func() *gangsimtest.NodeWrapper { return node("h").CPU("1000m").Memory("4Gi") }
	tests := []struct {
		name      string
		shape     shape
		resources []noderesources.ResourceWeight
		node      *gangsimtest.NodeWrapper
		used      []*gangsimtest.PodWrapper
		pod       *gangsimtest.PodWrapper
		want      int64
	}{
		{"bin packing, the mean rounded: (37+30)/2 = 33.5", binPacking, weights(1, 1), nodeA(), pods(usedA()), incoming(), 34},
		{"spreading, half rounds up: (63+70)/2 = 66.5", spreading, weights(1, 1), nodeA(), pods(usedA()), incoming(), 67},
		{"weights cpu 3, memory 1: (3*37+30)/4 = 35.25", binPacking, weights(3, 1), nodeA(), pods(usedA()), incoming(), 35},
		{"resources nil mean cpu 1, memory 1", binPacking, nil, nodeA(), pods(usedA()), incoming(), 34},
		{"rising segment: cpu 100*37/50 = 74, memory 100*30/50 = 60", peaked, weights(1, 1), nodeA(), pods(usedA()), incoming(), 67},
		{"falling segment truncates toward zero: 100 + (-70*11)/50 = 100-15", peaked, cpuOnly, half(), pods(pod("u").CPU("500m")), pod("p").CPU("110m"), 85},
		{"a point met exactly: 50% scores 100", peaked, cpuOnly, half(), pods(pod("u").CPU("400m")), pod("p").CPU("100m"), 100},
		{"requested above capacity scores as 100%", peaked, cpuOnly, half(), pods(pod("u").CPU("800m")), pod("p").CPU("500m"), 30},
		{"below the first point: the first score", offset, cpuOnly, half(), nil, pod("p").CPU("100m"), 50},
		{"above the last point: the last score", offset, cpuOnly, half(), pods(pod("u").CPU("800m")), pod("p").CPU("100m"), 100},
		{"between two points: 50 + 50*(50-20)/60 = 75", offset, cpuOnly, half(), pods(pod("u").CPU("400m")), pod("p").CPU("100m"), 75},
		// A pod without requests counts 100m and 200Mi: cpu 10% scores 10,
		// memory 200Mi of 1Ti is 0% and scores 0, which drops its weight.
		{"a resource scoring 0 leaves its weight out: 10, not 5", binPacking, weights(1, 1), node("big").CPU("1000m").Memory("1Ti"), nil, pod("p"), 10},
		{"every resource scoring 0 gives 0", spreading, cpuOnly, half(), pods(pod("u").CPU("800m")), pod("p").CPU("500m"), 0},
		// GPUs 1+2 = 3 of 4: 75, weight 2: (37+30+2*75)/4 = 54.25.
		{"an extended resource requested", binPacking, weights(1, 1, noderesources.ResourceWeight{Name: gangsimtest.ResourceGPU, Weight: 2}), nodeA(), pods(usedA()), incoming().GPU(2), 54},
		{"an extended resource not requested is left out", binPacking, weights(1, 1, noderesources.ResourceWeight{Name: gangsimtest.ResourceGPU, Weight: 2}), nodeA(), pods(usedA()), incoming(), 34},
		{"a resource the node lacks is left out: cpu 500*100/2000", binPacking, weights(1, 1), node("d").CPU("2000m"), nil, pod("p").CPU("500m").Memory("1Gi"), 25},
		// Ephemeral storage is not an extended resource to kube-scheduler:
		// it is scored even when the pod asks none (50Gi of 100Gi used).
		{"ephemeral storage counts without a request", binPacking,
			[]noderesources.ResourceWeight{{Name: storage, Weight: 1}},
			node("s").CPU("1000m").Resource(storage, "100Gi"),
			pods(pod("u").Resource(storage, "50Gi")), pod("p"), 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := gangsimtest.NodeInfo(t, tt.node, tt.used...)
			pi := cluster.NewPodInfo(tt.pod.Obj())
			require.Equal(t, tt.want, noderesources.RequestedToCapacityRatioScore(tt.shape, resourcesOrDefault(tt.resources), pi, ni))
			got, _ := ratioFit(t, tt.shape, tt.resources).Score(nil, pi, ni)
			require.Equal(t, tt.want, got, "the plugin scores the same")
		})
	}
}

// The arguments are checked as kube-scheduler's validation checks them,
// with its words.
func TestRequestedToCapacityRatioArgs(t *testing.T) {
	ratio := func(s shape) *noderesources.RequestedToCapacityRatioParam {
		return &noderesources.RequestedToCapacityRatioParam{Shape: s}
	}
	const path = "scoringStrategy.requestedToCapacityRatio"
	tests := []struct {
		name string
		st   noderesources.ScoringStrategy
		want string // "" when valid
	}{
		{"one point is enough", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 50, Score: 5}})}, ""},
		{"the full ranges", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}})}, ""},
		{"unknown type", noderesources.ScoringStrategy{Type: "Spread"},
			`scoringStrategy.type: Unsupported value: "Spread": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`},
		{"the shape is required", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio},
			path + ": Required value: must be specified when type is RequestedToCapacityRatio"},
		{"a shape for another type", noderesources.ScoringStrategy{Type: noderesources.MostAllocated, RequestedToCapacityRatio: ratio(shape{{Utilization: 0, Score: 0}})},
			path + ": Forbidden: must be nil when type is not RequestedToCapacityRatio"},
		{"no point", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(nil)},
			path + ".shape: Required value: at least one point must be specified"},
		{"utilization repeated", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 50, Score: 1}, {Utilization: 50, Score: 2}})},
			path + ".shape[1].utilization: Invalid value: 50: values must be sorted in increasing order"},
		{"utilization decreasing", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 0, Score: 1}, {Utilization: 60, Score: 2}, {Utilization: 40, Score: 3}})},
			path + ".shape[2].utilization: Invalid value: 40: values must be sorted in increasing order"},
		{"utilization above 100", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 0, Score: 1}, {Utilization: 101, Score: 2}})},
			path + ".shape[1].utilization: Invalid value: 101: not in valid range [0, 100]"},
		{"utilization below 0", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: -1, Score: 1}})},
			path + ".shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"},
		{"score above 10", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 10, Score: 11}})},
			path + ".shape[0].score: Invalid value: 11: not in valid range [0, 10]"},
		{"score below 0", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 10, Score: 1}, {Utilization: 20, Score: -1}})},
			path + ".shape[1].score: Invalid value: -1: not in valid range [0, 10]"},
		{"order is checked before ranges, as kube does", noderesources.ScoringStrategy{Type: noderesources.RequestedToCapacityRatio, RequestedToCapacityRatio: ratio(shape{{Utilization: 10, Score: 20}, {Utilization: 5, Score: 1}})},
			path + ".shape[1].utilization: Invalid value: 5: values must be sorted in increasing order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.st
			_, err := noderesources.New(&noderesources.FitArgs{ScoringStrategy: &st}, nil)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, fw.ErrArgs)
			require.ErrorContains(t, err, tt.want)
		})
	}
}
