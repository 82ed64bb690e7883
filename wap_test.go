package gangsim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/preemption"
)

// Property (S8): after a successful workload-aware preemption the group
// binds once its victims are gone, and no victim unit could have been
// reprieved given the placement found.
func TestWorkloadPreemptionProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	successes := 0
	for trial := range 400 {
		ts := newTestSched(t, Config{})
		nodes := 1 + rng.IntN(4)
		for n := range nodes {
			name := fmt.Sprintf("n%d", n)
			require.NoError(t, ts.AddNode(gangsimtest.MakeNode(name).CPU("4").Memory("16Gi").Obj()))
			free := int64(4000)
			for i := 0; free >= 500; i++ {
				cpu := min(free, 500*(1+rng.Int64N(4)))
				p := gangsimtest.MakePod(fmt.Sprintf("%s-p%d", name, i)).NodeName(name).Priority(int32(rng.IntN(4) * 50)).MilliCPU(cpu).Obj()
				if rng.IntN(4) == 0 {
					p.Labels = map[string]string{"app": "guarded"}
				}
				require.NoError(t, ts.AddPod(p, 0))
				free -= cpu
			}
		}
		require.NoError(t, ts.AddPodDisruptionBudget(cluster.PodDisruptionBudget{Name: "guard", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}}, MinAvailable: &cluster.IntOrPercent{Value: 1}}))
		size := 1 + rng.IntN(5)
		require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("gang", int32(size)).Priority(120).Obj()))
		for i := range size {
			require.NoError(t, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("gang-%d", i)).Group("gang").Priority(120).MilliCPU(500*(1+rng.Int64N(4))).Obj(), 0))
		}
		res := ts.scheduleOne()
		if len(res.Bound) > 0 || len(res.Evicted) == 0 {
			continue // bound without preemption, or preemption could not help
		}
		successes++
		checkNoReprieve(t, ts, res, trial)
		require.NoError(t, ts.Run())
		require.Equal(t, size, ts.boundCount("gang"), "trial %d: the gang binds once its victims are gone", trial)
		for _, n := range res.Nominated {
			require.Equal(t, n.Node, ts.nodeOf(string(n.Pod)[len("default/"):]), "trial %d: pods land on their nominated nodes", trial)
		}
	}
	require.Greater(t, successes, 80)
}

// checkNoReprieve: with every victim unit gone but one, some preemptor pod
// fails its chosen node (checked in cycle order, earlier ones reserved).
func checkNoReprieve(t *testing.T, ts *testSched, res CycleResult, trial int) {
	t.Helper()
	snap := ts.cache.Snapshot()
	units := map[string]*preemption.Unit{}
	var order []string
	for _, e := range res.Evicted {
		pi, _ := ts.cache.Pod(e.Pod)
		require.Less(t, pi.Priority(), int32(120), "trial %d", trial)
		u := ts.tracker.unitOf(pi, ts.cache)
		if units[u.Key] == nil {
			units[u.Key] = u
			order = append(order, u.Key)
		}
		idx, _ := snap.Index(e.Node)
		require.NoError(t, snap.Remove(e.Pod, idx))
	}
	fitsAll := func() bool {
		cp := snap.Checkpoint()
		defer snap.Rollback(cp)
		for _, n := range res.Nominated {
			idx, _ := snap.Index(n.Node)
			pi := ts.tracker.record(n.Pod).info
			if ts.filter(snap, pi, idx) != nil {
				return false
			}
			snap.Reserve(pi, idx)
		}
		return true
	}
	require.True(t, fitsAll(), "trial %d: the placement fits once the victims are gone", trial)
	for _, k := range order {
		cp := snap.Checkpoint()
		for _, p := range units[k].Pods {
			idx, _ := snap.Index(p.NodeName())
			snap.Reserve(p, idx)
		}
		require.False(t, fitsAll(), "trial %d: victim unit %s could have been reprieved", trial, k)
		snap.Rollback(cp)
	}
}

func TestGroupPreemptionPolicyNever(t *testing.T) {
	for _, tc := range []struct {
		name       string
		group, pod cluster.PreemptionPolicy
	}{{"group says Never", cluster.PreemptNever, cluster.PreemptNever}, {"default", "", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestSched(t, Config{}).nodes("n", 1, 1000).running("low", "n-0", "1", "0")
			require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Priority(10).PreemptionPolicy(tc.group).Obj()))
			require.NoError(t, ts.AddPod(gangsimtest.MakePod("m").Group("g").Priority(10).PreemptionPolicy(tc.pod).CPU("1").Obj(), 0))
			res := ts.scheduleOne()
			if tc.group == cluster.PreemptNever {
				require.Empty(t, res.Evicted)
			} else {
				require.Len(t, res.Evicted, 1)
				require.Equal(t, Ref{Kind: KindPodGroup, Key: "default/g"}, res.Evicted[0].By)
			}
		})
	}
}

// While its victims terminate, a group retries (after backoff) but does
// not preempt again; once they are gone it binds on its nominated node.
func TestGroupWaitsForItsVictims(t *testing.T) {
	ts := newTestSched(t, Config{}).nodes("n", 2, 1000).running("low", "n-0", "1", "0").running("low2", "n-1", "1", "0")
	require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 1).Priority(10).Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("m").Group("g").Priority(10).CPU("1").Obj(), 0))
	res := ts.scheduleOne()
	require.Len(t, res.Evicted, 1)
	nominated := res.Nominated[0].Node
	require.NoError(t, ts.RunUntil(25*time.Second)) // victims terminate for 30s
	require.Greater(t, ts.Stats().Cycles, 3, "the group was retried meanwhile")
	require.Equal(t, 1, ts.Stats().Evictions, "without preempting again")
	ts.run()
	require.Equal(t, nominated, ts.nodeOf("m"))
	require.Equal(t, 1, ts.Stats().Evictions)
}

// BenchmarkWorkloadPreemption is one workload-aware preemption decision: a
// 64-pod gang on 5,000 nodes full of low-priority pods (10 per node).
func BenchmarkWorkloadPreemption(b *testing.B) {
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
		require.NoError(b, ts.AddPodGroup(gangsimtest.MakeGang("big", 64).Priority(100).Obj()))
		for i := range 64 {
			require.NoError(b, ts.AddPod(gangsimtest.MakePod(fmt.Sprintf("big-%d", i)).Group("big").Priority(100).CPU("4").Memory("16Gi").Obj(), 0))
		}
		require.NoError(b, ts.cache.UpdateSnapshot(ts.snap)) // the cluster is built, not timed
		b.StartTimer()
		res, ok, err := ts.ScheduleOne()
		if err != nil || !ok || len(res.Evicted) == 0 {
			b.Fatalf("no preemption: %v %v", err, ok)
		}
	}
}
