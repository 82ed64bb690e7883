package scenario

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Limits bound what one load may hold, so that a mistake (a count with
// three zeros too many) or a hostile file fails at once with an error
// naming the field, instead of exhausting memory or time. The defaults
// (DefaultLimits) leave room for a cluster of a million nodes running ten
// million pods, as far as the machine's memory goes;
// docs/scenario-format.md lists them.
type Limits struct {
	// FileSize bounds each input file, in bytes.
	FileSize int64
	// Nodes bounds the nodes of all inputs together, after count
	// expansion, nodes that events add included.
	Nodes int
	// Pods bounds the pods of all inputs together, after count expansion,
	// the pods workloads make included.
	Pods int
	// AliasedValues bounds the values YAML aliases (*name) repeat in one
	// file, counted each time they are repeated. Whatever this says, a
	// file's aliases may repeat at most ten times the values the file
	// writes out, plus 10,000. A label map or a list of strings repeated
	// by an alias is shared, not copied, and counts once.
	AliasedValues int
	// Objects bounds the Kubernetes objects of all inputs together (each
	// document, each item of a List, each object a ConfigMap holds): an
	// object costs a kilobyte or more while it is read, whatever its
	// size in the file, so a file of a million one-line objects is
	// refused rather than exhausting memory.
	Objects int
	// Memory bounds the memory the nodes and pods of all inputs are
	// estimated to need at a run's peak (about 3 KiB a pod and 4 KiB a
	// node), in bytes: a load within the counts above that this machine
	// could not run fails at the entry that goes past, instead of the
	// process being killed midway. Its default is the machine's memory
	// (the container's limit, where lower); 0 where it cannot be read: no
	// bound.
	Memory int64
}

// DefaultLimits are the limits a load has unless WithLimits changes them.
func DefaultLimits() Limits {
	return Limits{FileSize: 1 << 30, Nodes: 1_000_000, Pods: 10_000_000, AliasedValues: 100_000_000, Objects: 1_000_000, Memory: machineMemory()}
}

// WithLimits changes the limits of a load; a zero field keeps its default.
// A service that loads scenarios from others may want tighter ones.
func WithLimits(l Limits) Option {
	return func(o *options) {
		d := DefaultLimits()
		if l.FileSize > 0 {
			d.FileSize = l.FileSize
		}
		if l.Nodes > 0 {
			d.Nodes = l.Nodes
		}
		if l.Pods > 0 {
			d.Pods = l.Pods
		}
		if l.AliasedValues > 0 {
			d.AliasedValues = l.AliasedValues
		}
		if l.Objects > 0 {
			d.Objects = l.Objects
		}
		if l.Memory > 0 {
			d.Memory = l.Memory
		}
		o.limits = &d
	}
}

// countEntries counts what the scenario files' entries make, count
// expanded; the error names the entry that goes past a limit. A count out
// of range is left to the builder, which says so.
func countEntries(t *schema.Tally, ins []*input) error {
	for _, in := range ins {
		f := in.spec
		for i := range f.Nodes {
			s := &f.Nodes[i]
			if err := countEntry(in.name, s.Line, "nodes", i, s.Name, "", s.Count, t.AddNodes); err != nil {
				return err
			}
		}
		for i, e := range f.Events {
			if e.AddNode != nil {
				if err := countEntry(in.name, e.Line, "events", i, "", ".addNode", nil, t.AddNodes); err != nil {
					return err
				}
			}
		}
		for i := range f.Pods {
			s := &f.Pods[i]
			if err := countEntry(in.name, s.Line, "pods", i, s.Name, "", s.Count, t.AddPods); err != nil {
				return err
			}
		}
	}
	return nil
}

// countEntry counts entry i of a scenario file's list, named name, or the
// object in its field (".addNode"). The entry's path is made only for an
// error: a file may hold a million entries.
func countEntry(file string, line int, list string, i int, name, field string, count *int, add func(int) error) error {
	n := 1
	if count != nil {
		if *count < 1 {
			return nil
		}
		n = *count
	}
	if err := add(n); err != nil {
		where := entry(list, i, name) + field
		if count != nil {
			where += ".count"
		}
		return &FieldError{File: file, Line: line, Path: where, Err: err}
	}
	return nil
}

// countObjects checks the Kubernetes objects of the inputs against the
// limit, naming the file that goes past it. (A stream is checked as it
// is read too, readStream, so that a single file stops early.)
func countObjects(ins []*input, limit int) error {
	n := 0
	for _, in := range ins {
		if n += len(in.objects); n > limit {
			return tooManyObjects(in.name, limit)
		}
	}
	return nil
}

// tooManyObjects is the error of inputs with more Kubernetes objects than
// Limits.Objects, at the file that goes past it.
func tooManyObjects(file string, limit int) error {
	return &FieldError{File: file, Err: fmt.Errorf("more than %s Kubernetes objects in all inputs, the limit of a load", schema.Commas(limit))}
}
