package scenario

import (
	"strings"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// groups reads the hierarchy of every input: composites parents first
// (whatever their order and file; a cycle is an error), then the
// PodGroups. Every object is created at time 0, so siblings are ordered by
// name, as kube-scheduler orders children created in the same second. A
// forest and the Scheduler's admission check them as the Scheduler will.
func (b *builder) groups(ins []*input) error {
	forest := &b.forest // workload templates add their groups to it later
	var comps []compositeItem
	for _, in := range ins {
		for i := range in.spec.CompositePodGroups {
			comps = append(comps, compositeItem{in.name, i, &in.spec.CompositePodGroups[i]})
		}
	}
	if err := b.composites(comps, forest); err != nil {
		return err
	}
	for _, in := range ins {
		b.file = in.name
		if err := b.podGroups(in.spec.PodGroups); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) podGroups(specs []schema.PodGroup) error {
	for i := range specs {
		s := &specs[i]
		where := b.entry(s.Origin, "podGroups", i, s.Name)
		g := podgroup.PodGroup{Namespace: s.Namespace, Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey, Priority: s.Priority,
			PriorityClassName: s.PriorityClassName, DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode),
			PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		if s.MinCount != nil {
			g.Policy, g.MinCount = podgroup.Gang, *s.MinCount
		}
		if err := b.checkGroupNames(&s.GroupCommon, where); err != nil {
			return err
		}
		claims, err := b.claimEntries(s.ResourceClaims, s.Line, where)
		if err != nil {
			return err
		}
		if len(claims) > podgroup.MaxResourceClaims {
			return b.failf(s.Line, where+".resourceClaims", "%d entries, at most %d are allowed", len(claims), podgroup.MaxResourceClaims)
		}
		g.ResourceClaims = claims
		if err := b.addGroup(g, &s.GroupCommon, s.Line, where); err != nil {
			return err
		}
	}
	return nil
}

// checkGroupNames checks a group's name, namespace and parent.
func (b *builder) checkGroupNames(s *schema.GroupCommon, where string) error {
	if err := b.checkNames(s.Line, where, s.Name, s.Namespace); err != nil {
		return err
	}
	if s.Parent != "" {
		if err := schema.NameError(s.Parent, false); err != nil {
			return b.fail(s.Line, where+".parent", err)
		}
	}
	return nil
}

// addGroup checks a PodGroup as the Scheduler's admission will and adds it
// to the scenario (hand-written entries and workload templates alike).
func (b *builder) addGroup(g podgroup.PodGroup, s *schema.GroupCommon, line int, where string) error {
	admitted, err := b.admitGroup(g.Key(), s, &b.forest, where)
	if err != nil {
		return err
	}
	checked := g
	checked.Priority, checked.PreemptionPolicy = &admitted.prio, admitted.policy
	if err := b.forest.AddGroup(&checked); err != nil {
		return b.fail(line, where, err)
	}
	b.groupByKey[g.Key()] = &checked
	b.sc.PodGroups = append(b.sc.PodGroups, g)
	return nil
}

type admittedGroup struct {
	prio   int32
	policy cluster.PreemptionPolicy
}

// admitGroup resolves a group's priority as the Scheduler will.
func (b *builder) admitGroup(key string, s *schema.GroupCommon, forest *podgroup.Forest, where string) (admittedGroup, error) {
	var parent *podgroup.CompositePodGroup
	if s.Parent != "" {
		ns, _, _ := strings.Cut(key, "/")
		parent = forest.Composite(podgroup.Key(ns, s.Parent))
	}
	prio, policy, err := gangsim.GroupPriority(&b.classes, key, s.Priority, s.PriorityClassName, cluster.PreemptionPolicy(s.PreemptionPolicy), parent)
	if err != nil {
		return admittedGroup{}, b.fail(s.Line, where, err)
	}
	return admittedGroup{prio, policy}, nil
}

// compositeItem is a composite of some input file, at index i of its list.
type compositeItem struct {
	file string
	i    int
	spec *schema.CompositePodGroup
}

// enter makes the item the entry being built and returns its path.
func (b *builder) enter(it compositeItem) string {
	b.file = it.file
	return b.entry(it.spec.Origin, "compositePodGroups", it.i, it.spec.Name)
}

// composites adds the composites in an order where each parent comes
// before its children.
func (b *builder) composites(items []compositeItem, forest *podgroup.Forest) error {
	index := map[string]int{} // by key
	for k, it := range items {
		s := it.spec
		where := b.enter(it)
		if err := b.checkGroupNames(&s.GroupCommon, where); err != nil {
			return err
		}
		if _, dup := index[podgroup.Key(s.Namespace, s.Name)]; dup {
			return b.failf(s.Line, where+".name", "composite pod group %q is defined twice", s.Name)
		}
		index[podgroup.Key(s.Namespace, s.Name)] = k
	}
	done := map[int]bool{}
	var visit func(k int, path []string) error
	visit = func(k int, path []string) error {
		s := items[k].spec
		if done[k] {
			return nil
		}
		for j, name := range path {
			if name == s.Name {
				return b.failf(s.Line, b.enter(items[k])+".parent", "cycle %s", strings.Join(append(path[j:], s.Name), " -> "))
			}
		}
		if len(path) > podgroup.MaxDepth {
			// no valid hierarchy is this deep: stop before the walk grows
			// with the chain
			return b.failf(items[index[podgroup.Key(s.Namespace, path[0])]].spec.Line, b.enter(items[index[podgroup.Key(s.Namespace, path[0])]])+".parent",
				"the chain of parents is deeper than %d levels (%s ...)", podgroup.MaxDepth, strings.Join(path, " -> "))
		}
		if p, ok := index[podgroup.Key(s.Namespace, s.Parent)]; ok && s.Parent != "" {
			if err := visit(p, append(path, s.Name)); err != nil {
				return err
			}
		}
		if err := b.addComposite(s, forest, b.enter(items[k])); err != nil {
			return err
		}
		done[k] = true
		return nil
	}
	for k := range items {
		if err := visit(k, nil); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) addComposite(s *schema.CompositePodGroup, forest *podgroup.Forest, where string) error {
	c := podgroup.CompositePodGroup{Namespace: s.Namespace, Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey, Priority: s.Priority,
		PriorityClassName: s.PriorityClassName, DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode),
		PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
	if s.MinGroupCount != nil {
		c.Policy, c.MinGroupCount = podgroup.Gang, *s.MinGroupCount
	}
	admitted, err := b.admitGroup(c.Key(), &s.GroupCommon, forest, where)
	if err != nil {
		return err
	}
	checked := c
	checked.Priority, checked.PreemptionPolicy = &admitted.prio, admitted.policy
	if err := forest.AddComposite(&checked); err != nil {
		return b.fail(s.Line, where, err)
	}
	b.sc.CompositePodGroups = append(b.sc.CompositePodGroups, c)
	return nil
}
