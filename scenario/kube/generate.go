package kube

import (
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The API server names an object created with metadata.generateName and
// no name: the prefix and five random characters, tried again with other
// characters when the name is taken. The importer names it the prefix and
// its index among the objects of its kind with that prefix, in input
// order over every file of the load (web-0, web-1, ...); an index whose
// name an object of the same kind and namespace has already (an explicit
// name, in a file of objects or a scenario file) is skipped, as the API
// server retries, so the names stay deterministic.

// maxGeneratedPrefix is the longest prefix the API server keeps of a
// generateName (63 characters less the five it adds): a longer one is
// cut, as it cuts it.
const maxGeneratedPrefix = 58

// nameKey is a name of one kind in one namespace.
type nameKey struct{ kind, namespace, name string }

// nameGenerated names every object of the inputs that has
// metadata.generateName and no metadata.name.
func nameGenerated(ins []*Input) error {
	var taken map[nameKey]bool // made on the first object to name
	next := map[[2]string]int{}
	for _, in := range ins {
		for _, o := range in.Objects {
			if o.name != "" || o.generateName == "" {
				continue
			}
			if taken == nil {
				taken = takenNames(ins)
			}
			if err := o.generate(taken, next); err != nil {
				return err
			}
		}
	}
	return nil
}

// generate names o from its generateName: the first index of its kind and
// prefix whose name is free in its namespace.
func (o *Object) generate(taken map[nameKey]bool, next map[[2]string]int) error {
	label := o.kind == "Namespace"
	prefix := o.generateName
	if len(prefix) > maxGeneratedPrefix {
		prefix = prefix[:maxGeneratedPrefix]
	}
	// the prefix must start a valid name; a trailing '-' is what it is for
	if err := schema.NameError(maskTrailingDash(prefix), label); err != nil {
		return o.failf(nil, "metadata.generateName", "%q cannot begin a name: %v", o.generateName, err)
	}
	counter := [2]string{o.kind, prefix}
	for {
		i := next[counter]
		next[counter] = i + 1
		name := prefix + strconv.Itoa(i)
		key := nameKey{o.kind, o.namespace, name}
		if taken[key] {
			continue
		}
		if err := schema.NameError(name, label); err != nil {
			return o.failf(nil, "metadata.generateName", "the generated name: %v", err)
		}
		taken[key] = true
		o.name = name
		return nil
	}
}

// maskTrailingDash makes a prefix a name to check, as the API server
// checks a generateName: its trailing '-' becomes a letter.
func maskTrailingDash(prefix string) string {
	if rest, ok := strings.CutSuffix(prefix, "-"); ok {
		return rest + "a"
	}
	return prefix
}

// takenNames are the names the inputs give explicitly: their objects', and
// their scenario files' entries (count expanded) of the kinds an object
// may also be.
func takenNames(ins []*Input) map[nameKey]bool {
	taken := map[nameKey]bool{}
	add := func(kind, namespace, name string) {
		if name != "" {
			taken[nameKey{kind, namespace, name}] = true
		}
	}
	for _, in := range ins {
		for _, o := range in.Objects {
			add(o.kind, o.namespace, o.name)
		}
		f := in.File
		for i := range f.Pods {
			p := &f.Pods[i]
			for _, name := range schema.CountNames(p.Name, p.Count) {
				add("Pod", orDefaultNamespace(p.Namespace), name)
			}
		}
		for i := range f.Nodes {
			for _, name := range schema.CountNames(f.Nodes[i].Name, f.Nodes[i].Count) {
				add("Node", "", name)
			}
		}
		for _, g := range f.PodGroups {
			add("PodGroup", orDefaultNamespace(g.Namespace), g.Name)
		}
		for _, g := range f.CompositePodGroups {
			add("CompositePodGroup", orDefaultNamespace(g.Namespace), g.Name)
		}
		for _, c := range f.PriorityClasses {
			add("PriorityClass", "", c.Name)
		}
		for _, b := range f.Budgets {
			add("PodDisruptionBudget", orDefaultNamespace(b.Namespace), b.Name)
		}
		for _, ns := range f.Namespaces {
			add("Namespace", "", ns.Name)
		}
	}
	return taken
}

func orDefaultNamespace(ns string) string {
	if ns == "" {
		return cluster.DefaultNamespace
	}
	return ns
}
