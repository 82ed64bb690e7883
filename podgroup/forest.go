package podgroup

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// MaxDepth is the deepest a hierarchy may be, PodGroups included
// (kube-scheduler's WorkloadMaxTreeDepth): a root at depth 1, its leaves at
// most at depth 4.
const MaxDepth = 4

// ErrHierarchy is wrapped by every Forest error.
var ErrHierarchy = errors.New("podgroup: invalid hierarchy")

// Ref names a node of the forest: a PodGroup or a CompositePodGroup.
type Ref struct {
	Composite bool
	Key       string // "namespace/name"
}

// Forest is the group hierarchy: CompositePodGroups and the PodGroups
// under them, linked by their Parent names within a namespace. A parent
// must be defined before its children, so the forest can hold no cycle;
// walks are bounded by MaxDepth; children are kept in (CreationTime, Name)
// order. The zero value is empty and usable.
type Forest struct {
	composites map[string]*CompositePodGroup
	groups     map[string]*PodGroup
	children   map[string][]Ref // composite key -> children, ordered
	order      map[Ref]childOrder
}

type childOrder struct {
	created time.Duration
	name    string
}

// AddComposite adds a composite under its parent (or as a root). The
// parent must exist, have the same priority and leave room for the
// composite's PodGroups within MaxDepth.
func (f *Forest) AddComposite(c *CompositePodGroup) error {
	f.init()
	if err := c.Validate(); err != nil {
		return err
	}
	if f.composites[c.Key()] != nil {
		return hierarchyError(true, c.Key(), "name", "is defined twice")
	}
	if c.Parent != "" {
		ref := Ref{Composite: true, Key: c.Key()}
		depth, err := f.checkParent(ref, c.Namespace, c.Parent, c.EffectivePriority())
		if err != nil {
			return err
		}
		if depth+1 > MaxDepth {
			return hierarchyError(true, c.Key(), "parent", "at depth %d it leaves no room for its PodGroups (hierarchies are at most %d deep)", depth, MaxDepth)
		}
		f.link(ref, Key(c.Namespace, c.Parent), childOrder{c.CreationTime, c.Name})
	}
	f.composites[c.Key()] = c
	return nil
}

// AddGroup adds a PodGroup under its parent composite (or as a root).
func (f *Forest) AddGroup(g *PodGroup) error {
	f.init()
	if err := g.Validate(); err != nil {
		return err
	}
	if f.groups[g.Key()] != nil {
		return hierarchyError(false, g.Key(), "name", "is defined twice")
	}
	if g.Parent != "" {
		ref := Ref{Key: g.Key()}
		if _, err := f.checkParent(ref, g.Namespace, g.Parent, g.EffectivePriority()); err != nil {
			return err
		}
		f.link(ref, Key(g.Namespace, g.Parent), childOrder{g.CreationTime, g.Name})
	}
	f.groups[g.Key()] = g
	return nil
}

// checkParent checks that child may go under the named parent and returns
// the depth it would have.
func (f *Forest) checkParent(child Ref, namespace, parentName string, priority int32) (int, error) {
	pk := Key(namespace, parentName)
	parent := f.composites[pk]
	if parent == nil {
		return 0, hierarchyError(child.Composite, child.Key, "parent", "composite pod group %q is not defined", parentName)
	}
	if parent.EffectivePriority() != priority {
		return 0, hierarchyError(child.Composite, child.Key, "priority", "%d differs from its parent %s's %d (a hierarchy has one priority)", priority, parentName, parent.EffectivePriority())
	}
	depth := f.Depth(Ref{Composite: true, Key: pk}) + 1
	if depth > MaxDepth {
		return 0, hierarchyError(child.Composite, child.Key, "parent", "depth %d exceeds %d", depth, MaxDepth)
	}
	return depth, nil
}

// hierarchyError returns a Forest error about a group's field.
func hierarchyError(composite bool, key, field, format string, args ...any) error {
	what := "pod group "
	if composite {
		what = "composite pod group "
	}
	return &cluster.FieldError{Sentinel: ErrHierarchy, Object: what + key, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// link records child under the parent with key pk, in child order.
// Children in creation order, the usual case, are appended: a composite of
// k children costs O(k), not O(k² log k).
func (f *Forest) link(child Ref, pk string, order childOrder) {
	f.order[child] = order
	cmpRef := func(a, b Ref) int {
		oa, ob := f.order[a], f.order[b]
		return cmp.Or(cmp.Compare(oa.created, ob.created), cmp.Compare(oa.name, ob.name), cmp.Compare(a.Key, b.Key))
	}
	kids := f.children[pk]
	i, _ := slices.BinarySearchFunc(kids, child, cmpRef)
	f.children[pk] = slices.Insert(kids, i, child)
}

func (f *Forest) init() {
	if f.composites == nil {
		f.composites, f.groups = map[string]*CompositePodGroup{}, map[string]*PodGroup{}
		f.children, f.order = map[string][]Ref{}, map[Ref]childOrder{}
	}
}

// Composite returns the composite with the given key.
func (f *Forest) Composite(key string) *CompositePodGroup { return f.composites[key] }

// Group returns the PodGroup with the given key.
func (f *Forest) Group(key string) *PodGroup { return f.groups[key] }

// Children returns a composite's children in (CreationTime, Name) order.
func (f *Forest) Children(key string) []Ref { return f.children[key] }

// Parent returns the parent of r, if it has one.
func (f *Forest) Parent(r Ref) (Ref, bool) {
	var parent, ns string
	if r.Composite {
		c := f.composites[r.Key]
		if c == nil {
			return Ref{}, false
		}
		parent, ns = c.Parent, c.Namespace
	} else {
		g := f.groups[r.Key]
		if g == nil {
			return Ref{}, false
		}
		parent, ns = g.Parent, g.Namespace
	}
	if parent == "" {
		return Ref{}, false
	}
	return Ref{Composite: true, Key: Key(ns, parent)}, true
}

// Ancestors returns r's ancestors, nearest first (at most MaxDepth-1).
func (f *Forest) Ancestors(r Ref) []Ref {
	var out []Ref
	for range MaxDepth {
		p, ok := f.Parent(r)
		if !ok {
			break
		}
		out = append(out, p)
		r = p
	}
	return out
}

// Root returns the root of r's hierarchy (r itself for a root).
func (f *Forest) Root(r Ref) Ref {
	if anc := f.Ancestors(r); len(anc) > 0 {
		return anc[len(anc)-1]
	}
	return r
}

// Depth returns r's depth: 1 for a root.
func (f *Forest) Depth(r Ref) int { return len(f.Ancestors(r)) + 1 }

// Leaves returns the PodGroups under r in depth-first child order (r
// itself for a PodGroup).
func (f *Forest) Leaves(r Ref) []Ref {
	if !r.Composite {
		return []Ref{r}
	}
	var out []Ref
	for _, c := range f.children[r.Key] {
		out = append(out, f.Leaves(c)...)
	}
	return out
}
