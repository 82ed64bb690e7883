package noderesources

import (
	"fmt"
	"math"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// RequestedToCapacityRatio is the strategy that scores a node by a
// piecewise linear function of each resource's utilization, the function
// the configuration draws with its shape points (bin packing with a rising
// shape, spreading with a falling one).
const RequestedToCapacityRatio ScoringType = "RequestedToCapacityRatio"

// MaxCustomPriorityScore is the highest score a shape point may give:
// kube-scheduler scales shape scores by MaxNodeScore / MaxCustomPriorityScore.
const MaxCustomPriorityScore = 10

// maxUtilization is a utilization of 100%.
const maxUtilization = 100

// ephemeralStorage is scored like cpu and memory, requested or not.
const ephemeralStorage cluster.ResourceName = "ephemeral-storage"

// UtilizationShapePoint is a point of the RequestedToCapacityRatio
// function: at Utilization percent (0..100) a resource scores Score
// (0..MaxCustomPriorityScore).
type UtilizationShapePoint struct {
	Utilization int32 `yaml:"utilization"`
	Score       int32 `yaml:"score"`
}

// RequestedToCapacityRatioParam is the strategy's argument: the points,
// sorted by utilization increasing.
type RequestedToCapacityRatioParam struct {
	Shape []UtilizationShapePoint `yaml:"shape"`
}

// RequestedToCapacityRatioScore is the strategy's node score, as
// kube-scheduler computes it: for each weighted resource, the utilization
// after adding the pod (requested*100/capacity, truncated; 100 when
// requested exceeds capacity; cpu and memory counted non-zero as for the
// other strategies) scored by the shape, each point's score counting
// MaxNodeScore/MaxCustomPriorityScore times; then the weighted mean of the
// resources that score above 0, rounded. Extended resources the pod does
// not request and resources the node does not have are left out; ephemeral
// storage is scored whatever the pod asks, as kube-scheduler does.
func RequestedToCapacityRatioScore(shape []UtilizationShapePoint, resources []ResourceWeight, pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	var w resourceWalk
	w.readNonZero(pod, node)
	var sum, weights int64
	for _, r := range resources {
		used, want, capacity := w.cpuOrMemory(r.Name)
		if capacity < 0 {
			used, want, capacity = w.extended(r.Name, r.Name == ephemeralStorage)
		}
		if capacity == 0 {
			continue
		}
		if s := shapeScore(shape, utilization(used+want, capacity)); s > 0 {
			sum += s * r.Weight
			weights += r.Weight
		}
	}
	if weights == 0 {
		return 0
	}
	return int64(math.Round(float64(sum) / float64(weights)))
}

// utilization is requested*100/capacity, truncated, for capacity > 0: 100
// when requested exceeds capacity, 0 when nothing is requested.
func utilization(requested, capacity int64) int64 {
	if requested >= capacity {
		return maxUtilization
	}
	if requested <= 0 {
		return 0
	}
	return scaleTo100(requested, capacity)
}

// shapeScore is the piecewise linear function through the shape's points
// at utilization u, on the scheduler's scale: the first point's score
// below it, the last's above it, and between two points the line through
// them, in integer arithmetic as kube-scheduler's broken linear function.
func shapeScore(shape []UtilizationShapePoint, u int64) int64 {
	const scale = fw.MaxNodeScore / MaxCustomPriorityScore
	for i, p := range shape {
		if u > int64(p.Utilization) {
			continue
		}
		if i == 0 {
			return int64(p.Score) * scale
		}
		prev := shape[i-1]
		x0, y0 := int64(prev.Utilization), int64(prev.Score)*scale
		x1, y1 := int64(p.Utilization), int64(p.Score)*scale
		return y0 + (y1-y0)*(u-x0)/(x1-x0)
	}
	return int64(shape[len(shape)-1].Score) * scale
}

// validateRatio checks the strategy's shape as kube-scheduler's validation
// does, in its order and with its words: the points present, utilizations
// increasing, then each point's ranges.
func validateRatio(st *ScoringStrategy) error {
	const path = "scoringStrategy.requestedToCapacityRatio"
	if st.Type != RequestedToCapacityRatio {
		if st.RequestedToCapacityRatio != nil {
			return fw.ArgError(path, "Forbidden: must be nil when type is not RequestedToCapacityRatio")
		}
		return nil
	}
	if st.RequestedToCapacityRatio == nil {
		return fw.ArgError(path, "Required value: must be specified when type is RequestedToCapacityRatio")
	}
	shape := st.RequestedToCapacityRatio.Shape
	if len(shape) == 0 {
		return fw.ArgError(path+".shape", "Required value: at least one point must be specified")
	}
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			return fw.ArgError(fmt.Sprintf("%s.shape[%d].utilization", path, i), "Invalid value: %d: values must be sorted in increasing order", shape[i].Utilization)
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > maxUtilization {
			return fw.ArgError(fmt.Sprintf("%s.shape[%d].utilization", path, i), "Invalid value: %d: not in valid range [0, %d]", p.Utilization, maxUtilization)
		}
		if p.Score < 0 || p.Score > MaxCustomPriorityScore {
			return fw.ArgError(fmt.Sprintf("%s.shape[%d].score", path, i), "Invalid value: %d: not in valid range [0, %d]", p.Score, MaxCustomPriorityScore)
		}
	}
	return nil
}
