package whatif

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/scenario"
)

// ErrChange is wrapped by every error about a change that does not apply
// to its scenario (an unknown template node, a name taken).
var ErrChange = errors.New("whatif: change does not apply")

// Change is one modification of a scenario. Apply changes a copy that the
// caller owns (see Variant.Apply): it may replace the copy's slices and
// config, never modify the elements they share with the original.
type Change interface {
	Apply(sc *scenario.Scenario) error
	// String spells the change as ParseVariant reads it.
	String() string
}

// AddNodesLike adds Count copies of the scenario's node Node, named
// NODE-new1, NODE-new2, ... (the first names not taken) with the same
// labels (so in the same topology domains), allocatable and taints, and
// the same devices: a copy of each ResourceSlice published for Node
// alone (copySlices).
type AddNodesLike struct {
	Node  string
	Count int
}

// Apply implements Change.
func (c AddNodesLike) Apply(sc *scenario.Scenario) error {
	tmpl, ok := findNode(sc, c.Node)
	if !ok {
		return changeError("node %q is not one of the scenario's nodes", c.Node)
	}
	names := newNamer(nodeNames(sc))
	added := make([]cluster.Node, 0, c.Count)
	for range c.Count {
		added = append(added, copyNode(tmpl, names.fresh(tmpl.Name), "", ""))
	}
	addNodes(sc, added)
	copySlices(sc, slices.Repeat([]cluster.Node{tmpl}, c.Count), added)
	return nil
}

// String implements Change.
func (c AddNodesLike) String() string { return fmt.Sprintf("add:%s:%d", c.Node, c.Count) }

// AddDomainsLike adds Count copies of the topology domain Key=Value (a
// rack, a zone): copies of all its nodes, labelled Key=VALUE-new1,
// VALUE-new2, ... (the first values not taken), each node named as
// AddNodesLike names its copies and given copies of its devices as
// AddNodesLike gives them.
type AddDomainsLike struct {
	Key, Value string
	Count      int
}

// Apply implements Change.
func (c AddDomainsLike) Apply(sc *scenario.Scenario) error {
	var tmpl []cluster.Node
	for _, n := range sc.Nodes {
		if n.Labels[c.Key] == c.Value {
			tmpl = append(tmpl, n)
		}
	}
	if len(tmpl) == 0 || c.Key == "" {
		return changeError("no node of the scenario has the label %s=%s", c.Key, c.Value)
	}
	taken, values := newNamer(nodeNames(sc)), map[string]bool{}
	for _, n := range sc.Nodes {
		if v, ok := n.Labels[c.Key]; ok {
			values[v] = true
		}
	}
	added := make([]cluster.Node, 0, c.Count*len(tmpl))
	from := make([]cluster.Node, 0, c.Count*len(tmpl))
	fresh := newNamer(values)
	for range c.Count {
		value := fresh.fresh(c.Value)
		for _, n := range tmpl {
			added = append(added, copyNode(n, taken.fresh(n.Name), c.Key, value))
			from = append(from, n)
		}
	}
	addNodes(sc, added)
	copySlices(sc, from, added)
	return nil
}

// String implements Change.
func (c AddDomainsLike) String() string {
	return fmt.Sprintf("add-domain:%s=%s:%d", c.Key, c.Value, c.Count)
}

// RemoveNodesLike removes Count nodes of the same kind as Node: the same
// allocatable and taints, whatever their labels, and named by no event
// or pod. They go in reverse name order (the last names first), so the
// same count always removes the same nodes.
type RemoveNodesLike struct {
	Node  string
	Count int
}

// Apply implements Change.
func (c RemoveNodesLike) Apply(sc *scenario.Scenario) error {
	cands, err := RemovalCandidates(sc, c.Node)
	if err != nil {
		return err
	}
	if c.Count > len(cands) {
		return changeError("only %d nodes like %q can be removed, not %d", len(cands), c.Node, c.Count)
	}
	gone := map[string]bool{}
	for _, name := range cands[:c.Count] {
		gone[name] = true
	}
	sc.Nodes = slices.DeleteFunc(slices.Clone(sc.Nodes), func(n cluster.Node) bool { return gone[n.Name] })
	return nil
}

// String implements Change.
func (c RemoveNodesLike) String() string { return fmt.Sprintf("remove:%s:%d", c.Node, c.Count) }

