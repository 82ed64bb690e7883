package gangsim

import (
	"slices"
	"testing"

	"github.com/gangsim/gangsim/cluster"
	"github.com/stretchr/testify/require"
)

// Every shortcut keeps every decision: on random busy clusters, some wide
// with gangs evicted as a whole, the event stream with all shortcuts on
// equals the stream with each one switched off, and with all of them off;
// and each shortcut is used on the way (its ShortcutStats count, or for
// the pod scan's own shortcuts the time they take, is not checked here:
// placement/internal/memo's TestMemoNeverChangesDecisions and TestMemoIndexesMatchScan
// hold those to the plain scan node by node).
func TestEachShortcutKeepsDecisions(t *testing.T) {
	seeds := uint64(12)
	if raceOn || testing.Short() {
		seeds = 2
	}
	offs := []Shortcut{FilterMemo, MemoTree, KnownFailures, DryRunMemo, RememberedCandidates, VictimUnits, FutileRetries, allShortcuts}
	var used ShortcutStats
	for seed := range seeds {
		for _, wide := range []bool{false, true} {
			want, _, _, _, _ := runBusyCluster(t, seed, busyRun{wide: wide, fast: true})
			for _, off := range offs {
				got, _, _, _, _ := runBusyCluster(t, seed, busyRun{wide: wide, fast: true, off: off})
				if !slices.Equal(want, got) {
					for i := range min(len(want), len(got)) {
						require.Equal(t, want[i], got[i], "seed %d (wide %v), without %v: first difference at event %d", seed, wide, off, i)
					}
					require.Equal(t, len(want), len(got), "seed %d (wide %v), without %v", seed, wide, off)
				}
			}
			used = addStats(used, shortcutStatsOf(t, seed, wide))
		}
	}
	t.Logf("shortcuts used: %+v", used)
	require.Positive(t, used.KnownFailures, "known failures never answered: the test says little")
	require.Positive(t, used.InRow, "no known failure retried in a row")
	require.Positive(t, used.DryRunNodesKnown, "no dry run passed over a known node")
	require.Positive(t, used.DryRunNodesSkipped, "no dry run skipped unchanged nodes")
	require.Positive(t, used.RememberedCandidates, "no candidate taken again")
}

// A shortcut switched off answers nothing: its count stays zero.
func TestWithoutShortcutsCountsNothing(t *testing.T) {
	for seed := range uint64(6) {
		s := busyScheduler(t, seed, busyRun{wide: true, fast: true, off: allShortcuts})
		require.Zero(t, s.ShortcutStats(), "seed %d", seed)
	}
	require.Equal(t, "KnownFailures|VictimUnits", (KnownFailures | VictimUnits).String())
	require.Equal(t, "none", Shortcut(0).String())
}

// shortcutStatsOf runs a busy cluster with every shortcut on and returns
// what they answered.
func shortcutStatsOf(t *testing.T, seed uint64, wide bool) ShortcutStats {
	return busyScheduler(t, seed, busyRun{wide: wide, fast: true}).ShortcutStats()
}

func addStats(a, b ShortcutStats) ShortcutStats {
	return ShortcutStats{
		KnownFailures: a.KnownFailures + b.KnownFailures, InRow: a.InRow + b.InRow,
		DryRunNodesKnown: a.DryRunNodesKnown + b.DryRunNodesKnown, DryRunNodesSkipped: a.DryRunNodesSkipped + b.DryRunNodesSkipped,
		RememberedCandidates: a.RememberedCandidates + b.RememberedCandidates,
	}
}

// WithExpectedPods is a capacity hint only: on random busy clusters the
// event stream is the same without it, with one far below the pods added
// and with one above them.
func TestExpectedPodsChangesNoDecision(t *testing.T) {
	for seed := range uint64(4) {
		for _, wide := range []bool{false, true} {
			want, _, _, _, _ := runBusyCluster(t, seed, busyRun{wide: wide, fast: true})
			for _, n := range []int{1, 100000} {
				got, _, _, _, _ := runBusyCluster(t, seed, busyRun{wide: wide, fast: true, expected: n})
				require.Equal(t, want, got, "seed %d (wide %v), expecting %d pods", seed, wide, n)
			}
		}
	}
}

// Pods handed over read-only (AddSharedPod) are held as given when
// admission leaves them as they are, with the same decisions, event for
// event, as pods the scheduler copies (AddPod, here with no namespace,
// which admission fills).
func TestSharedPodsChangeNoDecision(t *testing.T) {
	for seed := range uint64(4) {
		for _, wide := range []bool{false, true} {
			_, want := runBusy(t, seed, busyRun{wide: wide, fast: true})
			var kept []*cluster.Pod
			s, got := runBusy(t, seed, busyRun{wide: wide, fast: true, shared: true, kept: &kept})
			require.Equal(t, want, got, "seed %d (wide %v)", seed, wide)
			require.NotEmpty(t, kept)
			for _, p := range kept {
				r := s.tracker.record(p.Key())
				require.Same(t, p, r.info.Pod(), "pod %s is held as given", p.Key())
			}
		}
	}
}

// A hint is clamped: a negative one is none, a huge one the bound.
func TestExpectedPodsIsBounded(t *testing.T) {
	for _, tc := range [][2]int{{-5, 0}, {0, 0}, {1000, 1000}, {1 << 40, maxExpectedPods}} {
		s, err := New(Config{}, WithExpectedPods(tc[0]))
		require.NoError(t, err)
		require.Equal(t, tc[1], s.expectedPods, "hint %d", tc[0])
	}
}
