package kube

import (
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// kubeSchedulerConfig is KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1): the profiles, the node sampling and
// the queue's backoffs are modelled; the rest runs the process and has no
// meaning here.
type kubeSchedulerConfig struct {
	APIVersion                skipped       `yaml:"apiVersion"`
	Kind                      skipped       `yaml:"kind"`
	Profiles                  []kubeProfile `yaml:"profiles"`
	PercentageOfNodesToScore  *int32        `yaml:"percentageOfNodesToScore"`
	PodInitialBackoffSeconds  *int64        `yaml:"podInitialBackoffSeconds"`
	PodMaxBackoffSeconds      *int64        `yaml:"podMaxBackoffSeconds"`
	Extenders                 unmodelled    `yaml:"extenders"`
	Parallelism               skipped       `yaml:"parallelism"`
	LeaderElection            skipped       `yaml:"leaderElection"`
	ClientConnection          skipped       `yaml:"clientConnection"`
	HealthzBindAddress        skipped       `yaml:"healthzBindAddress"`
	MetricsBindAddress        skipped       `yaml:"metricsBindAddress"`
	EnableProfiling           skipped       `yaml:"enableProfiling"`
	EnableContentionProfiling skipped       `yaml:"enableContentionProfiling"`
	DelayCacheUntilActive     skipped       `yaml:"delayCacheUntilActive"`
}

type kubeProfile struct {
	SchedulerName            string                `yaml:"schedulerName"`
	PercentageOfNodesToScore *int32                `yaml:"percentageOfNodesToScore"`
	Plugins                  *kubePlugins          `yaml:"plugins"`
	PluginConfig             []schema.PluginConfig `yaml:"pluginConfig"`
}

// kubePlugins are a profile's plugins: the extension points the simulator
// has, and those it has not (queue sort, binding and its neighbours),
// which warn when set.
type kubePlugins struct {
	schema.Plugins `yaml:",inline"`
	QueueSort      unmodelled `yaml:"queueSort"`
	Permit         unmodelled `yaml:"permit"`
	PreBind        unmodelled `yaml:"preBind"`
	Bind           unmodelled `yaml:"bind"`
	PostBind       unmodelled `yaml:"postBind"`
}

// kubePluginNames are kube-scheduler's in-tree plugins, past and present.
// One the simulator has not is left out of a profile with a warning; a
// name in neither list is kept, for the profile's check to reject as a
// typo.
var kubePluginNames = []string{
	"AzureDiskLimits", "CinderLimits", "DefaultBinder", "DefaultPreemption", "DynamicResources", "EBSLimits",
	"GCEPDLimits", "GangScheduling", "ImageLocality", "InterPodAffinity", "NodeAffinity", "NodeDeclaredFeatures",
	"NodeLabel", "NodeName", "NodePorts", "NodePreferAvoidPods", "NodeResourceLimits", "NodeResourcesBalancedAllocation",
	"NodeResourcesFit", "NodeResourcesLeastAllocated", "NodeResourcesMostAllocated", "NodeUnschedulable",
	"NodeVolumeLimits", "PodTopologySpread", "PrioritySort", "RequestedToCapacityRatio", "SchedulingGates",
	"SelectorSpread", "ServiceAffinity", "TaintToleration", "VolumeBinding", "VolumeRestrictions", "VolumeZone",
}

// kubeArgsIgnored are plugin arguments kube-scheduler has and the
// simulator's plugin does not model: they are dropped with a warning.
var kubeArgsIgnored = map[string][]string{
	"NodeResourcesFit": {"ignoredResources", "ignoredResourceGroups"},
}

// config converts a KubeSchedulerConfiguration into the scenario's config.
func (k *kubeImport) config(o *Object, v *kubeSchedulerConfig, f *schema.File) error {
	if f.Config != nil {
		return o.failf(nil, "", "a second configuration in the file (the first at line %d)", f.Config.Line)
	}
	c := &schema.Config{Line: o.line, PercentageOfNodesToScore: v.PercentageOfNodesToScore,
		Origin: &schema.Origin{Object: o.ref(), Where: "config", Lines: o.lines()}}
	for _, b := range []struct {
		secs  *int64
		into  **time.Duration
		field string
	}{{v.PodInitialBackoffSeconds, &c.InitialBackoff, "podInitialBackoffSeconds"}, {v.PodMaxBackoffSeconds, &c.MaxBackoff, "podMaxBackoffSeconds"}} {
		if b.secs == nil {
			continue
		}
		if *b.secs <= 0 || *b.secs > 1<<30 {
			return o.failf(nil, b.field, "%d is not a positive number of seconds", *b.secs)
		}
		d := time.Duration(*b.secs) * time.Second
		*b.into = &d
	}
	for i := range v.Profiles {
		p, err := k.profile(o, &v.Profiles[i], fmt.Sprintf("profiles[%d]", i))
		if err != nil {
			return err
		}
		c.Profiles = append(c.Profiles, p)
	}
	if len(v.Profiles) > 0 && !slices.ContainsFunc(v.Profiles, func(p kubeProfile) bool {
		return p.SchedulerName == "" || p.SchedulerName == defaultScheduler
	}) {
		k.ws.Add(o.kind, "profiles[].schedulerName", "no profile is "+defaultScheduler+
			": pods that name no scheduler stay pending, as under a kube-scheduler given this configuration alone "+
			"(a second scheduler's configuration runs beside the default one in a cluster)", o.file+": "+o.ref())
	}
	f.Config = c
	return nil
}

// defaultScheduler is the scheduler name of a pod that gives none.
const defaultScheduler = "default-scheduler"

// profile converts a profile, leaving out the plugins the simulator has
// not and the arguments its plugins do not take. A name kube-scheduler
// does not have either is an error at the file's own entry, unless the
// import skips unknown plugins (SkipUnknownPlugins): then it is left out
// too, with a warning.
func (k *kubeImport) profile(o *Object, p *kubeProfile, where string) (schema.Profile, error) {
	out := schema.Profile{Line: o.line, SchedulerName: p.SchedulerName, PercentageOfNodesToScore: p.PercentageOfNodesToScore}
	if p.Plugins != nil {
		ps := p.Plugins.Plugins
		for _, pt := range []struct {
			name string
			set  *schema.PluginSet
		}{{"multiPoint", ps.MultiPoint}, {"preEnqueue", ps.PreEnqueue}, {"preFilter", ps.PreFilter}, {"filter", ps.Filter}, {"postFilter", ps.PostFilter},
			{"preScore", ps.PreScore}, {"score", ps.Score}, {"reserve", ps.Reserve}, {"placementGenerate", ps.PlacementGenerate},
			{"placementFeasible", ps.PlacementFeasible}, {"placementScore", ps.PlacementScore}, {"podGroupPostFilter", ps.PodGroupPostFilter}} {
			if pt.set == nil {
				continue
			}
			field := where + ".plugins." + pt.name
			var err error
			if pt.set.Enabled, err = k.knownPlugins(o, pt.set.Enabled, field+".enabled", true); err != nil {
				return out, err
			}
			if pt.set.Disabled, err = k.knownPlugins(o, pt.set.Disabled, field+".disabled", false); err != nil {
				return out, err
			}
		}
		out.Plugins = &ps
	}
	for i, pc := range p.PluginConfig {
		switch k.pluginKind(pc.Name) {
		case inTreeOnly:
			k.ws.Add(o.kind, "pluginConfig "+pc.Name, "plugin not modelled, its arguments are ignored", o.file+": "+o.ref())
			continue
		case unknownPlugin:
			if !k.skipUnknown {
				return out, o.failLine(pc.Line, fmt.Sprintf("%s.pluginConfig[%d].name", where, i), k.unregistered(pc.Name))
			}
			k.ws.Add(o.kind, "pluginConfig "+pc.Name, "not a plugin the simulator has: its arguments are ignored", o.file+": "+o.ref())
			continue
		}
		args, err := k.args(o, pc.Name, pc.Args)
		if err != nil {
			return out, err
		}
		pc.Args = args
		out.PluginConfig = append(out.PluginConfig, pc)
	}
	return out, nil
}

// pluginKinds: what a plugin named in a configuration is to the importer.
type pluginKinds int

const (
	registered    pluginKinds = iota // the simulator has it (or "*")
	inTreeOnly                       // kube-scheduler's, which the simulator has not
	unknownPlugin                    // neither: out of tree, or a typo
)

func (k *kubeImport) pluginKind(name string) pluginKinds {
	if _, ok := k.plugins[name]; ok || name == "*" {
		return registered
	}
	if slices.Contains(kubePluginNames, name) {
		return inTreeOnly
	}
	return unknownPlugin
}

// unregistered is the error of a plugin no registry has.
func (k *kubeImport) unregistered(name string) error {
	return fmt.Errorf("%q is not a registered plugin (known: %v)", name, k.plugins.Names())
}

// outOfTreeNotes say, for out-of-tree plugins seen in the field, what the
// simulator does instead.
var outOfTreeNotes = map[string]string{
	"Coscheduling": "; scheduler-plugins' gangs (scheduling.x-k8s.io PodGroups) are scheduled by the simulator's GangScheduling",
}

// knownPlugins keeps the plugins of one list (field) the simulator has:
// kube-scheduler's others are dropped, enabling one warns; an unknown name
// is an error at its entry, or with skipUnknown is dropped with a warning.
func (k *kubeImport) knownPlugins(o *Object, refs []schema.Weighted, field string, enabled bool) ([]schema.Weighted, error) {
	var out []schema.Weighted
	for i, r := range refs {
		switch k.pluginKind(r.Name) {
		case registered:
			out = append(out, r)
		case inTreeOnly:
			if enabled {
				k.ws.Add(o.kind, "plugin "+r.Name, "not modelled, left out of the profile", o.file+": "+o.ref())
			}
		case unknownPlugin:
			if !k.skipUnknown {
				return nil, o.failLine(r.Line, fmt.Sprintf("%s[%d].name", field, i), k.unregistered(r.Name))
			}
			k.ws.Add(o.kind, "plugin "+r.Name, "not a plugin the simulator has (out of tree, or misspelt): left out of the profile"+outOfTreeNotes[r.Name], o.file+": "+o.ref())
		}
	}
	return out, nil
}

// args prepares a plugin's arguments for the profile's decoder: without
// the apiVersion and kind a configuration may give them, and without the
// fields the simulator's plugin does not take (all of them for a plugin
// without arguments), which warn.
func (k *kubeImport) args(o *Object, plugin string, args *yaml.Node) (*yaml.Node, error) {
	if args == nil || args.Kind != yaml.MappingNode {
		return args, nil
	}
	ignored := kubeArgsIgnored[plugin]
	takesArgs := k.plugins[plugin].Args != nil
	out := *args
	out.Content = nil
	for i := 0; i+1 < len(args.Content); i += 2 {
		key := args.Content[i].Value
		switch {
		case key == "apiVersion":
		case key == "kind":
			if want := plugin + "Args"; args.Content[i+1].Value != want {
				return nil, o.failf(args.Content[i+1], "pluginConfig ("+plugin+").args.kind", "%q is not %q", args.Content[i+1].Value, want)
			}
		case !takesArgs || slices.Contains(ignored, key):
			k.ws.Add(o.kind, "pluginConfig "+plugin+" args."+key, schema.NotModelled, o.file+": "+o.ref())
		default:
			out.Content = append(out.Content, args.Content[i], args.Content[i+1])
		}
	}
	if len(out.Content) == 0 {
		return nil, nil
	}
	return &out, nil
}
