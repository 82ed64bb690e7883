package gangsim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
)

// ErrConfig is wrapped by every Config.Validate error.
var ErrConfig = errors.New("gangsim: invalid config")

// PluginWeight enables a score plugin with a weight.
type PluginWeight struct {
	Name   string
	Weight int64
}

// ScoringStrategy is NodeResourcesFit's pluginConfig: the pod-by-pod
// scoring type and the resource weights (which placement scoring uses too).
type ScoringStrategy struct {
	Type      placement.ScoringType      // "" means LeastAllocated
	Resources []placement.ResourceWeight // empty means cpu 1, memory 1
}

// Config mirrors the KubeSchedulerConfiguration knobs the simulator
// models. Zero fields take kube-scheduler v1.37's defaults:
//
//   - SchedulerName: "default-scheduler"; pods naming another scheduler are
//     left pending, as another scheduler's pods are.
//   - ScoringStrategy: LeastAllocated over cpu 1, memory 1.
//   - ScorePlugins: TaintToleration 3, NodeResourcesFit 1,
//     NodeResourcesBalancedAllocation 1 (the default profile's score
//     plugins that act on what the model has). A non-empty list replaces
//     the default: a plugin left out is disabled. Weight 0 means 1.
//   - PlacementScorePlugins: NodeResourcesFit 1, PodGroupPodsCount 1 (the
//     placement scorers of topology-aware scheduling). A non-empty list
//     replaces the default; weight 0 means 1.
//   - PercentageOfNodesToScore: 0, adaptive (50 - nodes/125 percent, at
//     least 5%, at least 100 nodes); 100 scores every feasible node.
//   - PodInitialBackoff 1s, PodMaxBackoff 10s, MaxUnschedulable 5m.
type Config struct {
	SchedulerName            string
	ScoringStrategy          ScoringStrategy
	ScorePlugins             []PluginWeight
	PlacementScorePlugins    []PluginWeight
	PercentageOfNodesToScore int32
	PodInitialBackoff        time.Duration
	PodMaxBackoff            time.Duration
	MaxUnschedulable         time.Duration
	// MaxCycles is a safety cap on the cycles of one Run or RunUntil; 0
	// means 100 per pod and group known, at least 100,000. A simulation
	// that keeps evicting and rescheduling without converging stops with
	// ErrNoProgress instead of running forever.
	MaxCycles int
	// TerminationGracePeriod is how long an evicted pod keeps its node
	// before it is gone (nil: 30s, the pod default; point to 0 for
	// immediate removal).
	TerminationGracePeriod *time.Duration
}

// DefaultTerminationGracePeriod is the pod default of Kubernetes.
const DefaultTerminationGracePeriod = 30 * time.Second

func (c Config) gracePeriod() time.Duration {
	if c.TerminationGracePeriod == nil {
		return DefaultTerminationGracePeriod
	}
	return *c.TerminationGracePeriod
}

// Score plugin names accepted in Config.ScorePlugins.
var scorePluginNames = []string{placement.TaintTolerationName, placement.NodeResourcesFitName, placement.BalancedAllocationName}

// Placement score plugin names accepted in Config.PlacementScorePlugins.
var placementScorePluginNames = []string{placement.NodeResourcesFitName, placement.PodGroupPodsCountName}

// DefaultPlacementScorePlugins returns the default placement scorers.
func DefaultPlacementScorePlugins() []PluginWeight {
	return []PluginWeight{{placement.NodeResourcesFitName, 1}, {placement.PodGroupPodsCountName, 1}}
}

// DefaultScorePlugins returns the default profile's score plugins.
func DefaultScorePlugins() []PluginWeight {
	return []PluginWeight{
		{placement.TaintTolerationName, 3},
		{placement.NodeResourcesFitName, 1},
		{placement.BalancedAllocationName, 1},
	}
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.SchedulerName == "" {
		c.SchedulerName = cluster.DefaultSchedulerName
	}
	if c.ScoringStrategy.Type == "" {
		c.ScoringStrategy.Type = placement.LeastAllocated
	}
	if len(c.ScoringStrategy.Resources) == 0 {
		c.ScoringStrategy.Resources = placement.DefaultResourceWeights()
	}
	if len(c.ScorePlugins) == 0 {
		c.ScorePlugins = DefaultScorePlugins()
	}
	if len(c.PlacementScorePlugins) == 0 {
		c.PlacementScorePlugins = DefaultPlacementScorePlugins()
	}
	c.ScorePlugins = defaultWeights(c.ScorePlugins)
	c.PlacementScorePlugins = defaultWeights(c.PlacementScorePlugins)
	if c.PodInitialBackoff == 0 {
		c.PodInitialBackoff = time.Second
	}
	if c.PodMaxBackoff == 0 {
		c.PodMaxBackoff = 10 * time.Second
	}
	if c.MaxUnschedulable == 0 {
		c.MaxUnschedulable = 5 * time.Minute
	}
	return c
}

// defaultWeights copies ws with weight 0 replaced by 1, as kube-scheduler
// does.
func defaultWeights(ws []PluginWeight) []PluginWeight {
	ws = slices.Clone(ws)
	for i := range ws {
		if ws[i].Weight == 0 {
			ws[i].Weight = 1
		}
	}
	return ws
}

