package whatif

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// The namer hands out a base's first free names in order and goes on
// from its last one, so that each name costs one probe whatever was
// handed out before (names the cluster has are stepped over once).
func TestNamerGoesOnFromItsLastName(t *testing.T) {
	n := newNamer(map[string]bool{"a-new2": true, "a-new4": true})
	var got []string
	for range 4 {
		got = append(got, n.fresh("a"))
	}
	require.Equal(t, []string{"a-new1", "a-new3", "a-new5", "a-new6"}, got)
	require.Equal(t, "b-new1", n.fresh("b"), "each base has its own numbers")
	// the search goes on from where the last one ended: a name behind it
	// is not looked at again (were it freed, which never happens, a
	// search from new1 would return it)
	for i := 7; i < 1000; i++ {
		delete(n.taken, fmt.Sprint("a-new", i-1))
		require.Equal(t, fmt.Sprint("a-new", i), n.fresh("a"))
	}
}
