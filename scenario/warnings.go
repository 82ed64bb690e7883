package scenario

import (
	"cmp"
	"fmt"
	"slices"
)

// Warning is something the input holds that the simulator does not model:
// a field of a kind of object (a pod's volumes, a container's host port),
// or a whole kind (a Service). It never stops a load. Each (kind, field)
// is listed once, with how many objects carry it and the first of them.
type Warning struct {
	Kind    string // "Pod", "StatefulSet", ...; "" for a scenario file's entries
	Field   string // "spec.volumes[].persistentVolumeClaim"; "" for a whole kind
	Detail  string // what the simulator does about it
	Objects int    // how many objects carry it
	First   string // the first of them: "pods.json: Pod default/db-0"
}

// String renders the warning on one line, as the example program prints it
// and the result lists it.
func (w Warning) String() string {
	what := w.Kind
	switch {
	case w.Kind == "":
		what = w.Field
	case w.Field != "":
		what += " " + w.Field
	}
	objects := "1 object"
	if w.Objects != 1 {
		objects = fmt.Sprintf("%d objects", w.Objects)
	}
	return fmt.Sprintf("%s: %s (%s, first %s)", what, w.Detail, objects, w.First)
}

// warnings collects warnings; list returns them in a stable order.
type warnings struct {
	byKey map[[2]string]*warningCount
}

type warningCount struct {
	Warning
	last string // the last object counted, so that one object counts once
}

// Add records that object (rendered as Warning.First reads) carries kind's
// field.
func (ws *warnings) Add(kind, field, detail, object string) {
	if ws.byKey == nil {
		ws.byKey = map[[2]string]*warningCount{}
	}
	key := [2]string{kind, field}
	w := ws.byKey[key]
	if w == nil {
		w = &warningCount{Warning: Warning{Kind: kind, Field: field, Detail: detail, First: object}}
		ws.byKey[key] = w
	}
	if w.last != object {
		w.Objects++
		w.last = object
	}
}

// list returns the warnings by kind, then field.
func (ws *warnings) list() []Warning {
	var out []Warning
	for _, w := range ws.byKey {
		out = append(out, w.Warning)
	}
	slices.SortFunc(out, func(a, b Warning) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Field, b.Field)) })
	return out
}