// Validate reports the first invalid setting, naming the field.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch c.ScoringStrategy.Type {
	case placement.LeastAllocated, placement.MostAllocated:
	default:
		return configError("scoringStrategy.type", "%q is not LeastAllocated or MostAllocated", c.ScoringStrategy.Type)
	}
	if err := validateResourceWeights(c.ScoringStrategy.Resources); err != nil {
		return err
	}
	if err := validatePluginWeights("scorePlugins", c.ScorePlugins, scorePluginNames); err != nil {
		return err
	}
	if err := validatePluginWeights("placementScore", c.PlacementScorePlugins, placementScorePluginNames); err != nil {
		return err
	}
	if c.PercentageOfNodesToScore < 0 || c.PercentageOfNodesToScore > 100 {
		return configError("percentageOfNodesToScore", "%d is not in 0..100", c.PercentageOfNodesToScore)
	}
	if c.PodInitialBackoff < 0 || c.PodMaxBackoff < c.PodInitialBackoff {
		return configError("podInitialBackoff", "%v and podMaxBackoff %v must satisfy 0 <= initial <= max", c.PodInitialBackoff, c.PodMaxBackoff)
	}
	if c.TerminationGracePeriod != nil && *c.TerminationGracePeriod < 0 {
		return configError("terminationGracePeriod", "%v is negative", *c.TerminationGracePeriod)
	}
	if c.MaxCycles < 0 {
		return configError("maxCycles", "%d is negative", c.MaxCycles)
	}
	if c.MaxUnschedulable < 0 {
		return configError("maxUnschedulable", "%v is negative", c.MaxUnschedulable)
	}
	return nil
}

// configError returns a Config.Validate error about field.
func configError(field, format string, args ...any) error {
	return &cluster.FieldError{Sentinel: ErrConfig, Field: field, Detail: fmt.Sprintf(format, args...)}
}

func validatePluginWeights(field string, ps []PluginWeight, known []string) error {
	seen := map[string]bool{}
	for i, p := range ps {
		switch {
		case !slices.Contains(known, p.Name):
			return configError(fmt.Sprintf("%s[%d].name", field, i), "%q is not one of %v", p.Name, known)
		case seen[p.Name]:
			return configError(fmt.Sprintf("%s[%d].name", field, i), "%q is listed twice", p.Name)
		case p.Weight < 0 || p.Weight > 100:
			return configError(fmt.Sprintf("%s[%d] (%s).weight", field, i, p.Name), "%d is not in 1..100", p.Weight)
		}
		seen[p.Name] = true
	}
	return nil
}

func validateResourceWeights(rs []placement.ResourceWeight) error {
	seen := map[cluster.ResourceName]bool{}
	for i, r := range rs {
		switch {
		case r.Name == "":
			return configError(fmt.Sprintf("scoringStrategy.resources[%d].name", i), "must not be empty")
		case seen[r.Name]:
			return configError(fmt.Sprintf("scoringStrategy.resources[%d].name", i), "%q is listed twice", r.Name)
		case r.Weight < 1 || r.Weight > 100:
			return configError(fmt.Sprintf("scoringStrategy.resources[%d] (%s).weight", i, r.Name), "%d is not in 1..100", r.Weight)
		}
		seen[r.Name] = true
	}
	return nil
}

// podScheduler builds the per-pod filter and score pipeline the config
// describes; the filters run in kube-scheduler's default order.
func (c Config) podScheduler() *placement.PodScheduler {
	filters := []placement.FilterPlugin{
		placement.NodeName{}, placement.NodeUnschedulable{}, placement.TaintToleration{},
		placement.NodeAffinity{}, placement.NewNodeResourcesFit(c.ScoringStrategy.Type, c.ScoringStrategy.Resources),
	}
	var scorers []placement.WeightedScorer
	for _, p := range c.ScorePlugins {
		var plugin placement.ScorePlugin
		switch p.Name {
		case placement.TaintTolerationName:
			plugin = placement.TaintToleration{}
		case placement.NodeResourcesFitName:
			plugin = placement.NewNodeResourcesFit(c.ScoringStrategy.Type, c.ScoringStrategy.Resources)
		case placement.BalancedAllocationName:
			plugin = placement.NewBalancedAllocation()
		}
		scorers = append(scorers, placement.WeightedScorer{Plugin: plugin, Weight: p.Weight})
	}
	return placement.NewPodScheduler(filters, scorers, c.PercentageOfNodesToScore)
}

// groupScheduler builds the PodGroup pipeline: the pod pipeline, the gang
// policy as PlacementFeasible, topology placement generation and the
// configured placement scorers.
func (c Config) groupScheduler(pods *placement.PodScheduler) *placement.GroupScheduler {
	gs := &placement.GroupScheduler{
		Pods:      pods,
		Feasible:  []placement.PlacementFeasiblePlugin{placement.GangScheduling{}},
		Generator: placement.NewTopologyPlacement(),
	}
	for _, p := range c.PlacementScorePlugins {
		var plugin placement.PlacementScorePlugin
		switch p.Name {
		case placement.NodeResourcesFitName:
			plugin = &placement.PlacementResourcesFit{Resources: c.ScoringStrategy.Resources}
		case placement.PodGroupPodsCountName:
			plugin = placement.PodGroupPodsCount{}
		}
		gs.Scorers = append(gs.Scorers, placement.WeightedPlacementScorer{Plugin: plugin, Weight: p.Weight})
	}
	return gs
}
