package scenario

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// definition is where an object is defined: its file, line and entry.
type definition struct {
	file string
	line int
	path string // the entry ("pods[2] (api)") or the object ("Pod ml/api")
	kube bool   // made from a Kubernetes object
}

// checkDefinedOnce reports an object defined twice when the two
// definitions are in different files or one is a Kubernetes object; the
// error names both. Twice in one scenario file is left to the builder,
// which reports it as it always has.
func checkDefinedOnce(ins []*input) error {
	if len(ins) == 1 && len(ins[0].objects) == 0 {
		return nil // one scenario file: the builder reports what it defines twice
	}
	seen := map[[2]string]definition{}
	check := func(kind, name string, def definition) error {
		key := [2]string{kind, name}
		first, dup := seen[key]
		if !dup {
			seen[key] = def
			return nil
		}
		if first.file == def.file && !first.kube && !def.kube {
			return nil
		}
		path := def.path + ".name"
		if def.kube {
			path = def.path + ": metadata.name"
		}
		return &FieldError{File: def.file, Line: def.line, Path: path,
			Err: fmt.Errorf("%s %s is defined twice: first in %s, line %d (%s)", kind, name, first.file, first.line, first.path)}
	}
	for _, in := range ins {
		for _, d := range definitions(in) {
			if err := check(d.kind, d.name, d.definition); err != nil {
				return err
			}
		}
	}
	return nil
}

// namedDefinition is a definition of a kind's object by name.
type namedDefinition struct {
	kind, name string
	definition
}

// definitions lists what an input defines, expanded as the builder
// expands it.
func definitions(in *input) []namedDefinition {
	var out []namedDefinition
	add := func(kind, name string, line int, src *schema.Origin, list string, i int, entryName string) {
		d := definition{file: in.name, line: line, path: entry(list, i, entryName)}
		if src != nil {
			d.path, d.kube = src.Object, true
		}
		out = append(out, namedDefinition{kind, name, d})
	}
	f := in.spec
	for i, s := range f.PriorityClasses {
		if !cluster.IsSystemPriorityClass(cluster.PriorityClass{Name: s.Name, Value: s.Value, GlobalDefault: s.GlobalDefault, PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}) {
			add("priority class", s.Name, s.Line, s.Origin, "priorityClasses", i, s.Name)
		}
	}
	for i, s := range f.Namespaces {
		add("namespace", s.Name, s.Line, s.Origin, "namespaces", i, s.Name)
	}
	for i, s := range f.Nodes {
		for _, name := range schema.CountNames(s.Name, s.Count) {
			add("node", name, s.Line, s.Origin, "nodes", i, s.Name)
		}
	}
	for i, s := range f.CompositePodGroups {
		add("composite pod group", podgroup.Key(s.Namespace, s.Name), s.Line, s.Origin, "compositePodGroups", i, s.Name)
	}
	for i, s := range f.PodGroups {
		add("pod group", podgroup.Key(s.Namespace, s.Name), s.Line, s.Origin, "podGroups", i, s.Name)
	}
	for i, s := range f.Budgets {
		add("pod disruption budget", string(cluster.MakePodKey(s.Namespace, s.Name)), s.Line, s.Origin, "podDisruptionBudgets", i, s.Name)
	}
	for i, s := range f.DeviceClasses {
		add("device class", s.Name, s.Line, s.Origin, "deviceClasses", i, s.Name)
	}
	for i, s := range f.ResourceSlices {
		add("resource slice", s.Name, s.Line, s.Origin, "resourceSlices", i, s.Name)
	}
	for i, s := range f.ResourceClaims {
		add("resource claim", cluster.MakePodKey(s.Namespace, s.Name).Display(), s.Line, s.Origin, "resourceClaims", i, s.Name)
	}
	for i, s := range f.ResourceClaimTemplates {
		add("resource claim template", cluster.MakePodKey(s.Namespace, s.Name).Display(), s.Line, s.Origin, "resourceClaimTemplates", i, s.Name)
	}
	for i, s := range f.Pods {
		for _, name := range schema.CountNames(s.Name, s.Count) {
			add("pod", string(cluster.MakePodKey(s.Namespace, name)), s.Line, s.Origin, "pods", i, s.Name)
		}
	}
	return out
}
