package gangsim

import (
	"fmt"
	"maps"
	"slices"

	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/preemption"
	"github.com/gangsim/gangsim/queue"
)

// PluginFactory builds a plugin. A profile instantiates each plugin it
// enables once and uses that instance at every extension point.
type PluginFactory struct {
	// New builds the plugin from its arguments (nil: the plugin's
	// defaults; otherwise a value as Args returns, or the same type as a
	// value) and the scheduler's handle (nil while a configuration is only
	// checked: the plugin must not use it then).
	New func(args any, h fw.Handle) (fw.Plugin, error)
	// Args returns a new arguments value holding the defaults, for
	// loaders to decode a file's arguments into; nil for a plugin without
	// arguments.
	Args func() any
}

// Registry maps plugin names to their factories.
type Registry map[string]PluginFactory

// Names returns the registered names in order.
func (r Registry) Names() []string { return slices.Sorted(maps.Keys(r)) }

// DefaultRegistry returns the built-in plugins.
func DefaultRegistry() Registry {
	plain := func(p fw.Plugin) PluginFactory {
		return PluginFactory{New: func(any, fw.Handle) (fw.Plugin, error) { return p, nil }}
	}
	return Registry{
		placement.NodeNameName:          plain(placement.NodeName{}),
		placement.NodeUnschedulableName: plain(placement.NodeUnschedulable{}),
		placement.TaintTolerationName:   plain(placement.TaintToleration{}),
		placement.NodeAffinityName:      plain(placement.NodeAffinity{}),
		placement.NodeResourcesFitName: {
			New: func(args any, _ fw.Handle) (fw.Plugin, error) {
				a, err := argsAs[placement.NodeResourcesFitArgs](args)
				if err != nil {
					return nil, err
				}
				return placement.NewNodeResourcesFitFromArgs(a)
			},
			Args: func() any { return &placement.NodeResourcesFitArgs{} },
		},
		placement.PodTopologySpreadName: {
			New: func(args any, h fw.Handle) (fw.Plugin, error) {
				a, err := argsAs[placement.PodTopologySpreadArgs](args)
				if err != nil {
					return nil, err
				}
				return placement.NewPodTopologySpread(a, h)
			},
			Args: func() any { return &placement.PodTopologySpreadArgs{} },
		},
		placement.InterPodAffinityName: {
			New: func(args any, h fw.Handle) (fw.Plugin, error) {
				a, err := argsAs[placement.InterPodAffinityArgs](args)
				if err != nil {
					return nil, err
				}
				return placement.NewInterPodAffinity(a, h)
			},
			Args: func() any { return &placement.InterPodAffinityArgs{} },
		},
		placement.BalancedAllocationName: {New: func(any, fw.Handle) (fw.Plugin, error) { return placement.NewBalancedAllocation(), nil }},
		placement.GangSchedulingName:     plain(placement.GangScheduling{}),
		placement.TopologyPlacementName: {New: func(any, fw.Handle) (fw.Plugin, error) {
			return placement.NewTopologyPlacement(), nil // caches per scheduler: a new one each time
		}},
		placement.PodGroupPodsCountName: plain(placement.PodGroupPodsCount{}),
		preemption.Name: {New: func(_ any, h fw.Handle) (fw.Plugin, error) {
			return preemption.New(h)
		}},
	}
}

// argsAs reads a plugin's arguments: nil, a *T or a T.
func argsAs[T any](args any) (*T, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case *T:
		return a, nil
	case T:
		return &a, nil
	}
	var want *T
	return nil, fmt.Errorf("arguments of type %T, want %T", args, want)
}

// WithRegistry adds plugins to the scheduler's registry, for profiles to
// enable by name. A name the built-in registry has already is an error at
// New: replace a built-in by disabling it and enabling yours.
func WithRegistry(r Registry) Option {
	return func(s *Scheduler) { s.userRegistry = r }
}

// registry merges the user's plugins into the defaults.
func registry(user Registry) (Registry, error) {
	reg := DefaultRegistry()
	for _, name := range user.Names() {
		if _, dup := reg[name]; dup {
			return nil, configError("registry", "plugin %q is built in; disable it and register yours under another name", name)
		}
		if user[name].New == nil {
			return nil, configError("registry", "plugin %q has no New function", name)
		}
		reg[name] = user[name]
	}
	return reg, nil
}

