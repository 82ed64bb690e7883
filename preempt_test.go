package gangsim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// Property (S7): every preemption's victims are a minimal set for their
// node, and no pod is ever lost.
func TestPreemptionVictimsMinimalAndNoPodLost(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	zero := time.Duration(0)
	preemptions := 0
	for trial := range 1000 {
		ts := newTestSched(t, Config{TerminationGracePeriod: &zero, PercentageOfNodesToScore: 100})
		nodes := 1 + rng.IntN(4)
		for n := range nodes {
			require.NoError(t, ts.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", n)).MilliCPU(1000*(1+rng.Int64N(3))).Memory("8Gi").Obj()))
		}
		var keys []cluster.PodKey
		for i := range 4 + rng.IntN(10) {
			p := gangsimtest.MakePod(fmt.Sprintf("p%02d", i)).Priority(int32(rng.IntN(5) * 10)).MilliCPU(100 * (1 + rng.Int64N(10))).Obj()
			if rng.IntN(3) == 0 {
				p.PreemptionPolicy = cluster.PreemptNever
			}
			require.NoError(t, ts.AddPod(p, time.Duration(rng.IntN(3))*time.Minute))
			keys = append(keys, p.Key())
			for range 3 {
				res, ok, err := ts.ScheduleOne()
				require.NoError(t, err)
				if !ok {
					break
				}
				if len(res.Evicted) > 0 {
					preemptions++
					checkMinimal(t, ts, res, trial)
				}
			}
			require.NoError(t, ts.AdvanceTo(ts.Now()+time.Duration(rng.IntN(90))*time.Second))
		}
		require.NoError(t, ts.Run())
		for _, k := range keys {
			st, ok := ts.Pod(k)
			require.True(t, ok)
			switch st.Phase {
			case PhasePending:
				_, inCache := ts.cache.Pod(k)
				require.False(t, inCache, "trial %d: pending pod %s is in the cache", trial, k)
			case PhaseBound:
				pi, inCache := ts.cache.Pod(k)
				require.True(t, inCache, "trial %d: bound pod %s missing from the cache", trial, k)
				require.Equal(t, st.Node, pi.NodeName())
			case PhaseSucceeded:
			default:
				t.Fatalf("trial %d: pod %s ended %s", trial, k, st.Phase)
			}
		}
		for ni := range ts.Nodes() {
			require.True(t, ni.Requested().Fits(ni.Allocatable()), "trial %d: node %s over capacity", trial, ni.Name())
		}
	}
	require.Greater(t, preemptions, 100)
}

// checkMinimal: with the cycle's victims gone the preemptor fits their
// node; with any one of them back it does not. Fit is judged as the cycle
// judged it, counting pods of higher or equal priority nominated there.
func checkMinimal(t *testing.T, ts *testSched, res CycleResult, trial int) {
	t.Helper()
	pre := ts.tracker.record(cluster.PodKey(res.Item[len("pod/"):]))
	snap := ts.cache.Snapshot()
	node, _ := snap.Index(res.Evicted[0].Node)
	for _, e := range res.Evicted {
		require.Equal(t, res.Evicted[0].Node, e.Node)
		pi, _ := ts.cache.Pod(e.Pod)
		require.Less(t, pi.Priority(), pre.info.Priority(), "trial %d: a victim of equal or higher priority", trial)
		require.NoError(t, snap.Remove(e.Pod, node))
	}
	require.Nil(t, ts.filter(snap, pre.info, node), "trial %d: evicting the victims makes room", trial)
	for _, e := range res.Evicted {
		pi, _ := ts.cache.Pod(e.Pod)
		mark := snap.Checkpoint()
		snap.Reserve(pi, node)
		require.NotNil(t, ts.filter(snap, pre.info, node), "trial %d: victim %s was not needed", trial, e.Pod)
		snap.Rollback(mark)
	}
}

func TestSafetyCapStopsRunawayRuns(t *testing.T) {
	ts := newTestSched(t, Config{MaxCycles: 2}).nodes("n", 1, 1000)
	for i := range 5 {
		require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("p%d", i)).CPU("100m").Obj(), 0))
	}
	require.ErrorIs(t, ts.Run(), ErrNoProgress)
}

