package kube

import "github.com/gangsim/gangsim/scenario/internal/schema"

// checkName checks an object's name and namespace as the API server does:
// a DNS subdomain (a DNS label for a Namespace, label is true), and a DNS
// label for the namespace.
func checkName(o *Object, label bool) error {
	if o.name == "" {
		return o.failf(nil, "metadata.name", "required")
	}
	if err := schema.NameError(o.name, label); err != nil {
		return o.fail(nil, "metadata.name", err)
	}
	if o.namespace != "" {
		if err := schema.NameError(o.namespace, true); err != nil {
			return o.fail(nil, "metadata.namespace", err)
		}
	}
	return nil
}

// node converts a Node: labels, taints, spec.unschedulable and
// status.allocatable (its capacity when it gives none).
func (k *kubeImport) node(o *Object, v *kubeNode) (schema.Node, error) {
	s := schema.Node{Line: o.line, Name: o.name, Labels: v.Metadata.Labels, Unschedulable: v.Spec.Unschedulable,
		Allocatable: v.Status.Allocatable, Origin: newOrigin(o, kubeNodeFields)}
	field := "status.allocatable"
	if s.Allocatable == nil {
		s.Allocatable, field = v.Status.Capacity, "status.capacity"
	}
	if s.Allocatable == nil {
		return s, o.failf(nil, "status.allocatable", "required: what the node offers to pods")
	}
	if _, name, err := parseResourceList(s.Allocatable, schema.ResourcesOfNode); err != nil {
		return s, o.fail(nil, field+"."+name, err)
	}
	for _, t := range v.Spec.Taints {
		s.Taints = append(s.Taints, schema.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return s, checkName(o, false)
}

func (k *kubeImport) priorityClass(o *Object, v *kubePriorityClass, f *schema.File) error {
	f.PriorityClasses = append(f.PriorityClasses, schema.PriorityClass{Line: o.line, Name: o.name, Value: v.Value,
		PreemptionPolicy: v.PreemptionPolicy, GlobalDefault: v.GlobalDefault, Origin: newOrigin(o, kubeMetaFields)})
	return checkName(o, false)
}

// budget converts a PodDisruptionBudget. One whose selector is empty is
// left out with a warning: kube-scheduler's preemption ignores it.
func (k *kubeImport) budget(o *Object, v *kubeBudget, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	var sel schema.LabelSelector
	if v.Spec.Selector != nil {
		if err := schema.DecodeField(v.Spec.Selector, &sel, "spec.selector"); err != nil {
			return o.decodeFail(err)
		}
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		k.ws.Add(o.kind, "spec.selector", "empty: preemption ignores the budget, and so does the simulator", o.file+": "+o.ref())
		return nil
	}
	f.Budgets = append(f.Budgets, schema.Budget{Line: o.line, Name: o.name, Namespace: o.namespace, Selector: v.Spec.Selector,
		MinAvailable: v.Spec.MinAvailable, MaxUnavailable: v.Spec.MaxUnavailable, Origin: newOrigin(o, kubeBudgetFields)})
	return nil
}

// group reads what PodGroups and CompositePodGroups share.
func (k *kubeImport) group(o *Object, g *kubeGroupSpec) (schema.GroupCommon, error) {
	c := schema.GroupCommon{Line: o.line, Name: o.name, Namespace: o.namespace, Parent: g.ParentCompositePodGroupName,
		Priority: g.Priority, PriorityClassName: g.PriorityClassName, PreemptionPolicy: g.PreemptionPolicy,
		Origin: newOrigin(o, kubeGroupFields)}
	if err := checkName(o, false); err != nil {
		return c, err
	}
	if sc := g.SchedulingConstraints; sc != nil {
		switch len(sc.Topology) {
		case 0:
		case 1:
			c.TopologyKey = sc.Topology[0].Key
			if c.TopologyKey == "" {
				return c, o.failf(nil, "spec.schedulingConstraints.topology[0].key", "required")
			}
		default:
			return c, o.failf(nil, "spec.schedulingConstraints.topology", "at most one topology constraint (has %d)", len(sc.Topology))
		}
	}
	if dm := g.DisruptionMode; dm != nil {
		switch {
		case dm.Single != nil && dm.All == nil:
			c.DisruptionMode = "Single"
		case dm.All != nil && dm.Single == nil:
			c.DisruptionMode = "All"
		default:
			return c, o.failf(nil, "spec.disruptionMode", "exactly one of single and all")
		}
	}
	return c, nil
}

// checkPolicy checks a scheduling policy union: exactly one of basic and gang,
// and a gang's count.
func checkPolicy(o *Object, basic bool, gang bool, count *int32, countField string) error {
	switch {
	case basic == gang:
		return o.failf(nil, "spec.schedulingPolicy", "exactly one of basic and gang")
	case gang && count == nil:
		return o.failf(nil, "spec.schedulingPolicy.gang."+countField, "required")
	case gang && *count < 1:
		return o.failf(nil, "spec.schedulingPolicy.gang."+countField, "%d is below 1", *count)
	}
	return nil
}

func (k *kubeImport) podGroup(o *Object, v *kubePodGroup, f *schema.File) error {
	c, err := k.group(o, &v.Spec.kubeGroupSpec)
	if err != nil {
		return err
	}
	s := schema.PodGroup{GroupCommon: c, ResourceClaims: v.Spec.ResourceClaims}
	p := v.Spec.SchedulingPolicy
	if p == nil {
		return o.failf(nil, "spec.schedulingPolicy", "required")
	}
	if p.Gang != nil {
		s.MinCount = p.Gang.MinCount
	}
	if err := checkPolicy(o, p.Basic != nil, p.Gang != nil, s.MinCount, "minCount"); err != nil {
		return err
	}
	f.PodGroups = append(f.PodGroups, s)
	return nil
}

func (k *kubeImport) compositePodGroup(o *Object, v *kubeCompositePodGroup, f *schema.File) error {
	c, err := k.group(o, &v.Spec.kubeGroupSpec)
	if err != nil {
		return err
	}
	s := schema.CompositePodGroup{GroupCommon: c}
	p := v.Spec.SchedulingPolicy
	if p == nil {
		return o.failf(nil, "spec.schedulingPolicy", "required")
	}
	if p.Gang != nil {
		s.MinGroupCount = p.Gang.MinGroupCount
	}
	if err := checkPolicy(o, p.Basic != nil, p.Gang != nil, s.MinGroupCount, "minGroupCount"); err != nil {
		return err
	}
	f.CompositePodGroups = append(f.CompositePodGroups, s)
	return nil
}
