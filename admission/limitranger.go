package admission

import (
	"cmp"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// LimitRanger is the LimitRanger admission plugin with the LimitRanges it
// reads: it fills the containers' missing requests and limits of a pod
// being created (Default) and refuses a pod outside their bounds (Check).
// The zero value holds none and admits every pod unchanged.
type LimitRanger struct {
	// byNamespace holds each namespace's LimitRanges as stored
	// (WithDefaults), in name order; a list is replaced, never changed, so
	// clones share them
	byNamespace map[string][]cluster.LimitRange
}

// Set adds a LimitRange to its namespace ("" is the default one), or
// replaces the one of the same name: pods created there from now on get
// its defaults and are checked against its bounds. It is stored as the
// API server stores it (cluster.LimitRange.WithDefaults), a copy of lr.
func (l *LimitRanger) Set(lr cluster.LimitRange) error {
	if err := lr.Validate(); err != nil {
		return err
	}
	if lr.Namespace == "" {
		lr.Namespace = cluster.DefaultNamespace
	}
	lr = cluster.LimitRange{Namespace: lr.Namespace, Name: lr.Name, Limits: cloneLimitItems(lr.Limits)}.WithDefaults()
	if l.byNamespace == nil {
		l.byNamespace = map[string][]cluster.LimitRange{}
	}
	list := slices.DeleteFunc(slices.Clone(l.byNamespace[lr.Namespace]), func(o cluster.LimitRange) bool { return o.Name == lr.Name })
	list = append(list, lr)
	slices.SortFunc(list, func(a, b cluster.LimitRange) int { return cmp.Compare(a.Name, b.Name) })
	l.byNamespace[lr.Namespace] = list
	return nil
}

// List returns the LimitRanges of a namespace ("" is the default one), in
// name order, as stored: a new slice whose items the caller only reads.
func (l *LimitRanger) List(namespace string) []cluster.LimitRange {
	if namespace == "" {
		namespace = cluster.DefaultNamespace
	}
	return slices.Clone(l.byNamespace[namespace])
}

// Clone returns a LimitRanger that goes on on its own.
func (l *LimitRanger) Clone() LimitRanger {
	return LimitRanger{byNamespace: maps.Clone(l.byNamespace)} // lists replaced, never changed
}

func cloneLimitItems(items []cluster.LimitRangeItem) []cluster.LimitRangeItem {
	out := slices.Clone(items)
	for i := range out {
		it := &out[i]
		it.Max, it.Min, it.Default = it.Max.Clone(), it.Min.Clone(), it.Default.Clone()
		it.DefaultRequest, it.MaxLimitRequestRatio = it.DefaultRequest.Clone(), it.MaxLimitRequestRatio.Clone()
	}
	return out
}

// Default fills the pod's missing container requests and limits from its
// namespace's LimitRanges, in name order (the mutating half of
// LimitRanger, which the API server runs before the priority admission),
// and computes its requests anew when anything was filled. p's maps and
// slices are never changed, only replaced, so p may share them.
func (l *LimitRanger) Default(p *cluster.Pod) {
	ranges := l.byNamespace[namespaceOf(p)]
	if len(ranges) == 0 {
		return
	}
	res, changed := cluster.PodResourcesOf(p), false
	for i := range ranges {
		var filled bool
		if res, filled = ranges[i].Default(res); filled {
			changed = true
		}
	}
	if changed {
		p.Resources = res
		p.Requests = res.Requests().Resources()
	}
}

// Check is the validating half of LimitRanger, then the API server's own
// check that no request is above its limit once defaults are filled: the
// refusal of the first LimitRange, in name order, that the pod breaks
// (every problem it has with it, aggregated), or nil.
func (l *LimitRanger) Check(p *cluster.Pod) *RejectedError {
	ranges := l.byNamespace[namespaceOf(p)]
	if len(ranges) == 0 {
		return nil
	}
	res := cluster.PodResourcesOf(p)
	for i := range ranges {
		if msgs := ranges[i].Check(res); len(msgs) > 0 {
			return reject(p, "pods %q is forbidden: %s", p.Name, cluster.AggregateMessage(msgs))
		}
	}
	if field, detail := res.Problem(); detail != "" {
		return reject(p, "Pod %q is invalid: spec.%s: %s", p.Name, field, detail)
	}
	return nil
}
