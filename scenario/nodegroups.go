package scenario

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The cluster autoscaler's node groups and flags (docs/scenario-format.md,
// "Node groups and the autoscaler"). The autoscaler checks them again when
// a run creates it; these checks come first so that a mistake names its
// file, entry and field.

// autoscaling reads the node groups of every input, then the one
// autoscaler section; a section without any group is an error (it would
// scale nothing).
func (b *builder) autoscaling(ins []*input) error {
	var cfgFile string
	var cfgLine int
	for _, in := range ins {
		b.file, b.cur = in.name, nil
		for i := range in.spec.NodeGroups {
			if err := b.nodeGroup(&in.spec.NodeGroups[i], entry("nodeGroups", i, in.spec.NodeGroups[i].Name)); err != nil {
				return err
			}
		}
		if s := in.spec.Autoscaler; s != nil {
			if cfgFile != "" {
				return b.failf(s.Line, "autoscaler", "a second autoscaler section: %s gave one already", cfgFile)
			}
			cfgFile, cfgLine = in.name, s.Line
			if err := b.autoscalerConfig(s); err != nil {
				return err
			}
		}
	}
	if cfgFile != "" && len(b.sc.NodeGroups) == 0 {
		b.file = cfgFile
		return b.failf(cfgLine, "autoscaler", "there are no nodeGroups to scale")
	}
	b.warnNeverProvisioned()
	return b.checkPriorities()
}

// warnNeverProvisioned warns about each group whose fixed provisioning
// delay is longer than maxNodeProvisionTime: every node it is asked for
// times out, so it never gives one (the autoscaler backs it off, longer
// after each timeout).
func (b *builder) warnNeverProvisioned() {
	if b.ws == nil {
		return
	}
	limit := b.sc.Autoscaler.WithDefaults().MaxNodeProvisionTime
	for i, g := range b.sc.NodeGroups {
		if d := g.ProvisioningDelay; d.Dist == nil && d.Fixed > limit {
			src := b.sc.groupSources[i]
			b.ws.Add("", "nodeGroups[].provisioningDelay", fmt.Sprintf("is longer than maxNodeProvisionTime (%v): the group's nodes always time out, and it never gives one", limit),
				src.File+": "+src.Path)
		}
	}
}

// nodeGroup converts and checks one node group.
func (b *builder) nodeGroup(s *schema.NodeGroup, where string) error {
	if err := b.checkNames(s.Line, where, s.Name, ""); err != nil {
		return err
	}
	if err := schema.NameError(s.Name, true); err != nil { // its racks are label values
		return b.fail(s.Line, where+".name", err)
	}
	for _, g := range b.sc.NodeGroups {
		if g.Name == s.Name {
			return b.failf(s.Line, where+".name", "node group %q is defined twice", s.Name)
		}
	}
	if clash := b.nodeOfGroup(s.Name); clash != "" {
		return b.failf(s.Line, where+".name", "node %q is already defined, and the group would name a new node so (%s-1, %s-2, ...)", clash, s.Name, s.Name)
	}
	g := autoscaler.NodeGroup{Name: s.Name, RackLabel: s.RackLabel, Zone: s.Zone}
	var err error
	if g.Min, g.Max, err = b.groupBounds(s, where); err != nil {
		return err
	}
	if g.ProvisioningDelay, err = b.provisioningDelay(s.ProvisioningDelay, s.Line, where+".provisioningDelay"); err != nil {
		return err
	}
	if p := s.PricePerHour; p != nil {
		if !(*p >= 0) || math.IsInf(*p, 0) {
			return b.failf(s.Line, where+".pricePerHour", "%v is not a price (a number, 0 or more)", *p)
		}
		g.PricePerHour = *p
	}
	if err := b.groupTopology(s, &g, where); err != nil {
		return err
	}
	if err := b.groupTemplate(s, &g, where); err != nil {
		return err
	}
	b.sc.NodeGroups = append(b.sc.NodeGroups, g)
	b.sc.groupSources = append(b.sc.groupSources, Source{File: b.file, Line: s.Line, Path: where})
	return nil
}

// nodeOfGroup returns a node already defined whose name a new node of
// group could take (group-N), or "".
func (b *builder) nodeOfGroup(group string) string {
	var clashes []string
	for name := range b.nodeNames {
		if rest, ok := strings.CutPrefix(name, group+"-"); ok && isCount(rest) {
			clashes = append(clashes, name)
		}
	}
	if len(clashes) == 0 {
		return ""
	}
	return slices.Min(clashes)
}

