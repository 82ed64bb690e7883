package metrics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// record runs a scenario with a Recorder and returns its report until
// end (0: the last event).
func record(t *testing.T, text string, end time.Duration, keys ...string) *metrics.Report {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(text))
	require.NoError(t, err)
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: keys})
	_, err = sc.Run(gangsim.WithObserver(rec.Observe))
	require.NoError(t, err)
	return rec.ReportUntil(end)
}

func resource(t *testing.T, rep *metrics.Report, name cluster.ResourceName) metrics.ResourceSummary {
	t.Helper()
	for _, r := range rep.Resources {
		if r.Resource == name {
			return r
		}
	}
	t.Fatalf("no resource %s", name)
	return metrics.ResourceSummary{}
}

func seriesNamed(t *testing.T, rep *metrics.Report, name string) []metrics.Point {
	t.Helper()
	for _, s := range rep.Series {
		if s.Name == name {
			return s.Points
		}
	}
	t.Fatalf("no series %q", name)
	return nil
}

// By hand: a (1 cpu) runs 0-10m, b (2 cpu) 5m-15m on a 4-cpu node. The
// allocation is 1, 3, 2, 0 cores over three 5-minute steps: an integral
// of (1+3+2) x 300 = 1800 core-seconds, half a core-hour, a mean of 2
// cores over the 15 minutes and a utilisation of 1800 / (4 x 900) = 50%.
func TestAllocationIntegral(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "4", memory: 8Gi}}]
pods:
  - {name: a, requests: {cpu: "1"}, duration: 10m}
  - {name: b, requests: {cpu: "2"}, at: 5m, duration: 10m}
`, 0)
	require.Equal(t, 15*time.Minute, rep.End)
	cpu := resource(t, rep, cluster.ResourceCPU)
	assert.InDelta(t, 0.5, cpu.AllocatedHours, 1e-12)
	assert.InDelta(t, 2, cpu.Allocated, 1e-12)
	assert.InDelta(t, 0.5, cpu.Utilization, 1e-12)
	assert.Equal(t, 3.0, cpu.AllocatedPeak)
	assert.Equal(t, 4.0, cpu.Capacity)
	assert.Equal(t, []metrics.Point{{0, 1}, {5 * time.Minute, 3}, {10 * time.Minute, 2}, {15 * time.Minute, 0}},
		seriesNamed(t, rep, "allocated cpu"))
	pods := resource(t, rep, cluster.ResourcePods)
	assert.InDelta(t, (1+2+1)*300.0/900, pods.Allocated, 1e-12, "one pod slot each")
	assert.Zero(t, resource(t, rep, cluster.ResourceMemory).Allocated)
}

// By hand: five 1-cpu pods of 10 minutes arrive at 0 on a 1-cpu node and
// run one after another: waits 0, 10, 20, 30 and 40 minutes. The
// empirical p50 is the 3rd of 5 (20m), p90 and p99 the 5th (40m).
func TestWaitQuantiles(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "1"}}]
pods: [{name: p, requests: {cpu: "1"}, duration: 10m, count: 5}]
`, 0)
	w := rep.Pods.Wait
	assert.Equal(t, metrics.Durations{Count: 5, Mean: 20 * time.Minute, P50: 20 * time.Minute, P90: 40 * time.Minute,
		P99: 40 * time.Minute, Max: 40 * time.Minute}, w)
	assert.Equal(t, []metrics.Point{{0, 4}, {10 * time.Minute, 3}, {20 * time.Minute, 2}, {30 * time.Minute, 1}, {40 * time.Minute, 0}},
		seriesNamed(t, rep, "pending pods"))
	assert.Equal(t, 5, rep.Pods.Placed)
	assert.Equal(t, 5, rep.Pods.Succeeded)
}

// By hand: a holds 7 of g1's 8 GPUs; b needs 2 GPUs and waits from 10m
// until it is deleted at 40m. Meanwhile g1's last GPU is stranded (and
// its 31 free cores with it, since b is the only pending pod and does not
// fit); c1, holding no pod, is not fragmented. One GPU for 30 of the 40
// minutes: a mean of 0.75.
func TestStrandedGPU(t *testing.T) {
	rep := record(t, `
nodes:
  - {name: g1, allocatable: {cpu: "32", nvidia.com/gpu: "8"}}
  - {name: c1, allocatable: {cpu: "4"}}
pods:
  - {name: a, requests: {cpu: "1", nvidia.com/gpu: "7"}}
  - {name: b, requests: {cpu: "1", nvidia.com/gpu: "2"}, at: 10m}
events:
  - {at: 40m, deletePod: b}
`, 0)
	gpu := resource(t, rep, "nvidia.com/gpu")
	assert.Equal(t, "GPUs", gpu.Unit)
	assert.InDelta(t, 0.75, gpu.Fragmented, 1e-12)
	assert.Equal(t, 1.0, gpu.FragmentedPeak)
	assert.Equal(t, []metrics.Point{{0, 0}, {10 * time.Minute, 1}, {40 * time.Minute, 0}}, seriesNamed(t, rep, "fragmented nvidia.com/gpu"))
	assert.Equal(t, 31.0, resource(t, rep, cluster.ResourceCPU).FragmentedPeak)
	assert.Zero(t, resource(t, rep, cluster.ResourcePods).FragmentedPeak, "pod slots are never counted")
	assert.Equal(t, 0, rep.Pods.Unplaced, "b was deleted, not left unplaced")
}

