package gangsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// A pod whose required pod affinity no pod satisfies waits; when a pod it
// selects is placed, it is retried at once, as kube-scheduler requeues it
// on the other pod's arrival, and Run does not end with it pending while
// it fits (found by FuzzSchedulerAPI: CheckQuiescent failed at the end of
// Run).
func TestPodAffinityRetriedWhenItsTargetIsPlaced(t *testing.T) {
	s := newTestSched(t, Config{})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").Label("zone", "a").CPU("4").Memory("8Gi").Obj()))
	follower := cluster.Pod{Name: "follower", Labels: map[string]string{"app": "cache"}, Affinity: &cluster.Affinity{PodAffinity: &cluster.PodAffinity{
		Required: []cluster.PodAffinityTerm{{LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone"}}}}}
	require.NoError(t, s.AddPod(follower, 0))
	s.run()
	st, _ := s.Pod("default/follower")
	require.Equal(t, PhasePending, st.Phase)

	require.NoError(t, s.RunUntil(time.Minute))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("db").Label("app", "db").Obj(), 0))
	s.run() // Config.CheckInvariants: CheckQuiescent when Run ends
	st, _ = s.Pod("default/follower")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Minute, st.BoundAt, "retried when db was placed, not five minutes later")
}

// The same for a topology spread constraint: a pod placed in the emptiest
// domain raises the minimum and makes room under maxSkew elsewhere.
func TestSpreadRetriedWhenAPodIsPlaced(t *testing.T) {
	s := newTestSched(t, Config{})
	for _, n := range []struct{ name, zone string }{{"a", "za"}, {"b", "zb"}} {
		require.NoError(t, s.AddNode(gangsimtest.MakeNode(n.name).Label("zone", n.zone).CPU("4").Memory("8Gi").Obj()))
	}
	web := func(name, node string) cluster.Pod {
		return cluster.Pod{Name: name, Labels: map[string]string{"app": "web"}, NodeName: node, NodeSelector: map[string]string{"zone": "za"},
			TopologySpreadConstraints: []cluster.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: cluster.DoNotSchedule, NodeAffinityPolicy: "Ignore",
				LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}
	}
	require.NoError(t, s.AddPod(web("w0", "a"), 0))
	// za holds 1, zb 0: w1 may go to za only (its node selector) and would make the skew 2
	require.NoError(t, s.AddPod(web("w1", ""), 0))
	s.run()
	st, _ := s.Pod("default/w1")
	require.Equal(t, PhasePending, st.Phase)
	require.NoError(t, s.RunUntil(time.Minute))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("w2").Label("app", "web").Obj(), 0)) // goes to zb, the emptiest
	s.run()
	st, _ = s.Pod("default/w1")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Minute, st.BoundAt)
}

