package gangsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// step is one call of a random program on a scheduler.
type step func(s *Scheduler) error

// busyNode is node i of the random busy clusters: 2, 4 or 6 cores, in
// one of two zones and racks.
func busyNode(i int) cluster.Node {
	cpu := int64(2000 * (1 + i%3))
	return cluster.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"zone": fmt.Sprintf("z%d", i%2), "rack": fmt.Sprintf("r%d", i%2)},
		Allocatable: cluster.NewResources(cpu, cpu<<20, 10)}
}

// busyProgram draws a program from seed: nodes coming and going, pods of
// three priorities (lone, in gangs, in a composite of two gangs) arriving,
// running and deleted, time passing.
func busyProgram(seed uint64) []step {
	rng := rand.New(rand.NewPCG(seed, 7))
	var prog []step
	nodes := 2 + rng.IntN(6)
	node := busyNode
	for i := range nodes {
		prog = append(prog, func(s *Scheduler) error { return s.AddNode(node(i)) })
	}
	down := map[int]bool{}
	at := time.Duration(0)
	for i := range 15 + rng.IntN(40) {
		at += time.Duration(rng.IntN(200)) * time.Second
		until := at
		prog = append(prog, func(s *Scheduler) error { return s.RunUntil(until) })
		prio := []int32{0, 100, 1000}[rng.IntN(3)]
		cpu := int64(500 * (1 + rng.IntN(4)))
		run := time.Duration(30+rng.IntN(1800)) * time.Second
		pod := func(name, group string) cluster.Pod {
			return cluster.Pod{Name: name, PodGroup: group, Priority: new(prio), Requests: cluster.NewResources(cpu, cpu<<20, 0)}
		}
		switch k := rng.IntN(10); {
		case k < 5:
			prog = append(prog, func(s *Scheduler) error { return s.AddPod(pod(fmt.Sprintf("p%d", i), ""), run) })
		case k < 7:
			g := fmt.Sprintf("g%d", i)
			size := 2 + rng.IntN(3)
			prog = append(prog, func(s *Scheduler) error {
				err := s.AddPodGroup(podgroup.PodGroup{Name: g, Policy: podgroup.Gang, MinCount: int32(size), Priority: new(prio),
					TopologyKey: []string{"", "rack"}[i%2], DisruptionMode: podgroup.DisruptAll})
				for m := range size {
					err = cmpErr(err, s.AddPod(pod(fmt.Sprintf("%s-%d", g, m), g), run))
				}
				return err
			})
		case k < 8:
			c := fmt.Sprintf("c%d", i)
			prog = append(prog, func(s *Scheduler) error {
				err := s.AddCompositePodGroup(podgroup.CompositePodGroup{Name: c, Policy: podgroup.Gang, MinGroupCount: 2, Priority: new(prio)})
				for j := range 2 {
					g := fmt.Sprintf("%s-g%d", c, j)
					err = cmpErr(err, s.AddPodGroup(podgroup.PodGroup{Name: g, Parent: c, Policy: podgroup.Gang, MinCount: 2, Priority: new(prio)}))
					for m := range 2 {
						err = cmpErr(err, s.AddPod(pod(fmt.Sprintf("%s-%d", g, m), g), run))
					}
				}
				return err
			})
		case k < 9:
			n := rng.IntN(nodes)
			prog = append(prog, func(s *Scheduler) error {
				if _, ok := s.Node(node(n).Name); ok {
					return s.RemoveNode(node(n).Name)
				}
				return s.AddNode(node(n))
			})
			down[n] = !down[n]
		default:
			victim := fmt.Sprintf("p%d", rng.IntN(i+1))
			prog = append(prog, func(s *Scheduler) error {
				if st, ok := s.Pod(cluster.PodKey("default/" + victim)); ok && (st.Phase == PhasePending || st.Phase == PhaseBound) {
					return s.DeletePod(cluster.PodKey("default/" + victim))
				}
				return nil
			})
		}
	}
	return append(prog, func(s *Scheduler) error { return s.Run() })
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// eventLog records events as text.
func eventLog(log *[]string) Option {
	return WithObserver(func(e Event) {
		line := fmt.Sprintf("%v %v %s %s %s", e.At, e.Kind, e.Group.Display(), e.Node, e.Reason)
		if e.Pod != nil {
			line += " " + string(e.Pod.Key())
		}
		if !e.By.IsZero() {
			line += " by " + e.By.Display()
		}
		*log = append(*log, line)
	})
}

// A fork goes on exactly as the simulation would have, whatever the
// original does after it: on random programs with gangs, composites,
// preemption and node churn, forked at a random step, the fork's events
// are the unforked run's from that step, and both pass the invariant
// checks.
func TestForkContinuesAlike(t *testing.T) {
	forks, seeds := 0, 60
	if raceOn {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		prog := busyProgram(seed)
		var whole []string
		s, err := New(Config{CheckInvariants: true}, eventLog(&whole))
		require.NoError(t, err)
		marks := make([]int, len(prog)+1) // events before each step
		for i, st := range prog {
			marks[i] = len(whole)
			require.NoError(t, st(s), "seed %d step %d", seed, i)
		}
		marks[len(prog)] = len(whole)

		k := len(prog)/4 + rand.New(rand.NewPCG(seed, 1)).IntN(len(prog)/2+1) // mid-run
		var before, after, other []string
		orig, err := New(Config{CheckInvariants: true}, eventLog(&before))
		require.NoError(t, err)
		for _, st := range prog[:k] {
			require.NoError(t, st(orig))
		}
		fork, err := orig.Fork(eventLog(&after))
		require.NoError(t, err)
		forks++
		// the original goes its own way first: none of it may reach the fork
		WithObserver(func(e Event) { other = append(other, e.Kind.String()) })(orig)
		require.NoError(t, orig.AddNode(gangsimtest.MakeNode("extra").CPU("64").Memory("64Gi").Obj()))
		require.NoError(t, orig.AddPod(gangsimtest.MakePod("intruder").Priority(5000).CPU("1").Memory("1Gi").Obj(), 0))
		require.NoError(t, orig.RunUntil(orig.Now()+10*time.Hour))
		for _, st := range prog[k:] {
			require.NoError(t, st(fork), "seed %d: the fork at step %d", seed, k)
		}
		require.True(t, slices.Equal(whole[marks[k]:], after), "seed %d: the fork at step %d differs:\nwant %q\ngot  %q", seed, k, whole[marks[k]:], after)
		require.Equal(t, s.Stats(), fork.Stats(), "seed %d: the fork's counts (cycles included)", seed)
		require.NoError(t, fork.CheckInvariants())
		require.NoError(t, orig.CheckInvariants())
	}
	require.Equal(t, seeds, forks)
}

// Where the scan of a profile stands carries over: with 300 nodes and
// 10 % of them scored, each pod's scan starts where the last one stopped.
func TestForkKeepsScanPosition(t *testing.T) {
	pct := int32(10)
	run := func(forkAt int) []string {
		var log []string
		s, err := New(Config{PercentageOfNodesToScore: pct}, eventLog(&log))
		require.NoError(t, err)
		for i := range 300 {
			require.NoError(t, s.AddNode(gangsimtest.MakeNode(fmt.Sprintf("n%03d", i)).MilliCPU(int64(4000+i%7*1000)).Memory("64Gi").Obj()))
		}
		for i := range 60 {
			if i == forkAt {
				mark := len(log)
				f, err := s.Fork(eventLog(&log))
				require.NoError(t, err)
				s, log = f, log[:mark]
			}
			require.NoError(t, s.AddPod(gangsimtest.MakePod(fmt.Sprintf("p%02d", i)).MilliCPU(int64(100*(1+i%5))).Memory("1Gi").Obj(), 0))
			require.NoError(t, s.Run())
		}
		return log
	}
	require.Equal(t, run(-1), run(31)) // 31 pods of 100 nodes each: the scan stands at node 100
}

// Fork refuses a zero Scheduler and a call from inside a cycle.
func TestForkMisuse(t *testing.T) {
	var zero Scheduler
	_, err := zero.Fork()
	require.ErrorIs(t, err, ErrNotInitialized)
	var s *Scheduler
	var inCycle error
	s, err = New(Config{}, WithObserver(func(e Event) {
		if e.Kind == EventPodBound && inCycle == nil {
			_, inCycle = s.Fork()
		}
	}))
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("4").Memory("4Gi").Pods(10).Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("1").Memory("1Gi").Obj(), 0))
	require.NoError(t, s.Run())
	require.ErrorIs(t, inCycle, ErrForkInCycle)
}