// BenchmarkPodPreemption is one preemption decision through the scheduler:
// a high-priority pod fits none of 5,000 nodes, each full with 10
// lower-priority pods, and preempts.
func BenchmarkPodPreemption(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		ts := newTestSched(b, Config{})
		for n := range 5000 {
			name := fmt.Sprintf("node-%04d", n)
			require.NoError(b, ts.AddNode(gangsimtest.MakeNode(name).CPU("10").Memory("40Gi").Obj()))
			for i := range 10 {
				require.NoError(b, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("%s-p%d", name, i)).NodeName(name).Priority(int32(i%3)).CPU("1").Memory("4Gi").Obj(), 0))
			}
		}
		require.NoError(b, ts.AddPod(gangsimtest.MakePod("pre").Priority(100).CPU("2500m").Memory("8Gi").Obj(), 0))
		require.NoError(b, ts.cache.UpdateSnapshot(ts.snap)) // the cluster is built, not timed
		b.StartTimer()
		res, ok, err := ts.ScheduleOne()
		if err != nil || !ok || len(res.Evicted) == 0 {
			b.Fatalf("no preemption: %v %v %+v", err, ok, res)
		}
	}
}

// A quiet cluster waiting for time to pass is never refused: 200 pods that
// fit nowhere for two days are retried every five minutes, which the cycle
// cap does not count, and fit once a node arrives.
func TestQuietWaitIsNotALivelock(t *testing.T) {
	s, err := New(Config{}) // no invariant checks: 115,000 cycles
	require.NoError(t, err)
	ts := (&testSched{Scheduler: s, t: t}).nodes("small", 1, 1000)
	for i := range 200 {
		require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("p%d", i)).CPU("2").Obj(), 0))
	}
	require.NoError(t, ts.RunUntil(48*time.Hour))
	require.Greater(t, ts.Stats().Cycles, 100_000, "the retries went on for two days")
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("big").CPU("500").Pods(300).Obj()))
	require.NoError(t, ts.Run())
	require.Equal(t, 200, ts.Stats().Scheduled)
}

// A preemptor retried while its victims still terminate on its nominated
// node waits for them instead of preempting again, even when a cheaper
// victim appears elsewhere (a node added during the grace period brings it
// back early).
func TestPreemptorWaitsForTerminatingVictims(t *testing.T) {
	grace := 20 * time.Second
	ts := newTestSched(t, Config{TerminationGracePeriod: &grace}).nodes("n", 1, 4000)
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("a").NodeName("n-0").Priority(1).CPU("2").Obj(), 0))
	require.NoError(t, ts.AdvanceTo(time.Second))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("boss").Priority(100).CPU("3").Obj(), 0))
	require.NoError(t, ts.RunUntil(5*time.Second))
	require.Len(t, ts.Evictions(), 1)
	// a node whose lone pod, of priority 0, would be a cheaper victim
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("m").CPU("3").Memory("1Gi").Pods(10).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("cheap").NodeName("m").Priority(0).CPU("1").Obj(), 0))
	cycles := ts.Stats().Cycles
	require.NoError(t, ts.RunUntil(10*time.Second))
	require.Greater(t, ts.Stats().Cycles, cycles, "the new node brought boss back")
	require.Len(t, ts.Evictions(), 1, "no second preemption while the victim terminates")
	require.NoError(t, ts.Run())
	st, _ := ts.Pod(cluster.MakePodKey("", "boss"))
	require.Equal(t, "n-0", st.Node)
	require.Len(t, ts.Evictions(), 1)
}

