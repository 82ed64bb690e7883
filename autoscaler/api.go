package autoscaler

// This file is the contract between the autoscaler's core and its users
// (scenario files, metrics, what-if). Names and meanings are fixed; the
// core may add fields and methods, never change these.

import (
	"math/rand/v2"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Config holds the autoscaler's parameters, named after the cluster
// autoscaler's flags. A zero field takes the flag's default (Defaults).
type Config struct {
	ScanInterval                     time.Duration // --scan-interval, 10s
	ScaleDownUnneededTime            time.Duration // --scale-down-unneeded-time, 10m
	ScaleDownDelayAfterAdd           time.Duration // --scale-down-delay-after-add, 10m
	ScaleDownDelayAfterDelete        time.Duration // --scale-down-delay-after-delete, 0 (then the scan interval)
	ScaleDownDelayAfterFailure       time.Duration // --scale-down-delay-after-failure, 3m
	ScaleDownUtilizationThreshold    float64       // --scale-down-utilization-threshold, 0.5
	ScaleDownGPUUtilizationThreshold float64       // --scale-down-gpu-utilization-threshold, 0.5
	MaxNodeProvisionTime             time.Duration // --max-node-provision-time, 15m
	Expander                         string        // --expander, "least-waste"; most-pods, price, priority, random
	// Priorities is the priority expander's table (its ConfigMap): a
	// priority to regular expressions over group names; the highest
	// priority with a matching group wins.
	Priorities     map[int][]string
	MaxNodesTotal  int   // --max-nodes-total, 0: no limit
	MaxCoresTotal  int64 // --cores-total max, in cores; 0: no limit
	MaxMemoryTotal int64 // --memory-total max, in bytes; 0: no limit
	// ScaleDownDisabled is --scale-down-enabled=false.
	ScaleDownDisabled bool
}

// Delay is a node group's provisioning delay: Fixed when Dist is nil,
// else a draw of Dist (seeded by the Autoscaler's rand).
type Delay struct {
	Fixed time.Duration
	// Dist draws a delay; nil means Fixed.
	Dist func(*rand.Rand) time.Duration
	// Text is how the delay was written ("4m", "uniform(2m,6m)"), for
	// messages and reports.
	Text string
}

// NodeGroup is a set of identical nodes the autoscaler may add and
// remove: a cloud provider's node pool.
type NodeGroup struct {
	Name string
	// Template is the node every new node copies; its Name is ignored.
	// New nodes are named Name-1, Name-2, ... in creation order.
	Template cluster.Node
	// Devices are ResourceSlices published for each new node (their
	// NodeName and Name are set per node).
	Devices           []cluster.ResourceSlice
	Min, Max          int
	ProvisioningDelay Delay
	PricePerHour      float64
	// RackSize, when set, makes new nodes form new racks of this many
	// nodes, labelled RackLabel (default "rack") = Name-rack-1, ...
	RackSize  int
	RackLabel string
	// Zone, when set, labels new nodes topology.kubernetes.io/zone=Zone.
	Zone string
}

// GroupSummary is what a node group did over a run, as a scenario's
// result lists it.
type GroupSummary struct {
	Name         string
	NodesAdded   int
	NodesRemoved int
	MaxNodes     int     // most nodes of the group at once (ready or provisioning)
	NodeHours    float64 // from each node's creation request to its removal or the end
	Cost         float64 // NodeHours * PricePerHour
}

// EventKind names an autoscaler decision.
type EventKind string

// The decisions, in the order a node lives them.
const (
	EventScaleUp        EventKind = "ScaleUp"        // nodes requested for a group
	EventNodeReady      EventKind = "NodeReady"      // a requested node joined the cluster
	EventNodeUnneeded   EventKind = "NodeUnneeded"   // a node became a scale-down candidate
	EventNodeNeeded     EventKind = "NodeNeeded"     // a candidate is needed again
	EventScaleDown      EventKind = "ScaleDown"      // a node removed (its pods evicted)
	EventNoScaleUp      EventKind = "NoScaleUp"      // pending pods no group can help, with why
	EventScaleUpTimeout EventKind = "ScaleUpTimeout" // a node not ready after MaxNodeProvisionTime
)

// Event is one decision at a simulated time.
type Event struct {
	At     time.Duration
	Kind   EventKind
	Group  string
	Nodes  []string         // the nodes concerned (requested, ready, removed)
	Pods   []cluster.PodKey // the pods that triggered a scale-up, or were evicted
	Reason string           // why (NoScaleUp, NodeUnneeded, a blocked scale-down)
}

// PodWait splits the time a pod waited to be bound (first arrival to
// first binding, or to the end when never bound) into waiting for a node
// (a scale-up it triggered was on the way) and waiting for room (all else).
type PodWait struct {
	Pod     cluster.PodKey
	ForNode time.Duration
	ForRoom time.Duration
	Bound   bool
}

// Autoscaler is the cluster autoscaler in simulated time, beside one
// Scheduler: every scan interval it looks at the pods the scheduler
// marked unschedulable and at each node's use, and adds and removes nodes.
type Autoscaler struct{ _ struct{} }

// New validates cfg and groups and returns an autoscaler; rng seeds
// delays drawn from distributions and the random expander.
func New(cfg Config, groups []NodeGroup, rng *rand.Rand) (*Autoscaler, error) { panic("unimplemented") }

// Attach returns the option that lets the autoscaler watch the
// scheduler's event stream; pass it to gangsim.New.
func (a *Autoscaler) Attach() gangsim.Option { panic("unimplemented") }

// Start creates each group's Min nodes at the scheduler's current time.
func (a *Autoscaler) Start(s *gangsim.Scheduler) error { panic("unimplemented") }

// NextTime is when the autoscaler next has something to do (a node
// arriving, a scan that may change something); false when no scan can
// change anything until the cluster changes.
func (a *Autoscaler) NextTime() (time.Duration, bool) { panic("unimplemented") }

// Step does what is due at now (s.Now() must be now): nodes arriving,
// then a scan (scale-up, then scale-down).
func (a *Autoscaler) Step(s *gangsim.Scheduler, now time.Duration) error { panic("unimplemented") }

// Events returns the decisions so far, in order.
func (a *Autoscaler) Events() []Event { panic("unimplemented") }

// Groups summarises each group up to end, in the order New got them.
func (a *Autoscaler) Groups(end time.Duration) []GroupSummary { panic("unimplemented") }

// PodWaits returns the wait split of every pod seen, up to end, in the
// order the pods arrived.
func (a *Autoscaler) PodWaits(end time.Duration) []PodWait { panic("unimplemented") }

// Run drives s and a together until nothing more can happen and returns
// the end time: the loop users write themselves when they have other
// actions (scenario events) to interleave:
//
//	for {
//		t := min(next action, a.NextTime()) ; s.RunUntil(t); act; a.Step(s, t)
//	}
func Run(s *gangsim.Scheduler, a *Autoscaler) (time.Duration, error) { panic("unimplemented") }
