package whatif

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// A pod held by scheduling gates waits for its gates, not for room: its
// wait starts when the last gate goes, so a pod gated for an hour does not
// stop a search bounded at a minute, until it is ungated and waits.
func TestWaitWatchSkipsGatedTime(t *testing.T) {
	gated := cluster.NewPodInfo(cluster.Pod{Name: "g", SchedulingGates: []string{"wait"}})
	free := cluster.NewPodInfo(cluster.Pod{Name: "g"})
	w := &waitWatch{bound: time.Minute}
	w.observe(gangsim.Event{Kind: gangsim.EventPodArrived, Pod: gated})
	w.observe(gangsim.Event{Kind: gangsim.EventNodeAdded, At: time.Hour})
	require.Nil(t, w.stop)
	w.observe(gangsim.Event{Kind: gangsim.EventPodUngated, Pod: free, At: time.Hour})
	w.observe(gangsim.Event{Kind: gangsim.EventNodeAdded, At: time.Hour + 2*time.Minute})
	require.NotNil(t, w.stop)
	require.Equal(t, "stopped at 1h2m0s: pod g had waited 2m0s, over 1m0s", w.stop.reason)
	require.Equal(t, 2*time.Minute, w.stop.waited)
}
