package gangsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// pauseWorld is a small cluster whose run has it all: pods that end,
// preemption with graceful termination, pods waiting for room, retries.
func pauseWorld(t *testing.T, opts ...Option) *Scheduler {
	t.Helper()
	s, err := New(Config{CheckInvariants: true}, opts...)
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).CPU("4").Memory("16Gi").Obj()))
	}
	for i := range 8 {
		p := gangsimtest.MakePod(fmt.Sprintf("low-%d", i)).CPU("1").Priority(1).Obj()
		require.NoError(t, s.AddPod(p, time.Duration(10+5*i)*time.Minute))
	}
	for i := range 3 {
		p := gangsimtest.MakePod(fmt.Sprintf("batch-%d", i)).CPU("2").Priority(1).Obj()
		require.NoError(t, s.AddPod(p, 20*time.Minute))
	}
	return s
}

// addHigh adds the pods that preempt, at the scheduler's time.
func addHigh(t *testing.T, s *Scheduler) {
	t.Helper()
	for i := range 2 {
		p := gangsimtest.MakePod(fmt.Sprintf("high-%d", i)).CPU("3").Priority(100).Obj()
		require.NoError(t, s.AddPod(p, 30*time.Minute))
	}
}

// transcript runs the world: until 7m, the preemptors arrive, then to the
// end; drive runs the scheduler to a time (or, with -1, to the end).
func transcript(t *testing.T, drive func(s *Scheduler, until time.Duration), opts ...Option) []string {
	t.Helper()
	var out []string
	opts = append([]Option{WithObserver(func(e Event) { out = append(out, e.String()) })}, opts...)
	s := pauseWorld(t, opts...)
	drive(s, 7*time.Minute)
	addHigh(t, s)
	drive(s, -1)
	return out
}

// A run paused after every event and resumed makes the events of a run
// never paused.
func TestPausedRunMakesTheSameEvents(t *testing.T) {
	plain := transcript(t, func(s *Scheduler, until time.Duration) {
		if until < 0 {
			require.NoError(t, s.Run())
			return
		}
		require.NoError(t, s.RunUntil(until))
	})
	for name, pauseOn := range map[string]func(Event) bool{
		"every event":    func(Event) bool { return true },
		"pods that end":  func(e Event) bool { return e.Kind == EventPodSucceeded || e.Kind == EventPodTerminated },
		"every eviction": func(e Event) bool { return e.Kind == EventPodEvicted },
	} {
		t.Run(name, func(t *testing.T) {
			paused, pauses := false, 0
			opt := WithPause(func(e Event) bool {
				p := pauseOn(e)
				paused = paused || p
				return p
			})
			got := transcript(t, func(s *Scheduler, until time.Duration) {
				for {
					paused = false
					if until < 0 {
						require.NoError(t, s.Run())
					} else {
						require.NoError(t, s.RunUntil(until))
					}
					if !paused {
						return
					}
					pauses++
				}
			}, opt)
			require.Equal(t, plain, got)
			require.Positive(t, pauses)
		})
	}
}

// A pause ends the run after the step that made its event: the pod that
// ended has left its node, and the pod waiting for that room is placed
// only when the run goes on.
func TestPauseStopsAfterTheStep(t *testing.T) {
	paused := false
	s, err := New(Config{CheckInvariants: true}, WithPause(func(e Event) bool {
		paused = paused || e.Kind == EventPodSucceeded
		return e.Kind == EventPodSucceeded
	}))
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	ts.nodes("n", 1, 2000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("first").CPU("2").Obj(), time.Hour))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("next").CPU("2").Obj(), 0))
	ts.run()
	require.True(t, paused)
	require.Equal(t, time.Hour, ts.Now())
	st, _ := ts.Pod(cluster.MakePodKey("", "first"))
	require.Equal(t, PhaseSucceeded, st.Phase)
	st, _ = ts.Pod(cluster.MakePodKey("", "next"))
	require.Equal(t, PhasePending, st.Phase, "the cycle that places it comes after the pause")

	paused = false
	ts.run()
	require.False(t, paused)
	st, _ = ts.Pod(cluster.MakePodKey("", "next"))
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Hour, st.BoundAt)
}

// Settle schedules what can be scheduled and stops before the next timer;
// the clock stays at the last thing that happened. NextTimer skips the
// timers of pods gone since they were armed.
func TestSettleAndNextTimer(t *testing.T) {
	ts := newTestSched(t, Config{})
	ts.nodes("n", 1, 4000)
	_, ok := ts.NextTimer()
	require.False(t, ok)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("short").CPU("1").Obj(), 10*time.Minute))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("long").CPU("1").Obj(), time.Hour))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("big").MilliCPU(3500).Obj(), 0))
	_, ok = ts.NextTimer()
	require.False(t, ok, "nothing is bound yet")

	require.NoError(t, ts.Settle())
	require.Equal(t, time.Duration(0), ts.Now(), "the clock stays at the last thing that happened")
	st, _ := ts.Pod(cluster.MakePodKey("", "short"))
	require.Equal(t, PhaseBound, st.Phase)
	next, ok := ts.NextTimer()
	require.True(t, ok)
	require.Equal(t, 10*time.Minute, next)
	require.NoError(t, ts.Settle())
	require.Equal(t, time.Duration(0), ts.Now(), "the timer is left to the caller")

	require.NoError(t, ts.DeletePod(cluster.MakePodKey("", "short")))
	next, ok = ts.NextTimer()
	require.True(t, ok)
	require.Equal(t, time.Hour, next, "the deleted pod's timer is stale")
	require.NoError(t, ts.Settle())
	st, _ = ts.Pod(cluster.MakePodKey("", "big"))
	require.Equal(t, PhasePending, st.Phase)
	require.NoError(t, ts.AdvanceTo(next))
	st, _ = ts.Pod(cluster.MakePodKey("", "long"))
	require.Equal(t, PhaseSucceeded, st.Phase)
	require.NoError(t, ts.Settle())
	st, _ = ts.Pod(cluster.MakePodKey("", "big"))
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Hour, ts.Now())
}

// A key names a new pod once its pod has ended, never while it lives.
func TestAddPodReusesTheKeyOfAPodThatEnded(t *testing.T) {
	ts := newTestSched(t, Config{})
	ts.nodes("n", 1, 4000)
	web := gangsimtest.MakePod("web-0").CPU("1").Obj()
	require.NoError(t, ts.AddPod(web, time.Minute))
	require.ErrorIs(t, ts.AddPod(web, 0), ErrDuplicate)
	ts.run()
	st, _ := ts.Pod(web.Key())
	require.Equal(t, PhaseSucceeded, st.Phase)

	require.NoError(t, ts.AddPod(web, 0), "a StatefulSet makes web-0 again")
	ts.run()
	st, _ = ts.Pod(web.Key())
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Minute, st.ArrivedAt)
	require.ErrorIs(t, ts.AddPod(web, 0), ErrDuplicate)

	require.NoError(t, ts.DeletePod(web.Key()))
	require.NoError(t, ts.AddPod(web, 0))
	n := 0
	for st := range ts.Pods() {
		n++
		require.Equal(t, PhasePending, st.Phase, "the new pod, before its cycle")
	}
	require.Equal(t, 1, n)
}