// isCount reports whether s is a positive decimal number as the new nodes'
// names end with (1, 2, ...; no leading 0).
func isCount(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// groupBounds reads min (0 when absent) and max (required): 0 <= min <=
// max, and max within the load's node limit.
func (b *builder) groupBounds(s *schema.NodeGroup, where string) (lo, hi int, err error) {
	if s.Max == nil {
		return 0, 0, b.failf(s.Line, where+".max", "required: the most nodes the group may have")
	}
	if s.Min != nil {
		lo = *s.Min
	}
	hi = *s.Max
	switch limit := b.opts.limits.Nodes; {
	case lo < 0:
		return 0, 0, b.failf(s.Line, where+".min", "%d is negative", lo)
	case hi < 1 || hi > limit:
		return 0, 0, b.failf(s.Line, where+".max", "%d is not in 1..%d", hi, limit)
	case lo > hi:
		return 0, 0, b.failf(s.Line, where+".min", "%d is more than max (%d)", lo, hi)
	}
	return lo, hi, nil
}

// provisioningDelay reads a group's delay: a plain time (fixed) or a
// distribution written as a workload's duration; absent, 0.
func (b *builder) provisioningDelay(n *yaml.Node, line int, where string) (autoscaler.Delay, error) {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return autoscaler.Delay{Text: "0s"}, nil
	}
	rt, err := b.decodeRunTime(n, where)
	if err != nil {
		return autoscaler.Delay{}, err
	}
	d := autoscaler.Delay{Fixed: rt.fixed, Text: rt.String()}
	if rt.mean > 0 || rt.median > 0 {
		d.Dist = rt.draw
	}
	return d, nil
}

// groupTopology checks the labels new nodes get: their racks' and zone.
func (b *builder) groupTopology(s *schema.NodeGroup, g *autoscaler.NodeGroup, where string) error {
	if s.RackSize != nil {
		if *s.RackSize < 1 || *s.RackSize > g.Max {
			return b.failf(s.Line, where+".rackSize", "%d is not in 1..%d (max)", *s.RackSize, g.Max)
		}
		g.RackSize = *s.RackSize
	}
	if s.RackLabel != "" {
		if g.RackSize == 0 {
			return b.failf(s.Line, where+".rackLabel", "needs rackSize: only groups that form racks label them")
		}
		if err := schema.LabelKeyError(s.RackLabel); err != nil {
			return b.fail(s.Line, where+".rackLabel", err)
		}
	}
	if s.Zone != "" && !labelValue.MatchString(s.Zone) {
		return b.failf(s.Line, where+".zone", "%q is not a label value (at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit)", s.Zone)
	}
	return nil
}

// labelValue is a Kubernetes label value that is not empty.
var labelValue = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

// groupTemplate converts the template node and its devices.
func (b *builder) groupTemplate(s *schema.NodeGroup, g *autoscaler.NodeGroup, where string) error {
	t := s.Template
	where += ".template"
	if t == nil {
		return b.failf(s.Line, where, "required: the node the group's nodes copy")
	}
	if len(t.Allocatable) == 0 {
		return b.failf(t.Line, where+".allocatable", "required: the resources of a new node")
	}
	alloc, err := b.nodeAllocatable(t.Allocatable, t.Line, where)
	if err != nil {
		return err
	}
	n := cluster.Node{Name: s.Name + "-1", Labels: t.Labels, Allocatable: alloc, Taints: taintsOf(t.Taints)}
	if err := n.Validate(); err != nil {
		return b.fail(t.Line, where, err)
	}
	n.Name = ""
	g.Template = n
	own := 0 // slices in the new node's own pool
	for i := range t.Devices {
		if t.Devices[i].Pool.Name == "" {
			own++
		}
	}
	for i := range t.Devices {
		field := fmt.Sprintf("%s.devices[%d]", where, i)
		sl, err := b.templateSlice(&t.Devices[i], field, own)
		if err != nil {
			return err
		}
		// checked now as the first new node publishes it, not when a
		// scale-up makes it mid-run
		sample := sl
		first := s.Name + "-1"
		sample.NodeName, sample.Name = first, fmt.Sprintf("%s-%d", first, i)
		if sample.Pool.Name == "" {
			sample.Pool.Name = first
		}
		if err := sample.Validate(); err != nil {
			return b.fail(t.Devices[i].Line, field, deviceField(err))
		}
		g.Devices = append(g.Devices, sl)
	}
	return nil
}