// Fragmentation is judged pod by pod: the members of a rack-bound gang
// that cannot be placed as a whole each fit the free GPU of g1 and g2, so
// those GPUs are not stranded (the gang waits for a rack, not for room).
func TestGangMemberMakesRoomUsable(t *testing.T) {
	rep := record(t, `
nodes:
  - {name: g1, labels: {rack: r1}, allocatable: {cpu: "32", nvidia.com/gpu: "8"}}
  - {name: g2, labels: {rack: r2}, allocatable: {cpu: "32", nvidia.com/gpu: "8"}}
podGroups: [{name: pair, minCount: 2, topologyKey: rack}]
pods:
  - {name: a, requests: {nvidia.com/gpu: "7"}, nodeName: g1}
  - {name: b, requests: {nvidia.com/gpu: "7"}, nodeName: g2}
  - {name: w, requests: {nvidia.com/gpu: "1"}, podGroup: pair, at: 1m, count: 2}
`, time.Hour)
	assert.Zero(t, resource(t, rep, "nvidia.com/gpu").FragmentedPeak)
	assert.Equal(t, []metrics.Point{{0, 0}, {time.Minute, 1}}, seriesNamed(t, rep, "pending groups"))
	assert.Equal(t, 1, rep.Groups.Unplaced)
	assert.Equal(t, 2, rep.Pods.Unplaced)
	assert.Equal(t, 2, rep.Pods.ArrivedRunning)
}

// Only pods that could run on a node count for it: a GPU pod selecting
// another pool and a cpu pod that does not tolerate the GPU taint strand
// nothing on g1.
func TestIneligiblePodsStrandNothing(t *testing.T) {
	rep := record(t, `
nodes:
  - {name: g1, labels: {pool: a}, allocatable: {cpu: "32", nvidia.com/gpu: "8"}, taints: [{key: gpu, effect: NoSchedule}]}
pods:
  - {name: a, requests: {cpu: "1", nvidia.com/gpu: "7"}, tolerations: [{key: gpu, operator: Exists}]}
  - {name: other-pool, requests: {nvidia.com/gpu: "2"}, nodeSelector: {pool: b}, tolerations: [{key: gpu, operator: Exists}], at: 1m}
  - {name: cpu-only, requests: {cpu: "32"}, at: 1m}
`, time.Hour)
	assert.Zero(t, resource(t, rep, "nvidia.com/gpu").FragmentedPeak)
	assert.Zero(t, resource(t, rep, cluster.ResourceCPU).FragmentedPeak)
	assert.Equal(t, 2, rep.Pods.Unplaced)
}

// By hand: two 1-cpu pods of priority 1 fill a 2-cpu node; a 2-cpu pod of
// priority 100 arrives at 1m and evicts both: one preemption at priority
// 100, two victims at priority 1.
func TestPreemptionsByPriority(t *testing.T) {
	rep := record(t, `
config: {terminationGracePeriod: 0s}
nodes: [{name: n, allocatable: {cpu: "2"}}]
pods:
  - {name: low, requests: {cpu: "1"}, priority: 1, count: 2}
  - {name: high, requests: {cpu: "2"}, priority: 100, at: 1m}
`, 0)
	assert.Equal(t, metrics.PreemptionSummary{Preemptions: 1, Victims: 2, ByPriority: []metrics.PriorityCount{
		{Priority: 100, Preemptions: 1}, {Priority: 1, Victims: 2}}}, rep.Preemptions)
	require.Len(t, rep.Pods.WaitByPriority, 2)
	assert.Equal(t, int32(100), rep.Pods.WaitByPriority[0].Priority)
	assert.Equal(t, 2, rep.Pods.PendingAtEnd, "the victims wait again and never come back")
	assert.Equal(t, 0, rep.Pods.Unplaced, "they were placed once")
	assert.Equal(t, 2, rep.Pods.Evicted)
}

// A gang's preemption is counted at the gang's priority.
func TestGroupPreemptionPriority(t *testing.T) {
	rep := record(t, `
config: {terminationGracePeriod: 0s}
nodes: [{name: n, allocatable: {cpu: "2"}, count: 2}]
podGroups: [{name: g, minCount: 2, priority: 50}]
pods:
  - {name: low, requests: {cpu: "2"}, priority: 1, count: 2}
  - {name: m, requests: {cpu: "2"}, podGroup: g, at: 1m, count: 2}
`, 0)
	require.NotEmpty(t, rep.Preemptions.ByPriority)
	assert.Equal(t, int32(50), rep.Preemptions.ByPriority[0].Priority)
	assert.Equal(t, 2, rep.Preemptions.Victims)
	assert.Equal(t, 1, rep.Groups.Placed)
}

