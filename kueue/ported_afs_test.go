package kueue

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestScheduleForAFS (pkg/scheduler,
// scheduler_afs_test.go): one ClusterQueue cq1 (8 cpu, 8Gi) in the
// usage-based mode, LocalQueues lq-a, lq-b, lq-c of weight 1 and lq-zero
// of weight 0, a half-life of 10 s sampled every second; the LocalQueues'
// consumed usage is set, the workloads added, and as many cycles run as
// there are workloads, all at one time (no sample falls between them).

// afsSuite builds the case's Admitter: AFS on unless off.
func afsSuite(t *testing.T, off bool, usage map[string]float64, wls []*pwl) *Admitter {
	t.Helper()
	one, zero := int64(1e9), int64(0)
	cq := mkCQ("cq1").groups(rg(fq("default", res(cpu, "8"), res("memory", "8Gi")))).obj()
	cq.AdmissionMode = UsageBasedAdmissionFairSharing
	lqs := []LocalQueue{lq("default", "lq-a", "cq1"), lq("default", "lq-b", "cq1"), lq("default", "lq-c", "cq1"), lq("default", "lq-zero", "cq1")}
	for i := range lqs {
		lqs[i].FairSharing = &FairSharing{Weight: &one}
	}
	lqs[3].FairSharing.Weight = &zero
	cfg := DefaultConfig()
	if !off {
		cfg.AdmissionFairSharing = &AdmissionFairSharing{UsageHalfLifeTime: int64(10 * time.Second), UsageSamplingInterval: int64(time.Second)}
	}
	a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{cq}, LocalQueues: lqs}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.SetNamespace("default", nil)
	for _, k := range sortedKeys(usage) {
		if l := a.afs["default/"+k]; l != nil {
			l.consumed[cpu] = usage[k]
			l.refresh()
		}
	}
	for _, w := range wls {
		if err := a.Add(w.w); err != nil {
			t.Fatal(err)
		}
	}
	for range wls {
		a.runCycle()
	}
	return a
}