// RemovalCandidates returns the nodes RemoveNodesLike may remove for a
// template node, in the order it removes them.
func RemovalCandidates(sc *scenario.Scenario, node string) ([]string, error) {
	tmpl, ok := findNode(sc, node)
	if !ok {
		return nil, changeError("node %q is not one of the scenario's nodes", node)
	}
	named := map[string]bool{}
	for _, e := range sc.Events {
		named[e.Name] = true
	}
	for _, p := range sc.Pods {
		named[p.Pod.NodeName] = true
	}
	var out []string
	for _, n := range sc.Nodes {
		if n.Allocatable.Equal(tmpl.Allocatable) && slices.Equal(n.Taints, tmpl.Taints) && !named[n.Name] {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out, nil
}

// ScoringStrategy sets NodeResourcesFit's scoring strategy type
// (LeastAllocated, MostAllocated, or RequestedToCapacityRatio with its
// Shape) in every profile, keeping its resource weights.
type ScoringStrategy struct {
	Type noderesources.ScoringType
	// Shape is RequestedToCapacityRatio's function; nil for the other
	// types.
	Shape []noderesources.UtilizationShapePoint
}

// Apply implements Change.
func (c ScoringStrategy) Apply(sc *scenario.Scenario) error {
	var ratio *noderesources.RequestedToCapacityRatioParam
	if c.Type == noderesources.RequestedToCapacityRatio {
		ratio = &noderesources.RequestedToCapacityRatioParam{Shape: slices.Clone(c.Shape)}
	}
	eachProfile(sc, func(p *gangsim.Profile) {
		st := noderesources.ScoringStrategy{Type: c.Type, RequestedToCapacityRatio: ratio}
		i := slices.IndexFunc(p.PluginConfig, func(pc gangsim.PluginConfig) bool { return pc.Name == noderesources.Name })
		if i >= 0 {
			if old, ok := p.PluginConfig[i].Args.(*noderesources.FitArgs); ok && old != nil && old.ScoringStrategy != nil {
				st.Resources = slices.Clone(old.ScoringStrategy.Resources)
			}
			p.PluginConfig[i].Args = &noderesources.FitArgs{ScoringStrategy: &st}
			return
		}
		p.PluginConfig = append(p.PluginConfig, gangsim.PluginConfig{Name: noderesources.Name, Args: &noderesources.FitArgs{ScoringStrategy: &st}})
	})
	return nil
}

// String implements Change: "strategy:TYPE", and for
// RequestedToCapacityRatio its points as UTILIZATION=SCORE joined by "/".
func (c ScoringStrategy) String() string {
	s := "strategy:" + string(c.Type)
	for i, p := range c.Shape {
		sep := "/"
		if i == 0 {
			sep = ":"
		}
		s += fmt.Sprintf("%s%d=%d", sep, p.Utilization, p.Score)
	}
	return s
}

// PluginWeight sets a plugin's weight at every scoring point it extends
// (Score, PlacementScore), in every profile, enabling it if it was not.
type PluginWeight struct {
	Plugin string
	Weight int32
}

// Apply implements Change.
func (c PluginWeight) Apply(sc *scenario.Scenario) error {
	eachProfile(sc, func(p *gangsim.Profile) {
		var plugins gangsim.Plugins
		if p.Plugins != nil {
			plugins = *p.Plugins
		}
		enabled := slices.DeleteFunc(slices.Clone(plugins.MultiPoint.Enabled), func(r gangsim.PluginRef) bool { return r.Name == c.Plugin })
		plugins.MultiPoint.Enabled = append(enabled, gangsim.PluginRef{Name: c.Plugin, Weight: c.Weight})
		p.Plugins = &plugins
	})
	return nil
}

// String implements Change.
func (c PluginWeight) String() string { return fmt.Sprintf("weight:%s:%d", c.Plugin, c.Weight) }

// eachProfile calls f on a copy of every profile of the scenario's config
// (the default profile when it has none), which then replaces them.
func eachProfile(sc *scenario.Scenario, f func(*gangsim.Profile)) {
	profiles := slices.Clone(sc.Config.Profiles)
	if len(profiles) == 0 {
		profiles = []gangsim.Profile{gangsim.DefaultProfile()}
	}
	for i := range profiles {
		profiles[i].PluginConfig = slices.Clone(profiles[i].PluginConfig)
		f(&profiles[i])
	}
	sc.Config.Profiles = profiles
}

func findNode(sc *scenario.Scenario, name string) (cluster.Node, bool) {
	i := slices.IndexFunc(sc.Nodes, func(n cluster.Node) bool { return n.Name == name })
	if i < 0 {
		return cluster.Node{}, false
	}
	return sc.Nodes[i], true
}

// copyNode returns a copy of a node under a new name, with label key set
// to value when key is given; a hostname label follows the name.
func copyNode(tmpl cluster.Node, name, key, value string) cluster.Node {
	n := tmpl.Clone()
	n.Name = name
	labels := maps.Clone(n.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	if _, ok := labels[gangsim.LabelHostname]; ok {
		labels[gangsim.LabelHostname] = name
	}
	if key != "" {
		labels[key] = value
	}
	n.Labels = labels
	return n
}

// copySlices gives each node of added (a copy of the node of from at the
// same index) a copy of every ResourceSlice published for its template
// alone (spec.nodeName): the devices a driver would publish on a new node
// of the same kind. A copy is named for the new node (the template's name
// in the slice's name replaced by the new node's, or the new node's name
// put before it), and so is its pool, since a pool belongs to one node
// and a device is known by its driver, pool and name; the pool's
// generation and slice count stay as they were, as the driver on the new
// node would publish them. Slices for several nodes (a node selector, all
// nodes) already reach a copy whose labels they select, and are left as
// they are. The scenario's slices are replaced by a new array.
func copySlices(sc *scenario.Scenario, from, added []cluster.Node) {
	if len(sc.Devices.Slices) == 0 {
		return
	}
	byNode := map[string][]cluster.ResourceSlice{}
	taken := map[string]bool{}
	for _, s := range sc.Devices.Slices {
		taken[s.Name] = true
		if s.NodeName != "" {
			byNode[s.NodeName] = append(byNode[s.NodeName], s)
		}
	}
	out := slices.Clip(sc.Devices.Slices)
	for i, n := range added {
		for _, s := range byNode[from[i].Name] {
			c := s // its devices are shared, read-only as the scenario's objects are
			c.NodeName = n.Name
			c.Name = renamed(s.Name, from[i].Name, n.Name, taken)
			c.Pool.Name = forNode(s.Pool.Name, from[i].Name, n.Name)
			out = append(out, c)
		}
	}
	sc.Devices.Slices = out
}

// forNode is name with the template node's name replaced by the new
// node's, or, when it does not hold it, the new node's name before it.
func forNode(name, tmpl, node string) string {
	if strings.Contains(name, tmpl) {
		return strings.ReplaceAll(name, tmpl, node)
	}
	return node + "-" + name
}

// renamed is forNode's name, made unique among taken (which it joins)
// by a suffix -2, -3, ... when needed.
func renamed(name, tmpl, node string, taken map[string]bool) string {
	base := forNode(name, tmpl, node)
	out := base
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s-%d", base, i)
	}
	taken[out] = true
	return out
}

// nodeNames returns the names of the scenario's nodes, those its events
// add included.
func nodeNames(sc *scenario.Scenario) map[string]bool {
	taken := map[string]bool{}
	for _, n := range sc.Nodes {
		taken[n.Name] = true
	}
	for _, e := range sc.Events {
		if e.Node != nil {
			taken[e.Node.Name] = true
		}
	}
	return taken
}

// namer hands out base-new1, base-new2, ...: for each base the first not
// taken, which it takes. Names are only taken, never given back, so the
// search for a base goes on from where its last one ended: n names of
// one base cost O(n), not O(n^2).
type namer struct {
	taken map[string]bool
	next  map[string]int // by base, the first number not tried
}

func newNamer(taken map[string]bool) *namer { return &namer{taken: taken, next: map[string]int{}} }

// fresh returns base's next name not taken, and takes it.
func (n *namer) fresh(base string) string {
	for i := max(n.next[base], 1); ; i++ {
		name := base + "-new" + strconv.Itoa(i)
		if !n.taken[name] {
			n.taken[name], n.next[base] = true, i+1
			return name
		}
	}
}

// addNodes appends nodes to the scenario's in a new array (the old one
// may be shared with the base).
func addNodes(sc *scenario.Scenario, nodes []cluster.Node) {
	sc.Nodes = append(slices.Clip(sc.Nodes), nodes...)
}

func changeError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrChange, fmt.Sprintf(format, args...))
}

// spell joins changes as ParseVariant reads them.
func spell(changes []Change) string {
	if len(changes) == 0 {
		return Base
	}
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}
