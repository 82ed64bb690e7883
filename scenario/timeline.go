package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The timeline: what the runner does at each simulated time, in order
// (Run applies it, drive interleaves it with the controllers and the
// autoscaler), and its check at load time.

// action is something the runner does at a simulated time: a pod arrives
// or an event happens. At equal times events come first (the cluster
// changes, then new pods arrive), each kind in input order.
type action struct {
	at    time.Duration
	order int
	pod   *Pod
	event *Event
}

// timeline lists the scenario's actions in the order Run applies them.
func (sc *Scenario) timeline() []action {
	acts := make([]action, 0, len(sc.Events)+len(sc.Pods))
	for i := range sc.Events {
		acts = append(acts, action{at: sc.Events[i].At, order: i, event: &sc.Events[i]})
	}
	for i := range sc.Pods {
		acts = append(acts, action{at: sc.Pods[i].At, order: len(sc.Events) + i, pod: &sc.Pods[i]})
	}
	slices.SortStableFunc(acts, func(a, b action) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order))
	})
	return acts
}

// checkTimeline follows the scenario's actions in the order Run applies
// them (events before arrivals at equal times, each in input order) and
// reports, at load time, an event on a node that does not exist at its
// time (removed by an earlier event, or added by a later one), the
// deletion or ungating of a pod that has not arrived or was deleted
// already, and a pod arriving on a node that is not there.
func (sc *Scenario) checkTimeline() error {
	type change struct {
		at  time.Duration
		src Source
	}
	nodes := map[string]bool{}
	for _, n := range sc.Nodes {
		nodes[n.Name] = true
	}
	added := map[string]change{}   // nodes events add, by the event
	removed := map[string]change{} // nodes removed, by the event
	deletes := map[string]bool{}   // pods events delete or ungate: only their arrivals matter
	arrived := map[string]bool{}
	deleted := map[string]change{}
	for _, e := range sc.Events {
		if e.Kind == AddNode && e.Node != nil {
			added[e.Node.Name] = change{e.At, e.Source}
		}
		if e.Kind == DeletePod || e.Kind == UngatePod {
			deletes[string(podKeyOf(e.Name))] = true
		}
	}
	arrival := func(key string) change { // for the message: looked up once
		for _, p := range sc.Pods {
			if string(p.Pod.Key()) == key {
				return change{p.At, p.Source}
			}
		}
		return change{}
	}
	missing := func(name string) string {
		if r, ok := removed[name]; ok {
			return fmt.Sprintf("node %q is gone: %s removes it at %v", name, sc.where(r.src), r.at)
		}
		if a, ok := added[name]; ok {
			return fmt.Sprintf("node %q is not there yet: %s adds it at %v", name, sc.where(a.src), a.at)
		}
		return fmt.Sprintf("node %q is not defined", name)
	}
	for _, a := range sc.timeline() {
		if p := a.pod; p != nil {
			if len(deletes) > 0 {
				if key := string(p.Pod.Key()); deletes[key] {
					arrived[key] = true
				}
			}
			if node := p.Pod.NodeName; node != "" && !nodes[node] {
				field := "nodeName"
				if !strings.HasPrefix(p.Source.Path, "pods[") {
					field = "spec.nodeName" // a Pod object
				}
				return sc.timeError(p.Source, field, a.at, "the pod arrives running on it, but "+missing(node))
			}
			continue
		}
		e := a.event
		switch e.Kind {
		case AddNode:
			if e.Node != nil {
				nodes[e.Node.Name] = true
			}
		case CordonNode, UncordonNode, DrainNode, RemoveNode:
			if !nodes[e.Name] {
				return sc.timeError(e.Source, string(e.Kind), e.At, missing(e.Name))
			}
			if e.Kind == RemoveNode {
				delete(nodes, e.Name)
				removed[e.Name] = change{e.At, e.Source}
			}
		case DeletePod, UngatePod:
			key := string(podKeyOf(e.Name))
			if d, ok := deleted[key]; ok {
				return sc.timeError(e.Source, string(e.Kind), e.At, fmt.Sprintf("pod %q is gone: %s deletes it at %v", e.Name, sc.where(d.src), d.at))
			}
			if !arrived[key] {
				arr := arrival(key)
				msg := fmt.Sprintf("pod %q is not there yet: %s arrives at %v", e.Name, sc.where(arr.src), arr.at)
				if arr.at == e.At {
					msg += ", and at equal times events come first"
				}
				return sc.timeError(e.Source, string(e.Kind), e.At, msg)
			}
			if e.Kind == DeletePod {
				deleted[key] = change{e.At, e.Source}
			}
		}
	}
	return nil
}

// where names an entry for a message about another: its path, and its
// line, with its file when the scenario has several.
func (sc *Scenario) where(src Source) string {
	if src.File != "" && src.File != sc.Name {
		return fmt.Sprintf("%s (%s, line %d)", src.Path, src.File, src.Line)
	}
	return fmt.Sprintf("%s (line %d)", src.Path, src.Line)
}

// timeError is a FieldError about the field of an entry, at a time.
func (sc *Scenario) timeError(src Source, field string, at time.Duration, msg string) error {
	file := src.File
	if file == "" {
		file = sc.Name
	}
	sep := "."
	if field == "spec.nodeName" {
		sep = ": "
	}
	return &FieldError{File: file, Line: src.Line, Path: src.Path + sep + field, Err: fmt.Errorf("at %v: %s", at, msg)}
}
