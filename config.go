package gangsim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ErrConfig is wrapped by every Config.Validate error.
var ErrConfig = errors.New("gangsim: invalid config")

// Config mirrors the KubeSchedulerConfiguration knobs the simulator
// models. Zero fields take kube-scheduler v1.37's defaults:
//
//   - Profiles: one profile, "default-scheduler", with the default plugins
//     (DefaultProfile). Pods pick a profile by their schedulerName; a pod
//     naming a scheduler no profile has stays pending, as another
//     scheduler's pods do.
//   - PercentageOfNodesToScore: 0, adaptive (50 - nodes/125 percent, at
//     least 5%, at least 100 nodes); 100 scores every feasible node. A
//     profile may override it.
//   - PodInitialBackoff 1s, PodMaxBackoff 10s, MaxUnschedulable 5m.
type Config struct {
	Profiles                 []Profile
	PercentageOfNodesToScore int32
	PodInitialBackoff        time.Duration
	PodMaxBackoff            time.Duration
	MaxUnschedulable         time.Duration
	// MaxCycles is a safety cap for a simulation that never settles: a
	// Run or RunUntil stops with ErrNoProgress after this many cycles at
	// one simulated instant, or this many evictions since the simulation
	// began (over every call). 0 means 100 per pod
	// and group known, at least 100,000. A busy cluster retrying its
	// pending pods for days, or a quiet one waiting for a far event, never
	// reaches it.
	MaxCycles int
	// TerminationGracePeriod is how long an evicted pod keeps its node
	// before it is gone (nil: 30s, the pod default; point to 0 for
	// immediate removal).
	TerminationGracePeriod *time.Duration
	// CheckInvariants runs Scheduler.CheckInvariants after every cycle and
	// timer, and CheckQuiescent when Run ends; a violation stops the run
	// with ErrInvariant. For tests: it costs a pass over the cluster each
	// time.
	CheckInvariants bool
}

// DefaultTerminationGracePeriod is the pod default of Kubernetes.
const DefaultTerminationGracePeriod = 30 * time.Second

func (c Config) gracePeriod() time.Duration {
	if c.TerminationGracePeriod == nil {
		return DefaultTerminationGracePeriod
	}
	return *c.TerminationGracePeriod
}

