package kueue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// The tests' shorthand: quantities as Kubernetes writes them, one flavor
// group per queue, workloads of one pod set.

func qty(r cluster.ResourceName, s string) int64 {
	v, err := cluster.ParseResourceQuantity(r, s)
	if err != nil {
		panic(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// rq is a resource's quota: "10" nominal, and optional limits.
type rq struct {
	name               cluster.ResourceName
	nominal            string
	borrowing, lending string // "" for none
}

func quotas(flavor string, rs ...rq) FlavorQuotas {
	f := FlavorQuotas{Name: flavor}
	for _, r := range rs {
		q := ResourceQuota{Name: r.name, NominalQuota: qty(r.name, r.nominal)}
		if r.borrowing != "" {
			q.BorrowingLimit = ptr(qty(r.name, r.borrowing))
		}
		if r.lending != "" {
			q.LendingLimit = ptr(qty(r.name, r.lending))
		}
		f.Resources = append(f.Resources, q)
	}
	return f
}

func group(flavors ...FlavorQuotas) ResourceGroup {
	rg := ResourceGroup{Flavors: flavors}
	for _, r := range flavors[0].Resources {
		rg.CoveredResources = append(rg.CoveredResources, r.Name)
	}
	return rg
}

func newCQ(name, cohort string, rgs ...ResourceGroup) ClusterQueue {
	return ClusterQueue{Name: name, CohortName: cohort, ResourceGroups: rgs, NamespaceSelector: &cluster.LabelSelector{}}
}

// wl is a workload of one pod set "main" of count pods asking for cpu
// (and memory when given), created at the second created.
func wl(name, queue string, prio int32, created int, count int32, cpu string) *Workload {
	return &Workload{Namespace: "default", Name: name, Queue: queue, Priority: prio, Created: time.Duration(created) * time.Second,
		PodSets: []PodSet{{Name: "main", Count: count, Requests: cluster.ResourceList{cluster.ResourceCPU: qty(cluster.ResourceCPU, cpu)}}}}
}

// objects fills in the flavors the queues name and a LocalQueue
// lq-<queue> per queue.
func objects(cqs []ClusterQueue, cohorts ...Cohort) *Objects {
	o := &Objects{ClusterQueues: cqs, Cohorts: cohorts}
	seen := map[string]bool{}
	add := func(rgs []ResourceGroup) {
		for _, rg := range rgs {
			for _, f := range rg.Flavors {
				if !seen[f.Name] {
					seen[f.Name] = true
					o.ResourceFlavors = append(o.ResourceFlavors, ResourceFlavor{Name: f.Name})
				}
			}
		}
	}
	for _, q := range cqs {
		add(q.ResourceGroups)
		o.LocalQueues = append(o.LocalQueues, LocalQueue{Namespace: "default", Name: "lq-" + q.Name, ClusterQueue: q.Name})
	}
	for _, c := range cohorts {
		add(c.ResourceGroups)
	}
	slices.SortFunc(o.ResourceFlavors, func(x, y ResourceFlavor) int { return strings.Compare(x.Name, y.Name) })
	return o
}

// run is an Admitter driven as a test drives it: workloads added, time
// run until nothing is due, and a transcript of the events.
type run struct {
	t   *testing.T
	a   *Admitter
	log []Event
}

func newRun(t *testing.T, o *Objects) *run {
	t.Helper()
	cfg := DefaultConfig()
	cfg.PodsReady.Timeout = 0 // no pods here: their readiness is not the test's
	a, err := New(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.SetNamespace("default", nil)
	return &run{t: t, a: a}
}

func (r *run) add(ws ...*Workload) {
	r.t.Helper()
	for _, w := range ws {
		if err := r.a.Add(w); err != nil {
			r.t.Fatal(err)
		}
	}
	r.log = append(r.log, r.a.Events()...)
}

// settle runs the Admitter until nothing is due, releasing every evicted
// workload at once (its job stops instantly), at most limit steps.
func (r *run) settle() {
	r.t.Helper()
	for i := 0; i < 10000; i++ {
		t, ok := r.a.NextTime()
		if !ok {
			return
		}
		if err := r.a.AdvanceTo(max(t, r.a.Now())); err != nil {
			r.t.Fatal(err)
		}
		evs := r.a.Step()
		r.log = append(r.log, evs...)
		for _, e := range evs {
			if e.Kind == Evicted {
				if err := r.a.Released(e.Workload); err != nil {
					r.t.Fatal(err)
				}
				r.log = append(r.log, r.a.Events()...)
			}
		}
		if r.quiet() {
			return
		}
	}
	r.t.Fatal("no end")
}

// quiet reports whether the only things due are cycles that can change
// nothing: every queue's heap is empty, or holds only StrictFIFO heads
// that failed the same way as before.
func (r *run) quiet() bool {
	for _, q := range r.a.queues {
		if len(q.heap) > 0 && !q.strict {
			return false
		}
	}
	for _, x := range r.a.requeues {
		_ = x
		return false
	}
	for _, q := range r.a.queues {
		if len(q.heap) > 0 && q.heap[0].message == "" {
			return false
		}
	}
	return r.a.cycleIdle
}

func (r *run) finish(keys ...string) {
	r.t.Helper()
	for _, k := range keys {
		if err := r.a.Finish("default/" + k); err != nil {
			r.t.Fatal(err)
		}
	}
	r.log = append(r.log, r.a.Events()...)
}

// admitted lists the workloads holding quota, by queue: "cq-a: w1 w2".
func (r *run) admitted() string {
	var out []string
	for _, q := range r.a.queues {
		var names []string
		for _, k := range sortedKeys(q.admitted) {
			if q.admitted[k].state == stateAdmitted {
				names = append(names, strings.TrimPrefix(k, "default/"))
			}
		}
		out = append(out, fmt.Sprintf("%s: %s", q.spec.Name, strings.Join(names, " ")))
	}
	return strings.Join(out, "; ")
}

// message is a pending workload's last message.
func (r *run) message(name string) string {
	return r.a.workloads["default/"+name].message
}

// order is the admissions in order.
func (r *run) order() []string {
	var out []string
	for _, e := range r.log {
		if e.Kind == QuotaReserved {
			out = append(out, strings.TrimPrefix(e.Workload, "default/"))
		}
	}
	return out
}

// evictions is the evictions in order: "victim<-preemptor(reason)".
func (r *run) evictions() []string {
	var out []string
	for _, e := range r.log {
		if e.Kind == Evicted {
			out = append(out, fmt.Sprintf("%s<-%s(%s)", strings.TrimPrefix(e.Workload, "default/"), strings.TrimPrefix(e.By, "default/"), e.Preemption))
		}
	}
	return out
}
