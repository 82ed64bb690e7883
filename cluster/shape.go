package cluster

import (
	"reflect"
	"slices"
	"strconv"
)

// Shape returns an encoding of everything in the pod but its name, start
// time and claim statuses: two pods have equal shapes exactly when they are
// equal but for those, so that a scheduling cycle treats them alike. It
// reads every field, unexported ones included, so a field added later
// counts too; a pod holding something it cannot encode has no shape ("").
// The claim statuses name the claims made for the pod's entries from their
// templates, which differ from pod to pod as the name does: claims of the
// pod's own, of equal specs, unallocated while it waits (a PodGroup's
// claim, shared, is one for all the pods of a group, and the group is in
// the shape).
func (p *Pod) Shape() string {
	c := *p
	c.Name, c.StartTime, c.ResourceClaimStatuses = "", 0, nil
	ok := true
	b := appendShape(nil, reflect.ValueOf(c), &ok)
	if !ok {
		return ""
	}
	return string(b)
}

// appendShape appends an unambiguous encoding of v: every variable-length
// part is prefixed with its length, every optional one with a marker.
func appendShape(b []byte, v reflect.Value, ok *bool) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 'T')
		}
		return append(b, 'F')
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(b, v.Int(), 10), ';')
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return append(strconv.AppendUint(b, v.Uint(), 10), ';')
	case reflect.String:
		s := v.String()
		return append(append(strconv.AppendInt(b, int64(len(s)), 10), ':'), s...)
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 'n')
		}
		return appendShape(append(b, 'p'), v.Elem(), ok)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, 'n')
		}
		b = append(strconv.AppendInt(append(b, '['), int64(v.Len()), 10), ';')
		for i := range v.Len() {
			b = appendShape(b, v.Index(i), ok)
		}
		return b
	case reflect.Map:
		if v.IsNil() {
			return append(b, 'n')
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			return slices.Compare(appendShape(nil, x, ok), appendShape(nil, y, ok))
		})
		b = append(strconv.AppendInt(append(b, '{'), int64(len(keys)), 10), ';')
		for _, k := range keys {
			b = appendShape(appendShape(b, k, ok), v.MapIndex(k), ok)
		}
		return b
	case reflect.Struct:
		b = append(b, '(')
		for i := range v.NumField() {
			b = appendShape(b, v.Field(i), ok)
		}
		return append(b, ')')
	}
	// kinds a pod does not hold (funcs, channels, interfaces, floats)
	*ok = false
	return b
}