// A preemption that can never stick: victim v keeps db pods out of its
// zone by required anti-affinity; db preempts it, and v, requeued and back
// at once (no grace period) while db waits out its backoff, lands on the
// zone's other node: a nominated pod counts only on its own node, as in
// kube-scheduler. db then preempts it there, and so on. The cycle cap
// stops the run with ErrNoProgress instead of running forever
// (docs/semantics.md §7). Found by the random scenario suite, where such
// cascades stop at the cap in about 0.2% of the seeds.
func TestPreemptionLivelockStopsAtTheCap(t *testing.T) {
	s := newTestSched(t, Config{TerminationGracePeriod: new(time.Duration(0)), MaxCycles: 1000})
	addLivelock(t, s.Scheduler)
	err := s.Run()
	require.ErrorIs(t, err, ErrNoProgress)
	require.Greater(t, s.Stats().Evictions, 100)
	require.NoError(t, s.CheckInvariants(), "the state stays sound")
}

// The eviction cap counts every eviction since the simulation began: a
// caller that drives the clock in small steps (a scenario's events, a
// controller between timers) is stopped as Run is, instead of starting
// the count again at every step and running for ever.
func TestEvictionCapCountsOverEveryCall(t *testing.T) {
	s := newTestSched(t, Config{TerminationGracePeriod: new(time.Duration(0)), MaxCycles: 1000})
	addLivelock(t, s.Scheduler)
	var err error
	for step := 1; step <= 100_000 && err == nil; step++ {
		err = s.RunUntil(time.Duration(step) * time.Second)
	}
	require.ErrorIs(t, err, ErrNoProgress)
	require.Equal(t, 1000, s.Stats().Evictions)
	require.Less(t, s.Now(), 100_000*time.Second)
}

// addLivelock adds the cluster of TestPreemptionLivelockStopsAtTheCap: v
// on n1 keeps db out of zone z, and db preempts it wherever it lands.
func addLivelock(t *testing.T, s *Scheduler) {
	t.Helper()
	for _, n := range []string{"n1", "n2"} {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(n).Label("zone", "z").CPU("1").Memory("8Gi").Obj()))
	}
	keepOut := &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{
		{LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone"}}}}
	require.NoError(t, s.AddPod(cluster.Pod{Name: "v", Priority: new(int32(0)), Affinity: keepOut, NodeName: "n1"}, 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("db").Label("app", "db").Priority(100).Obj(), 0))
}

// A run stopped at a cap says so in the event stream, naming the pods that
// kept being evicted and by whom, in the same words as its error; what
// the run did stays.
func TestSafetyCapNamesWhoKeepsEvicting(t *testing.T) {
	var stops []Event
	s, err := New(Config{TerminationGracePeriod: new(time.Duration(0)), MaxCycles: 1000},
		WithObserverOf(func(e Event) { stops = append(stops, e) }, EventRunStopped))
	require.NoError(t, err)
	addLivelock(t, s)
	err = s.Run()
	require.ErrorIs(t, err, ErrNoProgress)
	require.Len(t, stops, 1)
	require.Equal(t, EventRunStopped, stops[0].Kind)
	require.Equal(t, "RunStopped", stops[0].Kind.String())
	require.Equal(t, "gangsim: simulation does not converge: "+stops[0].Reason, err.Error())
	require.Contains(t, stops[0].Reason, "1000 evictions")
	require.Contains(t, stops[0].Reason, "; evicted most: default/v (1000 evictions, the last by default/db)")
	require.Len(t, s.Evictions(), 1000, "what the run did stays")
}

func TestMostEvictedNamesTheTopFive(t *testing.T) {
	var evs []Eviction
	for i, p := range []string{"a", "b", "a", "c", "d", "e", "f", "b", "a"} {
		evs = append(evs, Eviction{Pod: cluster.PodKey("default/" + p), By: Ref{Kind: KindPod, Key: fmt.Sprintf("default/x%d", i)}})
	}
	require.Equal(t, "default/a (3 evictions, the last by default/x8), default/b (2 evictions, the last by default/x7), "+
		"default/c (1 eviction, the last by default/x3), default/d (1 eviction, the last by default/x4), default/e (1 eviction, the last by default/x5)",
		mostEvicted(evs, 5))
	require.Empty(t, mostEvicted(nil, 5))
}
