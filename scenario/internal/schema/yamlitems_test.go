package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// kubectlYAML is a List as kubectl -o yaml writes one, with what its
// items may hold: nested block sequences at the same column as their key,
// a literal block whose lines start with "#" and hold blank lines, quoted
// and multi-line scalars, comments and blank lines between the items.
const kubectlYAML = `apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    labels:
      app: web
    name: web-0
  spec:
    containers:
    - name: c
      resources:
        requests:
          cpu: 100m

# between the items
- apiVersion: v1
  data:
    script: |
      # not a comment

      echo "a line"
    other: "two
      words"
  kind: ConfigMap
  metadata: {name: cm, namespace: team-a}
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
  status:
    allocatable: {cpu: "8", memory: 32Gi}
kind: List
metadata:
  resourceVersion: ""
`

// readApart reads text with ParseYAMLItems; it returns the document with
// the items put back, or the error.
func readApart(t *testing.T, text string) (*yaml.Node, int, error) {
	t.Helper()
	var items []*yaml.Node
	doc, err := ParseYAMLItems([]byte(text), func(i int, n *yaml.Node) bool {
		require.Equal(t, len(items), i)
		items = append(items, n)
		return true
	})
	if err != nil {
		return nil, 0, err
	}
	seq := MapValue(doc.Content[0], "items")
	require.NotNil(t, seq)
	require.Empty(t, seq.Content)
	seq.Content = items
	return doc, len(items), nil
}

// sameTree requires two trees alike node for node: kind, tag, value,
// style, line and column. An empty value (null, nothing written) has no
// text: the parser gives it the place of the text after it, which an item
// read apart does not hold (the next item, the end of the file), so its
// place is not compared.
func sameTree(t *testing.T, want, got *yaml.Node, path string) {
	t.Helper()
	wantAt, gotAt := [2]int{want.Line, want.Column}, [2]int{got.Line, got.Column}
	if want.Kind == yaml.ScalarNode && want.Tag == "!!null" && want.Value == "" {
		wantAt, gotAt = [2]int{}, [2]int{}
	}
	require.Equal(t, [5]any{want.Kind, want.Tag, want.Value, want.Style, wantAt},
		[5]any{got.Kind, got.Tag, got.Value, got.Style, gotAt}, path)
	require.Len(t, got.Content, len(want.Content), path)
	for i := range want.Content {
		sameTree(t, want.Content[i], got.Content[i], fmt.Sprintf("%s/%d", path, i))
	}
}

// Each item read apart is the tree the whole document's parse gives it,
// every node at its own line and column; so is the rest of the List. The
// items may be indented under "items:" too, and the lines may end in CRLF.
func TestParseYAMLItemsAsTheWholeDocument(t *testing.T) {
	body := strings.TrimPrefix(kubectlYAML, "apiVersion: v1\nitems:\n")
	body, trailer, _ := strings.Cut(body, "kind: List\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	indented := "apiVersion: v1\nitems:\n" + strings.Join(lines, "\n") + "kind: List\n" + trailer
	for name, text := range map[string]string{
		"kubectl":          kubectlYAML,
		"indented":         indented,
		"crlf":             strings.ReplaceAll(kubectlYAML, "\n", "\r\n"),
		"no final newline": strings.TrimSuffix(kubectlYAML, "\n"),
		"items last":       "kind: List\napiVersion: v1\nitems:\n- apiVersion: v1\n  metadata: {name: p}\n- apiVersion: v1\n  kind: Pod\n",
	} {
		t.Run(name, func(t *testing.T) {
			whole, err := parseYAML([]byte(text))
			require.NoError(t, err)
			require.Len(t, whole, 1)
			got, n, err := readApart(t, text)
			require.NoError(t, err)
			require.Equal(t, len(MapValue(whole[0].Content[0], "items").Content), n)
			require.Greater(t, n, 1)
			sameTree(t, whole[0], got, "")
		})
	}
}

// What an item read apart could read otherwise, or could not read at
// all, is left to the whole-file reading: aliases (their anchors may be
// in another item), merge keys, document markers and directives, tabs,
// text indented less than the items, items in flow style or none; a
// syntax error is returned as the parser gives it.
func TestParseYAMLItemsLeavesTheRestWhole(t *testing.T) {
	head := "apiVersion: v1\nkind: List\nitems:\n"
	pod := "- apiVersion: v1\n  kind: Pod\n"
	for name, text := range map[string]string{
		"alias in item": head + pod + "  metadata: &m {name: p}\n  x: *m\n",
		"merge":         head + "- apiVersion: v1\n  <<: {kind: Pod}\n",
		"document":      "---\n" + head + pod,
		"two documents": head + pod + "---\nkind: Pod\n",
		"directive":     "%YAML 1.2\n---\n" + head + pod,
		"tab":           head + "- apiVersion: v1\n\tkind: Pod\n",
		"less indented": "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n kind: Pod\n",
		"between":       head + "- apiVersion: v1\n kind: Pod\n",
		"flow items":    "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod}]\n",
		"no items":      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
		"items twice":   head + pod + "items:\n" + pod,
		"wide dash":     head + "-  apiVersion: v1\n   kind: Pod\n",
		"flow item":     head + pod + "- {apiVersion: v1, kind: Pod}\n",
		"scalar item":   head + pod + "- text\n",
		"dash alone":    head + "-\n  apiVersion: v1\n",
		"long head":     "apiVersion: v1\nkind: List\nmetadata:\n  labels:\n" + strings.Repeat("    a: b\n", 62) + "items:\n" + pod,
		"items comment": "apiVersion: v1\nkind: List\nitems: # the objects\n" + pod,
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := readApart(t, text)
			require.ErrorIs(t, err, ErrNotKubectlYAML)
		})
	}
	_, _, err := readApart(t, head+pod+"  metadata: {name: p\n")
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrNotKubectlYAML)
	// an alias to another item's anchor is unknown to the item read apart
	_, _, err = readApart(t, head+pod+"  metadata: &a {name: p}\n"+pod+"  metadata: *a\n")
	require.ErrorContains(t, err, "unknown anchor")
	var seen []int
	_, err = ParseYAMLItems([]byte(kubectlYAML), func(i int, _ *yaml.Node) bool { seen = append(seen, i); return i < 1 })
	require.ErrorIs(t, err, ErrItemRefused)
	require.Equal(t, []int{0, 1}, seen, "it stops at the first item refused")
}

// FuzzParseYAMLItems: whatever ParseYAMLItems reads item by item, the
// whole parse reads too, into the same tree node for node; what the whole
// parse refuses, it refuses.
func FuzzParseYAMLItems(f *testing.F) {
	f.Add([]byte(kubectlYAML))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n  - a: 1\n    b: [2]\n  - |\n    x\nmetadata: {}\n"))
	f.Add([]byte("items:\n- &a {x: 1}\n- y: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := readApart(t, string(data))
		if err != nil {
			return
		}
		whole, werr := parseYAML(data)
		require.NoError(t, werr, "read item by item, refused whole")
		require.Len(t, whole, 1)
		sameTree(t, whole[0], got, "")
	})
}
