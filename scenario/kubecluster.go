package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

var (
	// qualifiedName is the name part of a qualified name (a label key's,
	// an extended resource's).
	qualifiedName = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
)

// checkName checks an object's name and namespace as the API server does:
// a DNS subdomain (a DNS label for a Namespace, label is true), and a DNS
// label for the namespace.
func checkName(o *kubeObject, label bool) error {
	if o.name == "" {
		return o.failf(nil, "metadata.name", "required")
	}
	if err := nameError(o.name, label); err != nil {
		return o.fail(nil, "metadata.name", err)
	}
	if o.namespace != "" {
		if err := nameError(o.namespace, true); err != nil {
			return o.fail(nil, "metadata.namespace", err)
		}
	}
	return nil
}

// isDNSLabel reports whether s is lower case letters, digits and '-',
// starting and ending with a letter or digit (the length is checked apart).
// Every name of a file is checked: by hand, not by a regular expression.
func isDNSLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is DNS labels joined by '.'.
func isDNSSubdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isDNSLabel(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// nameError says what is wrong with a name, as the API server checks
// names: a DNS subdomain (pods, nodes, groups, budgets, classes), or a DNS
// label (namespaces) when label is set. nil for a valid name.
func nameError(name string, label bool) error {
	switch {
	case label && (len(name) > 63 || !isDNSLabel(name)):
		return fmt.Errorf("%q is not a DNS label (lower case letters, digits and '-', at most 63)", name)
	case len(name) > 253 || !isDNSSubdomain(name):
		return fmt.Errorf("%q is not a DNS subdomain (lower case letters, digits, '-' and '.', at most 253)", name)
	}
	return nil
}

// node converts a Node: labels, taints, spec.unschedulable and
// status.allocatable (its capacity when it gives none).
func (k *kubeImport) node(o *kubeObject, v *kubeNode) (nodeSpec, error) {
	s := nodeSpec{Line: o.line, Name: o.name, Labels: v.Metadata.Labels, Unschedulable: v.Spec.Unschedulable,
		Allocatable: v.Status.Allocatable, src: newKubeSource(o, kubeNodeFields)}
	field := "status.allocatable"
	if s.Allocatable == nil {
		s.Allocatable, field = v.Status.Capacity, "status.capacity"
	}
	if s.Allocatable == nil {
		return s, o.failf(nil, "status.allocatable", "required: what the node offers to pods")
	}
	if _, name, err := parseResourceList(s.Allocatable, resourcesOfNode); err != nil {
		return s, o.fail(nil, field+"."+name, err)
	}
	for _, t := range v.Spec.Taints {
		s.Taints = append(s.Taints, taintSpec{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return s, checkName(o, false)
}

func (k *kubeImport) priorityClass(o *kubeObject, v *kubePriorityClass, f *file) error {
	f.PriorityClasses = append(f.PriorityClasses, priorityClassSpec{Line: o.line, Name: o.name, Value: v.Value,
		PreemptionPolicy: v.PreemptionPolicy, GlobalDefault: v.GlobalDefault, src: newKubeSource(o, kubeMetaFields)})
	return checkName(o, false)
}

// budget converts a PodDisruptionBudget. One whose selector is empty is
// left out with a warning: kube-scheduler's preemption ignores it.
func (k *kubeImport) budget(o *kubeObject, v *kubeBudget, f *file) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	var sel labelSelectorSpec
	if v.Spec.Selector != nil {
		if err := decodeValue(v.Spec.Selector, reflect.ValueOf(&sel).Elem(), "spec.selector"); err != nil {
			return o.decodeFail(err)
		}
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		k.ws.add(o.kind, "spec.selector", "empty: preemption ignores the budget, and so does the simulator", o.file+": "+o.ref())
		return nil
	}
	f.Budgets = append(f.Budgets, budgetSpec{Line: o.line, Name: o.name, Namespace: o.namespace, Selector: v.Spec.Selector,
		MinAvailable: v.Spec.MinAvailable, MaxUnavailable: v.Spec.MaxUnavailable, src: newKubeSource(o, kubeBudgetFields)})
	return nil
}

// group reads what PodGroups and CompositePodGroups share.
func (k *kubeImport) group(o *kubeObject, g *kubeGroupSpec) (groupCommon, error) {
	c := groupCommon{Line: o.line, Name: o.name, Namespace: o.namespace, Parent: g.ParentCompositePodGroupName,
		Priority: g.Priority, PriorityClassName: g.PriorityClassName, PreemptionPolicy: g.PreemptionPolicy,
		src: newKubeSource(o, kubeGroupFields)}
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
func checkPolicy(o *kubeObject, basic bool, gang bool, count *int32, countField string) error {
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

func (k *kubeImport) podGroup(o *kubeObject, v *kubePodGroup, f *file) error {
	c, err := k.group(o, &v.Spec.kubeGroupSpec)
	if err != nil {
		return err
	}
	s := podGroupSpec{groupCommon: c}
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

func (k *kubeImport) compositePodGroup(o *kubeObject, v *kubeCompositePodGroup, f *file) error {
	c, err := k.group(o, &v.Spec.kubeGroupSpec)
	if err != nil {
		return err
	}
	s := compositeSpec{groupCommon: c}
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
