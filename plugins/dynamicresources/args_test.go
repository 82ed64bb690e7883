package dynamicresources

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/dra"
)

// The plugin's arguments: filterTimeout defaults to kube's 10 s, 0 turns
// the bound off, and a negative one is refused; the search's step budget
// follows the timeout.
func TestArgsFilterTimeout(t *testing.T) {
	require.Equal(t, dra.DefaultFilterTimeout, NewArgs().(*Args).FilterTimeout)
	require.Equal(t, 10*time.Second, dra.DefaultFilterTimeout)
	for _, tc := range []struct {
		timeout time.Duration
		steps   int64
		err     string
	}{
		{timeout: 10 * time.Second, steps: dra.StepsFor(10 * time.Second)},
		{timeout: 2 * time.Second, steps: dra.StepsFor(2 * time.Second)},
		{timeout: 0, steps: dra.StepsFor(0)},
		{timeout: -time.Second, err: "filterTimeout -1s must not be negative"},
	} {
		a := NewArgs().(*Args)
		a.FilterTimeout = tc.timeout
		pl, err := New(a, nil)
		if tc.err != "" {
			require.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.steps, pl.(*DynamicResources).maxSteps, "timeout %v", tc.timeout)
	}
	require.Less(t, dra.StepsFor(2*time.Second), dra.StepsFor(10*time.Second))
	p, err := New(nil, nil)
	require.NoError(t, err)
	require.Equal(t, dra.StepsFor(dra.DefaultFilterTimeout), p.(*DynamicResources).maxSteps, "no arguments: the default timeout's budget")
}
