package schema

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// randomTree is a JSON-like tree of mappings, lists and scalars, its lines
// increasing as a file's do; a key and its value share a line.
func randomTree(r *rand.Rand, depth int, line *int) *yaml.Node {
	*line++
	n := &yaml.Node{Line: *line}
	switch k := r.IntN(3); {
	case depth == 0 || k == 0:
		n.Kind, n.Value = yaml.ScalarNode, fmt.Sprint(r.IntN(5))
	case k == 1:
		n.Kind = yaml.MappingNode
		for i := range r.IntN(4) {
			key := &yaml.Node{Kind: yaml.ScalarNode, Value: []string{"a", "b", "a.b", "c d", "e"}[(i+r.IntN(2))%5]}
			*line-- // the value starts on the key's line
			val := randomTree(r, depth-1, line)
			key.Line = val.Line
			n.Content = append(n.Content, key, val)
		}
	default:
		n.Kind = yaml.SequenceNode
		for range r.IntN(4) {
			n.Content = append(n.Content, randomTree(r, depth-1, line))
		}
	}
	return n
}

// paths are the paths of every node of a tree, as the importer writes
// them, and some that go nowhere.
func paths(n *yaml.Node, prefix string, out *[]string) {
	*out = append(*out, prefix+".zz", prefix+"[9]", prefix+"[x]")
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if prefix != "" {
				p = prefix + "." + p
			}
			*out = append(*out, p)
			paths(n.Content[i+1], p, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			*out = append(*out, p, p+" (name)")
			paths(c, p, out)
		}
	}
}

// The line index finds the line LineOf finds in the tree, for every path
// of random trees and paths that go nowhere; and the line of every key.
func TestLineIndexAgreesWithTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		line := 0
		root := randomTree(r, 4, &line)
		x := IndexLines(root)
		var ps []string
		paths(root, "", &ps)
		for _, p := range ps {
			require.Equal(t, LineOf(root, p), x.LineOf(p), p)
		}
		if root.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(root.Content); i += 2 {
				k := root.Content[i].Value
				require.Equal(t, TreeLines{root}.KeyLine("", k), x.KeyLine("", k), k)
			}
		}
	}
}

// On a kubectl dump every field's line is the tree's.
func TestLineIndexOnADump(t *testing.T) {
	data, err := os.ReadFile("../../testdata/kube/cluster.json")
	require.NoError(t, err)
	doc, err := ParseJSON(data)
	require.NoError(t, err)
	items := MapValue(doc.Content[0], "items")
	for _, item := range items.Content {
		x := IndexLines(item)
		var ps []string
		paths(item, "", &ps)
		require.Greater(t, len(ps), 20)
		for _, p := range ps {
			require.Equal(t, LineOf(item, p), x.LineOf(p), p)
		}
	}
}

// In a large mapping, too, a repeated key's first value is the one found.
func TestLineIndexLargeMappingRepeatedKey(t *testing.T) {
	root := &yaml.Node{Kind: yaml.MappingNode, Line: 1}
	for i := range 100 {
		key := fmt.Sprintf("k%d", i%90) // k0..k9 twice
		val := &yaml.Node{Kind: yaml.MappingNode, Line: i + 2, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: fmt.Sprintf("only%d", i), Line: i + 2}, {Kind: yaml.ScalarNode, Value: "v", Line: i + 2}}}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: i + 2}, val)
	}
	x := IndexLines(root)
	var ps []string
	paths(root, "", &ps)
	ps = append(ps, "k3.only93", "k3.only3")
	for _, p := range ps {
		require.Equal(t, LineOf(root, p), x.LineOf(p), p)
	}
}
