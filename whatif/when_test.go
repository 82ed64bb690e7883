package whatif_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

const whenDir = "testdata/when/"

// loadWhen loads the dump with more files, the run times it lacks drawn
// from dist ("" for none) with each seed.
func loadWhen(dist string, files ...string) func(uint64) (*scenario.Scenario, error) {
	return func(seed uint64) (*scenario.Scenario, error) {
		var opts []scenario.Option
		if dist != "" {
			rt, err := scenario.ParseRunTime(dist)
			if err != nil {
				return nil, err
			}
			rt.Seed = seed
			opts = append(opts, scenario.WithDefaultDuration(rt))
		}
		return scenario.LoadFiles(append([]string{whenDir + "dump.yaml"}, files...), opts...)
	}
}

func start(t *testing.T, load func(uint64) (*scenario.Scenario, error), jobs ...string) []whatif.JobStart {
	t.Helper()
	a, err := whatif.StartTimes(load, jobs, whatif.StartOptions{})
	require.NoError(t, err)
	out := make([]whatif.JobStart, len(a.Jobs))
	for i, j := range a.Jobs {
		out[i] = j.First
	}
	return out
}

// The dump (testdata/when/dump.yaml): one node of 16 cores; Kueue's
// ClusterQueue cq holds 8. Job a runs, admitted (its Workload's
// status.admission): two pods of 3 cores with 10m and 12m left, 6 of the
// 8 cores of quota. Job b waits: 4 cores for 5m.
func TestStartTimesOfTheDump(t *testing.T) {
	got := start(t, loadWhen(""), "Job a", "Job default/b")
	// a runs from the start: its pods are bound at time 0, its Workload
	// admitted then, by the dump.
	require.Equal(t, whatif.JobStart{Job: "Job default/a", Started: true, StartedAt: 0, FirstBoundAt: 0,
		Workload: "job-a-1234", ClusterQueue: "cq", Flavors: []string{"main: cpu=default-flavor"}, AdmittedAt: 0}, got[0])
	// b needs 4 cores of quota, 2 are free: it waits until a's first pod
	// ends at 10m. a's completions are then 1 short of 2, so Kueue
	// reclaims the quota of 1 of its 2 pods (reclaimablePods): 6-3 = 3
	// used, 5 free. b is requeued with the next batch of inadmissible
	// workloads (1s) and admitted at 10m1s; its pod is bound in that
	// instant, on the node's 16-3 free cores.
	require.Equal(t, whatif.JobStart{Job: "Job default/b", Started: true, StartedAt: 10*time.Minute + time.Second,
		FirstBoundAt: 10*time.Minute + time.Second, Workload: "job-b-5678", ClusterQueue: "cq",
		Flavors: []string{"main: cpu=default-flavor"}, AdmittedAt: 10*time.Minute + time.Second,
		WaitedForQuota: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 2 more needed"}, got[1])
}

// A new job that fits takes the quota b is waiting for: d (2 pods of 1
// core, new in small.yaml) is admitted in Kueue's first cycle, and b now
// waits for a's end at 12m: at 10m, 8 - 3 (a, reclaimed to 1 pod) - 2 (d)
// = 3 cores free, 1 short of b's 4.
func TestStartTimesNewJobDelaysAPendingOne(t *testing.T) {
	got := start(t, loadWhen("", whenDir+"small.yaml"), "Job b", "Job d")
	require.True(t, got[0].Started)
	require.Equal(t, 12*time.Minute+time.Second, got[0].StartedAt)
	require.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 more needed", got[0].WaitedForQuota)
	require.True(t, got[1].Started)
	require.Less(t, got[1].StartedAt, time.Second) // Kueue's first cycle and its write, then the binding
	require.Equal(t, got[1].AdmittedAt, got[1].StartedAt)
	require.Empty(t, got[1].WaitedForQuota)
}

// An urgent job preempts: c (priority 1000, 6 cores) does not fit the 2
// free cores of quota; cq preempts lower priorities within it, so Kueue
// evicts a (priority 0) and admits c. The node has room for both (6 + 6
// of 16 cores): c's pod is bound at once.
func TestStartTimesPreemptor(t *testing.T) {
	got := start(t, loadWhen("", whenDir+"urgent.yaml"), "Job c")
	c := got[0]
	require.True(t, c.Started)
	require.Equal(t, []string{"Workload job-a-1234"}, c.Preempted)
	require.Equal(t, "cq", c.ClusterQueue)
	require.Contains(t, c.WaitedForQuota, "Pending the preemption of 1 workload(s)")
	require.Equal(t, c.AdmittedAt, c.StartedAt)
}

// With run times drawn from a distribution, each run draws the run
// times of the pods that carry none: the dump's pods and b carry theirs,
// so b starts at 10m1s in every run.
func TestStartTimesOverRuns(t *testing.T) {
	a, err := whatif.StartTimes(loadWhen("{exponential: 20m}"), []string{"Job b"}, whatif.StartOptions{Runs: 4})
	require.NoError(t, err)
	require.Equal(t, 4, a.Runs)
	require.Len(t, a.Stopped, 4)
	b := a.Jobs[0]
	require.Equal(t, 4, b.Started)
	at := 10*time.Minute + time.Second
	require.Equal(t, []time.Duration{at, at, at, at}, b.Starts)
	require.Equal(t, at, b.Start.P50)
	require.Equal(t, at, b.Start.Max)
}

// Drawn run times that decide: d's two pods (1 core each) draw theirs. b
// needs 4 cores of quota. At 10m a's first pod ends and a is reclaimed
// down to 3 cores: with both of d's pods running, 8-3-2 = 3 are free, 1
// short; once one of d's pods has ended (d then holds 1: its other pod is
// reclaimable too, Kueue's reclaimablePods), 4 are. So b starts at 10m1s
// when a pod of d ended before 10m, a moment after a pod of d ends
// between 10m and 12m, and at 12m1s (a's end) otherwise: always within
// [10m1s, 12m1s], and the runs differ.
func TestStartTimesFollowTheDraws(t *testing.T) {
	a, err := whatif.StartTimes(loadWhen("{exponential: 30m}", whenDir+"small.yaml"), []string{"Job b"}, whatif.StartOptions{Runs: 8})
	require.NoError(t, err)
	b := a.Jobs[0]
	require.Equal(t, 8, b.Started)
	seen := map[time.Duration]bool{}
	for _, at := range b.Starts {
		require.GreaterOrEqual(t, at, 10*time.Minute+time.Second)
		require.LessOrEqual(t, at, 12*time.Minute+time.Second)
		seen[at] = true
	}
	require.Greater(t, len(seen), 1, "the runs should differ: %v", b.Starts)
	again, err := whatif.StartTimes(loadWhen("{exponential: 30m}", whenDir+"small.yaml"), []string{"Job b"}, whatif.StartOptions{Runs: 8, Options: whatif.Options{Workers: 1}})
	require.NoError(t, err)
	require.Equal(t, b.Starts, again.Jobs[0].Starts, "the same seeds give the same draws, whatever the workers")
}

func TestStartTimesStopsWhenAnswered(t *testing.T) {
	a, err := whatif.StartTimes(loadWhen(""), []string{"Job b"}, whatif.StartOptions{})
	require.NoError(t, err)
	require.Equal(t, []time.Duration{10*time.Minute + time.Second}, a.Stopped) // not 15m1s, b's end
}

func TestStartTimesErrors(t *testing.T) {
	_, err := whatif.StartTimes(loadWhen(""), []string{"Job nope"}, whatif.StartOptions{})
	require.ErrorIs(t, err, whatif.ErrNoSuchJob)
	require.ErrorContains(t, err, `"Job nope" makes no pods in the inputs (they hold Job default/a, Job default/b)`)
	_, err = whatif.StartTimes(loadWhen(""), nil, whatif.StartOptions{})
	require.ErrorIs(t, err, whatif.ErrNoSuchJob)
	_, err = whatif.StartTimes(loadWhen(""), []string{"Job a", "Job default/a"}, whatif.StartOptions{})
	require.ErrorContains(t, err, "asked about twice")
	_, err = whatif.StartTimes(func(uint64) (*scenario.Scenario, error) { return nil, fmt.Errorf("bad input") }, []string{"Job a"}, whatif.StartOptions{})
	require.ErrorContains(t, err, "bad input")
	_, err = whatif.StartTimes(func(uint64) (*scenario.Scenario, error) { return nil, nil }, []string{"Job a"}, whatif.StartOptions{})
	require.ErrorIs(t, err, scenario.ErrNilScenario)
}

func TestJobsOfFiles(t *testing.T) {
	sc, err := loadWhen("", whenDir+"small.yaml", whenDir+"urgent.yaml")(1)
	require.NoError(t, err)
	require.Equal(t, []string{"Job default/a", "Job default/b", "Job default/d", "Job default/c"}, whatif.Jobs(sc))
	require.Equal(t, []string{"Job default/c"}, whatif.Jobs(sc, whenDir+"urgent.yaml"))
}

// Jobs that cannot start say why: toobig asks for more cores than cq's
// whole quota, so Kueue never admits it (its message); nowhere is
// admitted but asks for a kind of node the cluster lacks (the
// scheduler's reason). The run ends without them.
func TestStartTimesNeverStarts(t *testing.T) {
	got := start(t, loadWhen("", whenDir+"toobig.yaml", whenDir+"nowhere.yaml"), "Job toobig", "Job nowhere")
	big, nowhere := got[0], got[1]
	require.False(t, big.Started)
	require.Equal(t, time.Duration(-1), big.StartedAt)
	require.Equal(t, time.Duration(-1), big.AdmittedAt)
	require.Equal(t, "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default-flavor, "+
		"previously considered podsets requests (0) + current podset request (20) > maximum capacity (8)", big.WaitedForQuota)
	require.False(t, nowhere.Started)
	require.GreaterOrEqual(t, nowhere.AdmittedAt, time.Duration(0))
	require.Equal(t, "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.", nowhere.WaitedForNodes)
}

// A job whose pods bind one at a time has started when the last is bound;
// a pod preempted on the way is pending again. x-0 binds at once beside r
// (2+2 of 4 cores); x-1 waits. p (priority 100) arrives at 1m and preempts
// x-0, which terminates (30s of grace: p is bound at 1m30s) and waits
// again. r ends at 10m: one of x's pods binds; p ends at 21m30s: the other
// does, and x has started.
func TestStartTimesPodByPod(t *testing.T) {
	load := func(uint64) (*scenario.Scenario, error) { return scenario.Load(whenDir + "evicted.yaml") }
	got := start(t, load, "Job x", "Pod p")
	x, p := got[0], got[1]
	require.Equal(t, time.Duration(0), x.FirstBoundAt)
	require.True(t, x.Started)
	require.Equal(t, 21*time.Minute+30*time.Second, x.StartedAt)
	require.Equal(t, []string{"Pod x-0"}, p.Preempted)
	require.Equal(t, time.Minute+30*time.Second, p.StartedAt)
	require.Empty(t, x.Workload) // no Kueue
}