// profile is one profile instantiated for a scheduler: its per-pod
// pipeline, its group algorithm and its PostFilter plugins.
type profile struct {
	name            string
	pods            *placement.PodScheduler
	groups          *placement.GroupScheduler
	postFilter      []fw.PostFilterPlugin
	groupPostFilter []fw.PodGroupPostFilterPlugin
	handle          *handle
	// retryOn is, by plugin name, the kinds of change that may help a pod
	// the plugin rejected (PreFilter and Filter plugins).
	retryOn map[string]fw.ClusterEvent
	// pure: a cycle depends on the cluster and the pod alone (fastfail.go)
	pure bool
}

// wakeOn returns the kinds of change that may help a pod that failed with
// fit: those of the plugins that rejected it, or any change when a
// rejection names no plugin this profile knows.
func (p *profile) wakeOn(fit *fw.FitError) uint64 {
	names := fit.Plugins()
	if len(names) == 0 {
		return queue.AnyChange
	}
	var kinds fw.ClusterEvent
	for _, name := range names {
		k, ok := p.retryOn[name]
		if !ok {
			return queue.AnyChange
		}
		kinds |= k
	}
	return uint64(kinds)
}

// newProfile instantiates a resolved profile for s.
func (s *Scheduler) newProfile(rp *resolvedProfile, reg Registry, pct int32) (*profile, error) {
	p := &profile{name: rp.name, groups: &placement.GroupScheduler{}}
	p.handle = &handle{s: s, p: p}
	instances := map[string]fw.Plugin{}
	get := func(name string) (fw.Plugin, error) {
		if pl, ok := instances[name]; ok {
			return pl, nil
		}
		pl, err := reg[name].New(rp.args[name], p.handle)
		if err != nil {
			return nil, configError("profiles ("+rp.name+")", "plugin %q: %v", name, err)
		}
		instances[name] = pl
		return pl, nil
	}
	var pods placement.PodPlugins
	for _, point := range extensionPoints {
		for _, ref := range rp.points[point.name] {
			pl, err := get(ref.Name)
			if err != nil {
				return nil, err
			}
			p.add(point.name, pl, int64(ref.Weight), &pods)
		}
	}
	p.pods = placement.NewPodScheduler(pods, pct)
	p.groups.Pods = p.pods
	p.retryOn = map[string]fw.ClusterEvent{}
	for _, pl := range pods.PreFilter {
		p.retryOn[pl.Name()] |= fw.RetryEvents(pl)
	}
	for _, pl := range pods.Filter {
		p.retryOn[pl.Name()] |= fw.RetryEvents(pl)
	}
	p.pure = p.isPure()
	return p, nil
}

// add puts an instance at one extension point.
func (p *profile) add(point string, pl fw.Plugin, weight int64, pods *placement.PodPlugins) {
	switch point {
	case "preFilter":
		pods.PreFilter = append(pods.PreFilter, pl.(fw.PreFilterPlugin))
	case "filter":
		pods.Filter = append(pods.Filter, pl.(fw.FilterPlugin))
	case "postFilter":
		p.postFilter = append(p.postFilter, pl.(fw.PostFilterPlugin))
	case "preScore":
		pods.PreScore = append(pods.PreScore, pl.(fw.PreScorePlugin))
	case "score":
		pods.Score = append(pods.Score, placement.WeightedScorer{Plugin: pl.(fw.ScorePlugin), Weight: weight})
	case "placementGenerate":
		p.groups.Generator = pl.(fw.PlacementGeneratePlugin)
	case "placementFeasible":
		p.groups.Feasible = append(p.groups.Feasible, pl.(fw.PlacementFeasiblePlugin))
	case "placementScore":
		p.groups.Scorers = append(p.groups.Scorers, placement.WeightedPlacementScorer{Plugin: pl.(fw.PlacementScorePlugin), Weight: weight})
	case "podGroupPostFilter":
		p.groupPostFilter = append(p.groupPostFilter, pl.(fw.PodGroupPostFilterPlugin))
	}
}
