package scenario

import (
	"errors"
	"fmt"
	"strings"

	fw "github.com/gangsim/gangsim/framework"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Option changes how a scenario is loaded.
type Option func(*options)

type options struct {
	registry    fw.Registry
	limits      *Limits // nil: DefaultLimits
	runTime     RunTime // WithDefaultDuration's
	skipUnknown bool    // SkipUnknownPlugins
	// extendedToleration is WithExtendedResourceToleration's (nil: the
	// files' and the nodes' say)
	extendedToleration *bool
}

// applyOptions applies a load's options.
func applyOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.limits == nil {
		l := DefaultLimits()
		o.limits = &l
	}
	return o
}

// WithRegistry makes the user's plugins known to the scenario: profiles
// may enable them and give them arguments, which are decoded into the
// value their factory's Args returns. Run passes the registry on to the
// scheduler.
func WithRegistry(r fw.Registry) Option { return func(o *options) { o.registry = r } }

// SkipUnknownPlugins makes a plugin the registry does not have, named in a
// configuration (a KubeSchedulerConfiguration's profiles or a scenario's
// config.profiles), a warning instead of an error: the plugin is left out
// of its profile, and its pluginConfig arguments with it, and the profile
// runs with the plugins that remain. The command-line tools load with it,
// so that the configuration of a scheduler built with out-of-tree plugins
// (scheduler-plugins' Coscheduling, ...) still runs; a Go program gets the
// error by default, naming the file's own entry, and may instead register
// the plugin (WithRegistry).
func SkipUnknownPlugins() Option { return func(o *options) { o.skipUnknown = true } }

func (b *builder) config(f *schema.File) error {
	c := f.Config
	if c == nil {
		return nil
	}
	b.cur = c.Origin
	if b.configFile != "" {
		return b.failf(c.Line, "config", "a second configuration: %s gave one already", b.configFile)
	}
	b.configFile = b.file
	cfg := &b.sc.Config
	if c.InitialBackoff != nil {
		cfg.PodInitialBackoff = *c.InitialBackoff
	}
	if c.MaxBackoff != nil {
		cfg.PodMaxBackoff = *c.MaxBackoff
	}
	if p := c.PercentageOfNodesToScore; p != nil {
		cfg.PercentageOfNodesToScore = *p
	}
	if g := c.TerminationGracePeriod; g != nil {
		d, err := parseTime(*g)
		if err != nil {
			return b.fail(c.Line, "config.terminationGracePeriod", err)
		}
		cfg.TerminationGracePeriod = &d
	}
	if c.ScoringStrategy != nil || len(c.PlacementScore) > 0 {
		if len(c.Profiles) > 0 {
			return b.failf(c.Line, "config.profiles", "give either profiles or the scoringStrategy and placementScore shorthands, not both")
		}
		p, err := b.shorthandProfile(c)
		if err != nil {
			return err
		}
		cfg.Profiles = []gangsim.Profile{p}
	}
	for i := range c.Profiles {
		p, err := b.profile(&c.Profiles[i], fmt.Sprintf("config.profiles[%d]", i))
		if err != nil {
			return err
		}
		cfg.Profiles = append(cfg.Profiles, p)
	}
	if _, err := gangsim.New(*cfg, gangsim.WithRegistry(b.opts.registry)); err != nil {
		return b.fail(c.Line, "config", err)
	}
	return nil
}

// shorthandProfile is the default profile with config.scoringStrategy as
// NodeResourcesFit's arguments and config.placementScore, when given,
// replacing the placement score plugins.
func (b *builder) shorthandProfile(c *schema.Config) (gangsim.Profile, error) {
	p := gangsim.DefaultProfile()
	if c.ScoringStrategy != nil {
		var st noderesources.ScoringStrategy
		if err := schema.DecodeField(c.ScoringStrategy, &st, "config.scoringStrategy"); err != nil {
			return p, b.decodeFail(err)
		}
		args := &noderesources.FitArgs{ScoringStrategy: &st}
		if err := args.Validate(); err != nil {
			return p, b.fail(c.Line, "config", err)
		}
		p.PluginConfig = []gangsim.PluginConfig{{Name: noderesources.Name, Args: args}}
	}
	if len(c.PlacementScore) > 0 {
		set := gangsim.PluginSet{Disabled: []gangsim.PluginRef{{Name: "*"}}}
		for _, w := range c.PlacementScore {
			set.Enabled = append(set.Enabled, gangsim.PluginRef{Name: w.Name, Weight: w.Weight})
		}
		p.Plugins = &gangsim.Plugins{PlacementScore: set}
	}
	return p, nil
}

// decodeFail turns a decoding problem into a FieldError.
func (b *builder) decodeFail(err error) error {
	var de *schema.DecodeError
	if errors.As(err, &de) {
		return b.fieldError(de.Line, de.Path, de.Err)
	}
	return b.fieldError(0, "", err)
}

