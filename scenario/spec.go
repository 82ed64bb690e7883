package scenario

import (
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
)

// The scenario file schema (docs/scenario-format.md). Field tags are the
// file's names; decodeStrict rejects anything else. A struct's Line field
// (tag "-") receives the line of the mapping it was decoded from.
// Unexported fields (src, ...) are set only for entries made from
// Kubernetes objects (kube*.go), never read from a file.
type file struct {
	Config             *configSpec         `yaml:"config"`
	PriorityClasses    []priorityClassSpec `yaml:"priorityClasses"`
	Nodes              []nodeSpec          `yaml:"nodes"`
	CompositePodGroups []compositeSpec     `yaml:"compositePodGroups"`
	PodGroups          []podGroupSpec      `yaml:"podGroups"`
	Budgets            []budgetSpec        `yaml:"podDisruptionBudgets"`
	Pods               []podSpec           `yaml:"pods"`
	Events             []eventSpec         `yaml:"events"`
	// Namespaces give namespaces labels, for namespace selectors.
	Namespaces []namespaceSpec `yaml:"namespaces"`
	// Explain names pods whose placement the result explains, node by
	// node and plugin by plugin.
	Explain []string `yaml:"explain"`
	// Workloads are templates expanded into pods and PodGroups
	// (workloads.go).
	Workloads []workloadSpec `yaml:"workloads"`
}

type configSpec struct {
	Line int `yaml:"-"`
	// ScoringStrategy and PlacementScore are shorthands for the default
	// profile's NodeResourcesFit arguments and placement score plugins.
	ScoringStrategy *yaml.Node     `yaml:"scoringStrategy"`
	PlacementScore  []weightedSpec `yaml:"placementScore"`
	// Profiles are KubeSchedulerConfiguration's profiles.
	Profiles []profileSpec `yaml:"profiles"`
	// TerminationGracePeriod: how long a preemption victim keeps its node
	// ("30s" by default).
	TerminationGracePeriod *string `yaml:"terminationGracePeriod"`
	// PercentageOfNodesToScore: kube-scheduler's knob (0 adaptive, 100
	// every node).
	PercentageOfNodesToScore *int32 `yaml:"percentageOfNodesToScore"`

	src                        *kubeSource
	initialBackoff, maxBackoff *time.Duration // KubeSchedulerConfiguration's
}

type weightedSpec struct {
	Name   string `yaml:"name"`
	Weight int32  `yaml:"weight"`
}

// profileSpec is a kubescheduler.config.k8s.io/v1 profile.
type profileSpec struct {
	Line                     int                `yaml:"-"`
	SchedulerName            string             `yaml:"schedulerName"`
	PercentageOfNodesToScore *int32             `yaml:"percentageOfNodesToScore"`
	Plugins                  *pluginsSpec       `yaml:"plugins"`
	PluginConfig             []pluginConfigSpec `yaml:"pluginConfig"`
}

type pluginsSpec struct {
	MultiPoint         *pluginSetSpec `yaml:"multiPoint"`
	PreFilter          *pluginSetSpec `yaml:"preFilter"`
	Filter             *pluginSetSpec `yaml:"filter"`
	PostFilter         *pluginSetSpec `yaml:"postFilter"`
	PreScore           *pluginSetSpec `yaml:"preScore"`
	Score              *pluginSetSpec `yaml:"score"`
	PlacementGenerate  *pluginSetSpec `yaml:"placementGenerate"`
	PlacementFeasible  *pluginSetSpec `yaml:"placementFeasible"`
	PlacementScore     *pluginSetSpec `yaml:"placementScore"`
	PodGroupPostFilter *pluginSetSpec `yaml:"podGroupPostFilter"`
}

type pluginSetSpec struct {
	Enabled  []weightedSpec `yaml:"enabled"`
	Disabled []weightedSpec `yaml:"disabled"`
}

type pluginConfigSpec struct {
	Line int        `yaml:"-"`
	Name string     `yaml:"name"`
	Args *yaml.Node `yaml:"args"`
}

type priorityClassSpec struct {
	Line             int    `yaml:"-"`
	Name             string `yaml:"name"`
	Value            int32  `yaml:"value"`
	PreemptionPolicy string `yaml:"preemptionPolicy"`
	GlobalDefault    bool   `yaml:"globalDefault"`
	src              *kubeSource
}

