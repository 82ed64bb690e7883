package scenario

import (
	"errors"
	"fmt"
	"time"

	fw "github.com/gangsim/gangsim/framework"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/podgroup"
)

// ErrScenario is wrapped by every error about a scenario: loading it, or
// running it into something impossible (a pod that does not fit the node it
// names, an event on a node that is gone).
var ErrScenario = errors.New("invalid scenario")

// FieldError is a problem with one field of a scenario file: the file, the
// line (0 when unknown), the path of the field ("pods[2] (api).requests.cpu")
// and the cause, which errors.Is and errors.As reach (fs.ErrNotExist,
// cluster.ErrQuantity, gangsim.ErrAdmission, ...). It also matches
// ErrScenario.
type FieldError struct {
	File string
	Line int
	Path string
	Err  error
}

// Error renders "invalid scenario: FILE: line N: PATH: what is wrong".
func (e *FieldError) Error() string {
	msg := ErrScenario.Error() + ": " + cluster.PrintableLine(e.File)
	if e.Line > 0 {
		msg += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Path != "" {
		msg += ": " + cluster.PrintableLine(e.Path)
	}
	return msg + ": " + cluster.Printable(detail(e.Err))
}

// Unwrap returns ErrScenario and the cause.
func (e *FieldError) Unwrap() []error { return []error{ErrScenario, e.Err} }

// detail says what is wrong: a cluster.FieldError's detail (its object and
// field are in the path already), or the cause's message.
func detail(err error) string {
	var at *atError
	if errors.As(err, &at) {
		return fmt.Sprintf("at %v: %s", at.At, detail(at.Err))
	}
	var fe *cluster.FieldError
	if errors.As(err, &fe) {
		return fe.Detail
	}
	return err.Error()
}

// Source is where an object came from in its file: the line and the path
// of its entry. Run-time errors about the object name it.
type Source struct {
	File string // "": the scenario's Name
	Line int
	Path string
}

// Pod is a pod of a scenario with its arrival time and run time.
type Pod struct {
	Pod      cluster.Pod
	At       time.Duration
	Duration time.Duration // 0: runs until deleted or evicted
	Source   Source
	// ContainerClaims are the claims its containers name (a pod made from
	// a Kubernetes object's), read and checked; the pod's own claims are
	// Pod.ResourceClaims.
	ContainerClaims []ContainerClaim
	// Topology is its Kueue topology request (its pod-set annotations),
	// nil for none.
	Topology *kueue.TopologyRequest
	// kueue is its Kueue pod group as Kueue reads it (its total count
	// annotation and how the group ends); zero for none
	kueue groupMeta
}

// EventKind is what a scenario event does.
type EventKind string

// The scenario events.
const (
	AddNode      EventKind = "addNode"
	CordonNode   EventKind = "cordonNode"
	UncordonNode EventKind = "uncordonNode"
	RemoveNode   EventKind = "removeNode"
	DrainNode    EventKind = "drainNode"
	DeletePod    EventKind = "deletePod"
	UngatePod    EventKind = "ungatePod" // removes every scheduling gate of the pod
)

// Event is a cluster change at a simulated time. Node is set for addNode;
// Name names the node or pod of the others.
type Event struct {
	At     time.Duration
	Kind   EventKind
	Node   *cluster.Node
	Name   string
	Source Source
}

// Scenario is a loaded, validated scenario: a cluster, its workloads, the
// scheduler configuration and timed events. Pods and nodes are expanded
// (count) and listed in input order.
//
// Its objects are read-only: the copies count makes of one entry share
// their maps, slices and pointers, and so do entries given one label map
// through a YAML alias. Clone a pod or a node before changing it. Runs
// never change a Scenario, and one Scenario may run in several goroutines
// at once: a run's Scheduler holds the scenario's pods themselves where
// admission leaves them as they are (AddSharedPod), so the pods its
// events carry are the scenario's.
type Scenario struct {
	Name               string
	Config             gangsim.Config
	PriorityClasses    []cluster.PriorityClass
	Nodes              []cluster.Node
	Budgets            []cluster.PodDisruptionBudget
	CompositePodGroups []podgroup.CompositePodGroup // parents before children
	PodGroups          []podgroup.PodGroup
	Pods               []Pod
	Events             []Event
	// Explain lists the pods the result explains.
	Explain []cluster.PodKey
	// Namespaces give namespaces labels (for namespace selectors).
	Namespaces []cluster.Namespace
	// LimitRanges and ResourceQuotas are the namespaces' admission of
	// pods: defaults and bounds of their resources, limits of their
	// totals. A pod they refuse is not created (phase Rejected).
	LimitRanges    []cluster.LimitRange
	ResourceQuotas []cluster.ResourceQuota
	// Devices are the device objects of Dynamic Resource Allocation.
	Devices Devices
	// Warnings list what the inputs hold that the simulator does not
	// model: the kinds that make pods but were skipped first, then what
	// is approximated or left out, by kind and field, and last, in one
	// warning, the kinds that never affect scheduling. The result repeats
	// them.
	Warnings []Warning
	// ExtendedResourceToleration turns on the API server's admission
	// plugin of that name, which GKE runs: every pod requesting an
	// extended resource (nvidia.com/gpu) is given a toleration of the
	// NoSchedule taint of that name when it is created, a workload's pods
	// too (admission.ExtendedResourceToleration). On when nodes carry
	// GKE's node-pool label, unless a file's admission section or
	// WithExtendedResourceToleration says otherwise (tolerations.go).
	ExtendedResourceToleration bool
	// Skipped are the kinds of the inputs that make pods the simulator
	// does not read, by kind: their pods are missing from the run
	// (SkippedNote says so in a sentence).
	Skipped []SkippedWorkload
	// Controllers are the workload controllers of Kubernetes objects,
	// which keep making pods while the scenario runs (controllers.go, and
	// package controllers).
	Controllers []Controller

	// NodeGroups are the cluster autoscaler's node groups, in input
	// order; without any, nothing scales (and the run is as it was before
	// autoscaling existed). Autoscaler is its configuration (zero fields:
	// the flags' defaults) and AutoscalerSeed seeds its draws (delays
	// given as distributions, the random expander).
	NodeGroups     []autoscaler.NodeGroup
	Autoscaler     autoscaler.Config
	AutoscalerSeed uint64

	// Kueue are the Kueue objects of the inputs (ResourceFlavors,
	// ClusterQueues, LocalQueues, Cohorts, WorkloadPriorityClasses,
	// Topologies, its Configuration), read and checked as Kueue's
	// webhooks check them, and a dump's Workloads; nil when there are
	// none. Kueue runs beside the scheduler when there are (kueuerun.go).
	Kueue *kueue.Objects

	// groupSources say where each node group came from, for run-time
	// errors; autoscalerSource the autoscaler section
	groupSources     []Source
	autoscalerSource Source
	// autoscalerTap, when set (tests), sees the autoscaler's decisions as
	// they are made, after the step that made them
	autoscalerTap func(autoscaler.Event)

	registry fw.Registry // the user's plugins, passed to the scheduler
	// podNames are the names of Pods, when there are Controllers: the
	// pods they make take other names; podLimit bounds the pods of a run,
	// theirs included (Limits.Pods)
	podNames map[cluster.PodKey]bool
	podLimit int
}

// Load reads and validates a scenario file (YAML or JSON), or a file of
// Kubernetes objects (LoadFiles).
func Load(path string, opts ...Option) (*Scenario, error) {
	return LoadFiles([]string{path}, opts...)
}

// Parse validates a scenario given as YAML or JSON text, or Kubernetes
// objects; name (usually the file name) is the file every error names,
// with the line, object and field at fault.
func Parse(name string, data []byte, opts ...Option) (*Scenario, error) {
	return ParseFiles([]File{{Name: name, Data: data}}, opts...)
}
