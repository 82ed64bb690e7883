package gangsim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// gangRun is one random gang-heavy cluster: what gangCluster draws and
// how it runs.
type gangRun struct {
	off        Shortcut
	unobserved bool // no observer: reasons are made only when read
	checked    bool // invariants checked after every cycle
	// wide runs 130 nodes or more: a lone pod's filter scan stops before
	// the last node, so where a skipped gang's scans would have left the
	// next start matters
	wide bool
	// racks runs 8 to 10 racks of 20 to 24 nodes: a rack's scans visit
	// all its nodes while a lone pod's stop early, so where a gang's
	// search leaves the start depends on the start it found
	racks bool
	// mixed gives a third of the gangs members of two shapes and a
	// quarter anti-affinity (one member a node, none in a rack with a web
	// pod): searches whose pods' plugins read more than their node
	mixed bool
}

// gangCluster runs a busy cluster of racks and blocks drawn from seed,
// full of gangs (rack, block or no topology key, three priorities, so
// that gangs preempt and are nominated), with lone pods, a few of them
// with pod anti-affinity (which makes a gang's search depend on more
// than its placement's nodes while they run), nodes failing, cordoned
// and drained. It returns the event stream as text and every pod's
// final status.
func gangCluster(t *testing.T, seed uint64, how gangRun) ([]string, []PodStatus, ShortcutStats) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 31))
	var events []string
	opts := []Option{WithoutShortcuts(how.off)}
	if !how.unobserved {
		opts = append(opts, eventLog(&events))
	}
	s, err := New(Config{CheckInvariants: how.checked, TerminationGracePeriod: new(time.Duration(rng.IntN(40)) * time.Second)}, opts...)
	require.NoError(t, err)
	racks, perRack := 4+rng.IntN(8), 3+rng.IntN(4)
	if how.wide {
		racks, perRack = 26+rng.IntN(6), 5
	}
	if how.racks {
		racks, perRack = 8+rng.IntN(3), 20+rng.IntN(5)
	}
	var names []string
	for r := range racks {
		size := perRack
		if how.racks {
			size -= rng.IntN(6) // racks of unequal sizes: a search's evaluations may leave the start in different places
		}
		for i := range size {
			cpu := int64(4000 * (1 + rng.IntN(2)))
			n := cluster.Node{Name: fmt.Sprintf("r%02d-n%d", r, i), Labels: map[string]string{"rack": fmt.Sprintf("rack-%02d", r), "block": fmt.Sprintf("block-%d", r/3)},
				Allocatable: cluster.NewResources(cpu, cpu<<20, 20)}
			require.NoError(t, s.AddNode(n))
			names = append(names, n.Name)
		}
	}
	at := time.Duration(0)
	for i := range 100 + rng.IntN(100) {
		at += time.Duration(rng.IntN(90)) * time.Second
		require.NoError(t, s.RunUntil(at))
		prio := new([]int32{0, 100, 1000}[rng.IntN(3)])
		cpu := int64(500 * (1 + rng.IntN(6)))
		run := time.Duration(60+rng.IntN(5400)) * time.Second
		switch k := rng.IntN(20); {
		case k < 9:
			g := fmt.Sprintf("g%03d", i)
			size := 2 + rng.IntN(5)
			require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: g, Policy: podgroup.Gang, MinCount: int32(size), Priority: prio,
				TopologyKey: []string{"", "rack", "rack", "block"}[rng.IntN(4)], DisruptionMode: []podgroup.DisruptionMode{podgroup.DisruptAll, ""}[rng.IntN(2)]}))
			mixed, spread := how.mixed && rng.IntN(3) == 0, how.mixed && rng.IntN(4) == 0
			for m := range size {
				pod := cluster.Pod{Name: fmt.Sprintf("%s-%d", g, m), PodGroup: g, Priority: prio, Requests: cluster.NewResources(cpu, cpu<<20, 0)}
				if mixed && m%2 == 1 { // members of two shapes
					pod.Requests = cluster.NewResources(cpu/2, cpu<<19, 0)
				}
				if spread { // one member a node, and none beside a web pod's rack
					pod.Labels = map[string]string{"gang": g}
					pod.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{
						{TopologyKey: "kubernetes.io/hostname", LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"gang": g}}},
						{TopologyKey: "rack", LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
				}
				require.NoError(t, s.AddPod(pod, run))
			}
		case k < 18:
			p := cluster.Pod{Name: fmt.Sprintf("p%03d", i), Priority: prio, Requests: cluster.NewResources(cpu, cpu<<20, 0), Labels: map[string]string{"app": "web"}}
			if k == 17 {
				p.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{
					{TopologyKey: "rack", LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
				run = time.Duration(60+rng.IntN(600)) * time.Second
			}
			require.NoError(t, s.AddPod(p, run))
		default:
			n := names[rng.IntN(len(names))]
			if _, ok := s.Node(n); !ok {
				continue
			}
			switch rng.IntN(3) {
			case 0:
				require.NoError(t, s.RemoveNode(n))
			case 1:
				require.NoError(t, s.CordonNode(n))
			default:
				require.NoError(t, s.DrainNode(n))
			}
		}
	}
	require.NoError(t, s.RunUntil(at+6*time.Hour))
	var pods []PodStatus
	for p := range s.Pods() {
		pods = append(pods, p)
	}
	return events, pods, s.ShortcutStats()
}