// A running pod is kept once: its record holds the cache's bound form,
// and the pending form is made again when it returns to the queue.
func TestRunningPodKeptOnce(t *testing.T) {
	s, err := New(Config{CheckInvariants: true})
	require.NoError(t, err)
	for _, n := range []string{"a", "b"} {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(n).CPU("4").Memory("4Gi").Pods(10).Obj()))
	}
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("1").Memory("1Gi").Obj(), 0))
	require.NoError(t, s.Run())
	r := s.tracker.record("default/p")
	bound, ok := s.cache.Pod("default/p")
	require.True(t, ok)
	require.Same(t, bound, r.info)
	node := r.node
	require.NoError(t, s.DrainNode(node))
	r = s.tracker.record("default/p")
	require.Equal(t, PhasePending, r.phase)
	require.Equal(t, cluster.PodPending, r.info.State())
	require.Empty(t, r.info.NodeName())
	require.NoError(t, s.Run())
	require.Equal(t, PhaseBound, r.phase)
	require.NotEqual(t, node, r.node)
	bound, _ = s.cache.Pod("default/p")
	require.Same(t, bound, r.info)
	require.Equal(t, r.node, r.info.NodeName())
}

// A composite's list of leaves is its own in each copy: children defined
// after the fork, different in each, leave the other's list as it was.
func TestForkKeepsCompositeLeavesApart(t *testing.T) {
	s, err := New(Config{CheckInvariants: true})
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("64").Memory("64Gi").Obj()))
	require.NoError(t, s.AddCompositePodGroup(gangsimtest.MakeComposite("c", 5).Obj()))
	child := func(s *Scheduler, name string) {
		require.NoError(t, s.AddPodGroup(gangsimtest.MakeGang(name, 1).Parent("c").Obj()))
		require.NoError(t, s.AddPod(gangsimtest.MakePod(name+"-0").Group(name).CPU("100m").Memory("1Mi").Obj(), 0))
	}
	for _, g := range []string{"g1", "g2", "g3"} {
		child(s, g)
	}
	require.NoError(t, s.Run())
	f, err := s.Fork()
	require.NoError(t, err)
	child(s, "h-parent")
	child(f, "h-fork")
	for _, sc := range []*Scheduler{s, f} {
		require.NoError(t, sc.Run())
		require.NoError(t, sc.CheckInvariants())
	}
	leaves := func(sc *Scheduler) (names []string) {
		for _, id := range sc.tracker.leafRecords(podgroup.Ref{Composite: true, Key: "default/c"}) {
			names = append(names, sc.tracker.groupRecords.at(id).group.Name)
		}
		return names
	}
	require.Equal(t, []string{"g1", "g2", "g3", "h-parent"}, leaves(s))
	require.Equal(t, []string{"g1", "g2", "g3", "h-fork"}, leaves(f))
}
