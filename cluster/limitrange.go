package cluster

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
)

// ErrLimitRange is wrapped by every LimitRange.Validate error.
var ErrLimitRange = errors.New("cluster: invalid limit range")

// The types of a LimitRange's items.
const (
	LimitTypeContainer = "Container"
	LimitTypePod       = "Pod"
	// LimitTypePersistentVolumeClaim bounds claims of storage, which the
	// simulator does not model: such items are kept and never applied.
	LimitTypePersistentVolumeClaim = "PersistentVolumeClaim"
)

// LimitRangeItem is one item of a LimitRange: bounds on the resources of
// each container (Type Container) or of the whole pod (Type Pod), and for
// containers the defaults of what they do not set. MaxLimitRequestRatio
// is in thousandths (2 is 2000), as a quantity's milli value.
type LimitRangeItem struct {
	Type                 string
	Max                  ResourceList
	Min                  ResourceList
	Default              ResourceList // limits of containers that set none
	DefaultRequest       ResourceList // requests of containers that set none
	MaxLimitRequestRatio ResourceList
}

// LimitRange is a namespace's v1 LimitRange: the API server's LimitRanger
// admission fills containers' missing requests and limits from its
// defaults and refuses pods outside its bounds.
type LimitRange struct {
	Namespace string
	Name      string
	Limits    []LimitRangeItem
}

// Key returns "namespace/name".
func (lr *LimitRange) Key() string { return string(MakePodKey(lr.Namespace, lr.Name)) }

// WithDefaults returns the limit range as the API server stores it: a
// container item's default limit is its max where unset, its default
// request its default limit, else its min, where unset.
func (lr LimitRange) WithDefaults() LimitRange {
	items := slices.Clone(lr.Limits)
	for i := range items {
		it := &items[i]
		if it.Type != LimitTypeContainer {
			continue
		}
		def, req := it.Default.Clone(), it.DefaultRequest.Clone()
		if def == nil {
			def = ResourceList{}
		}
		if req == nil {
			req = ResourceList{}
		}
		fillMissing(def, it.Max)
		fillMissing(req, def)
		fillMissing(req, it.Min)
		it.Default, it.DefaultRequest = def, req
	}
	lr.Limits = items
	return lr
}

func fillMissing(dst, src ResourceList) {
	for name, v := range src {
		if _, ok := dst[name]; !ok {
			dst[name] = v
		}
	}
}

// Validate reports the first problem the API server would refuse the
// limit range for, naming the item and field: a type it does not know,
// defaults on a Pod item, a negative amount, or bounds that contradict
// each other (min above max, a default outside them, a ratio below 1 or
// above max/min). It checks the limit range as given, before WithDefaults.
func (lr *LimitRange) Validate() error {
	if field, detail := namespacedNameProblem(lr.Name, lr.Namespace); detail != "" {
		return fieldError(ErrLimitRange, "", field, "%s", detail)
	}
	for i := range lr.Limits {
		if field, detail := lr.Limits[i].validate(); detail != "" {
			return fieldError(ErrLimitRange, "limit range "+lr.Key(), JoinField(fmt.Sprintf("limits[%d]", i), field), "%s", detail)
		}
	}
	return nil
}

func (it *LimitRangeItem) validate() (field, detail string) {
	switch it.Type {
	case LimitTypeContainer, LimitTypePod, LimitTypePersistentVolumeClaim:
	default:
		return "type", fmt.Sprintf("%q is not Container, Pod or PersistentVolumeClaim", it.Type)
	}
	if it.Type != LimitTypeContainer {
		if len(it.Default) > 0 {
			return "default", fmt.Sprintf("may not be specified when type is %s", it.Type)
		}
		if len(it.DefaultRequest) > 0 {
			return "defaultRequest", fmt.Sprintf("may not be specified when type is %s", it.Type)
		}
	}
	for _, l := range it.lists() {
		for _, name := range slices.Sorted(maps.Keys(l.list)) {
			if l.list[name] < 0 {
				return l.field + "." + string(name), "must be greater than or equal to 0"
			}
		}
	}
	return it.validateBounds()
}

type namedList struct {
	field string
	list  ResourceList
}

func (it *LimitRangeItem) lists() []namedList {
	return []namedList{{"max", it.Max}, {"min", it.Min}, {"default", it.Default},
		{"defaultRequest", it.DefaultRequest}, {"maxLimitRequestRatio", it.MaxLimitRequestRatio}}
}