// sameGangDecisions runs the gang cluster of seed with every shortcut on
// and with off alone off, requires the same event stream and the same
// end for every pod (with no observer too: the reasons made when read),
// and returns what count counts of the shortcut's answers with it on,
// and the pods' ends.
func sameGangDecisions(t *testing.T, seed uint64, off Shortcut, count func(ShortcutStats) int) (int, []PodStatus) {
	t.Helper()
	want, wantPods, on := gangCluster(t, seed, gangRun{})
	got, gotPods, without := gangCluster(t, seed, gangRun{off: off})
	require.Zero(t, count(without), "seed %d: %v off answered", seed, off)
	requireSameEvents(t, want, got, fmt.Sprintf("seed %d", seed))
	require.Equal(t, wantPods, gotPods, "seed %d", seed)
	_, quiet, _ := gangCluster(t, seed, gangRun{unobserved: true})
	require.Equal(t, wantPods, quiet, "seed %d: unobserved, the reasons made when read", seed)
	return count(on), wantPods
}

// KnownGroupFailures keeps every decision: on random gang-heavy
// clusters, the event stream and every pod's final status (its reason
// included) are the same with the shortcut and without it, observed or
// not; and it answers on the way.
func TestKnownGroupFailuresKeepDecisions(t *testing.T) {
	seeds := uint64(4)
	if raceOn || testing.Short() {
		seeds = 2
	}
	known := 0
	for seed := range seeds {
		n, wantPods := sameGangDecisions(t, seed, KnownGroupFailures, func(st ShortcutStats) int { return st.GroupPlacementsKnown })
		known += n
		if seed == 0 {
			_, checked, _ := gangCluster(t, seed, gangRun{checked: true})
			require.Equal(t, wantPods, checked, "seed %d: with invariants checked", seed)
		}
		if seed < 2 {
			wide, _, st := gangCluster(t, seed, gangRun{wide: true})
			known += st.GroupPlacementsKnown
			plain, _, _ := gangCluster(t, seed, gangRun{wide: true, off: KnownGroupFailures})
			require.Equal(t, plain, wide, "seed %d: 130 nodes or more", seed)
		}
	}
	t.Logf("placements passed over: %d", known)
	require.Positive(t, known, "no placement passed over: the test says little")
}