// profile converts one profile; plugin arguments are decoded into the
// type the plugin's factory declares.
func (b *builder) profile(s *schema.Profile, where string) (gangsim.Profile, error) {
	p := gangsim.Profile{SchedulerName: s.SchedulerName, PercentageOfNodesToScore: s.PercentageOfNodesToScore}
	reg := allPlugins(b.opts.registry)
	if s.Plugins != nil {
		p.Plugins = &gangsim.Plugins{}
		for _, set := range []struct {
			point string
			spec  *schema.PluginSet
			into  *gangsim.PluginSet
		}{
			{"multiPoint", s.Plugins.MultiPoint, &p.Plugins.MultiPoint}, {"preEnqueue", s.Plugins.PreEnqueue, &p.Plugins.PreEnqueue},
			{"preFilter", s.Plugins.PreFilter, &p.Plugins.PreFilter},
			{"filter", s.Plugins.Filter, &p.Plugins.Filter}, {"postFilter", s.Plugins.PostFilter, &p.Plugins.PostFilter},
			{"preScore", s.Plugins.PreScore, &p.Plugins.PreScore}, {"score", s.Plugins.Score, &p.Plugins.Score},
			{"reserve", s.Plugins.Reserve, &p.Plugins.Reserve}, {"placementGenerate", s.Plugins.PlacementGenerate, &p.Plugins.PlacementGenerate},
			{"placementFeasible", s.Plugins.PlacementFeasible, &p.Plugins.PlacementFeasible},
			{"placementScore", s.Plugins.PlacementScore, &p.Plugins.PlacementScore},
			{"podGroupPostFilter", s.Plugins.PodGroupPostFilter, &p.Plugins.PodGroupPostFilter},
		} {
			if set.spec == nil {
				continue
			}
			var err error
			if set.into.Enabled, err = b.pluginRefs(set.spec.Enabled, reg, where+".plugins."+set.point+".enabled"); err != nil {
				return p, err
			}
			if set.into.Disabled, err = b.pluginRefs(set.spec.Disabled, reg, where+".plugins."+set.point+".disabled"); err != nil {
				return p, err
			}
		}
	}
	for i, pc := range s.PluginConfig {
		field := fmt.Sprintf("%s.pluginConfig[%d]", where, i)
		factory, ok := reg[pc.Name]
		if !ok && b.opts.skipUnknown {
			b.ws.Add("", schema.FieldOf(where+".pluginConfig")+" "+pc.Name, "not a plugin the simulator has: its arguments are ignored", b.file+": "+field)
			continue
		}
		if !ok {
			return p, b.failf(pc.Line, field+".name", "%q is not a registered plugin (known: %v)", pc.Name, reg.Names())
		}
		var args any
		if pc.Args != nil {
			if factory.Args == nil {
				return p, b.failf(pc.Line, field+".args", "plugin %q takes no arguments", pc.Name)
			}
			args = factory.Args()
			if err := schema.DecodeField(pc.Args, args, field+".args"); err != nil {
				return p, b.decodeFail(err)
			}
			if _, err := factory.New(args, nil); err != nil {
				return p, b.fail(pc.Line, field+".args", err)
			}
		}
		p.PluginConfig = append(p.PluginConfig, gangsim.PluginConfig{Name: pc.Name, Args: args})
	}
	return p, nil
}

// pluginRefs converts the plugins of one list (field), checking each name
// against the registry ("*" stands for every default plugin): an unknown
// name fails at its own entry, or with SkipUnknownPlugins is left out
// with a warning.
func (b *builder) pluginRefs(refs []schema.Weighted, reg fw.Registry, field string) ([]gangsim.PluginRef, error) {
	var out []gangsim.PluginRef
	for i, w := range refs {
		if _, ok := reg[w.Name]; !ok && w.Name != "*" {
			entry := fmt.Sprintf("%s[%d]", field, i)
			if !b.opts.skipUnknown {
				return nil, b.failf(w.Line, entry+".name", "%q is not a registered plugin (known: %v)", w.Name, reg.Names())
			}
			b.ws.Add("", schema.FieldOf(field[:strings.LastIndex(field, ".plugins.")+len(".plugins")])+" "+w.Name,
				"not a plugin the simulator has (out of tree, or misspelt): left out of the profile", b.file+": "+entry)
			continue
		}
		out = append(out, gangsim.PluginRef{Name: w.Name, Weight: w.Weight})
	}
	return out, nil
}

// allPlugins is the scheduler's registry with the user's plugins.
func allPlugins(user fw.Registry) fw.Registry {
	reg := gangsim.DefaultRegistry()
	for name, f := range user {
		reg[name] = f
	}
	return reg
}
