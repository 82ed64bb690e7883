package whatif_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// kueueTeams is two ClusterQueues in cohort pool, which has quota of its
// own: team-a (4 cpu, 2 GPUs, borrowing limit 2 cpu) and team-b (4 cpu,
// lending limit 2, preemption set), and no workload.
const kueueTeams = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: pool}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "2"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohortName: pool
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "4", borrowingLimit: "2"}, {name: nvidia.com/gpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohortName: pool
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4", lendingLimit: "2"}]}]
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, labels: {kueue.x-k8s.io/queue-name: lq}}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
`

func loadKueue(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "k.yaml", Data: []byte(text)}})
	require.NoError(t, err)
	require.False(t, sc.Kueue.Empty())
	return sc
}

func ptr(v int64) *int64 { return &v }

func cqQuota(objs *kueue.Objects, cq string, r string) kueue.ResourceQuota {
	for _, q := range objs.ClusterQueues {
		if q.Name == cq {
			for _, fq := range q.ResourceGroups[0].Flavors {
				for _, rq := range fq.Resources {
					if string(rq.Name) == r {
						return rq
					}
				}
			}
		}
	}
	return kueue.ResourceQuota{}
}

// Each field a variant sets, parsed from its spelling and applied to a
// copy: the base's objects are never changed.
func TestKueueVariants(t *testing.T) {
	tests := []struct {
		spec  string
		check func(t *testing.T, o *kueue.Objects)
	}{
		{"quota:team-a:default:cpu:nominalQuota=6", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, int64(6000), cqQuota(o, "team-a", "cpu").NominalQuota)
		}},
		{"quota:team-a:default:nvidia.com/gpu:nominalQuota=+3", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, int64(5), cqQuota(o, "team-a", "nvidia.com/gpu").NominalQuota)
		}},
		{"quota:team-a:default:cpu:nominalQuota=-500m", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, int64(3500), cqQuota(o, "team-a", "cpu").NominalQuota)
		}},
		{"quota:team-a:default:cpu:borrowingLimit=3", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, ptr(3000), cqQuota(o, "team-a", "cpu").BorrowingLimit)
		}},
		{"quota:team-a:default:cpu:borrowingLimit=none", func(t *testing.T, o *kueue.Objects) {
			assert.Nil(t, cqQuota(o, "team-a", "cpu").BorrowingLimit)
		}},
		{"quota:team-a:default:nvidia.com/gpu:borrowingLimit=+1", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, ptr(1), cqQuota(o, "team-a", "nvidia.com/gpu").BorrowingLimit, "a limit not set counts as 0")
		}},
		{"quota:team-b:default:cpu:lendingLimit=4", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, ptr(4000), cqQuota(o, "team-b", "cpu").LendingLimit)
		}},
		{"quota:team-b:default:cpu:lendingLimit=none", func(t *testing.T, o *kueue.Objects) {
			assert.Nil(t, cqQuota(o, "team-b", "cpu").LendingLimit)
		}},
		{"cohort-quota:pool:default:cpu:nominalQuota=10", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, int64(10000), o.Cohorts[0].ResourceGroups[0].Flavors[0].Resources[0].NominalQuota)
		}},
		{"clusterqueue:team-a:queueingStrategy=StrictFIFO", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, kueue.StrictFIFO, o.ClusterQueues[0].QueueingStrategy)
		}},
		{"clusterqueue:team-a:withinClusterQueue=LowerOrNewerEqualPriority", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, kueue.PreemptLowerOrNewerEqualPriority, o.ClusterQueues[0].Preemption.WithinClusterQueue)
		}},
		{"clusterqueue:team-b:reclaimWithinCohort=LowerPriority", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, kueue.PreemptLowerPriority, o.ClusterQueues[1].Preemption.ReclaimWithinCohort)
		}},
		{"clusterqueue:team-b:borrowWithinCohort=Never", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, kueue.PreemptNever, o.ClusterQueues[1].Preemption.BorrowWithinCohort)
		}},
		{"quota:team-a:default:cpu:nominalQuota=8,clusterqueue:team-a:queueingStrategy=StrictFIFO", func(t *testing.T, o *kueue.Objects) {
			assert.Equal(t, int64(8000), cqQuota(o, "team-a", "cpu").NominalQuota)
			assert.Equal(t, kueue.StrictFIFO, o.ClusterQueues[0].QueueingStrategy)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			base := loadKueue(t, kueueTeams)
			before := fmt.Sprintf("%+v", *base.Kueue)
			beforeA, beforeB := cqQuota(base.Kueue, "team-a", "cpu"), cqQuota(base.Kueue, "team-b", "cpu")
			v, err := whatif.ParseVariant(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.spec, v.Name, "the spelling reads back")
			sc, err := v.Apply(base)
			require.NoError(t, err)
			tt.check(t, sc.Kueue)
			assert.Equal(t, before, fmt.Sprintf("%+v", *base.Kueue), "the base's objects are not changed")
			assert.Equal(t, beforeA, cqQuota(base.Kueue, "team-a", "cpu"))
			assert.Equal(t, beforeB, cqQuota(base.Kueue, "team-b", "cpu"))
			assert.Equal(t, int64(2000), *cqQuota(base.Kueue, "team-a", "cpu").BorrowingLimit)
		})
	}
}

// Bad variants: refused when parsed, or when applied, naming the queue,
// flavor, resource and field; what Kueue's webhook refuses is refused.
func TestKueueVariantErrors(t *testing.T) {
	parse := []struct{ spec, want string }{
		{"quota:team-a:default:cpu", "want quota:CLUSTERQUEUE:FLAVOR:RESOURCE:FIELD=VALUE (fields: nominalQuota, borrowingLimit, lendingLimit)"},
		{"quota:team-a::cpu:nominalQuota=1", "want quota:CLUSTERQUEUE:FLAVOR:RESOURCE:FIELD=VALUE"},
		{"cohort-quota:pool:default:cpu:nominalQuota=", "want cohort-quota:COHORT:FLAVOR:RESOURCE:FIELD=VALUE"},
		{"quota:team-a:default:cpu:quota=1", `quota field "quota" is not one of nominalQuota, borrowingLimit, lendingLimit`},
		{"clusterqueue:team-a:stopPolicy=Hold", "want clusterqueue:NAME:FIELD=VALUE (fields: queueingStrategy, withinClusterQueue, reclaimWithinCohort, borrowWithinCohort, fairSharing.weight; NAME * for every ClusterQueue)"},
		{"clusterqueue:team-a", "want clusterqueue:NAME:FIELD=VALUE"},
	}
	for _, tt := range parse {
		_, err := whatif.ParseVariant(tt.spec)
		require.Error(t, err, tt.spec)
		assert.True(t, errors.Is(err, whatif.ErrVariant), tt.spec)
		assert.Contains(t, err.Error(), tt.want, tt.spec)
	}
	apply := []struct{ spec, want string }{
		{"quota:team-c:default:cpu:nominalQuota=1", `ClusterQueue "team-c" is not one of the scenario's`},
		{"cohort-quota:other:default:cpu:nominalQuota=1", `Cohort "other" is not one of the scenario's`},
		{"quota:team-a:spot:cpu:nominalQuota=1", `ClusterQueue team-a has no flavor "spot" (its flavors: default)`},
		{"quota:team-b:default:memory:nominalQuota=1Gi", "ClusterQueue team-b: flavor default has no quota of memory (it covers cpu)"},
		{"quota:team-a:default:cpu:nominalQuota=lots", `ClusterQueue team-a, flavor default, resource cpu: nominalQuota "lots" is not a quantity of cpu`},
		{"quota:team-a:default:cpu:nominalQuota=-5", "ClusterQueue team-a, flavor default, resource cpu: nominalQuota -5 makes it negative (-1)"},
		{"quota:team-a:default:cpu:nominalQuota=none", `nominalQuota cannot be "none": only a limit can be removed`},
		{"quota:team-b:default:cpu:lendingLimit=5", "ClusterQueue team-b, flavor default, resource cpu: lendingLimit: Kueue would refuse the ClusterQueue team-b: " +
			"spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"5\": must be less than or equal to the nominalQuota"},
		{"quota:team-b:default:cpu:nominalQuota=1", "lendingLimit: Invalid value: \"2\": must be less than or equal to the nominalQuota"},
		{"clusterqueue:team-a:queueingStrategy=LIFO", `ClusterQueue team-a: queueingStrategy: Kueue would refuse the ClusterQueue team-a: spec.queueingStrategy: Unsupported value: "LIFO"`},
		{"clusterqueue:team-a:withinClusterQueue=Any", `spec.preemption.withinClusterQueue: Unsupported value: "Any"`},
		{"clusterqueue:team-b:reclaimWithinCohort=Never", "spec.preemption: Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
		{"clusterqueue:team-a:borrowWithinCohort=Any", `spec.preemption.borrowWithinCohort.policy: Unsupported value: "Any"`},
	}
	for _, tt := range apply {
		base := loadKueue(t, kueueTeams)
		before := fmt.Sprintf("%+v", *base.Kueue)
		v, err := whatif.ParseVariant(tt.spec)
		require.NoError(t, err, tt.spec)
		_, err = v.Apply(base)
		require.Error(t, err, tt.spec)
		assert.True(t, errors.Is(err, whatif.ErrChange), tt.spec)
		assert.Contains(t, err.Error(), tt.want, tt.spec)
		assert.Equal(t, before, fmt.Sprintf("%+v", *base.Kueue), "the base's objects are not changed: %s", tt.spec)
	}
	// a borrowing limit needs a cohort: Kueue refuses it on a queue in none
	solo := *loadKueue(t, noCohort)
	err := whatif.KueueQuota{Name: "solo", Flavor: "default", Resource: "cpu", Field: whatif.FieldBorrowingLimit, Value: "1"}.Apply(&solo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "borrowingLimit: Invalid value: \"1\": must be nil when cohort is empty")
	// no Kueue at all
	plain, err := scenario.Parse("p.yaml", []byte("nodes: [{name: n, allocatable: {cpu: \"1\"}}]\n"))
	require.NoError(t, err)
	err = whatif.KueueQueueSetting{Name: "q", Field: "queueingStrategy", Value: "StrictFIFO"}.Apply(plain)
	assert.ErrorContains(t, err, "the scenario has no Kueue objects")
}

