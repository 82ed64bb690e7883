package kueue

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Builders for the cases ported from Kueue's own unit tests: workloads,
// queues and admissions written as Kueue's test wrappers write them, and a
// harness that runs one admission cycle, as Kueue's TestSchedule does, and
// reports what the scheduler's cache and queues hold after it.

// pwl is a workload built as Kueue's MakeWorkload builds one: a pod set
// "main" of one pod unless pod sets are given.
type pwl struct{ w *Workload }

func mkWl(name, ns string) *pwl {
	return &pwl{&Workload{Namespace: ns, Name: name, PodSets: []PodSet{{Name: "main", Count: 1, Requests: cluster.ResourceList{}}}}}
}

func (b *pwl) queue(q string) *pwl       { b.w.Queue = q; return b }
func (b *pwl) prio(p int32) *pwl         { b.w.Priority = p; return b }
func (b *pwl) created(s int) *pwl        { b.w.Created = time.Duration(s) * time.Second; return b }
func (b *pwl) podSets(ps ...PodSet) *pwl { b.w.PodSets = ps; return b }

// req adds a request per pod of the first pod set.
func (b *pwl) req(r cluster.ResourceName, v string) *pwl {
	b.w.PodSets[0].Requests[r] = qty(r, v)
	return b
}

// ps is a pod set of count pods with requests given as name, quantity
// pairs.
func ps(name string, count int32, reqs ...string) PodSet {
	p := PodSet{Name: name, Count: count, Requests: cluster.ResourceList{}}
	for i := 0; i+1 < len(reqs); i += 2 {
		r := cluster.ResourceName(reqs[i])
		p.Requests[r] = qty(r, reqs[i+1])
	}
	return p
}

func (p PodSet) min(n int32) PodSet { p.MinCount = n; return p }

// sel gives the pod set a node selector.
func (p PodSet) sel(m map[string]string) PodSet { p.NodeSelector = m; return p }

// aff gives the pod set required node affinity terms, each of "In"
// requirements written key=value1|value2.
func (p PodSet) aff(terms ...[]string) PodSet {
	na := &cluster.NodeAffinity{}
	for _, t := range terms {
		var term cluster.SelectorTerm
		for _, e := range t {
			k, v, _ := strings.Cut(e, "=")
			term.MatchExpressions = append(term.MatchExpressions, cluster.SelectorRequirement{Key: k, Operator: cluster.SelectorIn, Values: strings.Split(v, "|")})
		}
		na.Required = append(na.Required, term)
	}
	p.Affinity = na
	return p
}

// tolSpot makes the pod set tolerate instance=spot:NoSchedule.
func (p PodSet) tolSpot() PodSet {
	p.Tolerations = append(p.Tolerations, cluster.Toleration{Key: "instance", Operator: cluster.TolerationEqual, Value: "spot", Effect: cluster.TaintNoSchedule})
	return p
}

// adm is an admission: "cq", then per pod set "name:count:res=flavor,res=flavor"
// (count 0: the pod set's count).
func adm(cq string, podSets ...string) Admission {
	ad := Admission{ClusterQueue: cq}
	for _, s := range podSets {
		parts := strings.SplitN(s, ":", 3)
		var count int32
		fmt.Sscan(parts[1], &count)
		p := PodSetAssignment{Name: parts[0], Count: count, Flavors: map[cluster.ResourceName]string{}}
		for _, kv := range strings.Split(parts[2], ",") {
			r, f, _ := strings.Cut(kv, "=")
			p.Flavors[cluster.ResourceName(r)] = f
		}
		ad.PodSets = append(ad.PodSets, p)
	}
	return ad
}

// fmtAdm writes an admission as adm reads it, with the counts.
func fmtAdm(ad *Admission) string {
	parts := []string{ad.ClusterQueue}
	for _, p := range ad.PodSets {
		var fl []string
		for _, r := range slices.Sorted(maps.Keys(p.Flavors)) {
			fl = append(fl, string(r)+"="+p.Flavors[r])
		}
		parts = append(parts, fmt.Sprintf("%s:%d:%s", p.Name, p.Count, strings.Join(fl, ",")))
	}
	return strings.Join(parts, " ")
}

