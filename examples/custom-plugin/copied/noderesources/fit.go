package noderesources

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the NodeResourcesFit plugin's name in profiles.
const Name = "CopiedNodeResourcesFit"

// ScoringType is the NodeResourcesFit scoring strategy.
type ScoringType string

// The scoring strategies (and RequestedToCapacityRatio).
const (
	LeastAllocated ScoringType = "LeastAllocated"
	MostAllocated  ScoringType = "MostAllocated"
)

// ResourceWeight is a resource and its weight in a weighted score (1..100).
type ResourceWeight struct {
	Name   cluster.ResourceName `yaml:"name"`
	Weight int64                `yaml:"weight"`
}

// DefaultResourceWeights are kube-scheduler's: cpu 1, memory 1.
func DefaultResourceWeights() []ResourceWeight {
	return []ResourceWeight{{cluster.ResourceCPU, 1}, {cluster.ResourceMemory, 1}}
}

// Fit rejects nodes without room for a pod's requests, scores
// nodes by the configured strategy over the weighted resources, and scores
// placements (always MostAllocated over the whole placement, with the
// same resource weights).
type Fit struct {
	Strategy  ScoringType
	Resources []ResourceWeight
	// Shape is RequestedToCapacityRatio's function (nil for the other
	// strategies).
	Shape []UtilizationShapePoint
	// h gives the device classes that serve extended resources (nil:
	// none do)
	h fw.Handle
	// leastCPUMemory: LeastAllocated over cpu and memory, weight 1 each
	// (kube-scheduler's default), which Score takes by a path of its own
	leastCPUMemory bool
}

var (
	_ fw.FilterPlugin          = (*Fit)(nil)
	_ fw.ScorePlugin           = (*Fit)(nil)
	_ fw.Signer                = (*Fit)(nil)
	_ fw.PlacementScorePlugin  = (*Fit)(nil)
	_ fw.NodeIndependentScorer = (*Fit)(nil)
	_ fw.EnqueueExtensions     = (*Fit)(nil)
)

// New builds NodeResourcesFit from its arguments (nil, a FitArgs or a
// *FitArgs), as the registry does.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[FitArgs](args)
	if err != nil {
		return nil, err
	}
	f, err := NewFitFromArgs(a)
	if err == nil {
		f.h = h
	}
	return f, err
}

// NewArgs returns NodeResourcesFit's default arguments, for a loader to
// decode a file's arguments into.
func NewArgs() any { return &FitArgs{} }

// NewFitStrategy returns the plugin scoring by strategy; an empty
// resources list means DefaultResourceWeights.
func NewFitStrategy(strategy ScoringType, resources []ResourceWeight) *Fit {
	if len(resources) == 0 {
		resources = DefaultResourceWeights()
	}
	return &Fit{Strategy: strategy, Resources: resources,
		leastCPUMemory: strategy == LeastAllocated && slices.Equal(resources, DefaultResourceWeights())}
}

// Name returns Name.
func (f *Fit) Name() string { return Name }

// The rejections for pods, cpu and memory shortages, indexed by a bit set
// (1 pods, 2 cpu, 4 memory) and resolvability, built once so that the
// common failures allocate nothing.
var fitRejections = func() (out [8][2]*fw.Status) {
	for mask := 1; mask < 8; mask++ {
		var reasons []string
		if mask&1 != 0 {
			reasons = append(reasons, "Too many pods")
		}
		if mask&2 != 0 {
			reasons = append(reasons, "Insufficient cpu")
		}
		if mask&4 != 0 {
			reasons = append(reasons, "Insufficient memory")
		}
		out[mask][0] = fw.NewStatus(fw.Unschedulable, reasons...).WithPlugin(Name)
		out[mask][1] = fw.NewStatus(fw.UnschedulableAndUnresolvable, reasons...).WithPlugin(Name)
	}
	return out
}()

// Filter rejects node when the pod's requests exceed what is left of its
// allocatable, resource by resource, with kube-scheduler's reasons ("Too
// many pods", "Insufficient cpu", "Insufficient memory", "Insufficient
// <name>"). The rejection is unresolvable when a request exceeds the
// node's whole allocatable, so that no eviction could help.
//
// An extended resource the node does not offer at all, which a device
// class serves (KEP-5004: DynamicResources allocates devices for it), is
// not counted here.
func (f *Fit) Filter(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	if f.h != nil && pod.Pod().Requests.HasScalars() {
		if snap := f.h.Snapshot(); snap.HasDeviceClasses() {
			return fits(pod, node, snap)
		}
	}
	return Fits(pod, node)
}