const noCohort = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: solo}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4"}]}]
`

// fourJobs is a ClusterQueue cq of 4 cores and four Jobs of two 1-core
// pods for 10 minutes, all made at 0, on a node with room for all.
func fourJobs() string {
	s := strings.Replace(noCohort, "name: solo", "name: cq", 1) + `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
`
	for _, name := range []string{"j1", "j2", "j3", "j4"} {
		s += `---
apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {annotations: {gangsim.io/duration: 10m}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	}
	return s
}

// The smallest quota search, worked out by hand. Each Job needs 2 cores
// of quota at once. Under 2 cores nothing is admitted; with 2 or 3 the
// Jobs go one at a time (admitted at 0, 10m, 20m, 30m); with 4 to 7 two at
// a time (0, 0, 10m, 10m); with 8 all at 0. Longest time to admission at
// most 15m: 4 cores, after runs of 0, 1, 2 and 4 (the gallop) and 3 (the
// bisection). At most 5m: 8 cores.
func TestSmallestNominalQuota(t *testing.T) {
	sc := loadKueue(t, fourJobs())
	q := whatif.QuotaQuestion{ClusterQueue: "cq", Flavor: "default", Resource: "cpu", Max: 8}
	for _, workers := range []int{1, 3} {
		a, err := whatif.SmallestNominalQuota(sc, q, whatif.Criteria{MaxWait: 15 * time.Minute}, whatif.Options{Workers: workers})
		require.NoError(t, err)
		require.True(t, a.Found, a.Reason)
		assert.Equal(t, 4, a.Count)
		assert.Equal(t, 8, a.Limit)
		assert.Equal(t, "quota:cq:default:cpu:nominalQuota=4", a.Variant.Name)
		var counts []int
		for _, r := range a.Runs {
			counts = append(counts, r.Count)
		}
		assert.Equal(t, []int{0, 1, 2, 4, 3}, counts, "the same path with %d workers", workers)
		assert.Equal(t, 4, a.Runs[0].WorkloadsPending, "with no quota nothing is admitted")
		assert.InDelta(t, (30 * time.Minute).Seconds(), a.Runs[2].Wait.Seconds(), 5, "with Kueue's reactions of a second or so")
		assert.InDelta(t, (10 * time.Minute).Seconds(), a.Runs[3].Wait.Seconds(), 5)
		assert.Empty(t, a.Cautions)
		require.NotNil(t, a.Summary.Kueue)
		cq := a.Summary.Kueue.ClusterQueues[0]
		assert.Equal(t, 4, cq.Admitted)
		assert.InDelta(t, 4, cq.Quota[0].Nominal, 0)
		assert.InDelta(t, 4, cq.Quota[0].UsedPeak, 0)
		assert.Equal(t, "every workload of ClusterQueue cq admitted by the end of the run, and the longest time to admission at most 15m0s", a.Criterion)
	}
	a, err := whatif.SmallestNominalQuota(sc, q, whatif.Criteria{MaxWait: 5 * time.Minute}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, 8, a.Count)
	// the median (p50) within 5m: two at a time puts half at 0 already
	a, err = whatif.SmallestNominalQuota(sc, q, whatif.Criteria{MaxWait: 5 * time.Minute, Quantile: 0.5}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, 4, a.Count)
	// only admission: 2 cores
	a, err = whatif.SmallestNominalQuota(sc, q, whatif.Criteria{}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, a.Count)

	var table bytes.Buffer
	require.NoError(t, a.WriteTable(&table))
	assert.Contains(t, table.String(), "Smallest nominal quota of cpu (cores) in flavor default of ClusterQueue cq so that its workloads are all admitted?\nAnswer: 2 (quota:cq:default:cpu:nominalQuota=2)")
	assert.Contains(t, table.String(), "WORKLOADS WAITING  BOUNDED ADMISSION")
	assert.Contains(t, table.String(), "ClusterQueue cq time to admission mean / p50 / p90 / p99")
	out, err := a.JSON()
	require.NoError(t, err)
	var parsed struct {
		NominalQuota int `json:"nominalQuota"`
		Runs         []struct {
			NominalQuota int `json:"nominalQuota"`
			Pending      int `json:"workloadsPendingAtEnd"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(out, &parsed))
	assert.Equal(t, 2, parsed.NominalQuota)
	assert.Equal(t, 4, parsed.Runs[0].Pending)

	// not found within the bounds, and bad questions
	a, err = whatif.SmallestNominalQuota(sc, whatif.QuotaQuestion{ClusterQueue: "cq", Flavor: "default", Resource: "cpu", Max: 7},
		whatif.Criteria{MaxWait: 5 * time.Minute}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	assert.False(t, a.Found)
	assert.Equal(t, "with 7, the longest time to admission is still 10m1s, over 5m0s", a.Reason)
	a, err = whatif.SmallestNominalQuota(sc, whatif.QuotaQuestion{ClusterQueue: "cq", Flavor: "default", Resource: "cpu", Max: 1},
		whatif.Criteria{}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, "with 1, 4 of its workloads still wait at the end", a.Reason)
	for _, bad := range []struct {
		q    whatif.QuotaQuestion
		c    whatif.Criteria
		want string
	}{
		{whatif.QuotaQuestion{ClusterQueue: "x", Flavor: "default", Resource: "cpu"}, whatif.Criteria{}, `ClusterQueue "x" is not one of the scenario's`},
		{whatif.QuotaQuestion{ClusterQueue: "cq", Flavor: "default", Resource: "memory"}, whatif.Criteria{}, "flavor default has no quota of memory"},
		{whatif.QuotaQuestion{ClusterQueue: "cq", Flavor: "default", Resource: "cpu", Min: 5, Max: 3}, whatif.Criteria{}, "the largest nominal quota to try, 3, is under the smallest, 5"},
		{q, whatif.Criteria{MaxWait: time.Minute, Quantile: 0.75}, "wait quantile 0.75 is not"},
		{q, whatif.Criteria{MaxWait: time.Minute, Workload: "j1"}, "not a workload's waits"},
	} {
		_, err := whatif.SmallestNominalQuota(sc, bad.q, bad.c, whatif.Options{Workers: 1})
		assert.ErrorContains(t, err, bad.want)
	}
}

// Variants of Kueue side by side: each ClusterQueue's rows.
func TestCompareKueue(t *testing.T) {
	sc := loadKueue(t, fourJobs())
	base, _ := whatif.ParseVariant("base")
	more, err := whatif.ParseVariant("quota:cq:default:cpu:nominalQuota=+4")
	require.NoError(t, err)
	c, err := whatif.Compare(sc, []whatif.Variant{base, more}, whatif.Options{Workers: 1})
	require.NoError(t, err)
	require.NotNil(t, c.Variants[0].Summary.Kueue)
	assert.InDelta(t, 300, c.Variants[0].Summary.Kueue.ClusterQueues[0].TimeToAdmission.Mean, 5, "0, 0, 10m, 10m")
	assert.InDelta(t, 0, c.Variants[1].Summary.Kueue.ClusterQueues[0].TimeToAdmission.Max, 1)
	var b bytes.Buffer
	require.NoError(t, c.WriteTable(&b))
	for _, want := range []string{"ClusterQueue cq admitted                                  4 of 4",
		"ClusterQueue cq default cpu used mean / peak of nominal   4.0 / 4 of 4 cores         8.0 / 8 of 8 cores",
		"ClusterQueue cq time to admission mean / p50 / p90 / p99  5m1s / 0s / 10m1s / 10m1s  0s / 0s / 0s / 0s", "ClusterQueue cq evictions"} {
		assert.Contains(t, b.String(), want)
	}
}