// res is a resource's quota in a flavor as Kueue's FlavorQuotas wrapper
// writes it: nominal, then borrowing limit and lending limit ("" for
// none).
func res(name cluster.ResourceName, limits ...string) ResourceQuota {
	q := ResourceQuota{Name: name, NominalQuota: qty(name, limits[0])}
	if len(limits) > 1 && limits[1] != "" {
		q.BorrowingLimit = ptr(qty(name, limits[1]))
	}
	if len(limits) > 2 && limits[2] != "" {
		q.LendingLimit = ptr(qty(name, limits[2]))
	}
	return q
}

func fq(flavor string, rs ...ResourceQuota) FlavorQuotas {
	return FlavorQuotas{Name: flavor, Resources: rs}
}

// rg is a resource group covering the first flavor's resources.
func rg(flavors ...FlavorQuotas) ResourceGroup {
	g := ResourceGroup{Flavors: flavors}
	for _, r := range flavors[0].Resources {
		g.CoveredResources = append(g.CoveredResources, r.Name)
	}
	return g
}

// pcq is a ClusterQueue as Kueue's MakeClusterQueue makes it: every
// namespace selected, BestEffortFIFO, no preemption.
type pcq struct{ q ClusterQueue }

func mkCQ(name string) *pcq {
	return &pcq{ClusterQueue{Name: name, NamespaceSelector: &cluster.LabelSelector{}, QueueingStrategy: BestEffortFIFO}}
}
func (b *pcq) cohort(c string) *pcq { b.q.CohortName = c; return b }
func (b *pcq) strict() *pcq         { b.q.QueueingStrategy = StrictFIFO; return b }
func (b *pcq) groups(g ...ResourceGroup) *pcq {
	b.q.ResourceGroups = append(b.q.ResourceGroups, g...)
	return b
}
func (b *pcq) preempt(p Preemption) *pcq     { b.q.Preemption = p; return b }
func (b *pcq) fung(f FlavorFungibility) *pcq { b.q.FlavorFungibility = f; return b }
func (b *pcq) nsIn(key string, v ...string) *pcq {
	b.q.NamespaceSelector = &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: key, Operator: cluster.LabelIn, Values: v}}}
	return b
}
func (b *pcq) obj() ClusterQueue { return b.q }

func lq(ns, name, cq string) LocalQueue {
	return LocalQueue{Namespace: ns, Name: name, ClusterQueue: cq}
}

// admittedWorkload is a workload that holds quota when the case starts.
type admittedWorkload struct {
	w   *pwl
	adm Admission
}

// cycleCase is one case of a one-cycle test: the objects beyond the
// suite's, the workloads holding quota and pending, and what Kueue's
// test expects after one cycle.
type cycleCase struct {
	cqs      []ClusterQueue
	lqs      []LocalQueue
	cohorts  []Cohort
	flavors  []ResourceFlavor
	admitted []admittedWorkload
	pending  []*pwl
	// noPartial turns the PartialAdmission gate off.
	noPartial bool
	// fair turns fair sharing on (default preemption strategies).
	fair bool

	// wantAssignments are every workload holding quota after the cycle.
	wantAssignments map[string]string
	// wantLeft and wantInadmissible are the pending workloads in each
	// queue's heap and inadmissible set.
	wantLeft, wantInadmissible map[string][]string
	// wantPreempted are the workloads evicted in the cycle, with the
	// reason: "ns/name:InClusterQueue".
	wantPreempted []string
	// wantMessages are pending workloads' QuotaReserved messages.
	wantMessages map[string]string
	// wantEvictMessages are the preempted workloads' messages. Kueue's
	// name the preemptor's UID and its job's UID; the model has neither
	// and writes the preemptor's key and UNKNOWN, as Kueue does for a
	// missing UID.
	wantEvictMessages map[string]string
}

// cycleSuite is the suite's shared objects and namespaces.
type cycleSuite struct {
	flavors    []ResourceFlavor
	cqs        []ClusterQueue
	lqs        []LocalQueue
	namespaces map[string]map[string]string
}

