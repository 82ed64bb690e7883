package kube

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The hash's text is what fmt prints for "%d:%s:%q[" of each node: the
// names of pods made from templates (pod-template-hash) stay as they were
// when it was printed so.
func TestTemplateHashTextAsPrinted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []string{"", "a", "16Gi", "line\nbreak", "quote\"d", `back\slash`, "tab\t", "é ü 中", "\x00\x7f", "\xff\xfe", "emoji 🚀"}
	var tree func(depth int) *yaml.Node
	tree = func(depth int) *yaml.Node {
		n := &yaml.Node{Kind: yaml.Kind(1 << r.IntN(5)), Tag: []string{"", "!!str", "!!map", "!!int"}[r.IntN(4)], Value: values[r.IntN(len(values))]}
		for range r.IntN(4) * min(depth, 1) {
			n.Content = append(n.Content, tree(depth-1))
		}
		return n
	}
	for i := range 500 {
		n := tree(4)
		n.Kind = yaml.MappingNode // the template, as MapValue finds it
		want := fnv.New32a()
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			fmt.Fprintf(want, "%d:%s:%q[", n.Kind, n.Tag, n.Value)
			for _, c := range n.Content {
				walk(c)
			}
			want.Write([]byte("]"))
		}
		walk(n)
		o := &Object{kind: "Deployment", node: &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "spec"}, {Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "template"}, n}},
		}}}
		got := templateHash(o)
		o2 := *o
		if got != hashName(want.Sum32()) || templateHash(&o2) != got {
			t.Fatalf("tree %d: %s, printed text gives %s", i, got, hashName(want.Sum32()))
		}
	}
}
