package schema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// both parses a document with the tree builder and with the token
// reader, and the items each hands over.
func both(t *testing.T, data []byte, refuseAt int) {
	t.Helper()
	type out struct {
		root  *yaml.Node
		items []*yaml.Node
		err   error
	}
	run := func(parse func([]byte, func(int, *yaml.Node) bool) (*yaml.Node, error)) out {
		var o out
		o.root, o.err = parse(data, func(i int, n *yaml.Node) bool {
			o.items = append(o.items, n)
			return i != refuseAt
		})
		return o
	}
	slow := run(parseJSONTokens)
	valid := json.Valid(data)
	if valid {
		fast := run(parseValidJSON)
		require.Equal(t, slow.err, fast.err)
		require.Equal(t, slow.items, fast.items)
		require.Equal(t, slow.root, fast.root)
	}
	// on several goroutines, checking the text as it goes (valid or not):
	// the same items in order, the same error
	for _, workers := range []int{1, 3} {
		root, items, err := ParseJSONListItems(data, workers, func() func(int, *yaml.Node) (*yaml.Node, bool) {
			// a copy: the item's nodes are taken again for the next item
			return func(i int, n *yaml.Node) (*yaml.Node, bool) { return CloneTree(n), i != refuseAt }
		})
		require.Equal(t, slow.err, err)
		if err == nil {
			require.Equal(t, slow.root, root)
			if len(slow.items) == 0 {
				require.Empty(t, items)
			} else {
				require.Equal(t, slow.items, items)
			}
		}
	}
	if !valid {
		return
	}
	// without a taker of items, too
	a, errA := parseValidJSON(data, nil)
	b, errB := parseJSONTokens(data, nil)
	require.Equal(t, errB, errA)
	require.Equal(t, b, a)
}

func TestJSONTreeAgrees(t *testing.T) {
	var files []string
	for _, dir := range []string{"../..", "../../testdata", "../../kube/testdata"} {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				files = append(files, path)
			}
			return nil
		})
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		t.Run(f, func(t *testing.T) { both(t, data, -1); both(t, data, 1) })
	}
	for _, doc := range []string{
		`{"items": [1, 2, {"a": [true, false, null]}], "kind": "List"}`,
		`{"items": {"x": 1}, "y": {"items": [1]}}`,
		`{"items": [], "items": [3, 4]}`,
		`{"items": [1], "kind": "List", "items": [{"a": "b"}]}`,
		"{\"apiVersion\": \"v1\", \"items\": [\n {\"s\": \"a \\\" \\\\ ] } b\", \"n\": [1, [2, {\"x\": []}]]},\n \"str\", 12, -3.5e2, true, null, [], {}\n], \"kind\": \"List\"}",
		"[\n 1,\n -2.5e3,\n 9223372036854775808,\n \"\\u00e9\\n\\ud83d\\ude00\",\n \"caf\xc3\xa9\", \"bad \xff utf8\", \"\\ud800 lone\"\n]",
		"{\"a\":\n\n {\"b\": \"c\"}\r\n, \"d\" : [ ] , \"e\":{} }",
		`"just a string"`, `12`, `-0.0`, `true`, `null`,
		// not JSON: read again by the token reader
		`{"items": [1, 2,]}`, `{"items": [1 2]}`, `{"items": [{"a": 1,}]}`, `{"items": [01]}`, `{"items": ["\x"]}`,
		`{"items": ["\u12g4"]}`, "{\"items\": [\"a\tb\"]}", `{"items": [1], }`, `{"items": [1]} x`, `{"items": [[1}]}`,
		`{"items": [tru]}`, `{"items": [nul, 1]}`, `{"items": [-]}`, `{"items": [1.]}`, `{"items": [1e]}`, `{"items": ["abc`,
		`{"items": [{"a" 1}]}`, `{"items": [{1: 2}]}`, `{"items": [[[[`, `{"items": [] `, `{"items"`, `{`, ``, `   `,
	} {
		both(t, []byte(doc), -1)
		both(t, []byte(doc), 0)
	}
}

func TestJSONTreeTooDeep(t *testing.T) {
	deep := []byte("{\"items\": [1, 2,\n" + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + "]}")
	var handed int
	_, err := parseValidJSON(deep, func(int, *yaml.Node) bool { handed++; return true })
	var se *JSONSyntaxError
	require.True(t, errors.As(err, &se))
	require.ErrorIs(t, err, errTooDeep)
	require.Equal(t, 2, se.Line)
	require.Equal(t, 2, handed) // the items before the deep one, as the token reader hands them
	both(t, deep, -1)
}

func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{`{"items":[{"a":1},{"b":"\u00e9"}]}`, `[1,"x",{"y":null}]`, "{\"a\":\n[true]}", `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		both(t, data, -1)
		both(t, data, 1)
	})
}
