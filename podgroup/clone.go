package podgroup

import (
	"maps"
	"slices"
)

// Clone returns an independent copy of the membership.
func (m *Membership) Clone() Membership {
	return Membership{states: maps.Clone(m.states), counts: m.counts}
}

// Clone returns a copy of the forest whose groups and composites are
// those group and composite return for the forest's own (the records of a
// forked scheduler hold them).
func (f *Forest) Clone(group func(*PodGroup) *PodGroup, composite func(*CompositePodGroup) *CompositePodGroup) Forest {
	if f.composites == nil {
		return Forest{}
	}
	cp := Forest{
		composites: make(map[string]*CompositePodGroup, len(f.composites)),
		groups:     make(map[string]*PodGroup, len(f.groups)),
		children:   make(map[string][]Ref, len(f.children)),
		order:      maps.Clone(f.order),
	}
	for k, c := range f.composites {
		cp.composites[k] = composite(c)
	}
	for k, g := range f.groups {
		cp.groups[k] = group(g)
	}
	for k, kids := range f.children {
		cp.children[k] = slices.Clone(kids)
	}
	return cp
}
