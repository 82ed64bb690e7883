package kueue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Random cohort trees and workloads, run with finishes and evictions in
// between: after every step the cache's usage is what recomputing it from
// the admitted workloads gives (each ClusterQueue's the sum of its
// workloads', each Cohort's what its children use beyond their local
// quota), and no ClusterQueue uses more than it could ever use (its
// potential available) — the quota arithmetic kept incrementally agrees
// with the brute force.
func TestUsageMatchesItsRecomputation(t *testing.T) {
	for seed := range uint64(60) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			o := randomObjects(rng)
			cfg := DefaultConfig()
			cfg.PodsReady.Timeout = 0
			a, err := New(o, cfg)
			if err != nil {
				t.Fatal(err)
			}
			a.SetNamespace("default", nil)
			var keys []string
			for i := range 60 {
				q := o.LocalQueues[rng.IntN(len(o.LocalQueues))].Name
				w := &Workload{Namespace: "default", Name: fmt.Sprintf("w%d", i), Queue: q, Priority: int32(rng.IntN(3) * 100),
					Created: a.Now(), PodSets: []PodSet{{Name: "main", Count: int32(1 + rng.IntN(4)),
						Requests: cluster.ResourceList{cluster.ResourceCPU: int64(1+rng.IntN(3)) * 1000}}}}
				if err := a.Add(w); err != nil {
					t.Fatal(err)
				}
				keys = append(keys, w.Key())
				if rng.IntN(2) == 0 {
					continue // arrivals at the same time meet in one cycle
				}
				for range 1 + rng.IntN(4) {
					next, ok := a.NextTime()
					if !ok {
						break
					}
					if err := a.AdvanceTo(max(next, a.Now())); err != nil {
						t.Fatal(err)
					}
					for _, e := range a.Step() {
						if e.Kind == Evicted {
							if err := a.Released(e.Workload); err != nil {
								t.Fatal(err)
							}
						}
					}
					checkUsage(t, a)
				}
				if rng.IntN(3) == 0 {
					if err := a.Finish(keys[rng.IntN(len(keys))]); err != nil {
						t.Fatal(err)
					}
					checkUsage(t, a)
				}
				if err := a.AdvanceTo(a.Now() + time.Duration(rng.IntN(3))*time.Second); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// randomObjects is a tree of 1-3 cohorts (a root and children, some with
// quota of their own) and 2-6 ClusterQueues of cpu in one flavor, with
// random limits and preemption.
func randomObjects(rng *rand.Rand) *Objects {
	var cohorts []Cohort
	names := []string{"root"}
	cohorts = append(cohorts, Cohort{Name: "root"})
	for i := range rng.IntN(3) {
		c := Cohort{Name: fmt.Sprintf("co-%d", i), ParentName: "root"}
		if rng.IntN(2) == 0 {
			c.ResourceGroups = []ResourceGroup{group(quotas("f", rq{name: cpu, nominal: fmt.Sprint(rng.IntN(5))}))}
		}
		cohorts = append(cohorts, c)
		names = append(names, c.Name)
	}
	var cqs []ClusterQueue
	for i := range 2 + rng.IntN(5) {
		r := rq{name: cpu, nominal: fmt.Sprint(rng.IntN(8))}
		if rng.IntN(2) == 0 {
			r.borrowing = fmt.Sprint(rng.IntN(6))
		}
		if n := rng.IntN(8); rng.IntN(3) == 0 && r.nominal != "0" {
			r.lending = fmt.Sprint(min(n, int(qty(cpu, r.nominal)/1000)))
		}
		q := newCQ(fmt.Sprintf("cq-%d", i), names[rng.IntN(len(names))], group(quotas("f", r)))
		q.Preemption.WithinClusterQueue = []PreemptionPolicy{PreemptNever, PreemptLowerPriority}[rng.IntN(2)]
		q.Preemption.ReclaimWithinCohort = []PreemptionPolicy{PreemptNever, PreemptLowerPriority, PreemptAny}[rng.IntN(3)]
		if rng.IntN(2) == 0 {
			q.QueueingStrategy = StrictFIFO
		}
		cqs = append(cqs, q)
	}
	return objects(cqs, cohorts...)
}

// checkUsage recomputes every node's usage from the admitted workloads.
func checkUsage(t *testing.T, a *Admitter) {
	t.Helper()
	want := map[*node][]int64{}
	var walk func(n *node) []int64
	walk = func(n *node) []int64 {
		u := make([]int64, len(a.frs))
		if n.cq != nil {
			for _, wi := range n.cq.admitted {
				for _, x := range wi.usage {
					u[x.fr] += x.v
				}
			}
		}
		for _, c := range append(append([]*node{}, n.cohorts...), n.queues...) {
			cu := walk(c)
			for i := range u {
				u[i] += max(0, cu[i]-c.localQuota(i))
			}
		}
		want[n] = u
		return u
	}
	for _, n := range a.allNodes() {
		if n.parent == nil {
			walk(n)
		}
	}
	for n, u := range want {
		for i := range u {
			if n.usage[i] != u[i] {
				t.Fatalf("%s: usage of %v is %d, recomputed %d", n.name, a.frs[i], n.usage[i], u[i])
			}
		}
		for i := range u {
			if n.cq != nil {
				if p := n.potentialAvailable(i); n.usage[i] > p {
					t.Fatalf("%s uses %d of %v, more than it could ever use (%d)", n.name, n.usage[i], a.frs[i], p)
				}
			}
			if b := n.quotas[i].borrowingLimit; b != nil && n.usage[i] > n.subtree[i]+*b {
				t.Fatalf("%s uses %d of %v, beyond its quota %d and borrowing limit %d", n.name, n.usage[i], a.frs[i], n.subtree[i], *b)
			}
			if n.parent == nil && n.usage[i] > n.subtree[i] {
				t.Fatalf("%s, a root, uses %d of %v, more than its subtree's quota %d", n.name, n.usage[i], a.frs[i], n.subtree[i])
			}
		}
	}
}
