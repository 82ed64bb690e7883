package kube

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A scheduler's configuration often reaches a cluster as a ConfigMap
// mounted into the scheduler's pod: the KubeSchedulerConfiguration is the
// text of one key of its data (kube-scheduler-config, scheduler-config.yaml:
// the key is the file name the pod reads, any name). The importer reads
// such a ConfigMap as the configuration it holds; a ConfigMap that holds
// none is a kind it does not read, skipped with the usual warning.

// configKind is the kind a ConfigMap's data is searched for.
const configKind = "KubeSchedulerConfiguration"

// configMapObjects returns the configurations the data of the ConfigMap o
// holds, as objects of their own, or o itself when it holds none. The
// embedded objects keep the file's lines when their text is a literal
// block (`|`), line for line; a quoted string (JSON) cannot be mapped, and
// every line is then the key's.
func configMapObjects(o *Object) ([]*Object, error) {
	data := schema.MapValue(o.node, "data")
	if data == nil || data.Kind != yaml.MappingNode {
		return []*Object{o}, nil
	}
	var out []*Object
	for i := 0; i+1 < len(data.Content); i += 2 {
		key, val := data.Content[i], data.Content[i+1]
		// most ConfigMaps hold other things: only text naming the kind is parsed
		if val.Kind != yaml.ScalarNode || !strings.Contains(val.Value, configKind) {
			continue
		}
		objs, err := embeddedConfigs(o, key.Value, val)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		return []*Object{o}, nil
	}
	return out, nil
}

// embeddedConfigs parses the text of the ConfigMap's key and returns the
// configurations among its documents.
func embeddedConfigs(o *Object, key string, val *yaml.Node) ([]*Object, error) {
	field := "data[" + key + "]"
	docs, err := parseEmbedded(val.Value)
	if err != nil {
		return nil, o.failLine(val.Line, field, fmt.Errorf("holds a %s that is not YAML: %v", configKind, err))
	}
	var out []*Object
	for _, doc := range docs {
		if line := aliasLine(doc); line > 0 {
			return nil, o.failLine(embeddedLine(val, line), field, errors.New("aliases are not read in a document inside a ConfigMap"))
		}
		n := doc.Content[0]
		if kind, _, _ := scalarAt(n, "kind"); kind != configKind {
			continue
		}
		shiftLines(n, val)
		objs, err := kubeItems(o.file, n, "", "", "", nil)
		if err != nil {
			return nil, err
		}
		for _, c := range objs {
			c.within = fmt.Sprintf("%s %s/%s %s", o.kind, cmpOr(o.namespace, "default"), o.name, field)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// parseEmbedded parses the documents of a text, leaving out empty ones.
func parseEmbedded(text string) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
			docs = append(docs, &doc)
		}
	}
}

// aliasLine returns the line of the first alias of a tree (0: none). The
// decoder counts what a file's aliases repeat, against a limit; the text
// of a ConfigMap is not counted, so its aliases are refused.
func aliasLine(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode {
		return n.Line
	}
	for _, c := range n.Content {
		if l := aliasLine(c); l > 0 {
			return l
		}
	}
	return 0
}

// embeddedLine is the file's line of a line of the text of val: the same
// line of a literal block, which starts after the indicator's line; the
// key's line otherwise.
func embeddedLine(val *yaml.Node, line int) int {
	if val.Style&yaml.LiteralStyle != 0 {
		return val.Line + line
	}
	return val.Line
}

// shiftLines gives the nodes of an embedded tree the file's lines.
func shiftLines(n *yaml.Node, val *yaml.Node) {
	n.Line = embeddedLine(val, n.Line)
	for _, c := range n.Content {
		shiftLines(c, val)
	}
}