// clone returns c with its own profiles and pointers; plugin arguments are
// shared.
func (c Config) clone() Config {
	if c.TerminationGracePeriod != nil {
		c.TerminationGracePeriod = new(*c.TerminationGracePeriod)
	}
	c.Profiles = slices.Clone(c.Profiles)
	for i := range c.Profiles {
		p := &c.Profiles[i]
		if p.Plugins != nil {
			p.Plugins = new(p.Plugins.clone())
		}
		p.PluginConfig = slices.Clone(p.PluginConfig)
		if p.PercentageOfNodesToScore != nil {
			p.PercentageOfNodesToScore = new(*p.PercentageOfNodesToScore)
		}
	}
	return c
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if len(c.Profiles) == 0 {
		c.Profiles = []Profile{DefaultProfile()}
	}
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

// Validate reports the first invalid setting, naming the field. Plugin
// names and arguments are checked against the default registry; New
// checks them against the registry it is given.
func (c Config) Validate() error { return c.validate(DefaultRegistry()) }

func (c Config) validate(reg fw.Registry) error {
	c = c.WithDefaults()
	if c.PercentageOfNodesToScore < 0 || c.PercentageOfNodesToScore > 100 {
		return configError("percentageOfNodesToScore", "%d is not in 0..100", c.PercentageOfNodesToScore)
	}
	if c.PodInitialBackoff < 0 || c.PodMaxBackoff < c.PodInitialBackoff {
		return configError("podInitialBackoff", "%v and podMaxBackoff %v must satisfy 0 <= initial <= max", c.PodInitialBackoff, c.PodMaxBackoff)
	}
	if c.PodMaxBackoff > MaxSimulatedTime {
		return configError("podMaxBackoff", "%v is beyond the largest simulated time, %v", c.PodMaxBackoff, MaxSimulatedTime)
	}
	if c.TerminationGracePeriod != nil && (*c.TerminationGracePeriod < 0 || *c.TerminationGracePeriod > MaxSimulatedTime) {
		return configError("terminationGracePeriod", "%v is not in 0..%v", *c.TerminationGracePeriod, MaxSimulatedTime)
	}
	if c.MaxUnschedulable > MaxSimulatedTime {
		return configError("maxUnschedulable", "%v is beyond the largest simulated time, %v", c.MaxUnschedulable, MaxSimulatedTime)
	}
	if c.MaxCycles < 0 {
		return configError("maxCycles", "%d is negative", c.MaxCycles)
	}
	if c.MaxUnschedulable < 0 {
		return configError("maxUnschedulable", "%v is negative", c.MaxUnschedulable)
	}
	names := map[string]bool{}
	for i := range c.Profiles {
		p := &c.Profiles[i]
		where := fmt.Sprintf("profiles[%d]", i)
		name := p.schedulerName()
		if names[name] {
			return configError(where+".schedulerName", "%q is used by two profiles", name)
		}
		names[name] = true
		if pct := p.PercentageOfNodesToScore; pct != nil && (*pct < 0 || *pct > 100) {
			return configError(where+".percentageOfNodesToScore", "%d is not in 0..100", *pct)
		}
		if _, err := resolveProfile(p, reg, where); err != nil {
			return err
		}
	}
	return nil
}

// configError returns a Config.Validate error about field.
func configError(field, format string, args ...any) error {
	return &cluster.FieldError{Sentinel: ErrConfig, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// Profile is one scheduling profile, shaped as KubeSchedulerConfiguration's
// profiles: a scheduler name pods select it by, the plugins enabled and
// disabled per extension point (merged onto the default plugins as
// kube-scheduler merges them), and plugin arguments.
type Profile struct {
	SchedulerName string // "" means default-scheduler
	// Plugins changes the default plugin set (nil keeps it).
	Plugins *Plugins
	// PluginConfig gives plugins their arguments, by plugin name.
	PluginConfig []PluginConfig
	// PercentageOfNodesToScore overrides the Config's for this profile.
	PercentageOfNodesToScore *int32
}

// Plugins are the plugin sets of each extension point. MultiPoint enables
// a plugin at every point it implements.
type Plugins struct {
	MultiPoint         PluginSet
	PreEnqueue         PluginSet
	PreFilter          PluginSet
	Filter             PluginSet
	PostFilter         PluginSet
	PreScore           PluginSet
	Score              PluginSet
	Reserve            PluginSet
	PlacementGenerate  PluginSet
	PlacementFeasible  PluginSet
	PlacementScore     PluginSet
	PodGroupPostFilter PluginSet
}

// clone returns a copy of p with its own lists.
func (p *Plugins) clone() Plugins {
	c := *p
	for _, set := range []*PluginSet{&c.MultiPoint, &c.PreEnqueue, &c.PreFilter, &c.Filter, &c.PostFilter, &c.PreScore, &c.Score, &c.Reserve,
		&c.PlacementGenerate, &c.PlacementFeasible, &c.PlacementScore, &c.PodGroupPostFilter} {
		set.Enabled, set.Disabled = slices.Clone(set.Enabled), slices.Clone(set.Disabled)
	}
	return c
}

// PluginSet enables and disables plugins at one extension point. A
// disabled entry named "*" disables every default plugin there.
type PluginSet struct {
	Enabled  []PluginRef
	Disabled []PluginRef
}

// PluginRef names a plugin, with its weight where the point scores (Score,
// PlacementScore; 0 means 1).
type PluginRef struct {
	Name   string
	Weight int32
}

// PluginConfig gives one plugin its arguments: a value of the type the
// plugin's factory declares (PluginFactory.Args).
type PluginConfig struct {
	Name string
	Args any
}

// DefaultProfile returns kube-scheduler v1.37's default profile, for what
// the model has: the default plugins, default arguments.
func DefaultProfile() Profile { return Profile{SchedulerName: cluster.DefaultSchedulerName} }

// DefaultPlugins are kube-scheduler v1.37's default MultiPoint plugins that
// act on what the model has, in kube-scheduler's order, with the workload
// gates on (GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount).
func DefaultPlugins() []PluginRef {
	return []PluginRef{
		{Name: "SchedulingGates"},
		{Name: "NodeName"},
		{Name: "NodeUnschedulable"},
		{Name: "TaintToleration", Weight: 3},
		{Name: "NodeAffinity", Weight: 2},
		{Name: "NodeResourcesFit", Weight: 1},
		{Name: "PodTopologySpread", Weight: 2},
		{Name: "InterPodAffinity", Weight: 2},
		{Name: "DynamicResources", Weight: 2},
		{Name: "DefaultPreemption"},
		{Name: "NodeResourcesBalancedAllocation", Weight: 1},
		{Name: "GangScheduling"},
		{Name: "TopologyPlacementGenerator"},
		{Name: "PodGroupPodsCount", Weight: 1},
	}
}

func (p *Profile) schedulerName() string {
	if p.SchedulerName == "" {
		return cluster.DefaultSchedulerName
	}
	return p.SchedulerName
}

// extensionPoint names one point, reads its set, and tells whether a
// plugin implements it.
type extensionPoint struct {
	name       string
	set        func(*Plugins) *PluginSet
	implements func(fw.Plugin) bool
	weighted   bool
}

func is[T any](p fw.Plugin) bool { _, ok := p.(T); return ok }

var extensionPoints = []extensionPoint{
	{"preEnqueue", func(p *Plugins) *PluginSet { return &p.PreEnqueue }, is[fw.PreEnqueuePlugin], false},
	{"preFilter", func(p *Plugins) *PluginSet { return &p.PreFilter }, is[fw.PreFilterPlugin], false},
	{"filter", func(p *Plugins) *PluginSet { return &p.Filter }, is[fw.FilterPlugin], false},
	{"postFilter", func(p *Plugins) *PluginSet { return &p.PostFilter }, is[fw.PostFilterPlugin], false},
	{"preScore", func(p *Plugins) *PluginSet { return &p.PreScore }, is[fw.PreScorePlugin], false},
	{"score", func(p *Plugins) *PluginSet { return &p.Score }, is[fw.ScorePlugin], true},
	{"reserve", func(p *Plugins) *PluginSet { return &p.Reserve }, is[fw.ReservePlugin], false},
	{"placementGenerate", func(p *Plugins) *PluginSet { return &p.PlacementGenerate }, is[fw.PlacementGeneratePlugin], false},
	{"placementFeasible", func(p *Plugins) *PluginSet { return &p.PlacementFeasible }, is[fw.PlacementFeasiblePlugin], false},
	{"placementScore", func(p *Plugins) *PluginSet { return &p.PlacementScore }, is[fw.PlacementScorePlugin], true},
	{"podGroupPostFilter", func(p *Plugins) *PluginSet { return &p.PodGroupPostFilter }, is[fw.PodGroupPostFilterPlugin], false},
}

// resolvedProfile is a profile's plugins by extension point, in order,
// with weights; plugins are instantiated once and shared between points.
type resolvedProfile struct {
	name      string
	instances map[string]fw.Plugin
	points    map[string][]PluginRef // by extension point name
	args      map[string]any
}

// resolveProfile merges p onto the defaults and checks names, points and
// arguments against reg. It instantiates nothing.
func resolveProfile(p *Profile, reg fw.Registry, where string) (*resolvedProfile, error) {
	rp := &resolvedProfile{name: p.schedulerName(), points: map[string][]PluginRef{}, args: map[string]any{}}
	for i, pc := range p.PluginConfig {
		field := fmt.Sprintf("%s.pluginConfig[%d]", where, i)
		if _, ok := reg[pc.Name]; !ok {
			return nil, configError(field+".name", "%q is not a registered plugin (known: %v)", pc.Name, reg.Names())
		}
		if _, dup := rp.args[pc.Name]; dup {
			return nil, configError(field+".name", "%q is configured twice", pc.Name)
		}
		if _, err := reg[pc.Name].New(pc.Args, nil); err != nil {
			var fe *cluster.FieldError
			if errors.As(err, &fe) {
				return nil, configError(cluster.JoinField(field+".args", fe.Field), "%s", fe.Detail)
			}
			return nil, configError(field+".args", "%v", err)
		}
		rp.args[pc.Name] = pc.Args
	}
	var custom Plugins
	if p.Plugins != nil {
		custom = *p.Plugins
	}
	multi := mergeSet(DefaultPlugins(), custom.MultiPoint)
	if err := rp.checkNames(reg, where+".plugins.multiPoint", multi); err != nil {
		return nil, err
	}
	for _, ep := range extensionPoints {
		if err := rp.checkNames(reg, where+".plugins."+ep.name, ep.set(&custom).Enabled); err != nil {
			return nil, err
		}
	}
	probe, err := probePlugins(reg, rp, multi, &custom)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	for _, ep := range extensionPoints {
		set := ep.set(&custom)
		field := where + ".plugins." + ep.name
		for _, ref := range set.Enabled {
			if !ep.implements(probe[ref.Name]) {
				return nil, configError(field+".enabled", "plugin %q does not extend the %s extension point", ref.Name, ep.name)
			}
		}
		refs := expand(ep, set, multi, probe)
		if ep.weighted {
			if err := checkWeights(field, refs); err != nil {
				return nil, err
			}
		}
		if ep.name == "placementGenerate" && len(refs) > 1 {
			return nil, configError(field, "at most one placement generate plugin is allowed, got %d", len(refs))
		}
		rp.points[ep.name] = refs
	}
	return rp, nil
}

// maxNodeScore is the most a score plugin gives a node (kube's
// MaxNodeScore); the weights times it must add up within int64.
const maxNodeScore = 100

// checkWeights sets a weight of 0 to 1 and checks the weights of one
// extension point as kube-scheduler's framework does: no weight may be
// negative, and the weights times maxNodeScore must add up within int64
// (kube refuses "total score of Score plugins could overflow"). There is
// no other upper bound: a weight of 1000 is as valid as in kube.
func checkWeights(field string, refs []PluginRef) error {
	var total int64
	for i := range refs {
		switch w := refs[i].Weight; {
		case w < 0:
			return configError(field, "plugin %q weight %d is negative (0 means 1)", refs[i].Name, w)
		case w == 0:
			refs[i].Weight = 1
		}
		w := int64(refs[i].Weight) * maxNodeScore
		if w > math.MaxInt64-total {
			return configError(field, "plugin %q weight %d: the total score of the plugins could overflow", refs[i].Name, refs[i].Weight)
		}
		total += w
	}
	return nil
}

// checkNames checks that every plugin named is registered.
func (rp *resolvedProfile) checkNames(reg fw.Registry, field string, refs []PluginRef) error {
	for i, ref := range refs {
		if _, ok := reg[ref.Name]; !ok {
			return configError(fmt.Sprintf("%s.enabled[%d].name", field, i), "%q is not a registered plugin (known: %v)", ref.Name, reg.Names())
		}
	}
	return nil
}

// probePlugins builds one throwaway instance of every plugin the profile
// names, to learn which extension points each implements; the arguments
// are checked on the way.
func probePlugins(reg fw.Registry, rp *resolvedProfile, multi []PluginRef, custom *Plugins) (map[string]fw.Plugin, error) {
	out := map[string]fw.Plugin{}
	add := func(name string) error {
		if _, done := out[name]; done {
			return nil
		}
		pl, err := reg[name].New(rp.args[name], nil)
		if err != nil {
			return &cluster.FieldError{Sentinel: ErrConfig, Field: "pluginConfig", Detail: fmt.Sprintf("plugin %q: %v", name, err)}
		}
		out[name] = pl
		return nil
	}
	for _, ref := range multi {
		if err := add(ref.Name); err != nil {
			return nil, err
		}
	}
	for _, ep := range extensionPoints {
		for _, ref := range ep.set(custom).Enabled {
			if err := add(ref.Name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// mergeSet applies a custom set onto default refs as kube-scheduler's
// mergePluginSet does: defaults not disabled keep their place (a custom
// entry of the same name replaces one in place), then the other custom
// entries follow.
func mergeSet(defaults []PluginRef, custom PluginSet) []PluginRef {
	disabled := map[string]bool{}
	for _, d := range custom.Disabled {
		disabled[d.Name] = true
	}
	var out []PluginRef
	replaced := map[string]bool{}
	for _, d := range defaults {
		if disabled["*"] || disabled[d.Name] {
			continue
		}
		if i := slices.IndexFunc(custom.Enabled, func(r PluginRef) bool { return r.Name == d.Name }); i >= 0 {
			d = custom.Enabled[i]
			replaced[d.Name] = true
		}
		out = append(out, d)
	}
	for _, c := range custom.Enabled {
		if !replaced[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// expand builds one extension point's list as kube-scheduler's
// expandMultiPointPlugins does: the plugins enabled at the point itself
// first, in their order, then the MultiPoint plugins that implement the
// point and are neither disabled there nor already listed.
func expand(ep extensionPoint, set *PluginSet, multi []PluginRef, probe map[string]fw.Plugin) []PluginRef {
	disabled := map[string]bool{}
	for _, d := range set.Disabled {
		disabled[d.Name] = true
	}
	out := slices.Clone(set.Enabled)
	if disabled["*"] {
		return out
	}
	for _, ref := range multi {
		if !ep.implements(probe[ref.Name]) || disabled[ref.Name] {
			continue
		}
		if slices.ContainsFunc(out, func(r PluginRef) bool { return r.Name == ref.Name }) {
			continue
		}
		out = append(out, ref)
	}
	return out
}
