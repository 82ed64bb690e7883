package autoscaler

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The cases of the cluster autoscaler's exponential back-off tests
// (utils/backoff), with this model's durations: 5m initial, 30m at most,
// 3h to reset. A row is a sequence of steps on one group: a timeout
// ("fail") at a time, a node that arrives ("arrive"), and checks that the
// group is backed off or not at a time, and of the last back-off's
// length.
func TestBackoffCasesFromClusterAutoscaler(t *testing.T) {
	type step struct {
		op      string // "fail", "arrive", "backedOff", "free", "duration"
		at, dur time.Duration
	}
	m := time.Minute
	cases := []struct {
		name  string
		steps []step
	}{
		// cluster autoscaler: TestBackoffTwoKeys (one group backed off, the
		// other not: groups have back-offs of their own, see the row's run)
		{"TestBackoffTwoKeys", []step{{"free", 0, 0}, {"fail", m, 0}, {"backedOff", 2 * m, 0}, {"backedOff", 6*m - 1, 0}, {"free", 6 * m, 0}}},
		// cluster autoscaler: TestMaxBackoff (each failure when the one
		// before has ended: doubled, up to the most)
		{"TestMaxBackoff", []step{
			{"fail", 0, 0}, {"duration", 0, 5 * m}, {"backedOff", 0, 0}, {"free", 5 * m, 0},
			{"fail", 5*m + 1, 0}, {"duration", 0, 10 * m}, {"free", 15*m + 1, 0},
			{"fail", 16 * m, 0}, {"duration", 0, 20 * m}, {"free", 36 * m, 0},
			{"fail", 37 * m, 0}, {"duration", 0, 30 * m}, {"free", 67 * m, 0},
			{"fail", 68 * m, 0}, {"duration", 0, 30 * m}}},
		// cluster autoscaler: TestRemoveBackoff (a scale-up that succeeds
		// removes the back-off data: the next failure starts over)
		{"TestRemoveBackoff", []step{{"fail", 0, 0}, {"fail", 6 * m, 0}, {"duration", 0, 10 * m}, {"arrive", 17 * m, 0}, {"fail", 18 * m, 0}, {"duration", 0, 5 * m}}},
		// cluster autoscaler: TestResetStaleBackoffData (data older than the
		// reset timeout is dropped; exactly at it, it is kept)
		{"TestResetStaleBackoffData", []step{{"fail", 0, 0}, {"fail", 3 * time.Hour, 0}, {"duration", 0, 10 * m}, {"fail", 6*time.Hour + 1, 0}, {"duration", 0, 5 * m}}},
		// cluster autoscaler: the rule in Backoff that concurrent failures
		// do not make the back-off grow: a failure while backed off keeps
		// the duration, and one exactly at the end of the back-off too
		{"concurrent failures", []step{{"fail", 0, 0}, {"fail", m, 0}, {"duration", 0, 5 * m}, {"backedOff", 5 * m, 0}, {"free", 6 * m, 0},
			{"fail", 6 * m, 0}, {"duration", 0, 5 * m}, {"fail", 11*m + 1, 0}, {"duration", 0, 10 * m}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(Config{}, []NodeGroup{group("g", "4", 5), group("h", "4", 5)}, nil)
			require.NoError(t, err)
			g, other := a.groups[0], a.groups[1]
			for i, s := range tc.steps {
				switch s.op {
				case "fail":
					g.backOff(s.at)
				case "arrive":
					g.nodeArrived()
				case "backedOff", "free":
					// scale-up's test of a group's back-off (limit)
					require.Equal(t, s.op == "backedOff", s.at < g.backoffTil, "step %d at %v", i, s.at)
					require.False(t, s.at < other.backoffTil, "the other group")
				case "duration":
					require.Equal(t, s.dur, g.backoff, "step %d", i)
				}
			}
		})
	}
}

// Two scale-ups of a group in two scans (pods of 3 cpu on 4-cpu nodes,
// one a node) both time out, 10s apart: the second timeout comes while
// the group is backed off for the first, so its back-off stays 5m rather
// than growing to 10m, as the cluster autoscaler's back-off keeps it.
func TestConcurrentTimeoutsDoNotGrowTheBackoff(t *testing.T) {
	slow := group("slow", "4", 5)
	slow.ProvisioningDelay = Delay{Fixed: 20 * time.Minute}
	w := newWorld(t, Config{}, slow)
	require.NoError(t, w.a.Start(w.s))
	w.addPods(1, "a", "3", 0)
	require.NoError(t, w.a.Advance(w.s, 15*time.Second))
	w.addPods(1, "b", "3", 0)
	w.runToEnd()
	var reasons []string
	for _, e := range w.a.Events() {
		if e.Kind == EventScaleUpTimeout {
			reasons = append(reasons, e.At.String()+" "+e.Reason)
		}
	}
	require.GreaterOrEqual(t, len(reasons), 2)
	require.Contains(t, reasons[0], "15m10s not ready")
	require.Contains(t, reasons[0], "backed off for 5m0s")
	require.Contains(t, reasons[1], "15m20s not ready")
	require.Contains(t, reasons[1], "backed off for 5m0s")
}

// On random tiny sequences of timeouts and arrivals, the group's back-off
// equals a reference written the way the cluster autoscaler keeps its
// back-off data: an entry per group (duration, until, last failure),
// dropped when a scale-up succeeds and when older than the reset timeout;
// a failure doubles the duration (at most the max) when the entry's
// back-off has ended, keeps it while it lasts, and starts at the initial
// duration without an entry.
func TestBackoffAgainstReference(t *testing.T) {
	type entry struct {
		ok                bool
		dur, until, lastF time.Duration
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 5))
		a, err := New(Config{}, []NodeGroup{group("g", "4", 5)}, nil)
		require.NoError(t, err)
		g := a.groups[0]
		var ref entry
		now := time.Duration(0)
		for range 1 + rng.IntN(12) {
			now += time.Duration(rng.IntN(5)) * []time.Duration{time.Minute, 10 * time.Minute, time.Hour}[rng.IntN(3)]
			if ref.ok && ref.lastF+NodeGroupBackoffReset < now {
				ref = entry{} // stale data removed
			}
			if rng.IntN(4) == 0 {
				g.nodeArrived()
				ref = entry{}
				continue
			}
			g.backOff(now)
			d := NodeGroupBackoff
			if ref.ok {
				d = ref.dur
				if ref.until < now {
					d = min(2*ref.dur, MaxNodeGroupBackoff)
				}
			}
			ref = entry{ok: true, dur: d, until: now + d, lastF: now}
			require.Equal(t, ref.dur, g.backoff, "seed %d at %v", seed, now)
			require.Equal(t, ref.until, g.backoffTil, "seed %d at %v", seed, now)
		}
	}
}
