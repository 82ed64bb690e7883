package podtopologyspread

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "PodTopologySpread"

// The defaulting types of Args.
const (
	SpreadDefaultingSystem = "System"
	SpreadDefaultingList   = "List"
)

// Kubernetes' well-known topology labels.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelZone     = "topology.kubernetes.io/zone"
)

// Args configure PodTopologySpread: the constraints given
// to pods that have none of their own.
type Args struct {
	// DefaultingType is System (the default: spread over hostnames with
	// maxSkew 3 and zones with maxSkew 5, both ScheduleAnyway) or List
	// (DefaultConstraints).
	DefaultingType     string                    `yaml:"defaultingType"`
	DefaultConstraints []DefaultSpreadConstraint `yaml:"defaultConstraints"`
}

// DefaultSpreadConstraint is a constraint given to pods without their own;
// its selector is the one of the pod's owner.
type DefaultSpreadConstraint struct {
	MaxSkew            int32  `yaml:"maxSkew"`
	TopologyKey        string `yaml:"topologyKey"`
	WhenUnsatisfiable  string `yaml:"whenUnsatisfiable"`
	MinDomains         *int32 `yaml:"minDomains"`
	NodeAffinityPolicy string `yaml:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string `yaml:"nodeTaintsPolicy"`
}

// systemDefaultConstraints are kube-scheduler's System defaults.
var systemDefaultConstraints = []cluster.TopologySpreadConstraint{
	{TopologyKey: LabelHostname, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: LabelZone, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 5},
}

// Validate checks the arguments; its errors name the field.
func (a *Args) Validate() error {
	if a == nil {
		return nil
	}
	switch a.DefaultingType {
	case "", SpreadDefaultingSystem:
		if len(a.DefaultConstraints) > 0 {
			return fw.ArgError("defaultConstraints", "must be empty when defaultingType is System")
		}
		return nil
	case SpreadDefaultingList:
	default:
		return fw.ArgError("defaultingType", "%q is not System or List", a.DefaultingType)
	}
	if field, detail := cluster.ValidateSpread("defaultConstraints", a.constraints()); detail != "" {
		return fw.ArgError(field, "%s", detail)
	}
	return nil
}

// constraints returns the default constraints as the pod-level type.
func (a *Args) constraints() []cluster.TopologySpreadConstraint {
	var out []cluster.TopologySpreadConstraint
	for _, d := range a.DefaultConstraints {
		out = append(out, cluster.TopologySpreadConstraint{
			MaxSkew: d.MaxSkew, TopologyKey: d.TopologyKey, WhenUnsatisfiable: d.WhenUnsatisfiable,
			MinDomains: d.MinDomains, NodeAffinityPolicy: d.NodeAffinityPolicy, NodeTaintsPolicy: d.NodeTaintsPolicy,
		})
	}
	return out
}

// PodTopologySpread spreads pods matching a selector over the domains of a
// topology key, as kube-scheduler's plugin of that name does.
//
// Filter (whenUnsatisfiable DoNotSchedule): a node is rejected when the
// matching pods in its domain, plus the pod itself if it matches, would
// exceed the least populated domain's count by more than maxSkew (the
// least counts as 0 while fewer than minDomains domains exist). Domains
// are made of the nodes that carry every constraint's key and pass the
// inclusion policies (the pod's node affinity is honoured and taints are
// ignored unless the constraint says otherwise); only pods of the pod's
// namespace that are not terminating count.
//
// Score (ScheduleAnyway): fewer matching pods in a node's domains score
// higher, each constraint weighted by the log of its number of domains.
//
// A pod without constraints of its own gets the default ones, selecting
// the pods of its owner (ReplicaSet, StatefulSet, ReplicationController);
// one without such an owner gets none.
type PodTopologySpread struct {
	snapshots       helper.SnapshotSource
	defaults        []cluster.TopologySpreadConstraint
	systemDefaulted bool
	cache           helper.TopologyCache
	sig             []byte
}

var statusSkip = fw.NewStatus(fw.Skip)

var (
	_ fw.Stateless           = (*PodTopologySpread)(nil)
	_ fw.EnqueueExtensions   = (*PodTopologySpread)(nil)
	_ fw.PreScoreSkipper     = (*PodTopologySpread)(nil)
	_ fw.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ fw.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ fw.FilterPlugin        = (*PodTopologySpread)(nil)
	_ fw.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ fw.ScorePlugin         = (*PodTopologySpread)(nil)
	_ fw.ScoreNormalizer     = (*PodTopologySpread)(nil)
)

// New builds the plugin from its arguments (nil, an Args or an *Args),
// reading the cycle's snapshot through h, as the registry does.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[Args](args)
	if err != nil {
		return nil, err
	}
	return NewPodTopologySpread(a, h)
}

// NewArgs returns the default arguments, for a loader to decode a file's
// arguments into.
func NewArgs() any { return &Args{} }

// EventsToRegister: every change of pods or nodes moves the counts per
// domain and the domains themselves.
func (*PodTopologySpread) EventsToRegister() fw.ClusterEvent { return fw.AllEvents }

// NewPodTopologySpread returns the plugin configured by a (nil: System
// defaults), reading the cycle's snapshot from snapshots.
func NewPodTopologySpread(a *Args, snapshots helper.SnapshotSource) (*PodTopologySpread, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	p := &PodTopologySpread{snapshots: snapshots, defaults: systemDefaultConstraints, systemDefaulted: true}
	if a != nil && a.DefaultingType == SpreadDefaultingList {
		p.defaults, p.systemDefaulted = a.constraints(), false
	}
	return p, nil
}

// Stateless declares that the plugin's answers depend on the pod, the
// snapshot and the nominations alone: its counts are a cache of the snapshot.
func (*PodTopologySpread) Stateless() {}

// Name returns Name.
func (*PodTopologySpread) Name() string { return Name }

// PodLocalFor reports that the plugin does nothing for the pod: it has
// no spread constraints, its own or defaults (framework.PodLocal).
func (pl *PodTopologySpread) PodLocalFor(pod *cluster.PodInfo, _ *cluster.Snapshot) bool {
	// constraintsOf's answer is empty exactly then, told without building
	// the constraints (asked for every member of a gang at each retry)
	p := pod.Pod()
	return len(p.TopologySpreadConstraints) == 0 && (len(pl.defaults) == 0 || defaultSelector(p) == nil)
}

var _ fw.PodLocal = (*PodTopologySpread)(nil)
