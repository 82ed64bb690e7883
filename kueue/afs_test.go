package kueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// afsAdmitter is one ClusterQueue "cq" of 4 cpu in the usage-based mode,
// with LocalQueues lq-a and lq-b in namespace "ns", a half-life of 10 s
// sampled every 5 s.
func afsAdmitter(t *testing.T, p Preemption) *Admitter {
	t.Helper()
	q := mkCQ("cq").preempt(p).groups(rg(fq("default", res(cpu, "4")))).obj()
	q.AdmissionMode = UsageBasedAdmissionFairSharing
	cfg := DefaultConfig()
	cfg.AdmissionFairSharing = &AdmissionFairSharing{UsageHalfLifeTime: int64(10 * time.Second), UsageSamplingInterval: int64(5 * time.Second)}
	a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{q},
		LocalQueues: []LocalQueue{lq("ns", "lq-a", "cq"), lq("ns", "lq-b", "cq")}}, cfg)
	require.NoError(t, err)
	a.SetNamespace("ns", nil)
	return a
}

// runTo steps the Admitter at each of its times up to t, then moves to t.
func runTo(t *testing.T, a *Admitter, to time.Duration) {
	t.Helper()
	for {
		next, ok := a.NextTime()
		if !ok || next > to {
			break
		}
		require.NoError(t, a.AdvanceTo(next))
		a.Step()
	}
	require.NoError(t, a.AdvanceTo(to))
}

// The decayed usage of one LocalQueue on the simulated clock, with
// α(5 s) = 1 − 0.5^(5/10) = 0.292893:
//
//	t=0   a1 (4 cpu) admitted: penalty 4α = 1.171573, one decay step of 0 s
//	t=5   sample: 1.171573 × 0.707107 + 4α = 2.0
//	t=10  sample: 2.0 × 0.707107 + 4α = 2.585786
//	t=12  a1 finishes (the samples before it count it)
//	t=15  sample: 2.585786 × 0.707107 + 0 = 1.828427
//	t=20  sample: 1.292893
func TestAFSDecayOnTheClock(t *testing.T) {
	a := afsAdmitter(t, Preemption{})
	require.NoError(t, a.Add(mkWl("a1", "ns").queue("lq-a").req(cpu, "4").w))
	runTo(t, a, 0)
	l := a.afs["ns/lq-a"]
	assert.InDelta(t, 1.171573, l.value, 1e-6, "after the admission")
	for _, s := range []struct {
		at   time.Duration
		want float64
	}{{4 * time.Second, 1.171573}, {5 * time.Second, 2.0}, {10 * time.Second, 2.585786}} {
		runTo(t, a, s.at)
		l.catchUp()
		assert.InDelta(t, s.want, l.value, 1e-6, "at %v", s.at)
	}
	runTo(t, a, 12*time.Second)
	require.NoError(t, a.Finish("ns/a1"))
	for _, s := range []struct {
		at   time.Duration
		want float64
	}{{15 * time.Second, 1.828427}, {20 * time.Second, 1.292893}} {
		runTo(t, a, s.at)
		l.catchUp()
		assert.InDelta(t, s.want, l.value, 1e-6, "at %v", s.at)
	}
	assert.Zero(t, a.afs["ns/lq-b"].value, "lq-b never used anything")
}

// The entry penalty moves the next sample: settled at t=7, the next
// sample of lq-a is at 12, not 10.
//
//	t=0   a1 (2 cpu) admitted: 2α = 0.585786
//	t=5   sample: 0.585786 × 0.707107 + 2α = 1.0
//	t=7   a2 (2 cpu) admitted: one decay step of 2 s, α(2 s) = 0.129449,
//	      with both (4 cpu): 1.0 × 0.870551 + 4 × 0.129449 = 1.388348,
//	      plus the penalty 2α(5 s) = 0.585786: 1.974134
//	t=11  no sample yet
//	t=12  sample: 1.974134 × 0.707107 + 4α = 2.567497
func TestAFSPenaltyMovesTheSample(t *testing.T) {
	a := afsAdmitter(t, Preemption{})
	require.NoError(t, a.Add(mkWl("a1", "ns").queue("lq-a").req(cpu, "2").w))
	runTo(t, a, 7*time.Second)
	require.NoError(t, a.Add(mkWl("a2", "ns").queue("lq-a").req(cpu, "2").w))
	runTo(t, a, 7*time.Second)
	require.Equal(t, "Admitted", a.Status("ns/a2").Phase)
	l := a.afs["ns/lq-a"]
	assert.InDelta(t, 1.974134, l.value, 1e-6)
	runTo(t, a, 11*time.Second)
	l.catchUp()
	assert.InDelta(t, 1.974134, l.value, 1e-6, "no sample at 10")
	runTo(t, a, 12*time.Second)
	l.catchUp()
	assert.InDelta(t, 2.567497, l.value, 1e-6)
}

