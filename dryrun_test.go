package gangsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// busyRun says how runBusyCluster runs.
type busyRun struct {
	off Shortcut // the shortcuts switched off
	// fast runs without checking invariants: the retries answered by
	// another pod's cycle then take retryKnownFailures's path
	fast bool
	// unobserved runs with no observer (events is then empty)
	unobserved bool
	// wide runs 20 to 40 nodes and a few hundred pods arriving faster,
	// one arrival in eight a gang of two evicted as a whole: successful
	// preemptions try many nodes, and the next pod of a class finds most
	// of them as they were
	wide bool
	// expected is the WithExpectedPods hint, 0 for none
	expected int
	// shared adds each pod through AddSharedPod, named in the default
	// namespace, and lists it in kept
	shared bool
	kept   *[]*cluster.Pod
}

// runBusyCluster runs a small oversubscribed cluster drawn from seed:
// pods of three priorities (some never preempting, some with a node
// selector or a budget over them) arriving and finishing, nodes failing
// and coming back, and returns every event as text, the counts, and how
// often the memos were used (hits: nodes passed over, or when wide the
// candidates taken again; shortened: the cycles answered by another
// pod's, or when fast those retryKnownFailures ran).
func runBusyCluster(t *testing.T, seed uint64, how busyRun) (events []string, stats Stats, hits, skipped, shortened int) {
	s, events := runBusy(t, seed, how)
	st := s.ShortcutStats()
	shortened = st.KnownFailures
	if how.fast {
		shortened = st.InRow
	}
	hits = st.DryRunNodesKnown
	if how.wide {
		hits = st.RememberedCandidates
	}
	return events, s.Stats(), hits, st.DryRunNodesSkipped, shortened
}

// busyScheduler is the scheduler of runBusyCluster after its run.
func busyScheduler(t *testing.T, seed uint64, how busyRun) *Scheduler {
	s, _ := runBusy(t, seed, how)
	return s
}

// runBusy runs runBusyCluster's cluster and returns the scheduler and the
// events as text.
func runBusy(t *testing.T, seed uint64, how busyRun) (*Scheduler, []string) {
	var events []string
	rng := rand.New(rand.NewPCG(seed, 99))
	var opts []Option
	if !how.unobserved {
		opts = append(opts, eventLog(&events))
	}
	opts = append(opts, WithoutShortcuts(how.off))
	if how.expected > 0 {
		opts = append(opts, WithExpectedPods(how.expected))
	}
	s, err := New(Config{CheckInvariants: !how.fast}, opts...)
	require.NoError(t, err)
	nodes, arrivals, gap := 2+rng.IntN(8), 20+rng.IntN(60), 300
	if how.wide {
		nodes, arrivals, gap = 20+rng.IntN(21), 200+rng.IntN(100), 40
	}
	node := busyNode
	for i := range nodes {
		require.NoError(t, s.AddNode(node(i)))
	}
	require.NoError(t, s.AddPodDisruptionBudget(cluster.PodDisruptionBudget{Name: "keep", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "kept"}},
		MinAvailable: &cluster.IntOrPercent{Value: 2}}))
	add := s.AddPod
	if how.shared {
		add = func(p cluster.Pod, d time.Duration) error {
			p.Namespace = cluster.DefaultNamespace
			kept := &p
			*how.kept = append(*how.kept, kept)
			return s.AddSharedPod(kept, d)
		}
	}
	down := map[int]bool{}
	at := time.Duration(0)
	for i := range arrivals {
		at += time.Duration(rng.IntN(gap)) * time.Second
		require.NoError(t, s.RunUntil(at))
		for j := range i { // what a pending pod's last failure was, node by node
			key := cluster.PodKey(fmt.Sprintf("default/p%03d", j))
			if d := s.Diagnosis(key); d != nil && !how.unobserved {
				events = append(events, fmt.Sprintf("%v diagnosis of %s: %v", at, key, d))
			}
		}
		if rng.IntN(10) == 0 {
			n := rng.IntN(nodes)
			if down[n] {
				require.NoError(t, s.AddNode(node(n)))
			} else {
				require.NoError(t, s.RemoveNode(node(n).Name))
			}
			down[n] = !down[n]
		}
		cpu := int64(500 * (1 + rng.IntN(6)))
		p := cluster.Pod{Name: fmt.Sprintf("p%03d", i), Priority: new([]int32{0, 100, 1000}[rng.IntN(3)]),
			Requests: cluster.NewResources(cpu, cpu<<20, 0), Labels: map[string]string{"app": []string{"kept", "free"}[rng.IntN(2)]}}
		if rng.IntN(6) == 0 {
			p.PreemptionPolicy = cluster.PreemptNever
		}
		if rng.IntN(5) == 0 {
			p.NodeSelector = map[string]string{"zone": fmt.Sprintf("z%d", rng.IntN(2))}
		}
		run := time.Duration(10+rng.IntN(3600)) * time.Second
		if how.wide && i%8 == 7 {
			g := fmt.Sprintf("g%03d", i)
			require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: g, Policy: podgroup.Gang, MinCount: 2, Priority: p.Priority,
				DisruptionMode: podgroup.DisruptAll}))
			for m := range 2 {
				member := p
				member.Name, member.PodGroup = fmt.Sprintf("%s-%d", g, m), g
				// the second outlives the first: its unit changes on one
				// node while its own holds the same pods
				require.NoError(t, add(member, run*time.Duration(1+m)))
			}
			continue
		}
		require.NoError(t, add(p, run))
	}
	require.NoError(t, s.Run())
	return s, events
}

