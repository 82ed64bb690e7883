package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
)

// thrashObjects is the smallest form of a random Kueue scenario (seed 397
// of TestRandomKueueScenarios) that thrashes, in gangsim and in Kueue
// v0.19.2's own scheduler alike: fair sharing on; cq2 in the cohort co0
// (cpu 6 of flavor any, 3 of fa); cq0 (2 fa cpu to lend) and cq4 (1 cpu
// of any, 1 of fb) in co2 below co0; cq2 holds "big" (3 pods of 2 cpu,
// priority 5000, on any, 3 seconds) and "victim" (6 pods of 1 cpu, 1 at
// least, priority 1000, 1 hour), cq4 "partial" (6 pods of 1 cpu, 3 at
// least, priority 100, 30 minutes).
func thrashObjects() string {
	var b strings.Builder
	b.WriteString(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: fa}
spec: {nodeLabels: {pool: a}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: fb}
spec: {nodeLabels: {pool: b}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: any}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: co2}
spec: {parentName: co0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq0}
spec:
  namespaceSelector: {}
  cohortName: co2
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: fa
      resources:
      - {name: cpu, nominalQuota: "2", borrowingLimit: "2"}
      - {name: memory, nominalQuota: "16Gi", lendingLimit: "5Gi"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq2}
spec:
  namespaceSelector: {}
  cohortName: co0
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: any
      resources:
      - {name: cpu, nominalQuota: "6"}
      - {name: memory, nominalQuota: "0Gi"}
    - name: fa
      resources:
      - {name: cpu, nominalQuota: "3"}
      - {name: memory, nominalQuota: "64Gi", borrowingLimit: "16Gi", lendingLimit: "0Gi"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq4}
spec:
  namespaceSelector: {}
  cohortName: co2
  queueingStrategy: StrictFIFO
  preemption: {withinClusterQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: Any}
  flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: fa
      resources:
      - {name: cpu, nominalQuota: "0"}
      - {name: memory, nominalQuota: "0Gi"}
    - name: any
      resources:
      - {name: cpu, nominalQuota: "1"}
      - {name: memory, nominalQuota: "0Gi", borrowingLimit: "4Gi", lendingLimit: "0Gi"}
    - name: fb
      resources:
      - {name: cpu, nominalQuota: "1", borrowingLimit: "2", lendingLimit: "1"}
      - {name: memory, nominalQuota: "16Gi", borrowingLimit: "16Gi", lendingLimit: "15Gi"}
`)
	for _, q := range []string{"cq2", "cq4"} {
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l%s, namespace: default}\nspec: {clusterQueue: %s}\n", q, q)
	}
	for _, p := range []struct {
		name  string
		value int
	}{{"low", 100}, {"high", 1000}, {"urgent", 5000}} {
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: %s}\nvalue: %d\n", p.name, p.value)
	}
	for _, j := range []struct {
		name, queue, priority, cpu, d string
		parallelism, least            int
	}{
		{"partial", "lcq4", "low", "1", "30m", 6, 3},
		{"victim", "lcq2", "high", "1", "1h", 6, 1},
		{"big", "lcq2", "urgent", "2", "3s", 3, 0},
	} {
		least := ""
		if j.least > 0 {
			least = fmt.Sprintf("  annotations: {kueue.x-k8s.io/job-min-parallelism: \"%d\"}\n", j.least)
		}
		fmt.Fprintf(&b, `---
apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  labels: {kueue.x-k8s.io/queue-name: %s, kueue.x-k8s.io/priority-class: %s}
%sspec:
  parallelism: %d
  template:
    metadata: {annotations: {gangsim.io/duration: %s}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "%s"}}}]