// An observer of some kinds sees those events alone, all of them, in
// order, as a full observer sees them; the counts are the same either way.
func TestObserverOfKinds(t *testing.T) {
	var all, some []string
	run := func(opts ...Option) (*Scheduler, error) {
		s, err := New(Config{}, opts...)
		if err != nil {
			return nil, err
		}
		require.NoError(t, s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(2000, 2<<30, 10)}))
		for i := range 4 {
			require.NoError(t, s.AddPod(cluster.Pod{Name: fmt.Sprintf("p%d", i), Requests: cluster.NewResources(1000, 1<<30, 0)}, time.Minute))
		}
		return s, s.RunUntil(time.Hour)
	}
	a, err := run(eventLog(&all))
	require.NoError(t, err)
	b, err := run(WithObserverOf(func(e Event) {
		some = append(some, fmt.Sprintf("%v %v %s", e.At, e.Kind, e.Pod.Key()))
	}, EventPodBound, EventPodSucceeded), WithObserverOf(func(Event) { t.Fatal("an observer of no kind got an event") }))
	require.NoError(t, err)
	var want []string
	for _, line := range all {
		if strings.Contains(line, " PodBound ") || strings.Contains(line, " PodSucceeded ") {
			f := strings.Fields(line)
			want = append(want, f[0]+" "+f[1]+" "+f[len(f)-1])
		}
	}
	require.Len(t, want, 8)
	require.Equal(t, want, some)
	require.Equal(t, a.Stats(), b.Stats())
}

// A gang whose every placement is passed over leaves the next filter scan
// where its scans would have: twelve racks of ten nodes where an
// eleven-pod gang never fits (one pod a node), and lone pods whose scans
// of 121 nodes stop at the hundredth feasible one, so that where a scan
// starts decides the node. Between the gang's two attempts a lone pod's
// scan moves the start past the end of a rack; the second attempt
// passes over every rack but the one that pod took (which the quorum
// bound prunes), and the next lone pod must land where it lands without
// the shortcut.
func TestKnownGroupFailuresReplayTheScanStart(t *testing.T) {
	run := func(off Shortcut) ([]string, ShortcutStats) {
		var events []string
		s, err := New(Config{}, WithoutShortcuts(off), eventLog(&events))
		require.NoError(t, err)
		for r := range 12 {
			for i := range 10 {
				cpu := int64(2000)
				if r == 8 || r == 9 {
					cpu = 2500 // where a lone pod goes, if its scan reaches them
				}
				require.NoError(t, s.AddNode(cluster.Node{Name: fmt.Sprintf("r%02d-n%d", r, i), Labels: map[string]string{"rack": fmt.Sprintf("rack-%02d", r)},
					Allocatable: cluster.NewResources(cpu, 2<<30, 10)}))
			}
		}
		require.NoError(t, s.AddNode(cluster.Node{Name: "a-x", Allocatable: cluster.NewResources(3100, 2<<30, 10)}))
		require.NoError(t, s.AddPod(cluster.Pod{Name: "p0", NodeName: "a-x", Requests: cluster.NewResources(100, 1<<20, 0)}, 0))
		require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "g", Policy: podgroup.Gang, MinCount: 11, TopologyKey: []string{"rack"}[0]}))
		for m := range 11 {
			require.NoError(t, s.AddPod(cluster.Pod{Name: fmt.Sprintf("g-%02d", m), PodGroup: "g", Requests: cluster.NewResources(1700, 1<<20, 0)}, 0))
		}
		require.NoError(t, s.RunUntil(time.Second))
		require.NoError(t, s.AddPod(cluster.Pod{Name: "l1", Requests: cluster.NewResources(2000, 1<<20, 0)}, 0))
		require.NoError(t, s.RunUntil(5*time.Second))
		require.NoError(t, s.DeletePod("default/p0")) // wakes the gang, in no rack
		require.NoError(t, s.RunUntil(20*time.Second))
		require.NoError(t, s.AddPod(cluster.Pod{Name: "l2", Requests: cluster.NewResources(2000, 1<<20, 0)}, 0))
		require.NoError(t, s.RunUntil(30*time.Second))
		return events, s.ShortcutStats()
	}
	want, _ := run(KnownGroupFailures)
	got, st := run(0)
	require.GreaterOrEqual(t, st.GroupPlacementsKnown, 11, "the later attempts pass over the racks")
	requireSameEvents(t, want, got, "the scan start")
}

// requireSameEvents fails at the first event where got differs from want.
func requireSameEvents(t *testing.T, want, got []string, what string) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		require.Equal(t, want[i], got[i], "%s: first difference at event %d", what, i)
	}
	require.Equal(t, len(want), len(got), what)
}
