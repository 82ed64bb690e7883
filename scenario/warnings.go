package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/scenario/kube"
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

// SkippedWorkload is a kind of object that makes pods (a JobSet, a
// RayCluster, a Volcano Job...) that the inputs hold and the simulator
// does not read: its pods are missing from every figure of the run.
type SkippedWorkload struct {
	Kind    string // "JobSet"; with its group when the name alone is a kind read ("Job (batch.volcano.sh)")
	Objects int    // how many objects of the kind were skipped
	// Pods are the pods those objects would make, as far as each object
	// says (replicas, parallelism, group sizes, at the start); Uncounted
	// objects do not say (a CronJob, a TrainJob without numNodes), and
	// add pods beyond Pods.
	Pods      int
	Uncounted int
	First     string // the first of them: "jobs.yaml: JobSet default/train"
}

// SkippedNote says in one sentence what the skipped workloads leave out of
// the figures ("" when none): how many objects, of which kinds, and how
// many pods at least.
func SkippedNote(ss []SkippedWorkload) string {
	if len(ss) == 0 {
		return ""
	}
	objects, pods, uncounted := 0, 0, 0
	kinds := make([]string, len(ss))
	for i, s := range ss {
		objects, pods, uncounted = objects+s.Objects, pods+s.Pods, uncounted+s.Uncounted
		kinds[i] = fmt.Sprintf("%s %d", s.Kind, s.Objects)
	}
	missing := fmt.Sprintf("%s missing from the figures", plural(pods, "pod"))
	switch {
	case uncounted == objects:
		missing = "their pods are missing from the figures (the objects do not say how many)"
	case uncounted > 0:
		missing = fmt.Sprintf("at least %s missing from the figures, and those of %s that do not say how many", plural(pods, "pod"), plural(uncounted, "object"))
	}
	verbs := "make pods were"
	if objects == 1 {
		verbs = "makes pods was"
	}
	return fmt.Sprintf("%s that %s skipped, not read by the simulator (%s): %s",
		plural(objects, "object"), verbs, strings.Join(kinds, ", "), missing)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// warnings collects warnings; list returns them in a stable order.
type warnings struct {
	byKey map[[2]string]*warningCount
	// skipped are the kinds that make pods, skipped, by kind
	skipped map[string]*SkippedWorkload
}

type warningCount struct {
	Warning
	last  string         // the last object counted, so that one object counts once
	class kube.SkipClass // a whole kind's: how it counts (SkipOther for a field)
}

// Skipped records a skipped object of a kind the importer does not read
// (kube.SkipRecorder): a warning of its class, and for a kind that makes
// pods its pods.
func (ws *warnings) Skipped(s kube.Skip) {
	ws.Add(s.Kind, "", s.Detail, s.Object)
	ws.byKey[[2]string{s.Kind, ""}].class = s.Class
	if s.Class != kube.SkipMakesPods {
		return
	}
	if ws.skipped == nil {
		ws.skipped = map[string]*SkippedWorkload{}
	}
	sw := ws.skipped[s.Kind]
	if sw == nil {
		sw = &SkippedWorkload{Kind: s.Kind, First: s.Object}
		ws.skipped[s.Kind] = sw
	}
	sw.Objects++
	sw.Pods += s.Pods
	if !s.PodsKnown {
		sw.Uncounted++
	}
}

// skippedList returns the skipped kinds that make pods, by kind.
func (ws *warnings) skippedList() []SkippedWorkload {
	var out []SkippedWorkload
	for _, s := range ws.skipped {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b SkippedWorkload) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
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
		w = &warningCount{Warning: Warning{Kind: kind, Field: field, Detail: detail, First: object}, class: kube.SkipOther}
		ws.byKey[key] = w
	}
	if w.last != object {
		w.Objects++
		w.last = object
	}
}

// list returns the warnings in three groups: the kinds that make pods
// but were skipped first (their pods are missing from the figures), then
// everything approximated or left out (fields, other kinds), by kind and
// field, and last the kinds that never affect scheduling, all in one
// warning.
func (ws *warnings) list() []Warning {
	var all []*warningCount
	for _, w := range ws.byKey {
		all = append(all, w)
	}
	slices.SortFunc(all, func(a, b *warningCount) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Field, b.Field))
	})
	var out []Warning
	var inert []*warningCount
	for _, w := range all {
		if w.class == kube.SkipInert {
			inert = append(inert, w)
			continue
		}
		out = append(out, w.Warning)
	}
	if len(inert) > 0 {
		out = append(out, inertWarning(inert))
	}
	return out
}

// inertWarning is one warning for the kinds that never affect scheduling:
// their names, with a count each when more than one object, and the first
// object of the first kind.
func inertWarning(ws []*warningCount) Warning {
	names := make([]string, len(ws))
	total := 0
	for i, w := range ws {
		names[i] = w.Kind
		if w.Objects > 1 {
			names[i] += fmt.Sprintf(" (%d)", w.Objects)
		}
		total += w.Objects
	}
	detail := "kinds that never affect scheduling, objects skipped"
	if len(ws) == 1 {
		detail = "a kind that never affects scheduling, objects skipped"
	}
	return Warning{Kind: strings.Join(names, ", "), Detail: detail, Objects: total, First: ws[0].First}
}
