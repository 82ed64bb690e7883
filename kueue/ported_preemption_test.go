package kueue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestPreemption (pkg/scheduler/preemption/
// preemption_test.go), the classical cases (fair sharing's are in
// ported_fairpreempt_test.go), each under Kueue's name. Kueue's test puts admitted workloads
// in a cache, gives the incoming workload a flavor assignment (which
// resources need preemption), asks the preemptor for targets and issues
// them; it compares the workloads then marked preempted, with the reason,
// and checks that the snapshot is left as it was. These do the same with
// Admitter.getTargets.
//
// Kueue's queue and cohort names a_standard, b_standard, a_best_effort,
// b_best_effort, with_shared_cq and preventStarvation are not valid
// Kubernetes names (Kueue's webhook and New reject them): the same with
// dashes and in lower case here.

// preemptionSuite is TestPreemption's default ClusterQueues.
func preemptionSuite() []ClusterQueue {
	mem := cluster.ResourceMemory
	bwc := func(within, reclaim PreemptionPolicy) Preemption {
		return Preemption{WithinClusterQueue: within, ReclaimWithinCohort: reclaim, BorrowWithinCohort: PreemptLowerPriority, MaxPriorityThreshold: ptr(int32(0))}
	}
	lower := Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}
	any := Preemption{WithinClusterQueue: PreemptNever, ReclaimWithinCohort: PreemptAny}
	return []ClusterQueue{
		mkCQ("standalone").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
			groups(rg(fq("default", res(cpu, "6"))), rg(fq("alpha", res(mem, "3Gi")), fq("beta", res(mem, "3Gi")))).obj(),
		mkCQ("c1").cohort("cohort").preempt(lower).groups(rg(fq("default", res(cpu, "6", "6"), res(mem, "3Gi", "3Gi")))).obj(),
		mkCQ("c2").cohort("cohort").preempt(any).groups(rg(fq("default", res(cpu, "6", "6"), res(mem, "3Gi", "3Gi")))).obj(),
		mkCQ("d1").cohort("cohort-no-limits").preempt(lower).groups(rg(fq("default", res(cpu, "6"), res(mem, "3Gi")))).obj(),
		mkCQ("d2").cohort("cohort-no-limits").preempt(any).groups(rg(fq("default", res(cpu, "6"), res(mem, "3Gi")))).obj(),
		mkCQ("l1").cohort("legion").preempt(lower).groups(rg(fq("default", res(cpu, "6", "12"), res(mem, "3Gi", "6Gi")))).obj(),
		mkCQ("prevent-starvation").preempt(Preemption{WithinClusterQueue: PreemptLowerOrNewerEqualPriority}).groups(rg(fq("default", res(cpu, "6")))).obj(),
		mkCQ("a-standard").cohort("with-shared-cq").preempt(bwc(PreemptNever, PreemptLowerPriority)).groups(rg(fq("default", res(cpu, "1", "12")))).obj(),
		mkCQ("b-standard").cohort("with-shared-cq").preempt(bwc(PreemptLowerPriority, PreemptAny)).groups(rg(fq("default", res(cpu, "1", "12")))).obj(),
		mkCQ("a-best-effort").cohort("with-shared-cq").preempt(bwc(PreemptNever, PreemptLowerPriority)).groups(rg(fq("default", res(cpu, "1", "12")))).obj(),
		mkCQ("b-best-effort").cohort("with-shared-cq").preempt(bwc(PreemptNever, PreemptLowerPriority)).groups(rg(fq("default", res(cpu, "0", "13")))).obj(),
		mkCQ("shared").cohort("with-shared-cq").groups(rg(fq("default", res(cpu, "10")))).obj(),
		mkCQ("lend1").cohort("cohort-lend").preempt(lower).groups(rg(fq("default", res(cpu, "6", "", "4")))).obj(),
		mkCQ("lend2").cohort("cohort-lend").preempt(lower).groups(rg(fq("default", res(cpu, "6", "", "2")))).obj(),
		mkCQ("a").cohort("cohort-three").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
			groups(rg(fq("default", res(cpu, "2"), res(mem, "2")))).obj(),
		mkCQ("b").cohort("cohort-three").groups(rg(fq("default", res(cpu, "2"), res(mem, "2")))).obj(),
		mkCQ("c").cohort("cohort-three").groups(rg(fq("default", res(cpu, "2"), res(mem, "2")))).obj(),
	}
}

