package scenario

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// TestEventStreamByHand follows one scenario through the event stream: two
// nodes of 2 cpus; low and batch fill them at 0s (batch runs 1m); urgent
// arrives at 10s, preempts low (both candidates tie, n1 comes first) and
// binds once low's 5s grace period ends; low finds no room until batch
// succeeds at 1m; at 2m n1 is drained, urgent preempts low again on n2 and
// binds at 2m5s, and low stays pending. Every event below was worked out
// by hand from those rules; the number before the time is the cycle.
func TestEventStreamByHand(t *testing.T) {
	sc, err := Parse("by-hand.yaml", []byte(`
config: {terminationGracePeriod: 5s}
nodes:
  - {name: n1, allocatable: {cpu: "2", memory: 4Gi}}
  - {name: n2, allocatable: {cpu: "2", memory: 4Gi}}
pods:
  - {name: low, priority: 1, requests: {cpu: "2"}}
  - {name: batch, priority: 1, requests: {cpu: "2"}, duration: 1m}
  - {name: urgent, priority: 100, requests: {cpu: "2"}, at: 10s}
events:
  - {at: 2m, drainNode: n1}
`))
	require.NoError(t, err)
	var got []string
	var last gangsim.Event
	var s *gangsim.Scheduler
	s, err = sc.NewScheduler(gangsim.WithObserver(func(e gangsim.Event) {
		require.GreaterOrEqual(t, e.At, last.At, "time never goes back")
		last = e
		got = append(got, fmt.Sprintf("%d %v", e.Cycle, e))
	}))
	require.NoError(t, err)
	for _, a := range sc.timeline() {
		require.NoError(t, s.RunUntil(a.at))
		require.NoError(t, sc.apply(s, a, nil, nil))
	}
	require.NoError(t, s.Run())
	const cpu2 = "0/2 nodes are available: 2 Insufficient cpu."
	const cordoned = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable."
	want := []string{
		"0 0s NodeAdded node=n1",
		"0 0s NodeAdded node=n2",
		"0 0s PodArrived default/low",
		"0 0s PodArrived default/batch",
		"1 0s PodBound default/low node=n1", // empty nodes tie: first in name order
		"1 0s Cycle default/low",
		"2 0s PodBound default/batch node=n2",
		"2 0s Cycle default/batch",
		"0 10s PodArrived default/urgent",
		`3 10s PodUnschedulable default/urgent reason="` + cpu2 + `"`,
		"3 10s PodNominated default/urgent node=n1", // low and batch tie on every criterion
		"3 10s PodEvicted default/low node=n1 by=Pod/default/urgent",
		`3 10s Cycle default/urgent reason="` + cpu2 + `"`,
		`0 15s PodTerminated default/low node=n1 reason="evicted by preemption"`, // 10s + 5s grace
		"4 15s PodBound default/urgent node=n1",                                  // higher priority goes first
		"4 15s Cycle default/urgent",
		`5 15s PodUnschedulable default/low reason="` + cpu2 + `"`, // equal priority never preempts batch
		`5 15s Cycle default/low reason="` + cpu2 + `"`,
		"0 1m0s PodSucceeded default/batch node=n2", // bound at 0s, runs 1m
		"6 1m0s PodBound default/low node=n2",       // the freed node wakes low at once
		"6 1m0s Cycle default/low",
		"0 2m0s NodeCordoned node=n1",
		`0 2m0s PodTerminated default/urgent node=n1 reason="its node was drained"`,
		"0 2m0s NodeDrained node=n1",
		`7 2m0s PodUnschedulable default/urgent reason="` + cordoned + `"`,
		"7 2m0s PodNominated default/urgent node=n2", // n1 is cordoned: no candidate
		"7 2m0s PodEvicted default/low node=n2 by=Pod/default/urgent",
		`7 2m0s Cycle default/urgent reason="` + cordoned + `"`,
		`0 2m5s PodTerminated default/low node=n2 reason="evicted by preemption"`,
		"8 2m5s PodBound default/urgent node=n2",
		"8 2m5s Cycle default/urgent",
		`9 2m5s PodUnschedulable default/low reason="` + cordoned + `"`,
		`9 2m5s Cycle default/low reason="` + cordoned + `"`,
	}
	require.Equal(t, want, got)

	low, _ := s.Pod(cluster.MakePodKey("", "low"))
	require.Equal(t, gangsim.PodStatus{Key: "default/low", Phase: gangsim.PhasePending, Reason: cordoned, Unschedulable: true, Priority: 1,
		PreemptionPolicy: cluster.PreemptLowerPriority, ArrivedAt: 0, BoundAt: time.Minute, Binds: 2}, low)
	batch, _ := s.Pod(cluster.MakePodKey("", "batch"))
	require.Equal(t, time.Minute, batch.EndedAt)
	require.Equal(t, gangsim.PhaseSucceeded, batch.Phase)
	urgent, _ := s.Pod(cluster.MakePodKey("", "urgent"))
	require.Equal(t, [3]time.Duration{10 * time.Second, 2*time.Minute + 5*time.Second, 0}, [3]time.Duration{urgent.ArrivedAt, urgent.BoundAt, urgent.EndedAt})
	require.Equal(t, gangsim.Stats{Scheduled: 5, Evictions: 2, Cycles: 9}, s.Stats(), "stats are the stream's counts")
	evs := s.Evictions()
	require.Len(t, evs, 2)
	require.Equal(t, gangsim.Eviction{Pod: "default/low", Node: "n2", By: gangsim.PodRef("default/urgent"), At: 2 * time.Minute}, evs[1])
}

// Events and arrivals are checked at load time in the order Run applies
// them: an event on a node that is gone or not there yet, a pod deleted
// before it arrives or twice, a pod arriving on a node that is gone. Each
// error names the entry, its line and the event it collides with.
func TestTimelineCheckedAtLoad(t *testing.T) {
	for _, f := range []string{"event-removed-node", "event-node-not-yet", "delete-before-arrival", "delete-twice", "pod-on-removed-node", "running-member-priority"} {
		_, err := Load("testdata/scenarios/bad/" + f + ".yaml")
		require.ErrorIs(t, err, ErrScenario, f)
		require.ErrorContains(t, err, f+".yaml: line ", f)
	}
	// across files, the other entry's file is named
	_, err := ParseFiles([]File{
		{Name: "cluster.yaml", Data: []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\nevents: [{at: 1m, removeNode: n}]\n")},
		{Name: "later.yaml", Data: []byte("events: [{at: 2m, cordonNode: n}]\n")},
	})
	require.EqualError(t, err, `invalid scenario: later.yaml: line 1: events[0].cordonNode: at 2m0s: node "n" is gone: events[0] (cluster.yaml, line 2) removes it at 1m0s`)
}

// Deleting a pod that has run its duration and succeeded changes nothing:
// a run does not fail on it.
func TestDeleteSucceededPod(t *testing.T) {
	sc, err := Parse("done.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\npods: [{name: p, duration: 1m}]\nevents: [{at: 5m, deletePod: p}]\n"))
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, gangsim.PhaseSucceeded, res.Pods[0].Phase)
}