type nodeSpec struct {
	Line          int               `yaml:"-"`
	Name          string            `yaml:"name"`
	Labels        map[string]string `yaml:"labels"`
	Allocatable   map[string]string `yaml:"allocatable"`
	Taints        []taintSpec       `yaml:"taints"`
	Unschedulable bool              `yaml:"unschedulable"`
	Count         *int              `yaml:"count"`
	src           *kubeSource
}

type taintSpec struct {
	Key    string `yaml:"key"`
	Value  string `yaml:"value"`
	Effect string `yaml:"effect"`
}

type groupCommon struct {
	Line              int    `yaml:"-"`
	Name              string `yaml:"name"`
	Namespace         string `yaml:"namespace"`
	Parent            string `yaml:"parent"`
	TopologyKey       string `yaml:"topologyKey"`
	Priority          *int32 `yaml:"priority"`
	PriorityClassName string `yaml:"priorityClassName"`
	PreemptionPolicy  string `yaml:"preemptionPolicy"`
	DisruptionMode    string `yaml:"disruptionMode"`
	src               *kubeSource
}

type compositeSpec struct {
	groupCommon   `yaml:",inline"`
	MinGroupCount *int32 `yaml:"minGroupCount"`
}

type podGroupSpec struct {
	groupCommon `yaml:",inline"`
	MinCount    *int32 `yaml:"minCount"`
}

type budgetSpec struct {
	Line      int    `yaml:"-"`
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
	// Selector is a label map ({app: web}) or a Kubernetes label selector
	// ({matchLabels: ..., matchExpressions: [...]}).
	Selector       *yaml.Node `yaml:"selector"`
	MinAvailable   *string    `yaml:"minAvailable"`
	MaxUnavailable *string    `yaml:"maxUnavailable"`
	src            *kubeSource
}

type podSpec struct {
	Line              int               `yaml:"-"`
	Name              string            `yaml:"name"`
	Namespace         string            `yaml:"namespace"`
	Labels            map[string]string `yaml:"labels"`
	Requests          map[string]string `yaml:"requests"`
	Priority          *int32            `yaml:"priority"`
	PriorityClassName string            `yaml:"priorityClassName"`
	PreemptionPolicy  string            `yaml:"preemptionPolicy"`
	SchedulerName     string            `yaml:"schedulerName"`
	PodGroup          string            `yaml:"podGroup"`
	NodeName          string            `yaml:"nodeName"`
	NodeSelector      map[string]string `yaml:"nodeSelector"`
	Affinity          *affinitySpec     `yaml:"affinity"`
	Tolerations       []tolerationSpec  `yaml:"tolerations"`
	// TopologySpreadConstraints are Kubernetes' spread constraints.
	TopologySpreadConstraints []spreadSpec `yaml:"topologySpreadConstraints"`
	// Owner is the pod's controller; spreading's default constraints
	// select the pods with the same owner selector.
	Owner    *ownerSpec `yaml:"owner"`
	At       string     `yaml:"at"`
	Duration string     `yaml:"duration"`
	Count    *int       `yaml:"count"`

	src   *kubeSource
	owner *cluster.Owner // the controller that made an imported pod
}

type ownerSpec struct {
	Kind     string             `yaml:"kind"`
	Name     string             `yaml:"name"`
	Selector *labelSelectorSpec `yaml:"selector"`
}

type tolerationSpec struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value"`
	Effect   string `yaml:"effect"`
	// TolerationSeconds (how long a pod stays on a node that gets a
	// NoExecute taint) is accepted and not modelled: the simulator has no
	// taint-based eviction.
	TolerationSeconds unmodelled `yaml:"tolerationSeconds"`
}

type eventSpec struct {
	Line         int       `yaml:"-"`
	At           string    `yaml:"at"`
	AddNode      *nodeSpec `yaml:"addNode"`
	CordonNode   string    `yaml:"cordonNode"`
	UncordonNode string    `yaml:"uncordonNode"`
	RemoveNode   string    `yaml:"removeNode"`
	DrainNode    string    `yaml:"drainNode"`
	DeletePod    string    `yaml:"deletePod"`
}

type namespaceSpec struct {
	Line   int               `yaml:"-"`
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
	src    *kubeSource
}