`, j.name, j.queue, j.priority, least, j.parallelism, j.d, j.cpu)
	}
	for i, pool := range []string{"a", "a", "b", "c"} {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {pool: %s}}\nstatus: {allocatable: {cpu: \"8\", memory: 32Gi, pods: \"20\"}}\n", i, pool)
	}
	return b.String()
}

// A workload admissible partially ("partial", cq4) preempts a victim
// ("victim", cq2) by fair sharing to be admitted at a reduced count. Kueue
// keeps nothing of that: the preemptor holds no quota while its victim
// leaves, and every cycle tries its full count first (then the largest
// count that fits or can preempt). The victim, queued again once its quota
// is released, is a head of the same cycle as its preemptor and wins the
// cycle's order (fair sharing's tournament): it is admitted again (5 of 6
// pods, on fa), the preemptor no longer fits, and preempts it again, cycle
// after cycle, until "big" ends (10m) and frees cq2's flavor any: then
// the preemptor is admitted at its full count, on any, and the victim
// stays. Kueue v0.19.2's scheduler (PrioritizePreemptorWorkloads off, its
// default) does the same with the same objects: admitted, evicted by
// partial (InCohortFairSharing), admitted again at 5 pods on fa, for as
// long as it was run; partial admitted at 6 on any once big was finished.
// With that gate on it thrashes too (the two preempt each other).
func TestKueueThrashesWhenAVictimRetakesItsQuota(t *testing.T) {
	res := runKueue(t, thrashObjects())
	require.Empty(t, res.Stopped)
	var evictions, readmissions int
	var last time.Duration
	for _, e := range res.Kueue.Events {
		switch {
		case e.Kind == kueue.Evicted:
			require.True(t, strings.HasPrefix(e.Workload, "default/job-victim-"), "only the victim is evicted: %s", e.Workload)
			require.Equal(t, "InCohortFairSharing", e.Preemption)
			require.True(t, strings.HasPrefix(e.By, "default/job-partial-"), e.By)
			evictions++
			last = e.At
		case e.Kind == kueue.QuotaReserved && strings.HasPrefix(e.Workload, "default/job-victim-"):
			require.Equal(t, "fa", e.Admission.PodSets[0].Flavors["cpu"])
			require.Equal(t, int32(5), e.Admission.PodSets[0].Count, "the victim comes back with 5 pods, as in Kueue")
			readmissions++
		}
	}
	require.Greater(t, evictions, 200, "evicted cycle after cycle for 3 seconds")
	require.Equal(t, evictions+1, readmissions, "admitted again after every eviction")
	require.Less(t, last, 3*time.Second+time.Millisecond, "the thrash ends when big does")
	partial, victim := kueueWorkload(t, res, "Job partial"), kueueWorkload(t, res, "Job victim")
	require.Equal(t, int32(6), partial.PodSets[0].Count, "admitted at its full count once big is gone")
	require.Equal(t, int32(5), victim.PodSets[0].Count)
}

// preemptionThrash tells Kueue's thrash (one preemptor, victims that
// take their quota back each time) from other endless evictions.
func TestPreemptionThrash(t *testing.T) {
	ev := func(kind kueue.EventKind, w, by string) kueue.Event {
		return kueue.Event{Kind: kind, Workload: w, By: by}
	}
	loop := func(n int, victims ...string) []kueue.Event {
		var es []kueue.Event
		for i := range n {
			v := victims[i%len(victims)]
			es = append(es, ev(kueue.Evicted, v, "p"), ev(kueue.QuotaReleased, v, ""), ev(kueue.QuotaReserved, v, ""))
		}
		return es
	}
	require.True(t, preemptionThrash(loop(thrashEvictions, "v")))
	require.True(t, preemptionThrash(loop(thrashEvictions, "v", "w")), "two victims in turn, as Kueue thrashes")
	require.False(t, preemptionThrash(loop(thrashEvictions-1, "v")), "too few evictions")
	admitted := append(loop(thrashEvictions/2, "v"), ev(kueue.QuotaReserved, "p", ""))
	require.False(t, preemptionThrash(append(admitted, loop(thrashEvictions/2, "v")...)), "the preemptor was admitted")
	mutual := loop(thrashEvictions, "v")
	mutual[3] = ev(kueue.Evicted, "p", "v")
	require.False(t, preemptionThrash(mutual), "a preemptor that is a victim")
	stopped := loop(thrashEvictions, "v")
	stopped[0].By = ""
	require.False(t, preemptionThrash(stopped), "an eviction that is no preemption")
	twice := loop(thrashEvictions, "v")
	twice[2] = ev(kueue.Pending, "v", "")
	require.False(t, preemptionThrash(twice), "evicted again without being admitted")
}
