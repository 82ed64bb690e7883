package helper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
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

// Requests that differ in any quantity or extended resource sign apart,
// however the numbers and names could run together.
func TestAppendRequestsTellsRequestsApart(t *testing.T) {
	gpu, big := cluster.ResourceName("example.com/gpu"), cluster.ResourceName("example.com/gpu1")
	sets := []cluster.Resources{
		{},
		{MilliCPU: 1},
		{Memory: 1},
		{MilliCPU: 1, Memory: 1},
		{MilliCPU: 11},
		{MilliCPU: 1, Memory: 11},
		{MilliCPU: 256},
		{Memory: 256},
		{MilliCPU: -1},
		cluster.Resources{}.With(gpu, 1),
		cluster.Resources{}.With(gpu, 11),
		cluster.Resources{}.With(big, 1),
		cluster.Resources{}.With(gpu, 1).With(big, 1),
		cluster.Resources{}.With(gpu, 256),
		cluster.Resources{MilliCPU: 1}.With(gpu, 1),
	}
	seen := map[string]int{}
	for i := range sets {
		sig := string(helper.AppendRequests(nil, &sets[i]))
		if j, dup := seen[sig]; dup {
			t.Fatalf("requests %v and %v sign alike: %q", sets[j], sets[i], sig)
		}
		seen[sig] = i
	}
	// a name spelling the bytes of the quantity before it and the next
	// name: apart only by the names' lengths
	run := cluster.Resources{}.With("a", 0x6262626262626262).With("c", 7) // "a", "bbbbbbbb", "c"
	joined := cluster.Resources{}.With("abbbbbbbbc", 7)
	require.NotEqual(t, string(helper.AppendRequests(nil, &run)), string(helper.AppendRequests(nil, &joined)))
	same := cluster.Resources{MilliCPU: 250, Memory: 1 << 27}.With(gpu, 2)
	again := cluster.Resources{MilliCPU: 250, Memory: 1 << 27}.With(gpu, 2)
	require.Equal(t, string(helper.AppendRequests(nil, &same)), string(helper.AppendRequests(nil, &again)))
}
