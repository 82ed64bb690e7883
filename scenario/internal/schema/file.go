package schema

import (
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// The scenario file schema (docs/scenario-format.md). Field tags are the
// file's names; the Decoder rejects anything else. A struct's Line field
// (tag "-") receives the line of the mapping it was decoded from. The
// other fields tagged "-" (Origin, ...) are set only for entries made
// from Kubernetes objects, never read from a file.

// File is one scenario file: its sections, each a list of entries.
type File struct {
	Config             *Config             `yaml:"config"`
	PriorityClasses    []PriorityClass     `yaml:"priorityClasses"`
	Nodes              []Node              `yaml:"nodes"`
	CompositePodGroups []CompositePodGroup `yaml:"compositePodGroups"`
	PodGroups          []PodGroup          `yaml:"podGroups"`
	Budgets            []Budget            `yaml:"podDisruptionBudgets"`
	Pods               []Pod               `yaml:"pods"`
	Events             []Event             `yaml:"events"`
	// Namespaces give namespaces labels, for namespace selectors.
	Namespaces []Namespace `yaml:"namespaces"`
	// LimitRanges and ResourceQuotas are the API server's admission of
	// pods into their namespaces (admission.go).
	LimitRanges    []LimitRange    `yaml:"limitRanges"`
	ResourceQuotas []ResourceQuota `yaml:"resourceQuotas"`
	// Explain names pods whose placement the result explains, node by
	// node and plugin by plugin.
	Explain []string `yaml:"explain"`
	// Workloads are templates expanded into pods and PodGroups
	// (workloads.go).
	Workloads []Workload `yaml:"workloads"`
	// Controllers are the workload controllers of Kubernetes objects
	// (controllers.go); not a field of the file.
	Controllers []Controller `yaml:"-"`
	// The device objects of Dynamic Resource Allocation (devices.go).
	DeviceClasses          []DeviceClass           `yaml:"deviceClasses"`
	ResourceSlices         []ResourceSlice         `yaml:"resourceSlices"`
	ResourceClaims         []ResourceClaim         `yaml:"resourceClaims"`
	ResourceClaimTemplates []ResourceClaimTemplate `yaml:"resourceClaimTemplates"`
	// NodeGroups and Autoscaler are the cluster autoscaler's node groups
	// and flags (autoscaler.go).
	NodeGroups []NodeGroup `yaml:"nodeGroups"`
	Autoscaler *Autoscaler `yaml:"autoscaler"`
	// Admission switches the API server's admission plugins that are off
	// unless a cluster turns them on (tolerations.go of scenario).
	Admission *Admission `yaml:"admission"`
	// Kueue are the Kueue objects of Kubernetes files (kueueobjects.go of
	// kube), read and checked; nil when there are none. Not a field of
	// the file.
	Kueue *kueue.Objects `yaml:"-"`
}

// Admission is the file's admission section.
type Admission struct {
	Line int `yaml:"-"`
	// ExtendedResourceToleration: a pod requesting an extended resource
	// tolerates the taint of that name (GKE's API server runs it).
	ExtendedResourceToleration *bool `yaml:"extendedResourceToleration"`
}

// Config is the file's config section: the scheduler's configuration.
type Config struct {
	Line int `yaml:"-"`
	// ScoringStrategy and PlacementScore are shorthands for the default
	// profile's NodeResourcesFit arguments and placement score plugins.
	ScoringStrategy *yaml.Node `yaml:"scoringStrategy"`
	PlacementScore  []Weighted `yaml:"placementScore"`
	// Profiles are KubeSchedulerConfiguration's profiles.
	Profiles []Profile `yaml:"profiles"`
	// TerminationGracePeriod: how long a preemption victim keeps its node
	// ("30s" by default).
	TerminationGracePeriod *string `yaml:"terminationGracePeriod"`
	// PercentageOfNodesToScore: kube-scheduler's knob (0 adaptive, 100
	// every node).
	PercentageOfNodesToScore *int32 `yaml:"percentageOfNodesToScore"`

	Origin *Origin `yaml:"-"`
	// InitialBackoff and MaxBackoff are KubeSchedulerConfiguration's.
	InitialBackoff, MaxBackoff *time.Duration `yaml:"-"`
}

// Weighted is a plugin named with its weight.
type Weighted struct {
	Line   int    `yaml:"-"`
	Name   string `yaml:"name"`
	Weight int32  `yaml:"weight"`
}

// Profile is a kubescheduler.config.k8s.io/v1 profile.
type Profile struct {
	Line                     int            `yaml:"-"`
	SchedulerName            string         `yaml:"schedulerName"`
	PercentageOfNodesToScore *int32         `yaml:"percentageOfNodesToScore"`
	Plugins                  *Plugins       `yaml:"plugins"`
	PluginConfig             []PluginConfig `yaml:"pluginConfig"`
}

// Plugins are a profile's plugin sets, by extension point.
type Plugins struct {
	MultiPoint         *PluginSet `yaml:"multiPoint"`
	PreEnqueue         *PluginSet `yaml:"preEnqueue"`
	PreFilter          *PluginSet `yaml:"preFilter"`
	Filter             *PluginSet `yaml:"filter"`
	PostFilter         *PluginSet `yaml:"postFilter"`
	PreScore           *PluginSet `yaml:"preScore"`
	Score              *PluginSet `yaml:"score"`
	Reserve            *PluginSet `yaml:"reserve"`
	PlacementGenerate  *PluginSet `yaml:"placementGenerate"`
	PlacementFeasible  *PluginSet `yaml:"placementFeasible"`
	PlacementScore     *PluginSet `yaml:"placementScore"`
	PodGroupPostFilter *PluginSet `yaml:"podGroupPostFilter"`
}

// PluginSet is the plugins one extension point enables and disables.
type PluginSet struct {
	Enabled  []Weighted `yaml:"enabled"`
	Disabled []Weighted `yaml:"disabled"`
}

// PluginConfig is a plugin's arguments, kept as a node until the plugin's
// factory says their type.
type PluginConfig struct {
	Line int        `yaml:"-"`
	Name string     `yaml:"name"`
	Args *yaml.Node `yaml:"args"`
}

// PriorityClass is an entry of priorityClasses.
type PriorityClass struct {
	Line             int     `yaml:"-"`
	Name             string  `yaml:"name"`
	Value            int32   `yaml:"value"`
	PreemptionPolicy string  `yaml:"preemptionPolicy"`
	GlobalDefault    bool    `yaml:"globalDefault"`
	Origin           *Origin `yaml:"-"`
}

// Node is an entry of nodes, or the node an addNode event adds.
type Node struct {
	Line          int               `yaml:"-"`
	Name          string            `yaml:"name"`
	Labels        map[string]string `yaml:"labels"`
	Allocatable   map[string]string `yaml:"allocatable"`
	Taints        []Taint           `yaml:"taints"`
	Unschedulable bool              `yaml:"unschedulable"`
	Count         *int              `yaml:"count"`
	Origin        *Origin           `yaml:"-"`
}

// Taint is a node's taint.
type Taint struct {
	Key    string `yaml:"key"`
	Value  string `yaml:"value"`
	Effect string `yaml:"effect"`
}

// GroupCommon holds the fields PodGroups and CompositePodGroups share.
type GroupCommon struct {
	Line              int     `yaml:"-"`
	Name              string  `yaml:"name"`
	Namespace         string  `yaml:"namespace"`
	Parent            string  `yaml:"parent"`
	TopologyKey       string  `yaml:"topologyKey"`
	Priority          *int32  `yaml:"priority"`
	PriorityClassName string  `yaml:"priorityClassName"`
	PreemptionPolicy  string  `yaml:"preemptionPolicy"`
	DisruptionMode    string  `yaml:"disruptionMode"`
	Origin            *Origin `yaml:"-"`
}

// CompositePodGroup is an entry of compositePodGroups.
type CompositePodGroup struct {
	GroupCommon   `yaml:",inline"`
	MinGroupCount *int32 `yaml:"minGroupCount"`
}

// PodGroup is an entry of podGroups.
type PodGroup struct {
	GroupCommon `yaml:",inline"`
	MinCount    *int32 `yaml:"minCount"`
	// ResourceClaims are the group's claims its pods share (a pod uses one
	// by an entry equal to it), named or made once for the group from a
	// template.
	ResourceClaims []PodResourceClaim `yaml:"resourceClaims"`
}

// Budget is an entry of podDisruptionBudgets.
type Budget struct {
	Line      int    `yaml:"-"`
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
	// Selector is a label map ({app: web}) or a Kubernetes label selector
	// ({matchLabels: ..., matchExpressions: [...]}).
	Selector       *yaml.Node `yaml:"selector"`
	MinAvailable   *string    `yaml:"minAvailable"`
	MaxUnavailable *string    `yaml:"maxUnavailable"`
	Origin         *Origin    `yaml:"-"`
}

// Pod is an entry of pods, or a workload's pod template.
type Pod struct {
	Line      int               `yaml:"-"`
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
	Requests  map[string]string `yaml:"requests"`
	// Limits make the pod one container with these limits (a limit
	// without a request requests its limit).
	Limits            map[string]string `yaml:"limits"`
	Priority          *int32            `yaml:"priority"`
	PriorityClassName string            `yaml:"priorityClassName"`
	PreemptionPolicy  string            `yaml:"preemptionPolicy"`
	SchedulerName     string            `yaml:"schedulerName"`
	PodGroup          string            `yaml:"podGroup"`
	NodeName          string            `yaml:"nodeName"`
	NodeSelector      map[string]string `yaml:"nodeSelector"`
	Affinity          *Affinity         `yaml:"affinity"`
	Tolerations       []Toleration      `yaml:"tolerations"`
	// TopologySpreadConstraints are Kubernetes' spread constraints.
	TopologySpreadConstraints []Spread `yaml:"topologySpreadConstraints"`
	// Owner is the pod's controller; spreading's default constraints
	// select the pods with the same owner selector.
	Owner *Owner `yaml:"owner"`
	// ResourceClaims are the claims of devices the pod uses, by the name
	// it gives each.
	ResourceClaims []PodResourceClaim `yaml:"resourceClaims"`
	// SchedulingGates hold the pod pending until an ungatePod event
	// removes them, as Kubernetes' spec.schedulingGates.
	SchedulingGates []SchedulingGate `yaml:"schedulingGates"`
	// Annotations are read for Kueue's pod-set topology annotations
	// (kueue.x-k8s.io/podset-*-topology, podset-slice-size) and its pod
	// group's (kueue.x-k8s.io/pod-group-total-count, retriable-in-group,
	// pod-group-serving); others are kept and not read.
	Annotations map[string]string `yaml:"annotations"`
	At          string            `yaml:"at"`
	Duration    string            `yaml:"duration"`
	Count       *int              `yaml:"count"`

	Origin *Origin `yaml:"-"`
	// Controller is the controller that made an imported pod.
	Controller *cluster.Owner `yaml:"-"`
	// ResourceClaimStatuses are a Pod object's status.resourceClaimStatuses:
	// the claims the resourceclaim controller made for its template
	// entries (the importer sets them).
	ResourceClaimStatuses []PodResourceClaimStatus `yaml:"-"`
	// KeepRunning: an imported pod without a run time of its own runs
	// until it is deleted, whatever the run's default (an MPIJob's
	// worker, which serves ssh).
	KeepRunning bool `yaml:"-"`
	// ContainerClaims are the claims an imported pod's containers name
	// in resources.claims.
	ContainerClaims []ContainerClaim `yaml:"-"`
	// Resources are an imported pod's containers' requests and limits
	// (Requests is their total).
	Resources *cluster.PodResources `yaml:"-"`
}

// SchedulingGate is an entry of a pod's schedulingGates.
type SchedulingGate struct {
	Name string `yaml:"name"`
}

// GateNames lists the names of gates (nil for none).
func GateNames(gates []SchedulingGate) []string {
	if len(gates) == 0 {
		return nil
	}
	out := make([]string, len(gates))
	for i, g := range gates {
		out[i] = g.Name
	}
	return out
}

// Owner is a pod's owner as a scenario file gives it.
type Owner struct {
	Kind     string         `yaml:"kind"`
	Name     string         `yaml:"name"`
	Selector *LabelSelector `yaml:"selector"`
}

// Toleration is a pod's toleration.
type Toleration struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value"`
	Effect   string `yaml:"effect"`
	// TolerationSeconds (how long a pod stays on a node that gets a
	// NoExecute taint) is accepted and not modelled: the simulator has no
	// taint-based eviction.
	TolerationSeconds Unmodelled `yaml:"tolerationSeconds"`
}

// Event is an entry of events: a time and one action.
type Event struct {
	Line         int    `yaml:"-"`
	At           string `yaml:"at"`
	AddNode      *Node  `yaml:"addNode"`
	CordonNode   string `yaml:"cordonNode"`
	UncordonNode string `yaml:"uncordonNode"`
	RemoveNode   string `yaml:"removeNode"`
	DrainNode    string `yaml:"drainNode"`
	DeletePod    string `yaml:"deletePod"`
	UngatePod    string `yaml:"ungatePod"`
}

// Namespace is an entry of namespaces.
type Namespace struct {
	Line   int               `yaml:"-"`
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
	Origin *Origin           `yaml:"-"`
}

// CountNames are the names an entry with count expands to (a count out of
// range gives none: the builder reports it).
func CountNames(name string, count *int) []string {
	if count == nil {
		return []string{name}
	}
	var out []string
	for i := range max(*count, 0) { // the totals are checked already
		out = append(out, name+"-"+strconv.Itoa(i))
	}
	return out
}