// A candidate a dry run found on a node is taken again, by a pod of the
// same class, only while the node holds the same pods with no one
// nominated there, its victims are pods alone, and the budgets allow
// what they did: on random wide busy clusters the event streams with and
// without the memos are the same, and candidates are taken again often.
func TestRememberedCandidatesKeepDecisions(t *testing.T) {
	reused, seeds := 0, uint64(12)
	if raceOn {
		seeds = 2
	}
	for seed := range seeds {
		with, _, n, _, _ := runBusyCluster(t, seed, busyRun{wide: true, fast: true})
		without, _, _, _, _ := runBusyCluster(t, seed, busyRun{wide: true, fast: true, off: RememberedCandidates})
		if !slices.Equal(with, without) {
			for i := range min(len(with), len(without)) {
				require.Equal(t, without[i], with[i], "seed %d: first difference at event %d", seed, i)
			}
			require.Equal(t, len(without), len(with), "seed %d", seed)
		}
		reused += n
	}
	t.Logf("%d candidates taken again", reused)
	// (a count kept by the memo itself was reset with it whenever a node
	// failed, and read a few; ShortcutStats counts over the whole run: 83
	// over the 12 seeds, 2 over the race detector's 2)
	require.GreaterOrEqual(t, reused, int(seeds), "candidates are hardly taken again: the test says little")
}

// The dry-run memo passes over only nodes a new try would find to be no
// candidate, and a cycle answered by the last fruitless one of a pod of
// the same shape ends as a new one would, whether it takes the general
// path or retryKnownFailures's: on random busy clusters the event streams
// with and without them are the same, and they are used. Unobserved, the
// events are counted as they would have been.
func TestDryRunMemoKeepsDecisions(t *testing.T) {
	hits, skipped, shortened, fast, seeds := 0, 0, 0, 0, uint64(200)
	if raceOn {
		seeds = 20
	}
	same := func(seed uint64, want, got []string, what string) {
		if !slices.Equal(want, got) {
			for i := range min(len(want), len(got)) {
				require.Equal(t, want[i], got[i], "seed %d, %s: first difference at event %d", seed, what, i)
			}
			require.Equal(t, len(want), len(got), "seed %d, %s", seed, what)
		}
	}
	for seed := range seeds {
		with, stats, h, sk, sh := runBusyCluster(t, seed, busyRun{})
		without, _, _, _, _ := runBusyCluster(t, seed, busyRun{off: KnownFailures | DryRunMemo})
		same(seed, without, with, "the memos")
		retried, retriedStats, _, _, f := runBusyCluster(t, seed, busyRun{fast: true})
		same(seed, without, retried, "retries answered in a row")
		_, quiet, _, _, _ := runBusyCluster(t, seed, busyRun{fast: true, unobserved: true})
		require.Equal(t, stats, retriedStats, "seed %d", seed)
		require.Equal(t, stats, quiet, "seed %d: unobserved", seed)
		hits, skipped, shortened, fast = hits+h, skipped+sk, shortened+sh, fast+f
	}
	t.Logf("%d nodes passed over one by one, %d unchanged since a dry run found none, %d cycles answered by a pod of the same shape, %d of a run's in a row",
		hits, skipped, shortened, fast)
	require.Greater(t, hits, int(seeds), "the memo is hardly used: the test says little")
	require.Greater(t, skipped, int(seeds)*5, "dry runs of the changed nodes only are hardly used: the test says little")
	require.Greater(t, shortened, int(seeds), "cycles answered by a pod of the same shape are rare: the test says little")
	require.Greater(t, fast, int(seeds), "retries answered in a row are rare: the test says little")
}