// pwlAdm is an admitted workload of a preemption case.
type pwlAdm struct {
	name, cq string
	prio     int32
	// podSets: "main:1:cpu=2@default,memory=1Gi@alpha" (count and each
	// resource's request per pod and flavor).
	podSets  []string
	created  time.Duration
	reserved time.Duration // when its quota was reserved
	evicted  bool
}

// aw is an admitted workload of one pod "main": reqs "cpu=2@default".
func aw(name, cq string, prio int32, reqs ...string) pwlAdm {
	return pwlAdm{name: name, cq: cq, prio: prio, podSets: []string{"main:1:" + strings.Join(reqs, ",")}}
}

func (p pwlAdm) at(d time.Duration) pwlAdm { p.reserved = d; return p }
func (p pwlAdm) evict() pwlAdm             { p.evicted = true; return p }

// parsePodSets reads "name:count:res=qty@flavor,..." into pod sets and
// their admission.
func parsePodSets(specs []string) ([]PodSet, []PodSetAssignment) {
	var pss []PodSet
	var as []PodSetAssignment
	for _, s := range specs {
		parts := strings.SplitN(s, ":", 3)
		var count int32
		fmt.Sscan(parts[1], &count)
		p := PodSet{Name: parts[0], Count: count, Requests: cluster.ResourceList{}}
		a := PodSetAssignment{Name: parts[0], Count: count, Flavors: map[cluster.ResourceName]string{}}
		for _, kv := range strings.Split(parts[2], ",") {
			r, rest, _ := strings.Cut(kv, "=")
			v, f, _ := strings.Cut(rest, "@")
			p.Requests[cluster.ResourceName(r)] = qty(cluster.ResourceName(r), v)
			if f != "" {
				a.Flavors[cluster.ResourceName(r)] = f
			}
		}
		pss = append(pss, p)
		as = append(as, a)
	}
	return pss, as
}

type preemptCase struct {
	cqs      []ClusterQueue // nil: the suite's
	cohorts  []Cohort
	flavors  []ResourceFlavor // nil: default, alpha, beta
	admitted []pwlAdm
	// incoming: its priority, creation time, and pod sets
	// "name:count:res=qty@flavor/Mode,..." (Mode: Fit or Preempt).
	prio     int32
	created  time.Duration
	incoming []string
	target   string
	// want: the targets, "name:Reason", sorted.
	want []string
	// fair turns fair sharing on, with these strategies.
	fair *FairSharingConfig
}