// templateSlice converts a ResourceSlice each new node publishes: it names
// no node (each new node's own is set), and its name is optional. Without
// a pool it is in the new node's own pool (named after the node), which
// the own slices of the template make up.
func (b *builder) templateSlice(s *schema.ResourceSlice, where string, own int) (cluster.ResourceSlice, error) {
	switch {
	case s.NodeName != "":
		return cluster.ResourceSlice{}, b.failf(s.Line, where+".nodeName", "a template's devices are each new node's own: leave nodeName out")
	case s.AllNodes || s.NodeSelector != nil:
		return cluster.ResourceSlice{}, b.failf(s.Line, where, "a template's devices are each new node's own: no allNodes or nodeSelector")
	case s.Driver == "":
		return cluster.ResourceSlice{}, b.failf(s.Line, where+".driver", "required")
	}
	sl, err := b.slice(s, where)
	if err != nil {
		return sl, err
	}
	if sl.Pool.Name == "" && sl.Pool.SliceCount == 0 {
		sl.Pool.SliceCount = int64(own) // the autoscaler names the pool per node
	}
	return sl, nil
}

// autoscalerConfig converts the autoscaler section.
func (b *builder) autoscalerConfig(s *schema.Autoscaler) error {
	cfg := &b.sc.Autoscaler
	for _, d := range []struct {
		field string
		text  string
		to    *time.Duration
	}{
		{"scanInterval", s.ScanInterval, &cfg.ScanInterval},
		{"scaleDownUnneededTime", s.ScaleDownUnneededTime, &cfg.ScaleDownUnneededTime},
		{"scaleDownDelayAfterAdd", s.ScaleDownDelayAfterAdd, &cfg.ScaleDownDelayAfterAdd},
		{"scaleDownDelayAfterDelete", s.ScaleDownDelayAfterDelete, &cfg.ScaleDownDelayAfterDelete},
		{"scaleDownDelayAfterFailure", s.ScaleDownDelayAfterFailure, &cfg.ScaleDownDelayAfterFailure},
		{"maxNodeProvisionTime", s.MaxNodeProvisionTime, &cfg.MaxNodeProvisionTime},
	} {
		v, err := parseTime(d.text)
		if err != nil {
			return b.fail(s.Line, "autoscaler."+d.field, err)
		}
		*d.to = v
	}
	if s.ScanInterval != "" && cfg.ScanInterval < autoscaler.MinScanInterval {
		return b.failf(s.Line, "autoscaler.scanInterval", "%q is below %v, the shortest scan interval taken (the cluster autoscaler never loops faster than its work takes)",
			s.ScanInterval, autoscaler.MinScanInterval)
	}
	for _, c := range []struct {
		field string
		v     *int
		to    *int
	}{{"maxNodesPerScaleUp", s.MaxNodesPerScaleUp, &cfg.MaxNodesPerScaleUp}, {"maxBinpackingChecks", s.MaxBinpackingChecks, &cfg.MaxBinpackingChecks}} {
		if c.v == nil {
			continue
		}
		if *c.v < 1 {
			return b.failf(s.Line, "autoscaler."+c.field, "%d is not positive (leave it out for the default)", *c.v)
		}
		*c.to = *c.v
	}
	if err := b.thresholds(s, cfg); err != nil {
		return err
	}
	if err := b.totals(s, cfg); err != nil {
		return err
	}
	if err := b.expander(s, cfg); err != nil {
		return err
	}
	if s.ScaleDownEnabled != nil {
		cfg.ScaleDownDisabled = !*s.ScaleDownEnabled
	}
	if s.Seed != nil {
		b.sc.AutoscalerSeed = *s.Seed
	}
	return nil
}