func TestPortedScheduleForAFS(t *testing.T) {
	wl := func(name, queue, cpus string, created int) *pwl {
		return mkWl(name, "default").queue(queue).created(created).podSets(ps("one", 1, "cpu", cpus))
	}
	noFit := func(n string) string {
		return "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor default, " + n + " more needed"
	}
	cases := map[string]struct {
		off          bool
		usage        map[string]float64
		wls          []*pwl
		wantAdmitted []string
		wantMessages map[string]string
	}{
		// lq-b used 2, lq-a 8: wl-b1 goes first though created later and
		// takes the 8; wl-a1 then does not fit.
		"admits workload from less active localqueue": {
			usage:        map[string]float64{"lq-a": 8, "lq-b": 2},
			wls:          []*pwl{wl("wl-a1", "lq-a", "8", 0), wl("wl-b1", "lq-b", "8", 1)},
			wantAdmitted: []string{"default/wl-b1"},
			wantMessages: map[string]string{"default/wl-a1": noFit("8")},
		},
		// Weight 0: lq-zero's usage is +Inf even at 0, so it goes last.
		"does not prioritize a zero-weight localqueue": {
			usage:        map[string]float64{"lq-a": 0, "lq-zero": 0},
			wls:          []*pwl{wl("wl-z1", "lq-zero", "8", 0), wl("wl-a1", "lq-a", "8", 1)},
			wantAdmitted: []string{"default/wl-a1"},
			wantMessages: map[string]string{"default/wl-z1": noFit("8")},
		},
		// Kueue deletes lq-b from the API (not from its queue manager):
		// only the weight lookup changes, falling back to 1, lq-b's weight
		// anyway. The model's objects do not change; the case runs without
		// the deletion. 4 + 4 fit the 8.
		"admits workload when another LQ is deleted": {
			usage:        map[string]float64{"lq-a": 0, "lq-b": 0},
			wls:          []*pwl{wl("wl-a1", "lq-a", "4", 0), wl("wl-b1", "lq-b", "4", 0)},
			wantAdmitted: []string{"default/wl-a1", "default/wl-b1"},
		},
		// The same with lq-a deleted.
		"admits workload even if its localqueue was deleted": {
			usage:        map[string]float64{"lq-a": 0},
			wls:          []*pwl{wl("wl-a1", "lq-a", "8", 0)},
			wantAdmitted: []string{"default/wl-a1"},
		},
		// The gate off: creation order, wl-a1 first.
		"without AFS: classic admission decision ignores queue usage": {
			off:          true,
			usage:        map[string]float64{"lq-a": 8, "lq-b": 2},
			wls:          []*pwl{wl("wl-a1", "lq-a", "8", 0), wl("wl-b1", "lq-b", "8", 1)},
			wantAdmitted: []string{"default/wl-a1"},
			wantMessages: map[string]string{"default/wl-b1": noFit("8")},
		},
		// Both used 4. Cycle 1: a tie, wl-a1 (older) is admitted and lq-a
		// is charged 4 × (1 − 0.5^(1/10)) = 0.268: 4.268. Cycle 2: lq-b
		// (4) first, wl-b1 takes the last 4 and lq-b is at 4.268 too.
		// Cycle 3: a tie again, wl-a2 (created 1 s, before wl-b2) does
		// not fit and goes to the inadmissible set with wl-b2, of its
		// shape; cycle 4 has no head.
		"admits one workload from each localqueue when quota is limited": {
			usage: map[string]float64{"lq-a": 4, "lq-b": 4},
			wls: []*pwl{wl("wl-a1", "lq-a", "4", 0), wl("wl-a2", "lq-a", "4", 1), wl("wl-b1", "lq-b", "4", 2),
				wl("wl-b2", "lq-b", "4", 3)},
			wantAdmitted: []string{"default/wl-a1", "default/wl-b1"},
			wantMessages: map[string]string{"default/wl-a2": noFit("4"), "default/wl-b2": ""},
		},
		// Equal usage: 4 + 3 + 1 fill the 8.
		"schedules normally when queues have equal usage": {
			usage:        map[string]float64{"lq-a": 2, "lq-b": 2, "lq-c": 2},
			wls:          []*pwl{wl("wl-a1", "lq-a", "4", 0), wl("wl-b1", "lq-b", "3", 0), wl("wl-c1", "lq-c", "1", 0)},
			wantAdmitted: []string{"default/wl-a1", "default/wl-b1", "default/wl-c1"},
		},
		// lq-b has no history (0): it goes first.
		"admits workload from lq-b with uninitialized cache": {
			usage:        map[string]float64{"lq-a": 8},
			wls:          []*pwl{wl("wl-a1", "lq-a", "8", 0), wl("wl-b1", "lq-b", "8", 1)},
			wantAdmitted: []string{"default/wl-b1"},
			wantMessages: map[string]string{"default/wl-a1": noFit("8")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := afsSuite(t, tc.off, tc.usage, tc.wls)
			var got []string
			for k, wi := range a.cqs["cq1"].admitted {
				if wi.state == stateAdmitted {
					got = append(got, k)
				}
			}
			slices.Sort(got)
			assert.Equal(t, tc.wantAdmitted, got)
			for k, m := range tc.wantMessages {
				assert.Equal(t, m, a.workloads[k].message, "message of %s", k)
			}
		})
	}
}