func (tc preemptCase) run(t *testing.T) {
	t.Helper()
	o := &Objects{ClusterQueues: tc.cqs, Cohorts: tc.cohorts, ResourceFlavors: tc.flavors}
	if o.ClusterQueues == nil {
		o.ClusterQueues = preemptionSuite()
	}
	if o.ResourceFlavors == nil {
		o.ResourceFlavors = []ResourceFlavor{{Name: "default"}, {Name: "alpha"}, {Name: "beta"}}
	}
	for i := range o.ClusterQueues {
		if o.ClusterQueues[i].CohortName == "" {
			o.ClusterQueues[i].ResourceGroups = dropLimits(o.ClusterQueues[i].ResourceGroups)
		}
	}
	cfg := DefaultConfig()
	cfg.FairSharing = tc.fair
	a, err := New(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tc.admitted {
		pss, as := parsePodSets(x.podSets)
		w := &Workload{Name: x.name, Priority: x.prio, Created: x.created, PodSets: pss}
		if err := a.AddAdmitted(w, Admission{ClusterQueue: x.cq, PodSets: as}); err != nil {
			t.Fatal(err)
		}
		wi := a.workloads[w.Key()]
		wi.reservedAt = x.reserved
		if x.evicted {
			wi.state = stateEvicted
		}
	}
	q := a.cqs[tc.target]
	// the incoming workload and its assignment
	var specs []string
	modes := map[string]map[cluster.ResourceName]Mode{}
	for _, s := range tc.incoming {
		parts := strings.SplitN(s, ":", 3)
		var kept []string
		modes[parts[0]] = map[cluster.ResourceName]Mode{}
		for _, kv := range strings.Split(parts[2], ",") {
			rest, mode, _ := strings.Cut(kv, "/")
			kept = append(kept, rest)
			r, _, _ := strings.Cut(rest, "=")
			modes[parts[0]][cluster.ResourceName(r)] = map[string]Mode{"Fit": Fit, "Preempt": Preempt}[mode]
		}
		specs = append(specs, parts[0]+":"+parts[1]+":"+strings.Join(kept, ","))
	}
	pss, psas := parsePodSets(specs)
	w := &Workload{Name: "in", Priority: tc.prio, Created: tc.created, PodSets: pss}
	wi := &info{w: w, key: w.Key(), cq: q}
	as := &assignment{usage: map[int]int64{}}
	for i, ps := range pss {
		psa := podSetAssignment{name: ps.Name, count: ps.Count, requests: cluster.ResourceList{}, flavors: map[cluster.ResourceName]*flavorAssignment{}}
		for r, v := range ps.Requests {
			f := psas[i].Flavors[r]
			total := mulAmount(v, int64(ps.Count))
			psa.requests[r] = total
			psa.flavors[r] = &flavorAssignment{name: f, mode: modes[ps.Name][r]}
			k := a.frIndex[fr{f, r}]
			as.usage[k] = addAmount(as.usage[k], total)
		}
		as.podSets = append(as.podSets, psa)
	}
	before := map[string][]int64{}
	for _, n := range a.allNodes() {
		before[n.name] = slices.Clone(n.usage)
	}
	var got []string
	for _, tg := range a.getTargets(wi, q, as) {
		got = append(got, tg.wi.w.Name+":"+tg.reason)
	}
	slices.Sort(got)
	assert.Equal(t, tc.want, got, "targets")
	for _, n := range a.allNodes() {
		assert.Equal(t, before[n.name], n.usage, "usage of %s after the search", n.name)
	}
}

func TestPortedPreemption(t *testing.T) {
	cases := map[string]preemptCase{
		// standalone (6 cpu) is full: low (-1), mid (0), high (1), 2 each.
		// in (1, 2 cpu): the lowest, low, is enough.
		"preempt lowest priority": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=2@default"), aw("mid", "standalone", 0, "cpu=2@default"), aw("high", "standalone", 1, "cpu=2@default")},
			prio:     1, incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "standalone",
			want: []string{"low:InClusterQueue"},
		},
		// 3 asked: low and mid (both below 1).
		"preempt multiple": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=2@default"), aw("mid", "standalone", 0, "cpu=2@default"), aw("high", "standalone", 1, "cpu=2@default")},
			prio:     1, incoming: []string{"main:1:cpu=3@default/Preempt"}, target: "standalone",
			want: []string{"low:InClusterQueue", "mid:InClusterQueue"},
		},
		// in (-1) is not above anyone.
		"no preemption for low priority": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=3@default"), aw("mid", "standalone", 0, "cpu=3@default")},
			prio:     -1, incoming: []string{"main:1:cpu=1@default/Preempt"}, target: "standalone",
		},
		// in (0, 4): only low (3) is below it; 3 free is not 4.
		"not enough low priority workloads": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=3@default"), aw("mid", "standalone", 0, "cpu=3@default")},
			incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "standalone",
		},
		// 1 free, 2 asked: low (1) is enough.
		"some free quota, preempt low priority": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=1@default"), aw("mid", "standalone", 0, "cpu=1@default"), aw("high", "standalone", 1, "cpu=3@default")},
			prio:     1, incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "standalone",
			want: []string{"low:InClusterQueue"},
		},
		// low (1) then mid (2) are removed; fill-back returns low.
		"minimal set excludes low priority": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "cpu=1@default"), aw("mid", "standalone", 0, "cpu=2@default"), aw("high", "standalone", 1, "cpu=3@default")},
			prio:     1, incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "standalone",
			want: []string{"mid:InClusterQueue"},
		},
		// Memory in beta needs preemption: low uses alpha and is no
		// candidate.
		"only preempt workloads using the chosen flavor": {
			admitted: []pwlAdm{aw("low", "standalone", -1, "memory=2Gi@alpha"), aw("mid", "standalone", 0, "memory=1Gi@beta"), aw("high", "standalone", 1, "memory=1Gi@beta")},
			prio:     1, incoming: []string{"main:1:cpu=1@default/Fit,memory=2Gi@beta/Preempt"}, target: "standalone",
			want: []string{"mid:InClusterQueue"},
		},
		// c1 (6) uses 3; c2 (6) uses 9, borrowing 3. in (1, 3 in c1):
		// c2 is above its quota: c2-mid (0 < 1) reclaimed.
		"reclaim quota from borrower": {
			admitted: []pwlAdm{aw("c1-low", "c1", -1, "cpu=3@default"), aw("c2-mid", "c2", 0, "cpu=3@default"), aw("c2-high", "c2", 1, "cpu=6@default")},
			prio:     1, incoming: []string{"main:1:cpu=3@default/Preempt"}, target: "c1",
			want: []string{"c2-mid:InCohortReclamation"},
		},
		"reclaim quota if workload requests 0 resources for a resource at nominal quota": {
			admitted: []pwlAdm{aw("c1-low", "c1", -1, "cpu=3@default", "memory=3Gi@default"), aw("c2-mid", "c2", 0, "cpu=3@default"), aw("c2-high", "c2", 1, "cpu=6@default")},
			prio:     1, incoming: []string{"main:1:cpu=3@default/Preempt,memory=0@default/Fit"}, target: "c1",
			want: []string{"c2-mid:InCohortReclamation"},
		},
		// c2 uses 4 of its 6: nothing to reclaim; c1-high is not lower.
		"no workloads borrowing": {
			admitted: []pwlAdm{aw("c1-high", "c1", 1, "cpu=4@default"), aw("c2-low-1", "c2", -1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c1",
		},
		// c2 borrows 2 with 8, so its workloads are candidates; but in (4)
		// would make c1 borrow (4 + 4 > 6) and c1 may not reclaim while
		// borrowing (no borrowWithinCohort), nor fit within 6 without
		// borrowing: no targets.
		"not enough workloads borrowing": {
			admitted: []pwlAdm{aw("c1-high", "c1", 1, "cpu=4@default"), aw("c2-low-1", "c2", -1, "cpu=4@default"), aw("c2-low-2", "c2", -1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c1",
		},
		// in needs 4 cpu (c1 holds c1-low 4) and 5Gi memory (borrowing 2Gi,
		// nobody to preempt there). c2 is within its quota: no cohort
		// candidates; c1-low goes.
		"preempting locally and borrowing other resources in cohort, without cohort candidates": {
			admitted: []pwlAdm{aw("c1-low", "c1", -1, "cpu=4@default"), aw("c2-low-1", "c2", -1, "cpu=4@default"), aw("c2-high-2", "c2", 1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt,memory=5Gi@default/Preempt"}, target: "c1",
			want: []string{"c1-low:InClusterQueue"},
		},
		// c1 holds 8 (borrowing 2), c2 4: in (4) may borrow: c1-low (4)
		// out leaves c1 at 8, within its limit, and the cohort at 12.
		"preempting locally and borrowing same resource in cohort": {
			admitted: []pwlAdm{aw("c1-med", "c1", 0, "cpu=4@default"), aw("c1-low", "c1", -1, "cpu=4@default"), aw("c2-low-1", "c2", -1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c1",
			want: []string{"c1-low:InClusterQueue"},
		},
		"preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort": {
			admitted: []pwlAdm{aw("d1-med", "d1", 0, "cpu=4@default"), aw("d1-low", "d1", -1, "cpu=4@default"), aw("d2-low-1", "d2", -1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "d1",
			want: []string{"d1-low:InClusterQueue"},
		},
		// c2 borrows 1 cpu (7 of 6): its workloads are candidates. in (2
		// cpu, 5Gi) cannot fit c1's nominal 3Gi of memory without
		// borrowing, and c1 may not reclaim while borrowing: the pass that
		// allows borrowing takes c1's own c1-med only.
		"preempting locally and borrowing other resources in cohort, with cohort candidates": {
			admitted: []pwlAdm{aw("c1-med", "c1", 0, "cpu=4@default"), aw("c2-low-1", "c2", -1, "cpu=5@default"),
				aw("c2-low-2", "c2", -1, "cpu=1@default"), aw("c2-low-3", "c2", -1, "cpu=1@default")},
			prio: 1, incoming: []string{"main:1:cpu=2@default/Preempt,memory=5Gi@default/Preempt"}, target: "c1",
			want: []string{"c1-med:InClusterQueue"},
		},
		// l1 (6, may borrow 12) alone in its cohort: nothing to borrow;
		// l1-low (2) out leaves 4 + 4 > 6: l1-med goes, fill-back keeps
		// l1-low.
		"preempting locally and not borrowing same resource in 1-queue cohort": {
			admitted: []pwlAdm{aw("l1-med", "l1", 0, "cpu=4@default"), aw("l1-low", "l1", -1, "cpu=2@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "l1",
			want: []string{"l1-med:InClusterQueue"},
		},
		// c1 reclaims only from lower priority: c2's are equal.
		"do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority": {
			admitted: []pwlAdm{aw("c1", "c1", 0, "cpu=2@default"), aw("c2-1", "c2", 0, "cpu=4@default"), aw("c2-2", "c2", 0, "cpu=4@default")},
			incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c1",
		},
		// c2 reclaims Any: c1-1 (0) is first in order (lower priority).
		"reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny": {
			admitted: []pwlAdm{aw("c1-1", "c1", 0, "cpu=4@default"), aw("c1-2", "c1", 1, "cpu=4@default"), aw("c2", "c2", 0, "cpu=2@default")},
			incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c2",
			want: []string{"c1-1:InCohortReclamation"},
		},
		// c1 5 of 6, c2 7 (borrowing 1). in (0, 4 in c1): c2-low (other
		// queue) first, then c1-low.
		"preempt from all ClusterQueues in cohort": {
			admitted: []pwlAdm{aw("c1-low", "c1", -1, "cpu=3@default"), aw("c1-mid", "c1", 0, "cpu=2@default"),
				aw("c2-low", "c2", -1, "cpu=3@default"), aw("c2-mid", "c2", 0, "cpu=4@default")},
			incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c1",
			want: []string{"c1-low:InClusterQueue", "c2-low:InCohortReclamation"},
		},
		"can't preempt workloads in ClusterQueue for withinClusterQueue=Never": {
			admitted: []pwlAdm{aw("c2-low", "c2", -1, "cpu=3@default")},
			prio:     1, incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "c2",
		},
		"each podset preempts a different flavor": {
			admitted: []pwlAdm{aw("low-alpha", "standalone", -1, "memory=2Gi@alpha"), aw("low-beta", "standalone", -1, "memory=2Gi@beta")},
			prio:     0, incoming: []string{"launcher:1:memory=2Gi@alpha/Preempt", "workers:2:memory=1Gi@beta/Preempt"}, target: "standalone",
			want: []string{"low-alpha:InClusterQueue", "low-beta:InClusterQueue"},
		},
		// LowerOrNewerEqualPriority: wl2 and wl3 (1) are newer than in
		// (created 15 s earlier); wl2 was admitted later and goes first.
		"preempt newer workloads with the same priority": {
			admitted: []pwlAdm{aw("wl1", "prevent-starvation", 2, "cpu=2@default"), withCreated(aw("wl2", "prevent-starvation", 1, "cpu=2@default").at(time.Second), 15*time.Second),
				withCreated(aw("wl3", "prevent-starvation", 1, "cpu=2@default"), 15*time.Second)},
			prio: 1, incoming: []string{"launcher:1:cpu=2@default/Preempt"}, target: "prevent-starvation",
			want: []string{"wl2:InClusterQueue"},
		},
		// with-shared-cq: a-standard, b-standard, a-best-effort (1 each,
		// may borrow 12), b-best-effort (0, 13), shared (10): 13 in all.
		// a-best-effort-low (-1, 10) borrows 9; in (0, 10 in a-standard)
		// must borrow 9 too: it may reclaim while borrowing from a workload
		// below it and at most the threshold 0.
		"use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing": {
			admitted: []pwlAdm{aw("a_best_effort_low", "a-best-effort", -1, "cpu=10@default"), aw("b_best_effort_low", "b-best-effort", -1, "cpu=1@default")},
			incoming: []string{"main:1:cpu=10@default/Preempt"}, target: "a-standard",
			want: []string{"a_best_effort_low:InCohortReclaimWhileBorrowing"},
		},
		// b_standard (1) is above the threshold 0 and in would still
		// borrow: no.
		"use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is required even after the preemption": {
			admitted: []pwlAdm{aw("b_standard", "b-standard", 1, "cpu=10@default")},
			prio:     2, incoming: []string{"main:1:cpu=10@default/Preempt"}, target: "a-standard",
		},
		// b_standard (1, 13) holds all 13 of the cohort; in (2, 1 cpu in
		// a-standard) fits a-standard's own 1 once it is gone: no
		// borrowing, so the threshold does not apply.
		"use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is not required after the preemption": {
			admitted: []pwlAdm{aw("b_standard", "b-standard", 1, "cpu=13@default")},
			prio:     2, incoming: []string{"main:1:cpu=1@default/Preempt"}, target: "a-standard",
			want: []string{"b_standard:InCohortReclamation"},
		},
		// a-standard does not preempt within itself.
		"use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue": {
			admitted: []pwlAdm{aw("a_standard", "a-standard", 1, "cpu=13@default")},
			prio:     2, incoming: []string{"main:1:cpu=1@default/Preempt"}, target: "a-standard",
		},
		// b-standard (1 nominal) already uses 2: in (3, 1) would borrow;
		// a-standard's workloads (1) are above the threshold; b-standard's
		// own b_standard_1 (1) goes.
		"use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal": {
			admitted: []pwlAdm{aw("a_standard_1", "a-standard", 1, "cpu=10@default"), aw("a_standard_2", "a-standard", 1, "cpu=1@default"),
				aw("b_standard_1", "b-standard", 1, "cpu=1@default"), aw("b_standard_2", "b-standard", 2, "cpu=1@default")},
			prio: 3, incoming: []string{"main:1:cpu=1@default/Preempt"}, target: "b-standard",
			want: []string{"b_standard_1:InClusterQueue"},
		},
		// in (2, 2 cpu) in b-standard (11 used): a-best-effort's workloads
		// are below the threshold; the lowest, a_best_effort_lower, and
		// b-standard's own b_standard_mid are the fewest that make room.
		"use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold": {
			admitted: []pwlAdm{aw("b_standard_high", "b-standard", 2, "cpu=10@default"), aw("b_standard_mid", "b-standard", 1, "cpu=1@default"),
				aw("a_best_effort_low", "a-best-effort", -1, "cpu=1@default"), aw("a_best_effort_lower", "a-best-effort", -2, "cpu=1@default")},
			prio: 2, incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "b-standard",
			want: []string{"a_best_effort_lower:InCohortReclaimWhileBorrowing", "b_standard_mid:InClusterQueue"},
		},
		// lend1 (6, lends 4) uses 3; lend2 (6, lends 2) uses 7, 1 beyond
		// its own. in (1, 3): lend2-mid (0) reclaimed.
		"reclaim quota from lender": {
			admitted: []pwlAdm{aw("lend1-low", "lend1", -1, "cpu=3@default"), aw("lend2-mid", "lend2", 0, "cpu=3@default"), aw("lend2-high", "lend2", 1, "cpu=4@default")},
			prio:     1, incoming: []string{"main:1:cpu=3@default/Preempt"}, target: "lend1",
			want: []string{"lend2-mid:InCohortReclamation"},
		},
		"preempt from all ClusterQueues in cohort-lend": {
			admitted: []pwlAdm{aw("lend1-low", "lend1", -1, "cpu=3@default"), aw("lend1-mid", "lend1", 0, "cpu=2@default"),
				aw("lend2-low", "lend2", -1, "cpu=3@default"), aw("lend2-mid", "lend2", 0, "cpu=4@default")},
			incoming: []string{"main:1:cpu=4@default/Preempt"}, target: "lend1",
			want: []string{"lend1-low:InClusterQueue", "lend2-low:InCohortReclamation"},
		},
		// lend1 can have at most its 6 and lend2's 2 lent: 8 < 9.
		"cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit": {
			admitted: []pwlAdm{aw("lend2-low", "lend2", -1, "cpu=10@default")},
			incoming: []string{"main:1:cpu=9@default/Preempt"}, target: "lend1",
		},
		// cohort-three: a, b, c with 2 cpu and 2 memory each. a holds a1,
		// a2 (-2), a3 (-1); b holds b1..b3 (0): the cohort's cpu is 6 of
		// 6. b's workloads are not lower than in (0); a's a1 and a2 make
		// room within a's 2.
		"preemptions from cq when target queue is exhausted for the single requested resource": {
			admitted: threeQueueWorkloads(false),
			incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "a",
			want: []string{"a1:InClusterQueue", "a2:InClusterQueue"},
		},
		"preemptions from cq when target queue is exhausted for two requested resources": {
			admitted: threeQueueWorkloads(true),
			incoming: []string{"main:1:cpu=2@default/Preempt,memory=2@default/Preempt"}, target: "a",
			want: []string{"a1:InClusterQueue", "a2:InClusterQueue"},
		},
		"preemptions from cq when target queue is exhausted for one requested resource, but not the other": {
			admitted: threeQueueWorkloads(false),
			incoming: []string{"main:1:cpu=2@default/Preempt,memory=2@default/Preempt"}, target: "a",
			want: []string{"a1:InClusterQueue", "a2:InClusterQueue"},
		},
		// a holds a1 (1 of 2); b holds 5 (3 borrowed), b5 at -1. in (0, 2):
		// a1 in a and b5 reclaimed from b.
		"allow preemption from other cluster queues if target cq is not exhausted for the requested resource": {
			admitted: []pwlAdm{aw("a1", "a", -1, "cpu=1@default"), aw("b1", "b", 0, "cpu=1@default"), aw("b2", "b", 0, "cpu=1@default"),
				aw("b3", "b", 0, "cpu=1@default"), aw("b4", "b", 0, "cpu=1@default"), aw("b5", "b", -1, "cpu=1@default")},
			incoming: []string{"main:1:cpu=2@default/Preempt"}, target: "a",
			want: []string{"a1:InClusterQueue", "b5:InCohortReclamation"},
		},
		// root > cohort-left > cq-left (10, reclaim Any), root >
		// cohort-right > cq-right (0) borrowing 5 from across the root.
		"long range preemption": {
			cqs: []ClusterQueue{mkCQ("cq-left").cohort("cohort-left").preempt(Preemption{ReclaimWithinCohort: PreemptAny}).groups(rg(fq("default", res(cpu, "10")))).obj(),
				mkCQ("cq-right").cohort("cohort-right").groups(rg(fq("default", res(cpu, "0")))).obj()},
			cohorts:  []Cohort{{Name: "cohort-left", ParentName: "root"}, {Name: "cohort-right", ParentName: "root"}},
			admitted: []pwlAdm{aw("to-be-preempted", "cq-right", 0, "cpu=5@default")},
			incoming: []string{"main:1:cpu=8@default/Preempt"}, target: "cq-left",
			want: []string{"to-be-preempted:InCohortReclamation"},
		},
	}
	for name, tc := range cases {
		t.Run(name, tc.run)
	}
}

func withCreated(p pwlAdm, d time.Duration) pwlAdm { p.created = d; return p }

// threeQueueWorkloads are the admitted workloads of the "target queue is
// exhausted" cases: a1, a2 (-2), a3 (-1) in a, b1..b3 (0) in b, 1 cpu
// each (and 1 memory when memory is true).
func threeQueueWorkloads(memory bool) []pwlAdm {
	var out []pwlAdm
	for _, x := range []struct {
		name, cq string
		prio     int32
	}{{"a1", "a", -2}, {"a2", "a", -2}, {"a3", "a", -1}, {"b1", "b", 0}, {"b2", "b", 0}, {"b3", "b", 0}} {
		reqs := []string{"cpu=1@default"}
		if memory {
			reqs = append(reqs, "memory=1@default")
		}
		out = append(out, aw(x.name, x.cq, x.prio, reqs...))
	}
	return out
}

// Kueue's TestCandidatesOrdering, the cases of the classical order (the
// priority boost is not modelled) and of admission fair sharing: evicted
// first, then other queues' before the preemptor's own, then, in one
// ClusterQueue, the LocalQueue of higher usage, then lower priority, then
// the most recently admitted.
func TestPortedCandidatesOrdering(t *testing.T) {
	type cand struct {
		name, cq string
		prio     int32
		reserved time.Duration
		evicted  bool
		lq       string  // its LocalQueue, with admission fair sharing
		usage    float64 // the LocalQueue's usage
	}
	// Kueue's three workloads of its admission fair sharing cases
	low := cand{name: "low_lq_usage", cq: "preemptor", prio: 1, lq: "low_usage_lq", usage: 0.1}
	mid := cand{name: "mid_lq_usage", cq: "preemptor", prio: 10, lq: "mid_usage_lq", usage: 0.5}
	high := cand{name: "high_lq_usage_different_cq", cq: "other", prio: 1, lq: "high_usage_lq_different_cq", usage: 1}
	cases := map[string]struct {
		cands []cand
		want  []string
	}{
		"workloads sorted by priority": {cands: []cand{{name: "high", cq: "preemptor", prio: 10}, {name: "low", cq: "preemptor", prio: -10}},
			want: []string{"low", "high"}},
		"evicted workload first": {cands: []cand{{name: "other", cq: "preemptor", prio: 10}, {name: "evicted", cq: "preemptor", evicted: true}},
			want: []string{"evicted", "other"}},
		"workload from different CQ first": {cands: []cand{{name: "preemptorCq", cq: "preemptor", prio: 10}, {name: "other", cq: "other", prio: 10}},
			want: []string{"other", "preemptorCq"}},
		"old workloads last": {cands: []cand{{name: "older", cq: "preemptor", reserved: -time.Second}, {name: "younger", cq: "preemptor", reserved: time.Second},
			{name: "current", cq: "preemptor"}}, want: []string{"younger", "current", "older"}},
		// usage 0.5 before 0.1 though of higher priority
		"workloads with higher LQ usage first": {cands: []cand{low, mid}, want: []string{"mid_lq_usage", "low_lq_usage"}},
		// the other ClusterQueue's first, whatever the usage
		"workloads from different CQ are sorted based on priority and timestamp": {cands: []cand{mid, high},
			want: []string{"high_lq_usage_different_cq", "mid_lq_usage"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{
				mkCQ("preemptor").groups(rg(fq("default", res(cpu, "1")))).obj(), mkCQ("other").groups(rg(fq("default", res(cpu, "1")))).obj()}}
			a, err := New(o, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			c := &preemptionCtx{a: a, q: a.cqs["preemptor"]}
			var cands []candidate
			for i, x := range tc.cands {
				wi := &info{w: &Workload{Name: x.name, Priority: x.prio}, key: x.name, seq: int64(i), cq: a.cqs[x.cq], reservedAt: x.reserved, state: stateAdmitted}
				if x.evicted {
					wi.state = stateEvicted
				}
				if x.lq != "" {
					wi.w.Queue, wi.afs = x.lq, &lqUsage{value: x.usage}
				}
				cands = append(cands, candidate{wi: wi})
			}
			slices.SortStableFunc(cands, c.ordering)
			var got []string
			for _, x := range cands {
				got = append(got, x.wi.w.Name)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// Kueue's TestPreemptionMessage, the case with every part given (the
// model has no UIDs: it gives the preemptor's key and UNKNOWN for the
// job's, as Kueue does for a missing UID label).
func TestPortedPreemptionMessage(t *testing.T) {
	o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{
		mkCQ("a").groups(rg(fq("default", res(cpu, "1")))).obj(), mkCQ("b").groups(rg(fq("default", res(cpu, "1")))).obj()}}
	a, err := New(o, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	preemptor := &info{key: "ns/uid", cq: a.cqs["a"]}
	victim := &info{key: "ns/v", cq: a.cqs["b"]}
	assert.Equal(t, "Preempted to accommodate a workload (UID: ns/uid, JobUID: UNKNOWN) due to prioritization in the ClusterQueue; preemptor path: /a; preemptee path: /b",
		preemptionMessage(preemptor, InClusterQueue, victim))
}
