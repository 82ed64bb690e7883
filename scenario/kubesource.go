package scenario

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// kubeSource says which Kubernetes object a scenario entry was made from.
// The builder checks entries with the scenario format's field names
// ("pods[2] (api).podGroup"); for an entry made from an object, its errors
// name the object and the field as Kubernetes spells it ("Pod ml/api:
// spec.schedulingGroup.podGroupName").
type kubeSource struct {
	object string            // "Pod ml/api", "Deployment ml/web (pod web-7f9c-0)"
	where  string            // the prefix of the builder's paths for the entry
	fields map[string]string // scenario field -> Kubernetes field, "{spec}" standing for spec
	spec   string            // where the pod spec lies: "spec", "spec.template.spec"
	node   *yaml.Node        // the object, where the lines of its fields are
	// created is the object's creation time (zero when not given): pods
	// made from objects arrive in this order.
	created time.Time
}

// Scenario fields and the Kubernetes fields they come from; any other
// field of a pod lies under the pod spec, of a group or a budget under
// spec, of a class or a configuration at the top.
var (
	kubePodFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace",
		"labels": "{meta}.labels", "requests": "{spec}.containers[].resources.requests",
		"podGroup": "{spec}.schedulingGroup.podGroupName", "": "{spec}"}
	kubeNodeFields = map[string]string{"name": "metadata.name", "labels": "metadata.labels",
		"allocatable": "status.allocatable", "": "spec"}
	kubeGroupFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace",
		"parent": "spec.parentCompositePodGroupName", "topologyKey": "spec.schedulingConstraints.topology[0].key",
		"minCount": "spec.schedulingPolicy.gang.minCount", "minGroupCount": "spec.schedulingPolicy.gang.minGroupCount",
		"": "spec"}
	kubeBudgetFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "": "spec"}
	kubeMetaFields   = map[string]string{"name": "metadata.name", "labels": "metadata.labels", "": ""}
)

// newKubeSource is the source of an entry made from o; fields translate
// its field names.
func newKubeSource(o *kubeObject, fields map[string]string) *kubeSource {
	return &kubeSource{object: o.ref(), where: o.ref(), fields: fields, spec: "spec", node: o.node}
}

// translate rewrites a builder path of the entry, and its line, into the
// object's terms; other paths, and every path when s is nil, are kept.
func (s *kubeSource) translate(line int, path string) (int, string) {
	if s == nil {
		return line, path
	}
	rest, ok := strings.CutPrefix(path, s.where)
	if !ok || rest != "" && rest[0] != '.' {
		return line, path
	}
	rest = strings.TrimPrefix(rest, ".")
	if rest == "" {
		return line, s.object
	}
	field := s.field(rest)
	if s.node != nil {
		line = lineOf(s.node, field)
	}
	return line, s.object + ": " + field
}

// field translates a field path by its first name.
func (s *kubeSource) field(path string) string {
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		end = len(path)
	}
	first, rest := path[:end], path[end:]
	to, ok := s.fields[first]
	if !ok {
		to = s.fields[""]
		if to == "" {
			to = first
		} else {
			to += "." + first
		}
	}
	meta := "metadata"
	if s.spec != "spec" {
		meta = strings.TrimSuffix(s.spec, ".spec") + ".metadata"
	}
	to = strings.NewReplacer("{spec}", s.spec, "{meta}", meta).Replace(to)
	return to + rest
}