// Kueue's unit tests of the usage arithmetic
// (pkg/util/admissionfairsharing, admission_fair_sharing_test.go) that fit
// the model's units.
func TestPortedAFSUsage(t *testing.T) {
	// TestCalculateUsageWithNonPositiveWeight: a weight of 0 (or below) is
	// +Inf, idle or not.
	for name, tc := range map[string]struct {
		weight   float64
		consumed float64
	}{
		"zero weight, idle queue (no usage)": {0, 0},
		"zero weight, active queue":          {0, 4},
		"negative weight":                    {-1, 4},
	} {
		t.Run(name, func(t *testing.T) {
			a := &Admitter{cfg: Config{AdmissionFairSharing: &AdmissionFairSharing{}}}
			l := &lqUsage{a: a, weight: tc.weight, consumed: map[cluster.ResourceName]float64{cpu: tc.consumed}}
			assert.True(t, l.usage() > 1e308)
		})
	}
	// TestCalculateUsageWithDRA: weights default to 1, a weight of 0
	// drops the resource, the LocalQueue's weight divides. (The model
	// folds the entry penalty into consumed at admission: Kueue's
	// "consumed 2, penalty 1" is consumed 3 here.)
	gpuL := cluster.ResourceName("gpu-logical")
	for name, tc := range map[string]struct {
		consumed map[cluster.ResourceName]float64
		lqWeight float64
		weights  map[cluster.ResourceName]float64
		want     float64
	}{
		"DRA resource with default weight":                  {map[cluster.ResourceName]float64{gpuL: 2}, 1, nil, 2},
		"DRA resource with explicit weight":                 {map[cluster.ResourceName]float64{gpuL: 2}, 1, map[cluster.ResourceName]float64{gpuL: 3}, 6},
		"mixed CPU and DRA resources":                       {map[cluster.ResourceName]float64{cpu: 4, gpuL: 2}, 1, map[cluster.ResourceName]float64{cpu: 1, gpuL: 5}, 14},
		"DRA resource with weight zero contributes nothing": {map[cluster.ResourceName]float64{gpuL: 10}, 1, map[cluster.ResourceName]float64{gpuL: 0}, 0},
		"DRA resource in penalty only":                      {map[cluster.ResourceName]float64{gpuL: 3}, 1, nil, 3},
		"DRA resource in both consumed and penalty":         {map[cluster.ResourceName]float64{gpuL: 2 + 1}, 2, map[cluster.ResourceName]float64{gpuL: 4}, 6},
	} {
		t.Run(name, func(t *testing.T) {
			a := &Admitter{cfg: Config{AdmissionFairSharing: &AdmissionFairSharing{ResourceWeights: tc.weights}}}
			l := &lqUsage{a: a, weight: tc.lqWeight, consumed: tc.consumed}
			assert.InDelta(t, tc.want, l.usage(), 1e-12)
		})
	}
	// TestCalculateDecayedConsumedConvergesToUsage: a half-life of 168 h
	// sampled every 5 minutes (2016 samples a half-life) under a usage of
	// 2 cpu: 1, 1.5 and 1.75 after one, two and three half-lives (to a
	// milli-unit), never above 2. TestCalculateDecayedConsumedAccumulatesSubMilli:
	// each of the first samples adds (2 × 3.4e-4 cpu), and consumed grows.
	t.Run("converges to usage on the half-life curve", func(t *testing.T) {
		a := &Admitter{cfg: Config{AdmissionFairSharing: &AdmissionFairSharing{UsageHalfLifeTime: int64(168 * time.Hour)}}}
		l := &lqUsage{a: a, weight: 1, consumed: map[cluster.ResourceName]float64{}}
		usage := map[cluster.ResourceName]float64{cpu: 2, "nvidia.com/gpu": 1}
		prev := 0.0
		for s := range 3 {
			l.decay(usage, 5*time.Minute)
			assert.Greater(t, l.consumed[cpu], prev, "sample %d", s)
			prev = l.consumed[cpu]
		}
		l.consumed = map[cluster.ResourceName]float64{}
		for i, want := range []float64{1, 1.5, 1.75} {
			for range 2016 {
				l.decay(usage, 5*time.Minute)
			}
			assert.InDelta(t, want, l.consumed[cpu], 1e-3, "after %d half-lives", i+1)
			assert.LessOrEqual(t, l.consumed[cpu], 2.0)
		}
	})
	// TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive: a first
	// sample of 16Gi, 1Ti or 64Ti of memory (half-life 168 h) is above 0.
	for _, size := range []string{"16Gi", "1Ti", "64Ti"} {
		t.Run("large quantity "+size, func(t *testing.T) {
			a := &Admitter{cfg: Config{AdmissionFairSharing: &AdmissionFairSharing{UsageHalfLifeTime: int64(168 * time.Hour)}}}
			l := &lqUsage{a: a, weight: 1, consumed: map[cluster.ResourceName]float64{}}
			l.decay(map[cluster.ResourceName]float64{"memory": kubeAmount("memory", qty("memory", size))}, 5*time.Minute)
			assert.Greater(t, l.consumed["memory"], 0.0)
		})
	}
	// TestCalculateEntryPenaltyWithLongHalfLife: the penalty of a
	// workload is positive in every resource: α(5 min, 168 h) = 1 − 0.5^(300/604800) = 3.43764e-4.
	t.Run("entry penalty with a long half-life", func(t *testing.T) {
		alpha := afsAlpha(5*time.Minute, 168*time.Hour)
		assert.InDelta(t, 3.43764e-4, alpha, 1e-9)
		assert.Greater(t, 2*alpha, 0.0)
	})
}
