package gangsim

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateStreams = flag.Bool("update", false, "rewrite testdata/streams.txt")

// The busy runs of the benchmarks decide exactly as they did when
// testdata/streams.txt was written: every event of the small oversubscribed
// run (3.9 million) and of the busy GPU cluster (0.8 million) is hashed,
// and the count and hash must match. These are the runs the fast paths of
// a busy cluster (failure reuse, the shape shortcut, dry-run memos,
// queueing hints) are for; a change to them that changes a decision shows
// here. An intended change of behaviour rewrites the file with -update.
func TestBusyRunsDecideAsBefore(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("a few seconds of simulation; the race detector makes it minutes")
	}
	runs := []struct {
		name string
		run  func(testing.TB, *Scheduler)
	}{
		{"oversubscribed-small", func(t testing.TB, s *Scheduler) { runOversubscribed(t, s, 100, 2500) }},
		{"busy-gpu", runBusyGPUCluster},
	}
	var got []string
	for _, r := range runs {
		h, n := sha256.New(), 0
		s, err := New(Config{}, WithObserver(func(e Event) {
			n++
			fmt.Fprintf(h, "%d|%v|%s|%s|%s|%s|%d\n", e.Kind, e.At, e.PodKey(), e.Node, e.Reason, e.By.Key, e.Cycle)
		}))
		require.NoError(t, err)
		r.run(t, s)
		got = append(got, fmt.Sprintf("%s %d %s", r.name, n, hex.EncodeToString(h.Sum(nil))))
	}
	path := filepath.Join("testdata", "streams.txt")
	text := strings.Join(got, "\n") + "\n"
	if *updateStreams {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), text, "the events of a busy run changed (go test -run TestBusyRunsDecideAsBefore -update, if intended)")
}
