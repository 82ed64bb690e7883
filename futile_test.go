package gangsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
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
		n, _ := sameGangDecisions(t, seed, FutileRetries, func(st ShortcutStats) int { return st.FutileRetries })
		answered += n
		for _, how := range []gangRun{{wide: true}, {racks: true}, {mixed: true}, {racks: true, mixed: true}} {
			if seed >= 2 && raceOn {
				break
			}
			on, _, st := gangCluster(t, seed, how)
			answered += st.FutileRetries
			how.off = FutileRetries
			off, _, _ := gangCluster(t, seed, how)
			requireSameEvents(t, off, on, fmt.Sprintf("seed %d, %+v", seed, how))
		}
	}
	t.Logf("searches answered: %d", answered)
	require.Positive(t, answered, "no search answered: the test says little")
}

// A pod's remembered failure holds across a change that cannot help it (a
// node that still rejects it with the same status) and not across one
// that can (room freed where it fits now), nor once a pod of lower
// priority is somewhere, which preemption could take.
func TestFutileRetriesAnswerPodsOnlyForChangesThatCannotHelp(t *testing.T) {
	s := newTestSched(t, Config{})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("1").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("filler").CPU("1").Priority(5).Obj(), 0))
	for _, name := range []string{"a", "b"} {
		require.NoError(t, s.AddPod(gangsimtest.MakePod(name).CPU("500m").Priority(5).Obj(), 0))
	}
	require.NoError(t, s.RunUntil(time.Second))
	a, b := s.tracker.record("default/a"), s.tracker.record("default/b")
	p := s.profiles.forPod(a.info)
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.NotNil(t, s.knownFailureFor(p, b), "a failed with the cluster as it is")

	// n changes (a pod of no request joins it) and still lacks cpu for b
	require.NoError(t, s.AddPod(gangsimtest.MakePod("c").NodeName("n").Priority(5).Obj(), 0))
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.NotNil(t, s.knownFailureFor(p, b), "a change that cannot help: answered")
	s.shortcutsOff |= FutileRetries
	require.NoError(t, s.AddPod(gangsimtest.MakePod("d").NodeName("n").Priority(5).Obj(), 0))
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.Nil(t, s.knownFailureFor(p, b), "the shortcut off: KnownFailures alone holds only while nothing changes")
	s.shortcutsOff &^= FutileRetries
	s.rememberKnownFailure(p, b, b.lastFit, queue.AnyChange)

	// a pod of lower priority joins: preemption might take it
	require.NoError(t, s.AddPod(gangsimtest.MakePod("low").NodeName("n").Priority(1).Obj(), 0))
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.Nil(t, s.knownFailureFor(p, b), "a victim may exist: the cycle runs")
	require.NoError(t, s.DeletePod("default/low"))
	s.rememberKnownFailure(p, b, b.lastFit, queue.AnyChange)

	// the filler leaves: b fits now
	require.NoError(t, s.DeletePod("default/filler"))
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.Nil(t, s.knownFailureFor(p, b), "room freed where b fits: the cycle runs")
}

// A pod with required anti-affinity is no pod whose plugins read only its
// node: a pod leaving one node of a rack frees the rack's other nodes.
// Here n1 still lacks cpu for b after web-1 leaves it (its status is the
// same), but n2, in the same rack, no longer holds b off: the cycle runs,
// and b binds there.
func TestFutileRetriesNotForPodsWithAffinity(t *testing.T) {
	for _, gang := range []bool{false, true} {
		futileAffinity(t, gang)
	}
}

// futileAffinity is TestFutileRetriesNotForPodsWithAffinity with b alone
// or the one member of a gang (whose search is answered apart).
func futileAffinity(t *testing.T, gang bool) {
	s := newTestSched(t, Config{})
	s.cfg.CheckInvariants = false // a gang's search is answered only then
	for _, n := range []cluster.Node{
		gangsimtest.MakeNode("n1").CPU("1").Memory("8Gi").Label("rack", "r").Obj(),
		gangsimtest.MakeNode("n2").CPU("8").Memory("8Gi").Label("rack", "r").Obj(),
	} {
		require.NoError(t, s.AddNode(n))
	}
	require.NoError(t, s.AddPod(gangsimtest.MakePod("filler").CPU("1").Priority(5).NodeName("n1").Obj(), 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("web-1").Priority(5).Label("app", "web").NodeName("n1").Obj(), 0))
	b := gangsimtest.MakePod("b").CPU("500m").Priority(5).Label("app", "web").Obj()
	b.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{
		{TopologyKey: "rack", LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
	if gang {
		require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "g", Policy: podgroup.Gang, MinCount: 1, Priority: new(int32(5))}))
		b.PodGroup = "g"
	}
	require.NoError(t, s.AddPod(b, 0))
	require.NoError(t, s.RunUntil(time.Second))
	st, ok := s.Pod("default/b")
	require.True(t, ok)
	require.Equal(t, PhasePending, st.Phase)
	require.NoError(t, s.DeletePod("default/web-1"))
	require.NoError(t, s.RunUntil(time.Minute))
	st, _ = s.Pod("default/b")
	require.Equal(t, "n2", st.Node, "b (in a gang: %v) binds where web-1 no longer holds it off", gang)
}