// validateBounds checks each resource's bounds against each other, in
// name order.
func (it *LimitRangeItem) validateBounds() (field, detail string) {
	names := map[ResourceName]bool{}
	for _, l := range it.lists() {
		for name := range l.list {
			names[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		f := func(v int64) string { return FormatAmount(name, v) }
		min, hasMin := it.Min[name]
		max, hasMax := it.Max[name]
		def, hasDef := it.Default[name]
		req, hasReq := it.DefaultRequest[name]
		ratio, hasRatio := it.MaxLimitRequestRatio[name]
		switch {
		case hasMin && hasMax && min > max:
			return "min." + string(name), fmt.Sprintf("min value %s is greater than max value %s", f(min), f(max))
		case hasReq && hasMin && min > req:
			return "defaultRequest." + string(name), fmt.Sprintf("min value %s is greater than default request value %s", f(min), f(req))
		case hasReq && hasMax && req > max:
			return "defaultRequest." + string(name), fmt.Sprintf("default request value %s is greater than max value %s", f(req), f(max))
		case hasReq && hasDef && req > def:
			return "defaultRequest." + string(name), fmt.Sprintf("default request value %s is greater than default limit value %s", f(req), f(def))
		case hasDef && hasMin && min > def:
			return "default." + string(name), fmt.Sprintf("min value %s is greater than default value %s", f(min), f(def))
		case hasDef && hasMax && def > max:
			return "default." + string(name), fmt.Sprintf("default value %s is greater than max value %s", f(def), f(max))
		case hasRatio && ratio < 1000:
			return "maxLimitRequestRatio." + string(name), fmt.Sprintf("ratio %s is less than 1", FormatQuantity(ResourceCPU, ratio))
		case hasRatio && hasMin && hasMax && min > 0 && new(big.Int).Mul(big.NewInt(ratio), big.NewInt(min)).Cmp(new(big.Int).Mul(big.NewInt(max), big.NewInt(1000))) > 0:
			return "maxLimitRequestRatio." + string(name), fmt.Sprintf("ratio %s is greater than max/min = %s", FormatQuantity(ResourceCPU, ratio), big.NewRat(max, min).FloatString(6))
		}
	}
	return "", ""
}

// Default fills what the pod's containers (and init containers) do not
// set from the limit range's Container items, as the LimitRanger
// admission plugin does: a missing limit from Default, a missing request
// from DefaultRequest (the limit range given WithDefaults). It returns the
// resources so filled, new, and whether anything was filled; res itself
// is never changed.
func (lr *LimitRange) Default(res *PodResources) (*PodResources, bool) {
	var def ResourceRequirements
	for _, it := range lr.Limits {
		if it.Type != LimitTypeContainer {
			continue
		}
		def.Limits = mergeInto(def.Limits, it.Default)
		def.Requests = mergeInto(def.Requests, it.DefaultRequest)
	}
	if len(def.Limits) == 0 && len(def.Requests) == 0 {
		return res, false
	}
	out, changed := res.Clone(), false
	for i := range out.Containers {
		r := &out.Containers[i].Resources
		if missing(r.Limits, def.Limits) || missing(r.Requests, def.Requests) {
			changed = true
			if r.Limits == nil {
				r.Limits = ResourceList{}
			}
			if r.Requests == nil {
				r.Requests = ResourceList{}
			}
			fillMissing(r.Limits, def.Limits)
			fillMissing(r.Requests, def.Requests)
		}
	}
	if !changed {
		return res, false
	}
	return out, true
}

func mergeInto(dst, src ResourceList) ResourceList {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = ResourceList{}
	}
	maps.Copy(dst, src)
	return dst
}

// missing reports whether defaults set a resource list does not.
func missing(list, defaults ResourceList) bool {
	for name := range defaults {
		if _, ok := list[name]; !ok {
			return true
		}
	}
	return false
}

// Check returns what the limit range refuses in the pod's resources, in
// the LimitRanger's words ("maximum cpu usage per Container is 1, but
// limit is 2"): each container and init container against the Container
// items, the pod's requests and limits against the Pod items; items in
// order, then min, max and ratio, then resources in name order.
func (lr *LimitRange) Check(res *PodResources) []string {
	var out []string
	for _, it := range lr.Limits {
		switch it.Type {
		case LimitTypeContainer:
			for _, c := range res.Containers {
				out = append(out, it.check(c.Resources.Requests, c.Resources.Limits)...)
			}
		case LimitTypePod:
			out = append(out, it.check(res.Requests(), res.Limits())...)
		}
	}
	return out
}

// check checks one container's (or pod's) requests and limits.
func (it *LimitRangeItem) check(req, lim ResourceList) []string {
	var out []string
	t := it.Type
	for _, name := range slices.Sorted(maps.Keys(it.Min)) {
		enforced, f := it.Min[name], func(v int64) string { return FormatAmount(name, v) }
		r, hasReq := req[name]
		l, hasLim := lim[name]
		switch {
		case !hasReq:
			out = append(out, fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", name, t, f(enforced)))
		case r < enforced:
			out = append(out, fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", name, t, f(enforced), f(r)))
		case hasLim && l < enforced:
			out = append(out, fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", name, t, f(enforced), f(l)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(it.Max)) {
		enforced, f := it.Max[name], func(v int64) string { return FormatAmount(name, v) }
		r, hasReq := req[name]
		l, hasLim := lim[name]
		switch {
		case !hasLim:
			out = append(out, fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", name, t, f(enforced)))
		case l > enforced:
			out = append(out, fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", name, t, f(enforced), f(l)))
		case hasReq && r > enforced:
			out = append(out, fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", name, t, f(enforced), f(r)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(it.MaxLimitRequestRatio)) {
		if msg := ratioProblem(name, t, it.MaxLimitRequestRatio[name], req, lim); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// ratioProblem checks a limit-to-request ratio (enforced in thousandths).
func ratioProblem(name ResourceName, t string, enforced int64, req, lim ResourceList) string {
	ratio := FormatQuantity(ResourceCPU, enforced)
	r, l := req[name], lim[name]
	switch {
	case r == 0:
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, t, ratio)
	case l == 0:
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, t, ratio)
	}
	// limit > request × ratio, in exact arithmetic
	if new(big.Int).Mul(big.NewInt(l), big.NewInt(1000)).Cmp(new(big.Int).Mul(big.NewInt(r), big.NewInt(enforced))) > 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %s", name, t, ratio, big.NewRat(l, r).FloatString(6))
	}
	return ""
}

// AggregateMessage joins messages as the API server's aggregate errors
// do: one message alone, several in brackets.
func AggregateMessage(msgs []string) string {
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}
