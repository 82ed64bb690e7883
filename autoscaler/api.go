package autoscaler

// This file is the contract between the autoscaler's core and its users
// (scenario files, metrics, what-if). Names and meanings are fixed; the
// core may add fields and methods, never change these.

import (
	"math/rand/v2"
	"time"

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
	// MaxNodesPerScaleUp bounds the nodes one scale-up asks for
	// (--max-nodes-per-scaleup); 0: DefaultMaxNodesPerScaleUp.
	MaxNodesPerScaleUp int
	// MaxBinpackingChecks bounds the pod-on-node checks of one group's
	// estimate in one scan, standing for
	// --max-nodegroup-binpacking-duration; 0: DefaultMaxBinpackingChecks.
	MaxBinpackingChecks int
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

// The Autoscaler type and its methods (New, Attach, Start, NextTime,
// Step, Events, Groups, PodWaits) and Run are in autoscaler.go.