type statefulFilter struct{ calls int }

func (*statefulFilter) Name() string { return "Stateful" }
func (f *statefulFilter) Filter(*fw.CycleState, *cluster.PodInfo, *cluster.NodeInfo) *fw.Status {
	f.calls++
	return nil
}

// A cycle is answered by another pod's only when the profile's plugins
// depend on the cluster and the pod alone: a filter of the user's that is
// no Signer may keep state between calls.
func TestShapeShortcutOnlyForPurePlugins(t *testing.T) {
	require.True(t, allStateless([]fw.Plugin{&noderesources.Fit{}, tainttoleration.TaintToleration{}, &interpodaffinity.InterPodAffinity{}}))
	require.False(t, allStateless([]fw.Plugin{&noderesources.Fit{}, &statefulFilter{}}))
}

// A pod's fruitless cycle answers for a pod of the same shape only while
// nothing changed: a node's content, a nomination, or the pod being
// nominated itself each make the next pod run its own cycle.
func TestShapeShortcutHoldsOnlyWhileNothingChanges(t *testing.T) {
	s := newTestSched(t, Config{})
	s.shortcutsOff |= FutileRetries // KnownFailures alone (futile_test.go has both)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("1").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("filler").CPU("1").Obj(), 0))
	for _, name := range []string{"a", "b"} {
		require.NoError(t, s.AddPod(gangsimtest.MakePod(name).CPU("500m").Obj(), 0))
	}
	require.NoError(t, s.RunUntil(time.Second))
	a, b := s.tracker.record("default/a"), s.tracker.record("default/b")
	p := s.profiles.forPod(a.info)
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.NotNil(t, s.knownFailureFor(p, b), "a failed with the cluster as it is")

	s.nominate(a, "n") // a nomination changes
	require.Nil(t, s.knownFailureFor(p, b))
	s.rememberKnownFailure(p, b, b.lastFit, queue.AnyChange) // b failed with a nominated
	require.NotNil(t, s.knownFailureFor(p, b))
	require.Nil(t, s.knownFailureFor(p, a), "a nominated pod runs its own cycle")
	s.nominations.clear(a)

	s.rememberKnownFailure(p, b, b.lastFit, queue.AnyChange)
	require.NotNil(t, s.knownFailureFor(p, a))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("c").NodeName("n").Obj(), 0)) // the node's content changes
	require.NoError(t, s.cache.UpdateSnapshot(s.snap))
	require.Nil(t, s.knownFailureFor(p, a))
}

