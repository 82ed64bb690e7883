package kueue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

// With fair sharing on, random small cohort trees (random weights on
// queues and cohorts) and a fixed set of workloads that never finish:
// no two workloads preempt each other back and forth, the point of fair
// sharing's preemption strategies (a preemption must not leave the
// preemptor's side with a higher share than the victim's), and the
// usage stays what recomputing it gives.
func TestFairSharingDoesNotFlap(t *testing.T) {
	weights := []float64{0.5, 1, 2, 3}
	preempted := 0
	kinds := map[string]int{}
	for seed := range uint64(80) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 46))
			o := randomObjects(rng)
			for i := range o.ClusterQueues {
				o.ClusterQueues[i].FairSharing = fsw(weights[rng.IntN(len(weights))])
			}
			for i := range o.Cohorts {
				if o.Cohorts[i].ParentName != "" {
					o.Cohorts[i].FairSharing = fsw(weights[rng.IntN(len(weights))])
				}
			}
			cfg := DefaultConfig()
			cfg.PodsReady.Timeout = 0
			cfg.FairSharing = &FairSharingConfig{}
			if rng.IntN(3) == 0 {
				cfg.FairSharing.PreemptionStrategies = []string{[]string{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}[rng.IntN(2)]}
			}
			a, err := New(o, cfg)
			if err != nil {
				t.Fatal(err)
			}
			a.SetNamespace("default", nil)
			// who preempted whom in the cohort (reclaim or fair sharing)
			by := map[[2]string]bool{}
			step := func() {
				for _, e := range a.Step() {
					if e.Kind != Evicted {
						continue
					}
					if err := a.Released(e.Workload); err != nil {
						t.Fatal(err)
					}
					kinds[e.Preemption]++
					if e.Preemption != InCohortFairSharing && e.Preemption != InCohortReclamation {
						continue
					}
					preempted++
					if by[[2]string{e.Workload, e.By}] {
						t.Fatalf("%s preempted %s (%s), after %s preempted it", e.By, e.Workload, e.Preemption, e.Workload)
					}
					by[[2]string{e.By, e.Workload}] = true
				}
				checkUsage(t, a)
			}
			for i := range 30 {
				q := o.LocalQueues[rng.IntN(len(o.LocalQueues))].Name
				w := &Workload{Namespace: "default", Name: fmt.Sprintf("w%02d", i), Queue: q, Priority: int32(rng.IntN(2) * 100),
					Created: a.Now(), PodSets: []PodSet{{Name: "main", Count: 1,
						Requests: cluster.ResourceList{cluster.ResourceCPU: int64(1+rng.IntN(3)) * 1000}}}}
				if err := a.Add(w); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(2) == 0 {
					continue
				}
				next, ok := a.NextTime()
				if !ok {
					continue
				}
				if err := a.AdvanceTo(max(next, a.Now())); err != nil {
					t.Fatal(err)
				}
				step()
			}
			for range 2000 {
				next, ok := a.NextTime()
				if !ok {
					break
				}
				if err := a.AdvanceTo(max(next, a.Now())); err != nil {
					t.Fatal(err)
				}
				step()
			}
		})
	}
	if preempted == 0 {
		t.Log(kinds)
		t.Fatal("no preemption in the cohorts: the test checks nothing")
	}
	t.Logf("%d preemptions in cohorts; evictions by reason: %v", preempted, kinds)
}
