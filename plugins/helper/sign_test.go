package helper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/plugins/helper"
)

// Label sets that differ must sign differently, whatever their keys and
// values hold: separators, the empty string, one label's text spelling
// two.
func TestAppendLabelsTellsLabelSetsApart(t *testing.T) {
	sets := []map[string]string{
		nil,
		{"": ""},
		{"a": ""},
		{"a": "b"},
		{"a": "b,c=d"},
		{"a": "b", "c": "d"},
		{"a=b": ""},
		{"a": "=b"},
		{"a,": "b"},
		{"1:a": "b"},
		{"a": "1:b"},
		{"a": "b\x00"},
	}
	seen := map[string]int{}
	for i, labels := range sets {
		sig := string(helper.AppendLabels(nil, labels))
		if j, dup := seen[sig]; dup {
			t.Fatalf("labels %v and %v sign alike: %q", sets[j], labels, sig)
		}
		seen[sig] = i
	}
	require.Equal(t, string(helper.AppendLabels(nil, map[string]string{"x": "1", "y": "2"})),
		string(helper.AppendLabels(nil, map[string]string{"y": "2", "x": "1"})), "the same set signs alike in any order")
}

func TestAppendStringTellsStringsApart(t *testing.T) {
	a := helper.AppendString(helper.AppendString(nil, "ab"), "c")
	b := helper.AppendString(helper.AppendString(nil, "a"), "bc")
	require.NotEqual(t, string(a), string(b))
}
