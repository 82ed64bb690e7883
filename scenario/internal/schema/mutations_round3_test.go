package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// An error's path may end a part with a note in parentheses ("metadata.name
// (the pod)"): the line index finds the line of the field before the note,
// as the tree does, so the error points at the field and not its parent.
func TestLineIndexSkipsANoteInThePath(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("metadata:\n  labels: {}\n  name: web\nspec:\n  containers:\n  - name: c\n"), &doc))
	root := doc.Content[0]
	x := IndexLines(root)
	for _, path := range []string{"metadata.name (the pod)", "spec.containers[0] (c)", "spec.containers[0].name (c)"} {
		require.Equal(t, LineOf(root, path), x.LineOf(path), path)
	}
	require.Equal(t, 3, x.LineOf("metadata.name (the pod)"))
}

// The inputs may hold exactly as many pods and nodes as the limits allow:
// the last one that fits is taken, the one after is refused.
func TestTallyTakesUpToTheLimit(t *testing.T) {
	tl := NewTally(2, 3, 0)
	require.NoError(t, tl.Room(3))
	require.NoError(t, tl.AddPods(2))
	require.NoError(t, tl.Room(1))
	require.NoError(t, tl.AddPods(1))
	require.ErrorContains(t, tl.AddPods(1), "1 more pod would go past the limit of 3 pods")
	require.NoError(t, tl.AddNodes(2))
	require.ErrorContains(t, tl.AddNodes(1), "limit of 2 nodes")
}

// An alias within the value an alias repeats counts as one more value:
// an alias to [*x, *x], x being [1, 2], repeats 9 values, so a file
// allowed 8 is refused and one allowed 9 is not.
func TestAliasInsideAnAliasCounts(t *testing.T) {
	for _, tc := range []struct {
		cap int
		ok  bool
	}{{8, false}, {9, true}} {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte("a: &x [1, 2]\nb: &y [*x, *x]\nc: *y\n"), &doc))
		e := NewExpansion([]*yaml.Node{&doc}, tc.cap)
		alias := doc.Content[0].Content[5]
		require.Equal(t, yaml.AliasNode, alias.Kind)
		err := e.ChargeAlias(alias)
		if tc.ok {
			require.NoError(t, err, "cap %d", tc.cap)
		} else {
			require.ErrorContains(t, err, "aliases repeat more than 8 values", "cap %d", tc.cap)
		}
	}
}

// Resource names the API server takes: a node's attachable-volumes-*
// allocatable, and a quota's requests.hugepages-<size>.
func TestResourceNamesOfNodesAndQuotas(t *testing.T) {
	require.NoError(t, CheckResourceName("attachable-volumes-aws-ebs", ResourcesOfNode))
	require.Error(t, CheckResourceName("attachable-volumes-aws-ebs", ResourcesOfContainer))
	require.NoError(t, CheckQuotaResourceName("requests.hugepages-2Mi"))
	require.NoError(t, CheckQuotaResourceName("hugepages-2Mi"))
	require.Error(t, CheckQuotaResourceName("requests.gpu"))
}

// A number too large for its field is not taken by the direct decoder
// (which would wrap it): the node tree then says it is out of range.
func TestJSONDirectRefusesAnOverflow(t *testing.T) {
	var v struct {
		N int32 `yaml:"n"`
	}
	require.False(t, DecodeJSONDirect([]byte(`{"n": 3000000000}`), &v))
	var w struct {
		N int32 `yaml:"n"`
	}
	require.True(t, DecodeJSONDirect([]byte(`{"n": 2147483647}`), &w))
	require.Equal(t, int32(2147483647), w.N)
}

// JSON may nest lists and objects 10,000 deep, no deeper.
func TestJSONNestingLimit(t *testing.T) {
	nested := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	_, err := ParseJSON(nested(maxJSONDepth))
	require.NoError(t, err)
	_, err = ParseJSON(nested(maxJSONDepth + 1))
	require.ErrorContains(t, err, "nested more than 10000 deep")
}

// Reading a List item by item hands over the List's own items only: an
// item's field that happens to be called items stays within the item.
func TestJSONItemsOfTheListOnly(t *testing.T) {
	var got []*yaml.Node
	_, err := ParseJSONItems([]byte(`{"kind": "List", "items": [{"kind": "X", "items": [2, 3]}, {"kind": "Y"}]}`), func(i int, item *yaml.Node) bool {
		require.Equal(t, len(got), i)
		got = append(got, item)
		return true
	})
	require.NoError(t, err)
	require.Len(t, got, 2)
	inner := MapValue(got[0], "items")
	require.NotNil(t, inner)
	require.Len(t, inner.Content, 2)
}
