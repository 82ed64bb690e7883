package metrics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
)

func preempt(at time.Duration, victim, cq, reason, by string) kueue.Event {
	return kueue.Event{At: at, Kind: kueue.Evicted, Workload: victim, ClusterQueue: cq, Reason: "Preempted", Preemption: reason, By: by}
}

// Preemptions between queues, told by hand on kueueObjects (team-a with
// LocalQueue default/a, team-b with research/b):
//
//	0    a1, a2, a3 made in default/a and admitted in team-a (1, 1, 2 cores)
//	5m   b1 made in research/b; it preempts a1 and a2 (InCohortReclamation)
//	10m  b1 admitted in team-b
//	15m  a4 made in default/a; it preempts a3 (InClusterQueue)
//	20m  a4 admitted; b2 made in research/b, preempts b1 (InCohortFairSharing)
//	25m  a3 evicted for something else (PodsReadyTimeout): no preemption
//
// team-a: 3 preempted (a1, a2, a3), 1 preempting (a3, by a4); team-b:
// 1 preempted (b1), 3 preempting (a1, a2, b1). Pairs: team-a -> team-a
// 1, team-b -> team-a 2, team-b -> team-b 1. Times to admission:
// team-a 0, 0, 0, 5m (a4); team-b 5m (b1; b2 never admitted).
func TestKueuePreemptionsBetweenQueues(t *testing.T) {
	m := time.Minute
	events := []kueue.Event{
		ev(0, kueue.Created, "default/a1"), ev(0, kueue.Created, "default/a2"), ev(0, kueue.Created, "default/a3"),
		reserved(0, "default/a1", "team-a", 1), reserved(0, "default/a2", "team-a", 1), reserved(0, "default/a3", "team-a", 2),
		ev(5*m, kueue.Created, "research/b1"),
		preempt(5*m, "default/a1", "team-a", "InCohortReclamation", "research/b1"),
		preempt(5*m, "default/a2", "team-a", "InCohortReclamation", "research/b1"),
		reserved(10*m, "research/b1", "team-b", 2),
		ev(15*m, kueue.Created, "default/a4"),
		preempt(15*m, "default/a3", "team-a", "InClusterQueue", "default/a4"),
		reserved(20*m, "default/a4", "team-a", 2),
		ev(20*m, kueue.Created, "research/b2"),
		preempt(20*m, "research/b1", "team-b", "InCohortFairSharing", "research/b2"),
		{At: 25 * m, Kind: kueue.Evicted, Workload: "default/a3", ClusterQueue: "team-a", Reason: "PodsReadyTimeout"},
	}
	var wls []metrics.KueueWorkload
	for _, w := range []string{"a1", "a2", "a3", "a4"} {
		wls = append(wls, metrics.KueueWorkload{Workload: "default/" + w, LocalQueue: "a", WaitForNodes: -1})
	}
	for _, w := range []string{"b1", "b2"} {
		wls = append(wls, metrics.KueueWorkload{Workload: "research/" + w, LocalQueue: "b", WaitForNodes: -1})
	}
	rep := &metrics.Report{Name: "preempt", Start: 0, End: time.Hour}
	rep.AddKueue(kueueObjects(), events, wls)
	k := rep.Kueue
	require.NotNil(t, k)
	a, b := k.ClusterQueues[0], k.ClusterQueues[1]
	assert.Equal(t, [2]int{3, 1}, [2]int{a.Preempted, a.Preempting}, "team-a as victim, as preemptor")
	assert.Equal(t, [2]int{1, 3}, [2]int{b.Preempted, b.Preempting}, "team-b as victim, as preemptor")
	lqa, lqb := k.LocalQueues[0], k.LocalQueues[1]
	assert.Equal(t, [2]int{3, 1}, [2]int{lqa.Preempted, lqa.Preempting})
	assert.Equal(t, [2]int{1, 3}, [2]int{lqb.Preempted, lqb.Preempting})
	assert.Equal(t, []metrics.KueuePreemptions{{Preemptor: "team-a", Victim: "team-a", Count: 1}, {Preemptor: "team-b", Victim: "team-a", Count: 2},
		{Preemptor: "team-b", Victim: "team-b", Count: 1}}, k.Preemptions)
	assert.Equal(t, 2, k.PreemptionsBetween("team-b", "team-a"))
	assert.Equal(t, 0, k.PreemptionsBetween("team-a", "team-b"))
	assert.Equal(t, []time.Duration{0, 0, 0, 5 * m}, a.AdmissionTimes)
	assert.Equal(t, []time.Duration{5 * m}, b.AdmissionTimes)
	assert.Equal(t, "1 InClusterQueue, 2 InCohortReclamation, 1 PodsReadyTimeout", a.EvictionsText(), "every eviction by reason, as before")
}

// A preemptor Kueue's events name but the report never saw (a workload
// in no queue) counts its victims under preemptor "".
func TestKueuePreemptorUnknown(t *testing.T) {
	events := []kueue.Event{
		ev(0, kueue.Created, "default/a1"), reserved(0, "default/a1", "team-a", 1),
		preempt(time.Minute, "default/a1", "team-a", "InClusterQueue", "default/ghost"),
	}
	rep := &metrics.Report{Name: "ghost", Start: 0, End: time.Hour}
	rep.AddKueue(kueueObjects(), events, []metrics.KueueWorkload{{Workload: "default/a1", LocalQueue: "a", WaitForNodes: -1}})
	assert.Equal(t, []metrics.KueuePreemptions{{Preemptor: "", Victim: "team-a", Count: 1}}, rep.Kueue.Preemptions)
	assert.Equal(t, 1, rep.Kueue.ClusterQueues[0].Preempted)
	assert.Equal(t, 0, rep.Kueue.ClusterQueues[0].Preempting)
}
