package gangsim

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// Separate Schedulers share nothing: several run at once in goroutines,
// each with the invariant checker on, and each gives what it gives alone.
// Run it under go test -race (.ci/run does).
func TestSchedulersRunInParallel(t *testing.T) {
	const workers = 6
	// one node and pod list shared by every worker, read-only: the
	// scheduler copies what it is given
	nodes := make([]cluster.Node, 8)
	for i := range nodes {
		nodes[i] = gangsimtest.MakeNode(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Rack(fmt.Sprintf("r%d", i%4)).CPU("4").Memory("16Gi").Obj()
	}
	spread := []cluster.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: cluster.DoNotSchedule,
		LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	run := func() (string, error) {
		var events []string
		s, err := New(Config{CheckInvariants: true}, WithObserver(func(e Event) { events = append(events, e.String()) }))
		if err != nil {
			return "", err
		}
		for _, n := range nodes {
			if err := s.AddNode(n); err != nil {
				return "", err
			}
		}
		if err := s.AddPodGroup(gangsimtest.MakeGang("train", 4).Rack().Priority(100).Obj()); err != nil {
			return "", err
		}
		for i := range 20 {
			p := gangsimtest.MakePod(fmt.Sprintf("web-%d", i)).Label("app", "web").CPU("500m").Memory("1Gi").Obj()
			p.TopologySpreadConstraints = spread
			if err := s.AddPod(p, time.Duration(i)*time.Minute); err != nil {
				return "", err
			}
		}
		for i := range 4 {
			if err := s.AddPod(gangsimtest.MakePod(fmt.Sprintf("train-%d", i)).Group("train").CPU("3").Obj(), 0); err != nil {
				return "", err
			}
		}
		if err := s.RunUntil(5 * time.Minute); err != nil {
			return "", err
		}
		if err := s.DrainNode("n0"); err != nil {
			return "", err
		}
		if err := s.Run(); err != nil {
			return "", err
		}
		return fmt.Sprint(events), nil
	}
	want, err := run()
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([]string, workers)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w], errs[w] = run()
		}()
	}
	wg.Wait()
	for w := range workers {
		require.NoError(t, errs[w])
		require.Equal(t, want, got[w], "worker %d", w)
	}
}

// What the Scheduler hands out is a copy or a read-only view: changing it
// changes nothing inside.
func TestValuesHandedOutAreCopies(t *testing.T) {
	grace := 30 * time.Second
	s := newTestSched(t, Config{TerminationGracePeriod: &grace})
	grace = 0 // the caller's variable is the caller's
	cfg := s.Config()
	*cfg.TerminationGracePeriod = time.Hour
	cfg.Profiles[0].SchedulerName = "changed"
	require.Equal(t, 30*time.Second, *s.Config().TerminationGracePeriod)
	require.Equal(t, cluster.DefaultSchedulerName, s.Config().Profiles[0].SchedulerName)

	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("1").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPodGroup(gangsimtest.MakeBasicGroup("g").Priority(7).Obj()))
	gs, _ := s.PodGroup("default/g")
	*gs.Group.Priority = 1000
	gs, _ = s.PodGroup("default/g")
	require.Equal(t, int32(7), *gs.Group.Priority)

	// the grace period in force is the one given at New
	require.NoError(t, s.AddPod(gangsimtest.MakePod("low").Priority(0).CPU("1").Obj(), 0))
	s.run()
	require.NoError(t, s.AddPod(gangsimtest.MakePod("high").Priority(100).CPU("1").Obj(), 0))
	s.run()
	st, _ := s.Pod("default/high")
	require.Equal(t, 30*time.Second, st.BoundAt)

	ev := s.Evictions()
	require.Len(t, ev, 1)
	ev[0].Node = "elsewhere"
	require.Equal(t, "n", s.Evictions()[0].Node)
}

// An Explanation is the caller's to change.
func TestExplanationIsACopy(t *testing.T) {
	s, err := New(Config{CheckInvariants: true}, WithExplain("default/p"))
	require.NoError(t, err)
	for _, n := range []string{"a", "b"} {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(n).CPU("1").Memory("8Gi").Obj()))
	}
	require.NoError(t, s.AddPod(gangsimtest.MakePod("big").CPU("1").NodeName("a").Obj(), 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("100m").Obj(), 0))
	require.NoError(t, s.Run())
	ex, ok := s.Explanation("default/p")
	require.True(t, ok)
	require.NotEmpty(t, ex.Filtered)
	require.NotEmpty(t, ex.Filtered[0].Reasons)
	ex.Filtered[0].Plugin, ex.Filtered[0].Reasons[0].Reason = "changed", "changed"
	ex.Nodes[0].Node = "changed"
	again, _ := s.Explanation("default/p")
	require.NotEqual(t, "changed", again.Filtered[0].Plugin)
	require.NotEqual(t, "changed", again.Filtered[0].Reasons[0].Reason)
	require.Equal(t, "b", again.Nodes[0].Node)
}
