package schema

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Origin says which Kubernetes object a scenario entry was made from. The
// builder checks entries with the scenario format's field names
// ("pods[2] (api).podGroup"); for an entry made from an object, its errors
// name the object and the field as Kubernetes spells it ("Pod ml/api:
// spec.schedulingGroup.podGroupName").
type Origin struct {
	Object string            // "Pod ml/api", "Deployment ml/web (pod web-7f9c-0)"
	Where  string            // the prefix of the builder's paths for the entry
	Fields map[string]string // scenario field -> Kubernetes field, "{spec}" standing for spec
	Spec   string            // where the pod spec lies: "spec", "spec.template.spec"
	Lines  Lines             // the lines of the object's fields
	// Created is the object's creation time (zero when not given): pods
	// made from objects arrive in this order.
	Created time.Time
}

// Translate rewrites a builder path of the entry, and its line, into the
// object's terms; other paths, and every path when s is nil, are kept.
func (s *Origin) Translate(line int, path string) (int, string) {
	if s == nil {
		return line, path
	}
	rest, ok := strings.CutPrefix(path, s.Where)
	if !ok || rest != "" && rest[0] != '.' {
		return line, path
	}
	rest = strings.TrimPrefix(rest, ".")
	if rest == "" {
		return line, s.Object
	}
	field := s.field(rest)
	if s.Lines != nil {
		line = s.Lines.LineOf(field)
	}
	return line, s.Object + ": " + field
}

// field translates a field path by its first name.
func (s *Origin) field(path string) string {
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		end = len(path)
	}
	first, rest := path[:end], path[end:]
	to, ok := s.Fields[first]
	if !ok {
		to = s.Fields[""]
		if to == "" {
			to = first
		} else {
			to += "." + first
		}
	}
	meta := "metadata"
	if s.Spec != "spec" {
		meta = strings.TrimSuffix(s.Spec, ".spec") + ".metadata"
	}
	to = strings.NewReplacer("{spec}", s.Spec, "{meta}", meta).Replace(to)
	return to + rest
}

// MapValue returns the value of key in a mapping node, or nil, through
// YAML aliases: of the mapping, of its keys and of the value.
func MapValue(n *yaml.Node, key string) *yaml.Node {
	n = Unalias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if Unalias(n.Content[i]).Value == key {
			return Unalias(n.Content[i+1])
		}
	}
	return nil
}

// LineOf returns the line of the deepest node of n that path reaches
// ("spec.containers[0] (app).resources.requests.memroy"): the field at
// fault, or the closest enclosing one when the path goes where the object
// has nothing (a list without an index, a field the scenario computes).
func LineOf(n *yaml.Node, path string) int {
	line := n.Line
	for _, part := range strings.Split(path, ".") {
		part, _, _ = strings.Cut(part, " (")
		name, rest, indexed := strings.Cut(part, "[")
		if n = MapValue(n, name); n == nil {
			return line
		}
		line = n.Line
		for indexed {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return line
			}
			n, line = n.Content[i], n.Content[i].Line
			rest, indexed = strings.CutPrefix(rest, "[")
		}
	}
	return line
}