// run builds the Admitter, adds the workloads, runs one cycle and checks
// the case.
func (s *cycleSuite) run(t *testing.T, tc cycleCase) *Admitter {
	t.Helper()
	o := &Objects{ResourceFlavors: append(slices.Clone(s.flavors), tc.flavors...), ClusterQueues: append(slices.Clone(s.cqs), tc.cqs...),
		LocalQueues: append(slices.Clone(s.lqs), tc.lqs...), Cohorts: tc.cohorts}
	// Kueue's unit tests bypass its webhooks and give queues without a
	// cohort borrowing limits ("sales": 50, borrowing limit 0), which the
	// webhook rejects and New too. Without a parent a limit changes
	// nothing, so it is dropped here.
	for i := range o.ClusterQueues {
		if o.ClusterQueues[i].CohortName == "" {
			o.ClusterQueues[i].ResourceGroups = dropLimits(o.ClusterQueues[i].ResourceGroups)
		}
	}
	cfg := DefaultConfig()
	cfg.PartialAdmission = !tc.noPartial
	if tc.fair {
		cfg.FairSharing = &FairSharingConfig{}
	}
	a, err := New(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for ns, l := range s.namespaces {
		a.SetNamespace(ns, l)
	}
	evs := stepWith(t, a, tc.admitted, tc.pending)
	checkCycle(t, a, evs, tc)
	return a
}

func checkCycle(t *testing.T, a *Admitter, evs []Event, tc cycleCase) {
	t.Helper()
	got := map[string]string{}
	for _, q := range a.queues {
		for k, wi := range q.admitted {
			got[k] = fmtAdm(wi.admission)
		}
	}
	want := tc.wantAssignments
	if want == nil {
		want = map[string]string{}
	}
	assert.Equal(t, want, got, "assignments")
	left, inadm := map[string][]string{}, map[string][]string{}
	for _, q := range a.queues {
		for _, wi := range q.heap {
			left[q.spec.Name] = append(left[q.spec.Name], wi.key)
		}
		for _, k := range sortedKeys(q.inadmissible) {
			inadm[q.spec.Name] = append(inadm[q.spec.Name], k)
		}
		slices.Sort(left[q.spec.Name])
	}
	assert.Equal(t, nonNil(tc.wantLeft), left, "left in the queues")
	assert.Equal(t, nonNil(tc.wantInadmissible), inadm, "left inadmissible")
	var preempted []string
	for _, e := range evs {
		if e.Kind == Evicted {
			preempted = append(preempted, e.Workload+":"+e.Preemption)
			if m, ok := tc.wantEvictMessages[e.Workload]; ok {
				assert.Equal(t, m, e.Message, "eviction message of %s", e.Workload)
			}
		}
	}
	slices.Sort(preempted)
	assert.Equal(t, tc.wantPreempted, preempted, "preempted")
	for k, m := range tc.wantMessages {
		assert.Equal(t, m, a.workloads[k].message, "message of %s", k)
	}
}

func nonNil(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range m {
		out[k] = slices.Sorted(slices.Values(v))
	}
	return out
}

const gpu = cluster.ResourceName("example.com/gpu")

// dropLimits copies resource groups without borrowing and lending limits.
func dropLimits(rgs []ResourceGroup) []ResourceGroup {
	out := slices.Clone(rgs)
	for i := range out {
		out[i].Flavors = slices.Clone(out[i].Flavors)
		for j := range out[i].Flavors {
			out[i].Flavors[j].Resources = slices.Clone(out[i].Flavors[j].Resources)
			for k := range out[i].Flavors[j].Resources {
				out[i].Flavors[j].Resources[k].BorrowingLimit = nil
				out[i].Flavors[j].Resources[k].LendingLimit = nil
			}
		}
	}
	return out
}

// stepWith adds the admitted and the pending workloads to a, drops the
// events that made, and runs one cycle, returning its events.
func stepWith(t *testing.T, a *Admitter, admitted []admittedWorkload, pending []*pwl) []Event {
	t.Helper()
	for _, x := range admitted {
		if err := a.AddAdmitted(x.w.w, x.adm); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range pending {
		if err := a.Add(w.w); err != nil {
			t.Fatal(err)
		}
	}
	a.Events()
	return a.Step()
}
