package gangsim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

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
			for i := range refs {
				if refs[i].Weight < 0 || refs[i].Weight > 100 {
					return nil, configError(field, "plugin %q weight %d is not in 1..100", refs[i].Name, refs[i].Weight)
				}
				if refs[i].Weight == 0 {
					refs[i].Weight = 1
				}
			}
		}
		if ep.name == "placementGenerate" && len(refs) > 1 {
			return nil, configError(field, "at most one placement generate plugin is allowed, got %d", len(refs))
		}
		rp.points[ep.name] = refs
	}
	return rp, nil
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