// A candidate whose victims include a group's unit is not taken again: the
// unit reaches other nodes, and a member leaving one of them changes the
// unit without changing the candidate's node. Here the first preemptor
// finds the gang g (members on n0 and n1) a candidate on n0 and evicts L
// on n2 instead; then g-1 leaves n1, and the second preemptor, of the
// same class, must weigh g as the one pod left on n0: evicting it ties
// with evicting S on n3 on every count but start time, and g-0 started
// later, so n0 wins. Weighed as the two pods it was, g would lose to S.
func TestRememberedCandidateNotForGroupVictims(t *testing.T) {
	s := newTestSched(t, Config{})
	for i := range 4 {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).Label("node", fmt.Sprint(i)).CPU("2").Memory("8Gi").Obj()))
	}
	pod := func(name, node string, prio int32) cluster.Pod {
		return gangsimtest.MakePod(name).NodeName(node).Priority(prio).CPU("1").Memory("1Gi").Obj()
	}
	day := 24 * time.Hour
	for _, p := range []cluster.Pod{pod("s", "n3", 0), pod("t", "n3", 1000), pod("k", "n0", 1000), pod("m", "n1", 1000), pod("r", "n2", 1000)} {
		require.NoError(t, s.AddPod(p, day))
	}
	require.NoError(t, s.RunUntil(10*time.Second))
	require.NoError(t, s.AddPodGroup(gangsimtest.MakeGang("g", 2).Priority(0).DisruptAll().Obj()))
	g0, g1 := pod("g-0", "n0", 0), pod("g-1", "n1", 0)
	g0.PodGroup, g1.PodGroup = "g", "g"
	require.NoError(t, s.AddPod(g0, day))
	require.NoError(t, s.AddPod(g1, 100*time.Second))
	require.NoError(t, s.RunUntil(20*time.Second))
	l := pod("l", "n2", 0)
	l.NodeSelector = map[string]string{"node": "2"} // evicted, it waits for n2
	require.NoError(t, s.AddPod(l, day))
	require.NoError(t, s.RunUntil(30*time.Second))
	require.NoError(t, s.AddPod(pod("p0", "", 1000), day))
	require.NoError(t, s.RunUntil(120*time.Second))
	st, _ := s.Pod("default/p0")
	require.Equal(t, "n2", st.Node, "the first preemptor evicts l")
	st, _ = s.Pod("default/g-1")
	require.Equal(t, PhaseSucceeded, st.Phase)
	require.NoError(t, s.AddPod(pod("q", "n1", 1000), day)) // n1 full again
	require.NoError(t, s.RunUntil(130*time.Second))
	require.NoError(t, s.AddPod(pod("p1", "", 1000), day))
	require.NoError(t, s.RunUntil(200*time.Second))
	st, _ = s.Pod("default/p1")
	require.Equal(t, "n0", st.Node, "the second preemptor evicts the one pod of g left")
	st, _ = s.Pod("default/s")
	require.Equal(t, PhaseBound, st.Phase)
}

// A candidate found on a node with a pod nominated there is not taken
// again: the nominated pod's room decided it, and the nomination can go
// without the node changing. Here nom is nominated to n0 (its victim a
// terminating there) when p0 dry-runs, so on n0 p0 would have to evict b
// too; then nom is deleted, and p1, of p0's class, finds n0 needs no
// victim once a is gone. Taking p0's candidate again, it would evict e on
// n2 instead. The run must decide as the one without the memo does.
func TestRememberedCandidateNotWhereNominated(t *testing.T) {
	run := func(memoOff bool) ([]string, *Scheduler) {
		var events []string
		opts := []Option{eventLog(&events)}
		if memoOff {
			opts = append(opts, WithoutShortcuts(DryRunMemo))
		}
		s, err := New(Config{CheckInvariants: true}, opts...)
		require.NoError(t, err)
		for i := range 3 {
			require.NoError(t, s.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).CPU("2").Memory("8Gi").Obj()))
		}
		pod := func(name, node string, prio int32) cluster.Pod {
			return gangsimtest.MakePod(name).NodeName(node).Priority(prio).CPU("1").Memory("1Mi").Obj()
		}
		day := 24 * time.Hour
		for _, p := range []cluster.Pod{pod("a", "n0", 0), pod("b", "n0", 10), pod("c", "n1", 0), pod("d", "n1", 1000), pod("e", "n2", 5), pod("f", "n2", 1000)} {
			require.NoError(t, s.AddPod(p, day))
		}
		require.NoError(t, s.RunUntil(10*time.Second))
		require.NoError(t, s.AddPod(pod("nom", "", 1000), day))
		require.NoError(t, s.RunUntil(12*time.Second))
		require.NoError(t, s.AddPod(pod("p0", "", 1000), day))
		require.NoError(t, s.RunUntil(14*time.Second))
		require.NoError(t, s.DeletePod("default/nom"))
		require.NoError(t, s.RunUntil(16*time.Second))
		require.NoError(t, s.AddPod(pod("p1", "", 1000), day))
		require.NoError(t, s.RunUntil(100*time.Second))
		return events, s
	}
	with, s := run(false)
	without, _ := run(true)
	require.Equal(t, without, with)
	require.Contains(t, with, "16s PodNominated  n0  default/p1", "p1 waits for n0, evicting no one")
	st, _ := s.Pod("default/e")
	require.Equal(t, PhaseBound, st.Phase)
}