// thresholds reads the scale-down utilisation thresholds, each in (0, 1].
// A 0 would mean the default to the autoscaler (Config), so it is refused
// rather than silently changed.
func (b *builder) thresholds(s *schema.Autoscaler, cfg *autoscaler.Config) error {
	for _, t := range []struct {
		field string
		v     *float64
		to    *float64
	}{
		{"scaleDownUtilizationThreshold", s.ScaleDownUtilizationThreshold, &cfg.ScaleDownUtilizationThreshold},
		{"scaleDownGpuUtilizationThreshold", s.ScaleDownGPUUtilizationThreshold, &cfg.ScaleDownGPUUtilizationThreshold},
	} {
		if t.v == nil {
			continue
		}
		if !(*t.v > 0 && *t.v <= 1) {
			return b.failf(s.Line, "autoscaler."+t.field, "%v is not in (0, 1]: a share of a node's allocatable", *t.v)
		}
		*t.to = *t.v
	}
	return nil
}

// totals reads the cluster-wide limits: nodes, cores and memory.
func (b *builder) totals(s *schema.Autoscaler, cfg *autoscaler.Config) error {
	if n := s.MaxNodesTotal; n != nil {
		if *n < 1 {
			return b.failf(s.Line, "autoscaler.maxNodesTotal", "%d is not positive (leave it out for no limit)", *n)
		}
		cfg.MaxNodesTotal = *n
	}
	if c := s.MaxCoresTotal; c != nil {
		if *c < 1 {
			return b.failf(s.Line, "autoscaler.maxCoresTotal", "%d is not positive (leave it out for no limit)", *c)
		}
		cfg.MaxCoresTotal = *c
	}
	if s.MaxMemoryTotal != "" {
		v, err := cluster.ParseQuantity(s.MaxMemoryTotal, 1)
		if err != nil {
			return b.fail(s.Line, "autoscaler.maxMemoryTotal", err)
		}
		if v < 1 {
			return b.failf(s.Line, "autoscaler.maxMemoryTotal", "%q is not positive (leave it out for no limit)", s.MaxMemoryTotal)
		}
		cfg.MaxMemoryTotal = v
	}
	return nil
}

// Expanders are the names of the expanders, as --expander takes them.
var Expanders = []string{"least-waste", "most-pods", "price", "priority", "random"}

// expander reads the expander and the priority expander's table.
func (b *builder) expander(s *schema.Autoscaler, cfg *autoscaler.Config) error {
	if s.Expander != "" && !slices.Contains(Expanders, s.Expander) {
		return b.failf(s.Line, "autoscaler.expander", "%q is not one of %s", s.Expander, strings.Join(Expanders, ", "))
	}
	cfg.Expander = s.Expander
	if s.Expander == "priority" && len(s.Priorities) == 0 {
		return b.failf(s.Line, "autoscaler.priorities", "required by the priority expander: priorities to lists of regular expressions over group names")
	}
	if len(s.Priorities) > 0 {
		cfg.Priorities = map[int][]string{}
	}
	for _, key := range slices.Sorted(maps.Keys(s.Priorities)) {
		p, err := strconv.Atoi(key)
		if err != nil {
			return b.failf(s.Line, "autoscaler.priorities."+key, "%q is not an integer priority", key)
		}
		for i, expr := range s.Priorities[key] {
			if _, err := regexp.Compile(expr); err != nil {
				return b.failf(s.Line, fmt.Sprintf("autoscaler.priorities.%s[%d]", key, i), "%q is not a regular expression: %v", expr, err)
			}
		}
		cfg.Priorities[p] = append(cfg.Priorities[p], s.Priorities[key]...)
	}
	b.sc.autoscalerSource = Source{File: b.file, Line: s.Line, Path: "autoscaler"}
	return nil
}

// checkPriorities refuses a priority table with an entry that names no
// group: a typo would otherwise go unseen.
func (b *builder) checkPriorities() error {
	cfg := &b.sc.Autoscaler
	for _, p := range slices.Sorted(maps.Keys(cfg.Priorities)) {
		for i, expr := range cfg.Priorities[p] {
			re := regexp.MustCompile(expr) // compiled above
			if !slices.ContainsFunc(b.sc.NodeGroups, func(g autoscaler.NodeGroup) bool { return re.MatchString(g.Name) }) {
				b.file = b.sc.autoscalerSource.File
				return b.failf(b.sc.autoscalerSource.Line, fmt.Sprintf("autoscaler.priorities.%d[%d]", p, i), "%q matches no node group", expr)
			}
		}
	}
	return nil
}