// Sign appends the pod's requests, all the filter and the score read, and
// for a pod with extended resources the version of the device classes
// that may serve them.
func (f *Fit) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	sig = helper.AppendRequests(sig, &pod.Pod().Requests)
	if f.h != nil && pod.Pod().Requests.HasScalars() {
		sig = strconv.AppendInt(append(sig, 'd'), f.h.Snapshot().DeviceClassVersion(), 10)
	}
	return sig, true
}

// EventsToRegister: room is freed when a pod leaves a node, and comes with
// a node added or grown; an extended resource no node offers may come to
// be served by a device class added later (kube registers DeviceClass
// events for it).
func (*Fit) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodDeleted | fw.NodeAdded | fw.NodeChanged | fw.DevicesChanged
}

// Fits is the NodeResourcesFit filter as a plain function, for a cluster
// without device classes.
func Fits(pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status { return fits(pod, node, nil) }

// fits is Fits; with snap, an extended resource the node does not offer
// and a device class serves is left to DynamicResources.
func fits(pod *cluster.PodInfo, node *cluster.NodeInfo, snap *cluster.Snapshot) *fw.Status {
	req, alloc, used := pod.RequestRef(), &node.Node().Allocatable, node.RequestedRef() // the requests, and one pod (not read)
	mask, unresolvable := 0, false
	if int64(node.PodCount())+1 > alloc.Pods {
		mask |= 1
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		mask |= 2
		unresolvable = unresolvable || req.MilliCPU > alloc.MilliCPU
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		mask |= 4
		unresolvable = unresolvable || req.Memory > alloc.Memory
	}
	var extra []string
	if req.HasScalars() {
		for s := range req.Scalars() {
			have := alloc.Get(s.Name)
			if have == 0 && snap != nil {
				if _, served := snap.DeviceClassFor(s.Name); served {
					continue
				}
			}
			if s.Value > have-used.Get(s.Name) {
				extra = append(extra, fmt.Sprintf("Insufficient %s", s.Name))
				unresolvable = unresolvable || s.Value > have
			}
		}
	}
	if extra == nil {
		if mask == 0 {
			return nil
		}
		return fitRejections[mask][boolIndex(unresolvable)]
	}
	reasons := []string{}
	if mask != 0 {
		reasons = append(reasons, fitRejections[mask][0].Reasons()...)
	}
	code := fw.Unschedulable
	if unresolvable {
		code = fw.UnschedulableAndUnresolvable
	}
	return fw.NewStatus(code, append(reasons, extra...)...).WithPlugin(Name)
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Score scores node for pod by the strategy (see AllocationScore and
// RequestedToCapacityRatioScore).
func (f *Fit) Score(_ *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	switch {
	case f.leastCPUMemory:
		return leastAllocatedCPUMemory(pod, node), nil
	case f.Strategy == RequestedToCapacityRatio:
		return RequestedToCapacityRatioScore(f.Shape, f.Resources, pod, node), nil
	}
	return AllocationScore(f.Strategy, f.Resources, pod, node), nil
}

// leastAllocatedCPUMemory is AllocationScore for LeastAllocated over cpu
// and memory, weight 1 each: the memo refreshes it for every pod shape on
// every node a binding changes, and the general walk (resource names
// compared, the strategy called through a function value, a division by
// the weights) costs it half again.
func leastAllocatedCPUMemory(pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	alloc := &node.Node().Allocatable
	podCPU, podMemory := pod.NonZeroRequests()
	nodeCPU, nodeMemory := node.NonZeroRequested()
	var sum, weights int64
	if alloc.MilliCPU != 0 {
		sum, weights = LeastAllocatedResource(nodeCPU+podCPU, alloc.MilliCPU), 1
	}
	if alloc.Memory != 0 {
		sum, weights = sum+LeastAllocatedResource(nodeMemory+podMemory, alloc.Memory), weights+1
	}
	if weights == 2 {
		return sum / 2
	}
	return sum // one resource, or none (0)
}

// AllocationScore is Fit's node score: for each weighted
// resource, the requested amount after adding the pod (cpu and memory
// counted non-zero: 100m and 200Mi for zero requests) against the node's
// allocatable, scored by LeastAllocatedResource or MostAllocatedResource,
// then the weighted mean. Extended resources the pod does not request and
// resources the node does not have are left out, weight included. Integer
// arithmetic truncates as kube-scheduler's does.
func AllocationScore(strategy ScoringType, resources []ResourceWeight, pod *cluster.PodInfo, node *cluster.NodeInfo) int64 {
	score := LeastAllocatedResource
	if strategy == MostAllocated {
		score = MostAllocatedResource
	}
	var w resourceWalk
	w.readNonZero(pod, node)
	var sum, weights int64
	for _, r := range resources {
		used, want, capacity := w.cpuOrMemory(r.Name)
		if capacity < 0 {
			used, want, capacity = w.extended(r.Name, false)
		}
		if capacity == 0 {
			continue
		}
		sum += score(used+want, capacity) * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// LeastAllocatedResource scores free room: (capacity-requested)*100/capacity,
// 0 when requested exceeds capacity or capacity is 0.
func LeastAllocatedResource(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return scaleTo100(capacity-requested, capacity)
}

// scaleTo100 is part*100/whole for 0 <= part <= whole, in 128 bits: the
// product overflows int64 above about 82 PiB, and a node that large must
// not score as if it were nearly full.
func scaleTo100(part, whole int64) int64 {
	hi, lo := bits.Mul64(uint64(part), uint64(fw.MaxNodeScore))
	q, _ := bits.Div64(hi, lo, uint64(whole)) // part <= whole: q <= 100 fits
	return int64(q)
}

// MostAllocatedResource scores use: min(requested, capacity)*100/capacity,
// 0 when capacity is 0.
func MostAllocatedResource(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	return scaleTo100(max(0, min(requested, capacity)), capacity)
}

// ScoringStrategy is Fit's scoring strategy argument: the
// pod-by-pod type and the resource weights (which placement scoring uses
// too), and RequestedToCapacityRatio's shape, given with that type only.
type ScoringStrategy struct {
	Type                     ScoringType                    `yaml:"type"`      // "" means LeastAllocated
	Resources                []ResourceWeight               `yaml:"resources"` // empty means cpu 1, memory 1
	RequestedToCapacityRatio *RequestedToCapacityRatioParam `yaml:"requestedToCapacityRatio"`
}

// FitArgs are Fit's arguments, as
// KubeSchedulerConfiguration's pluginConfig gives them.
type FitArgs struct {
	ScoringStrategy *ScoringStrategy `yaml:"scoringStrategy"`
}

// Validate checks the arguments; its errors name the field.
func (a *FitArgs) Validate() error {
	if a == nil || a.ScoringStrategy == nil {
		return nil
	}
	switch a.ScoringStrategy.Type {
	case "", LeastAllocated, MostAllocated, RequestedToCapacityRatio:
	default:
		return fw.ArgError("scoringStrategy.type", "Unsupported value: %q: supported values: %q, %q, %q", a.ScoringStrategy.Type,
			LeastAllocated, MostAllocated, RequestedToCapacityRatio)
	}
	seen := map[cluster.ResourceName]bool{}
	for i, r := range a.ScoringStrategy.Resources {
		switch {
		case r.Name == "":
			return fw.ArgError(fmt.Sprintf("scoringStrategy.resources[%d].name", i), "must not be empty")
		case seen[r.Name]:
			return fw.ArgError(fmt.Sprintf("scoringStrategy.resources[%d].name", i), "%q is listed twice", r.Name)
		case r.Weight < 1 || r.Weight > 100:
			return fw.ArgError(fmt.Sprintf("scoringStrategy.resources[%d] (%s).weight", i, r.Name), "%d is not in 1..100", r.Weight)
		}
		seen[r.Name] = true
	}
	return validateRatio(a.ScoringStrategy)
}

// NewFitFromArgs returns the plugin its arguments describe
// (nil: the defaults, LeastAllocated over cpu 1, memory 1).
func NewFitFromArgs(a *FitArgs) (*Fit, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	strategy, resources := LeastAllocated, []ResourceWeight(nil)
	var shape []UtilizationShapePoint
	if a != nil && a.ScoringStrategy != nil {
		if a.ScoringStrategy.Type != "" {
			strategy = a.ScoringStrategy.Type
		}
		resources = a.ScoringStrategy.Resources
		if r := a.ScoringStrategy.RequestedToCapacityRatio; r != nil {
			shape = slices.Clone(r.Shape)
		}
	}
	f := NewFitStrategy(strategy, resources)
	f.Shape = shape
	return f, nil
}
