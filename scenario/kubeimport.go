package scenario

import (
	"reflect"
	"slices"
	"time"

	fw "github.com/gangsim/gangsim/framework"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// kubeImport turns the Kubernetes objects of every input into scenario
// entries of the same input, in object order. It decodes every object
// first, so that a workload can see the pods it already has and a
// DaemonSet every node, whichever file they are in.
type kubeImport struct {
	tally   *tally // the pods and nodes of the inputs so far
	ws      *warnings
	plugins fw.Registry // the plugins a configuration may name
	objs    []kubeDecoded

	nodes     []cluster.Node                   // every node at time 0, for DaemonSets
	owned     map[kubeOwnerKey]*kubeOwnedCount // pods and replica sets by controller
	selectors map[kubeOwnerKey]*labelSelectorSpec
	podNames  map[cluster.PodKey]bool // every pod of the inputs, made ones too
}

// kubeDecoded is a decoded object, the input it belongs to, and the
// paths of the fields it holds that are not modelled.
type kubeDecoded struct {
	in         *input
	o          *kubeObject
	v          any
	unmodelled []string
}

// kubeOwnerKey identifies a controller: namespace, kind and name.
type kubeOwnerKey struct{ namespace, kind, name string }

// kubeOwnedCount is what a controller has in the inputs already.
type kubeOwnedCount struct {
	active    int             // pods not finished
	succeeded int             // pods that succeeded (a Job counts them)
	nodes     map[string]bool // nodes with one of its pods (a DaemonSet's)
	children  int             // ReplicaSets (a Deployment's)
}

// importKube converts the objects of every input. opts give the plugins a
// KubeSchedulerConfiguration may configure.
func importKube(ins []*input, ws *warnings, opts []Option, t *tally) error {
	o := applyOptions(opts)
	types := map[reflect.Type]*structFields{}
	k := &kubeImport{tally: t, ws: ws, plugins: gangsim.DefaultRegistry(), owned: map[kubeOwnerKey]*kubeOwnedCount{},
		selectors: map[kubeOwnerKey]*labelSelectorSpec{}, podNames: map[cluster.PodKey]bool{}}
	for name, f := range o.registry {
		k.plugins[name] = f
	}
	for _, in := range ins {
		for _, obj := range in.objects {
			v, unmodelled, err := decodeKube(obj, ws, types)
			if err != nil {
				return err
			}
			if v != nil {
				k.objs = append(k.objs, kubeDecoded{in, obj, v, unmodelled})
			}
		}
	}
	k.index(ins)
	for _, d := range k.objs {
		if err := k.convert(d); err != nil {
			return err
		}
		if !finished(d.v) { // a finished pod is left out, and what it holds with it
			for _, path := range d.unmodelled {
				ws.add(d.o.kind, fieldOf(path), notModelled, d.o.file+": "+d.o.ref())
			}
		}
	}
	for _, in := range ins {
		sortPods(in.spec)
	}
	return nil
}

// convert adds the entries an object makes to its input.
func (k *kubeImport) convert(d kubeDecoded) error {
	f, o := d.in.spec, d.o
	switch v := d.v.(type) {
	case *kubeNode:
		if err := k.tally.addNodes(1); err != nil {
			return o.fail(nil, "metadata.name", err)
		}
		s, err := k.node(o, v)
		f.Nodes = append(f.Nodes, s)
		return err
	case *kubePod:
		return k.pod(o, v, f)
	case *kubeNamespace:
		f.Namespaces = append(f.Namespaces, namespaceSpec{Line: o.line, Name: o.name, Labels: v.Metadata.Labels, src: newKubeSource(o, kubeMetaFields)})
		return checkName(o, true)
	case *kubePriorityClass:
		return k.priorityClass(o, v, f)
	case *kubeBudget:
		return k.budget(o, v, f)
	case *kubePodGroup:
		return k.podGroup(o, v, f)
	case *kubeCompositePodGroup:
		return k.compositePodGroup(o, v, f)
	case *kubeSchedulerConfig:
		return k.config(o, v, f)
	}
	return k.workload(o, d.v, f)
}

// finished reports whether v is a pod that has finished (Succeeded or
// Failed), which the importer leaves out.
func finished(v any) bool {
	p, ok := v.(*kubePod)
	return ok && (p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed")
}

// sortPods orders the pods made from objects by creation time, as the
// scheduling queue meets them (first seen first, at equal priority); pods
// created at the same time, or without a time, keep their order. A
// scenario file's pods are left as they are.
func sortPods(f *file) {
	created := func(p *podSpec) time.Time {
		if p.src == nil {
			return time.Time{}
		}
		return p.src.created
	}
	slices.SortStableFunc(f.Pods, func(a, b podSpec) int { return created(&a).Compare(created(&b)) })
}
