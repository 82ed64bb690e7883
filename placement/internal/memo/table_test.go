package memo

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/gangsimtest"
)

// When the memo is full, a new signature's table replaces the one least
// recently used, not the oldest: a shape in use keeps its answers however
// many shapes came after it.
func TestMemoForgetsTheLeastRecentlyUsedTable(t *testing.T) {
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("n").MilliCPU(1000)})
	m := New(Plugins{}, Options{})
	sig := func(i int) []byte { return fmt.Appendf(nil, "shape-%d", i) }
	get := func(i int) *table {
		if tb := m.table(snap, sig(i)); tb != nil {
			return tb
		}
		return m.table(snap, sig(i)) // a table on the second sighting
	}
	limit := capacity(snap.Len())
	first := get(0)
	require.NotNil(t, first)
	for i := 1; i < limit; i++ {
		require.NotNil(t, get(i))
	}
	require.Len(t, m.tables, limit)
	require.Same(t, first, get(0), "used again: the most recent")
	require.NotNil(t, get(limit))
	require.Len(t, m.tables, limit)
	require.Contains(t, m.tables, string(sig(0)))
	require.NotContains(t, m.tables, string(sig(1)), "the least recently used is forgotten")
	// the list holds every table once, newest first
	var keys []string
	for tb := m.recent.newest; tb != nil; tb = tb.older {
		keys = append(keys, tb.key)
	}
	require.Len(t, keys, limit)
	require.Equal(t, []string{string(sig(limit)), string(sig(0))}, keys[:2])
	require.Equal(t, string(sig(2)), keys[limit-1])
}

// An entry is one cache line: the memo tree's refresh of a changed node
// reads one line of its table, not two.
func TestEntryIsACacheLine(t *testing.T) {
	require.EqualValues(t, 64, unsafe.Sizeof(entry{}))
}