// A pod retried because of a placement while its backoff still runs is
// retried when the backoff ends, even by a Run that sees no other change
// (found by TestAPIProgramsRandom: the target placed by ScheduleOne, then
// Run ended at once).
func TestPodAffinityRetriedAfterItsBackoff(t *testing.T) {
	s := newTestSched(t, Config{})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").Label("zone", "a").CPU("4").Memory("8Gi").Obj()))
	follower := cluster.Pod{Name: "follower", Affinity: &cluster.Affinity{PodAffinity: &cluster.PodAffinity{
		Required: []cluster.PodAffinityTerm{{LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone"}}}}}
	require.NoError(t, s.AddPod(follower, 0))
	require.NoError(t, s.RunUntil(15*time.Minute+time.Second)) // tried at 0, 5m, 10m, 15m: backoff until 15m8s
	require.NoError(t, s.AddPod(gangsimtest.MakePod("db").Label("app", "db").Obj(), 0))
	s.scheduleOne() // db placed: follower waits out its backoff
	s.run()
	st, _ := s.Pod("default/follower")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, 15*time.Minute+8*time.Second, st.BoundAt)
}

// A nomination that goes without its pod taking the node (the preemptor
// deleted, or failing elsewhere) frees the room it held: the pods that
// failed for that room are retried at their periodic retry, and Run does
// not end before (found by TestRandomScenarios: CheckQuiescent failed when
// a preemptor's nomination was cleared by a later attempt).
func TestDroppedNominationFreesItsRoom(t *testing.T) {
	s := newTestSched(t, Config{TerminationGracePeriod: new(time.Duration(0))})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("1").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("victim").Priority(0).CPU("1").Obj(), 0))
	s.run()
	require.NoError(t, s.AddPod(gangsimtest.MakePod("preemptor").Priority(100).CPU("1").Obj(), 0))
	s.scheduleOne() // evicts victim, which is gone at once, and nominates preemptor to n
	s.scheduleOne() // victim: n's room is held for preemptor
	st, _ := s.Pod("default/victim")
	require.Equal(t, PhasePending, st.Phase)
	require.NoError(t, s.DeletePod("default/preemptor")) // never placed: its nomination goes
	s.run()
	st, _ = s.Pod("default/victim")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, 5*time.Minute, st.BoundAt, "at its periodic retry, as kube-scheduler's flush retries it")
}

// A group waits out its backoff after a failed cycle, rather than being
// parked: a placement that may help it marks it, so that Run retries it
// when the backoff ends (found by TestRandomScenarios: a composite whose
// pod wanted to be near a pod placed just after its failed cycle).
func TestGroupRetriedAfterItsBackoffWhenAPodIsPlaced(t *testing.T) {
	s := newTestSched(t, Config{})
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").Label("zone", "a").CPU("4").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPodGroup(gangsimtest.MakeBasicGroup("g").Obj()))
	near := &cluster.Affinity{PodAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{
		{LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone"}}}}
	require.NoError(t, s.AddPod(cluster.Pod{Name: "m", PodGroup: "g", Affinity: near}, 0))
	s.scheduleOne() // the group fails: no db anywhere; it backs off
	require.NoError(t, s.AddPod(gangsimtest.MakePod("db").Label("app", "db").Obj(), 0))
	s.scheduleOne() // db placed while g waits out its backoff
	s.run()
	st, _ := s.Pod("default/m")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Second, st.BoundAt)
}

// A pod is retried on the kinds of change that may help a plugin that
// rejected it, as kube-scheduler's queueing hints decide: a pod no node's
// labels admit stays put when a pod leaves a node, and is retried when a
// node is relabelled; a pod short of room is retried when a pod leaves.
func TestRetriedOnlyOnChangesThatMayHelp(t *testing.T) {
	s := newTestSched(t, Config{MaxUnschedulable: 24 * time.Hour}) // no periodic retries in the way
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").Label("disk", "hdd").CPU("2").Memory("8Gi").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("filler").CPU("2").Obj(), time.Hour))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("ssd").NodeSelector("disk", "ssd").Obj(), 0))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("big").CPU("1").Obj(), 0))
	cycles := map[cluster.PodKey]int{}
	WithObserver(func(e Event) {
		if e.Kind == EventCycle && e.Pod != nil {
			cycles[e.Pod.Key()]++
		}
	})(s.Scheduler)
	require.NoError(t, s.RunUntil(30*time.Minute))
	require.Equal(t, 1, cycles["default/ssd"])
	require.Equal(t, 1, cycles["default/big"])

	require.NoError(t, s.RunUntil(time.Hour+time.Second)) // the filler completes at 1h
	st, _ := s.Pod("default/big")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Hour, st.BoundAt, "retried when the filler left")
	require.Equal(t, 1, cycles["default/ssd"], "the filler leaving cannot help ssd")

	require.NoError(t, s.UpdateNode(gangsimtest.MakeNode("n").Label("disk", "ssd").CPU("2").Memory("8Gi").Obj()))
	require.NoError(t, s.RunUntil(time.Hour+2*time.Second))
	st, _ = s.Pod("default/ssd")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, time.Hour+time.Second, st.BoundAt, "retried when the node was relabelled")
}
