package gangsim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// FutileRetries answers a gang's search from its last one only where the
// search would return it: on random busy clusters of gangs (with and
// without topology keys, three priorities, failures, drains) and pods
// (some with anti-affinity), the event stream and every pod's end are the
// same with the shortcut and without it, and it answered often.
func TestFutileRetriesKeepDecisions(t *testing.T) {
	seeds := uint64(6)
	if raceOn || testing.Short() {
		seeds = 2
	}
	answered := 0
	for seed := range seeds {
		want, wantPods, st := gangCluster(t, seed, gangRun{})
		answered += st.FutileRetries
		got, gotPods, off := gangCluster(t, seed, gangRun{off: FutileRetries})
		require.Zero(t, off.FutileRetries)
		requireSameEvents(t, want, got, fmt.Sprintf("seed %d", seed))
		require.Equal(t, wantPods, gotPods, "seed %d", seed)
		_, quiet, _ := gangCluster(t, seed, gangRun{unobserved: true})
		require.Equal(t, wantPods, quiet, "seed %d: unobserved", seed)
		if seed < 2 {
			wide, _, st := gangCluster(t, seed, gangRun{wide: true})
			answered += st.FutileRetries
			plain, _, _ := gangCluster(t, seed, gangRun{wide: true, off: FutileRetries})
			require.Equal(t, plain, wide, "seed %d: 130 nodes or more", seed)
		}
	}
	t.Logf("searches answered: %d", answered)
	require.Positive(t, answered, "no search answered: the test says little")
}
