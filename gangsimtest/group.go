package gangsimtest

import (
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// PodGroupWrapper builds a podgroup.PodGroup one field at a time;
// MakeGang or MakeBasicGroup starts one and Obj returns it.
type PodGroupWrapper struct {
	group    podgroup.PodGroup // its Priority is set by Obj, from priority
	priority priority
}

// MakeGang starts a gang: at least minCount of its pods placed together,
// or none.
func MakeGang(name string, minCount int32) *PodGroupWrapper {
	return &PodGroupWrapper{group: podgroup.PodGroup{Name: name, Policy: podgroup.Gang, MinCount: minCount}}
}

// MakeBasicGroup starts a basic group: its pods placed independently, in
// one group cycle.
func MakeBasicGroup(name string) *PodGroupWrapper {
	return &PodGroupWrapper{group: podgroup.PodGroup{Name: name, Policy: podgroup.Basic}}
}

// Namespace sets the namespace.
func (w *PodGroupWrapper) Namespace(ns string) *PodGroupWrapper {
	w.group.Namespace = ns
	return w
}

// Priority sets the priority as given.
func (w *PodGroupWrapper) Priority(p int32) *PodGroupWrapper {
	w.priority = priority{p, true}
	return w
}

// PriorityClass sets the priority class name.
func (w *PodGroupWrapper) PriorityClass(name string) *PodGroupWrapper {
	w.group.PriorityClassName = name
	return w
}

// PreemptionPolicy sets the preemption policy.
func (w *PodGroupWrapper) PreemptionPolicy(p cluster.PreemptionPolicy) *PodGroupWrapper {
	w.group.PreemptionPolicy = p
	return w
}

// DisruptAll makes the scheduled pods one preemption victim: evicted
// together or not at all.
func (w *PodGroupWrapper) DisruptAll() *PodGroupWrapper {
	w.group.DisruptionMode = podgroup.DisruptAll
	return w
}

// TopologyKey places the group's pods in one domain of the node label
// key.
func (w *PodGroupWrapper) TopologyKey(key string) *PodGroupWrapper {
	w.group.TopologyKey = key
	return w
}

// Rack places the group's pods in one rack (TopologyKey LabelRack).
func (w *PodGroupWrapper) Rack() *PodGroupWrapper { return w.TopologyKey(LabelRack) }

// Zone places the group's pods in one zone (TopologyKey LabelZone).
func (w *PodGroupWrapper) Zone() *PodGroupWrapper { return w.TopologyKey(LabelZone) }

// Parent makes the group a child of the named CompositePodGroup.
func (w *PodGroupWrapper) Parent(composite string) *PodGroupWrapper {
	w.group.Parent = composite
	return w
}

// Obj returns a copy of the group built so far.
func (w *PodGroupWrapper) Obj() podgroup.PodGroup {
	g := w.group
	g.Priority = w.priority.given()
	return g
}

// CompositeWrapper builds a podgroup.CompositePodGroup one field at a
// time; MakeComposite or MakeBasicComposite starts one and Obj returns it.
type CompositeWrapper struct {
	composite podgroup.CompositePodGroup // its Priority is set by Obj, from priority
	priority  priority
}

// MakeComposite starts a gang composite: at least minGroupCount of its
// children schedulable together, or none.
func MakeComposite(name string, minGroupCount int32) *CompositeWrapper {
	return &CompositeWrapper{composite: podgroup.CompositePodGroup{Name: name, Policy: podgroup.Gang, MinGroupCount: minGroupCount}}
}

// MakeBasicComposite starts a basic composite: one child suffices.
func MakeBasicComposite(name string) *CompositeWrapper {
	return &CompositeWrapper{composite: podgroup.CompositePodGroup{Name: name, Policy: podgroup.Basic}}
}

// Namespace sets the namespace.
func (w *CompositeWrapper) Namespace(ns string) *CompositeWrapper {
	w.composite.Namespace = ns
	return w
}

// Priority sets the priority as given.
func (w *CompositeWrapper) Priority(p int32) *CompositeWrapper {
	w.priority = priority{p, true}
	return w
}

// DisruptAll makes the whole subtree one preemption victim.
func (w *CompositeWrapper) DisruptAll() *CompositeWrapper {
	w.composite.DisruptionMode = podgroup.DisruptAll
	return w
}

// TopologyKey places the composite's children in one domain of the node
// label key.
func (w *CompositeWrapper) TopologyKey(key string) *CompositeWrapper {
	w.composite.TopologyKey = key
	return w
}

// Rack places the composite's children in one rack (TopologyKey
// LabelRack).
func (w *CompositeWrapper) Rack() *CompositeWrapper { return w.TopologyKey(LabelRack) }

// Zone places the composite's children in one zone (TopologyKey
// LabelZone).
func (w *CompositeWrapper) Zone() *CompositeWrapper { return w.TopologyKey(LabelZone) }

// Parent makes the composite a child of another.
func (w *CompositeWrapper) Parent(composite string) *CompositeWrapper {
	w.composite.Parent = composite
	return w
}

// Obj returns a copy of the composite built so far.
func (w *CompositeWrapper) Obj() podgroup.CompositePodGroup {
	c := w.composite
	c.Priority = w.priority.given()
	return c
}

// priority is a priority as given, or none. A wrapper keeps it by value
// and Obj points to a copy of its own, so that building an object
// allocates for its priority once, as a literal does.
type priority struct {
	value int32
	set   bool
}

// given returns the priority as the objects hold it: nil when none was
// given.
func (p priority) given() *int32 {
	if !p.set {
		return nil
	}
	return new(p.value)
}