// The queue order follows the usage: lq-a used 4 cpu until t=10, lq-b
// nothing. When a1's quota is back (the requeue at 11), b1 (lq-b, lower
// priority) goes before a2 (lq-a, priority 10); without admission fair
// sharing a2's priority wins.
func TestAFSOrderFollowsUsage(t *testing.T) {
	a := afsAdmitter(t, Preemption{})
	require.NoError(t, a.Add(mkWl("a1", "ns").queue("lq-a").req(cpu, "4").w))
	runTo(t, a, 0)
	require.NoError(t, a.Add(mkWl("a2", "ns").queue("lq-a").prio(10).req(cpu, "4").w))
	require.NoError(t, a.Add(mkWl("b1", "ns").queue("lq-b").req(cpu, "4").w))
	runTo(t, a, 10*time.Second)
	require.NoError(t, a.Finish("ns/a1"))
	runTo(t, a, 12*time.Second) // the requeue batch, 1 s after
	assert.Equal(t, "Admitted", a.Status("ns/b1").Phase, "lq-b used less")
	assert.Equal(t, "Pending", a.Status("ns/a2").Phase)

	// Without admission fair sharing, a2's priority wins.
	b := afsAdmitter(t, Preemption{})
	b.cfg.AdmissionFairSharing = nil
	for _, l := range b.afs {
		l.consumed = nil
	}
	b.afs = nil
	b.cqs["cq"].afsLQs = nil
	require.NoError(t, b.Add(mkWl("a1", "ns").queue("lq-a").req(cpu, "4").w))
	runTo(t, b, 0)
	require.NoError(t, b.Add(mkWl("a2", "ns").queue("lq-a").prio(10).req(cpu, "4").w))
	require.NoError(t, b.Add(mkWl("b1", "ns").queue("lq-b").req(cpu, "4").w))
	runTo(t, b, 10*time.Second)
	require.NoError(t, b.Finish("ns/a1"))
	runTo(t, b, 12*time.Second)
	assert.Equal(t, "Admitted", b.Status("ns/a2").Phase)
}

// Among candidates of equal priority in one ClusterQueue, the victim is
// from the LocalQueue that used more, though the base order (the most
// recently admitted first) would take the other: a1 (lq-a, admitted at
// 0 with 2 cpu, then a history of 2 cpu) against b1 (lq-b, admitted at
// 1 s). The preemptor (priority 10, 2 cpu) preempts a1.
func TestAFSPreemptsFromTheBusierQueue(t *testing.T) {
	a := afsAdmitter(t, Preemption{WithinClusterQueue: PreemptLowerPriority})
	require.NoError(t, a.Add(mkWl("a1", "ns").queue("lq-a").req(cpu, "2").w))
	runTo(t, a, time.Second)
	require.NoError(t, a.Add(mkWl("b1", "ns").queue("lq-b").req(cpu, "2").w))
	runTo(t, a, 5*time.Second)
	require.NoError(t, a.Add(mkWl("p", "ns").queue("lq-b").prio(10).req(cpu, "2").w))
	var evicted []string
	for range 3 {
		next, ok := a.NextTime()
		if !ok {
			break
		}
		require.NoError(t, a.AdvanceTo(next))
		for _, e := range a.Step() {
			if e.Kind == Evicted {
				evicted = append(evicted, e.Workload)
			}
		}
	}
	assert.Greater(t, a.afs["ns/lq-a"].value, a.afs["ns/lq-b"].value)
	assert.Equal(t, []string{"ns/a1"}, evicted)
}