// Each domain of each key gets its own allocation: rack r1 holds the
// pod, r2 nothing; zone a holds both racks.
func TestDomains(t *testing.T) {
	rep := record(t, `
nodes:
  - {name: a, labels: {zone: z, rack: r1}, allocatable: {cpu: "4"}}
  - {name: b, labels: {zone: z, rack: r2}, allocatable: {cpu: "4"}}
pods: [{name: p, requests: {cpu: "2"}, duration: 1h, nodeSelector: {rack: r1}}]
`, 0, "zone", "rack")
	var got []string
	for _, d := range rep.Domains {
		if d.Resource == cluster.ResourceCPU {
			got = append(got, d.Key+"="+d.Value+" "+metricsPct(d.Utilization))
		}
	}
	assert.Equal(t, []string{"zone=z 25%", "rack=r1 50%", "rack=r2 0%"}, got)
	assert.Equal(t, []metrics.Point{{0, 2}, {time.Hour, 0}}, seriesNamed(t, rep, "rack=r1 allocated cpu"))
}

func metricsPct(v float64) string {
	return map[float64]string{0.25: "25%", 0.5: "50%", 0: "0%"}[v]
}

func TestReasons(t *testing.T) {
	tests := []struct {
		msg  string
		want []string
	}{
		{"0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu.", []string{"node(s) had untolerated taint(s)", "Insufficient cpu"}},
		{"0/1 nodes are available: 1 Insufficient nvidia.com/gpu.", []string{"Insufficient nvidia.com/gpu"}},
		{"0/2 placements are available, first placement status: minCount (6) cannot be satisfied: 4 scheduled, 1 remaining",
			[]string{"no placement: minCount (N) cannot be satisfied: N scheduled, N remaining"}},
		{`waiting for composite pod group "job" tree to meet quorum`, []string{`waiting for composite pod group "…" tree to meet quorum`}},
		{"waiting for 3 more pods of group ml/train-7: minCount 8", []string{"waiting for N more pods of group …: minCount N"}},
		{"", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, metrics.Reasons(tt.msg), tt.msg)
	}
}

// Unschedulable reasons are counted per attempt and per distinct pod.
func TestReasonCounts(t *testing.T) {
	rep := record(t, `
nodes: [{name: n, allocatable: {cpu: "1"}}]
pods:
  - {name: big, requests: {cpu: "2"}, count: 2}
`, 0)
	require.Len(t, rep.Unschedulable, 1)
	r := rep.Unschedulable[0]
	assert.Equal(t, "Insufficient cpu", r.Reason)
	assert.Equal(t, 2, r.Pods)
	assert.GreaterOrEqual(t, r.Attempts, 2)
}

// Nodes come and go: a removed node's capacity leaves (its pods were
// terminated just before), and a cordoned node is never fragmented.
func TestNodeChanges(t *testing.T) {
	rep := record(t, `
nodes:
  - {name: a, allocatable: {cpu: "4"}}
  - {name: b, allocatable: {cpu: "4"}}
pods:
  - {name: p, requests: {cpu: "3"}, nodeName: b}
  - {name: big, requests: {cpu: "2"}, at: 10m, nodeSelector: {kubernetes.io/hostname: b}}
events:
  - {at: 20m, cordonNode: b}
  - {at: 30m, removeNode: b}
`, time.Hour)
	assert.Equal(t, []metrics.Point{{0, 8}, {30 * time.Minute, 4}}, seriesNamed(t, rep, "capacity cpu"))
	assert.Equal(t, []metrics.Point{{0, 3}}, seriesNamed(t, rep, "allocated cpu"),
		"p, terminated with b at 30m, is bound to a at the same instant: no step")
	assert.Equal(t, []metrics.Point{{0, 0}, {10 * time.Minute, 1}, {20 * time.Minute, 0}}, seriesNamed(t, rep, "fragmented cpu"),
		"b's free core is fragmented while big waits, until b is cordoned")
	assert.Equal(t, 1, rep.Nodes)
	assert.Equal(t, []string{"big"}, rep.PendingPods)
}

// By hand: a 1-cpu pod runs from 0; a priority-100 pod evicts it at 1m
// and runs 10m; the victim comes back at 11m. Its wait is the one from
// its arrival to its first binding (0), counted once: two waits, the
// victim's 0 and the preemptor's 1s (it binds at its next attempt).
func TestReboundVictimWaitsOnce(t *testing.T) {
	rep := record(t, `
config: {terminationGracePeriod: 0s}
nodes: [{name: n, allocatable: {cpu: "1"}}]
pods:
  - {name: low, requests: {cpu: "1"}, priority: 1}
  - {name: high, requests: {cpu: "1"}, priority: 100, at: 1m, duration: 10m}
`, 0)
	assert.Equal(t, 1, rep.Pods.Evicted)
	assert.Equal(t, 0, rep.Pods.PendingAtEnd, "the victim came back")
	assert.Equal(t, 2, rep.Pods.Wait.Count)
	assert.Equal(t, time.Second, rep.Pods.Wait.Max)
}
