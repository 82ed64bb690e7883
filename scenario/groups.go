package scenario

import (
	"strings"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// groups reads the hierarchy: composites parents first (whatever their
// order in the file; a cycle is an error), then the PodGroups. Every
// object is created at time 0, so siblings are ordered by name, as
// kube-scheduler orders children created in the same second. A forest and
// the Scheduler's admission check them as the Scheduler will.
func (b *builder) groups(f *file) error {
	if err := b.composites(f.CompositePodGroups, &b.forest); err != nil {
		return err
	}
	for i := range f.PodGroups {
		s := &f.PodGroups[i]
		where := entry("podGroups", i, s.Name)
		g := podgroup.PodGroup{Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey, Priority: s.Priority,
			PriorityClassName: s.PriorityClassName, DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode),
			PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		if s.MinCount != nil {
			g.Policy, g.MinCount = podgroup.Gang, *s.MinCount
		}
		if s.Name == "" {
			return b.failf(s.Line, where+".name", "required")
		}
		if err := b.addGroup(g, &s.groupCommon, s.Line, where); err != nil {
			return err
		}
	}
	return nil
}

// addGroup checks a PodGroup as the Scheduler's admission will and adds it
// to the scenario (hand-written entries and workload templates alike).
func (b *builder) addGroup(g podgroup.PodGroup, s *groupCommon, line int, where string) error {
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
func (b *builder) admitGroup(key string, s *groupCommon, forest *podgroup.Forest, where string) (admittedGroup, error) {
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

// composites adds the composites in an order where each parent comes
// before its children.
func (b *builder) composites(specs []compositeSpec, forest *podgroup.Forest) error {
	index := map[string]int{}
	for i, s := range specs {
		where := entry("compositePodGroups", i, s.Name)
		if s.Name == "" {
			return b.failf(s.Line, where+".name", "required")
		}
		if _, dup := index[s.Name]; dup {
			return b.failf(s.Line, where+".name", "composite pod group %q is defined twice", s.Name)
		}
		index[s.Name] = i
	}
	done := map[string]bool{}
	var visit func(i int, path []string) error
	visit = func(i int, path []string) error {
		s := &specs[i]
		if done[s.Name] {
			return nil
		}
		where := entry("compositePodGroups", i, s.Name)
		for j, name := range path {
			if name == s.Name {
				return b.failf(s.Line, where+".parent", "cycle %s", strings.Join(append(path[j:], s.Name), " -> "))
			}
		}
		if p, ok := index[s.Parent]; ok && s.Parent != "" {
			if err := visit(p, append(path, s.Name)); err != nil {
				return err
			}
		}
		if err := b.addComposite(s, forest, where); err != nil {
			return err
		}
		done[s.Name] = true
		return nil
	}
	for i := range specs {
		if err := visit(i, nil); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) addComposite(s *compositeSpec, forest *podgroup.Forest, where string) error {
	c := podgroup.CompositePodGroup{Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey, Priority: s.Priority,
		PriorityClassName: s.PriorityClassName, DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode),
		PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
	if s.MinGroupCount != nil {
		c.Policy, c.MinGroupCount = podgroup.Gang, *s.MinGroupCount
	}
	admitted, err := b.admitGroup(c.Key(), &s.groupCommon, forest, where)
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
