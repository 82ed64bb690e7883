package gangsim

import (
	"fmt"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// groups reads the hierarchy: composites parents first (whatever their
// order in the file; a cycle is an error), then the PodGroups. Every
// object is created at time 0, so siblings are ordered by name, as
// kube-scheduler orders children created in the same second.
func (b *builder) groups(f *scenarioFile) error {
	if err := b.composites(f.CompositePodGroups); err != nil {
		return err
	}
	for i := range f.PodGroups {
		s := &f.PodGroups[i]
		where := fmt.Sprintf("podGroups[%d] (%s)", i, s.Name)
		g := podgroup.PodGroup{Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey,
			DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode), PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		if s.MinCount != nil {
			g.Policy, g.MinCount = podgroup.Gang, *s.MinCount
		}
		if s.Name == "" {
			return fmt.Errorf("%s: name: required", where)
		}
		var err error
		if g.Priority, g.PreemptionPolicy, err = b.groupPriority(&s.groupCommon, g.PreemptionPolicy, where); err != nil {
			return err
		}
		if err := b.forest.AddGroup(&g); err != nil {
			return fmt.Errorf("%s: %v", where, trimErr(err))
		}
		b.sc.PodGroups = append(b.sc.PodGroups, g)
	}
	for i := range b.sc.PodGroups {
		b.groupByKey[b.sc.PodGroups[i].Key()] = &b.sc.PodGroups[i]
	}
	return nil
}

// composites adds the composites in an order where each parent comes
// before its children.
func (b *builder) composites(specs []compositeSpec) error {
	index := map[string]int{}
	for i, s := range specs {
		if s.Name == "" {
			return fmt.Errorf("compositePodGroups[%d]: name: required", i)
		}
		if _, dup := index[s.Name]; dup {
			return fmt.Errorf("compositePodGroups[%d] (%s): name: composite pod group %q is defined twice", i, s.Name, s.Name)
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
		where := fmt.Sprintf("compositePodGroups[%d] (%s)", i, s.Name)
		for j, name := range path {
			if name == s.Name {
				return fmt.Errorf("%s: parent: cycle %s", where, strings.Join(append(path[j:], s.Name), " -> "))
			}
		}
		if p, ok := index[s.Parent]; ok && s.Parent != "" {
			if err := visit(p, append(path, s.Name)); err != nil {
				return err
			}
		}
		if err := b.addComposite(s, where); err != nil {
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

func (b *builder) addComposite(s *compositeSpec, where string) error {
	c := podgroup.CompositePodGroup{Name: s.Name, Parent: s.Parent, TopologyKey: s.TopologyKey,
		DisruptionMode: podgroup.DisruptionMode(s.DisruptionMode), PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
	if s.MinGroupCount != nil {
		c.Policy, c.MinGroupCount = podgroup.Gang, *s.MinGroupCount
	}
	var err error
	if c.Priority, c.PreemptionPolicy, err = b.groupPriority(&s.groupCommon, c.PreemptionPolicy, where); err != nil {
		return err
	}
	if err := b.forest.AddComposite(&c); err != nil {
		return fmt.Errorf("%s: %v", where, trimErr(err))
	}
	b.sc.CompositePodGroups = append(b.sc.CompositePodGroups, c)
	return nil
}

// trimErr drops the package prefix of a podgroup error, which the location
// already says.
func trimErr(err error) string {
	msg := err.Error()
	for _, prefix := range []string{podgroup.ErrHierarchy.Error() + ": ", podgroup.ErrInvalid.Error() + " ", podgroup.ErrInvalid.Error() + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// groupPriority resolves a group's priority: priority, else the class's
// value, else its parent's (a hierarchy has one priority), else the global
// default, else 0. The class's preemption policy applies unless the group
// sets its own.
func (b *builder) groupPriority(s *groupCommon, policy cluster.PreemptionPolicy, where string) (int32, cluster.PreemptionPolicy, error) {
	if s.Priority != nil && s.PriorityClassName != "" {
		return 0, "", fmt.Errorf("%s: priority: give priority or priorityClassName, not both", where)
	}
	if s.Priority != nil {
		return *s.Priority, policy, nil
	}
	if s.PriorityClassName == "" && s.Parent != "" {
		if parent := b.forest.Composite(podgroup.Key("", s.Parent)); parent != nil {
			return parent.Priority, policy, nil
		}
	}
	prio, classPolicy, err := b.classes.Resolve(s.PriorityClassName)
	if err != nil {
		return 0, "", fmt.Errorf("%s: priorityClassName: %v", where, err)
	}
	if policy == "" {
		policy = classPolicy
	}
	return prio, policy, nil
}
