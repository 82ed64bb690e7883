package kueue

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestAssignFlavors
// (pkg/scheduler/flavorassigner/flavorassigner_test.go), the cases that
// fit the model, each under Kueue's name. Kueue's test builds one
// ClusterQueue (and at times a second one in its cohort), puts usage on
// them directly, and runs the flavor assigner on a workload's pod sets
// with a stub preemption oracle that answers "Preempt, borrowing 0" unless
// the case says otherwise; it compares the representative mode, each pod
// set's flavors and modes, and the pod set's status message. These do the
// same with flavorAssigner.assign, the stub given as its simulate.
//
// Kueue's flavor names b_one, b_two and taint_and_toleration have
// underscores, which a ResourceFlavor's name may not have (Kueue's webhook
// and New reject them): b-one, b-two and taint-and-toleration here, in the
// expected messages too.

// assignFlavorsSuite is TestAssignFlavors' flavors.
func assignFlavorsSuite() []ResourceFlavor {
	spot := cluster.Taint{Key: "instance", Value: "spot", Effect: cluster.TaintNoSchedule}
	return []ResourceFlavor{{Name: "default"}, {Name: "one", NodeLabels: map[string]string{"type": "one"}},
		{Name: "two", NodeLabels: map[string]string{"type": "two"}}, {Name: "b-one", NodeLabels: map[string]string{"b_type": "one"}},
		{Name: "b-two", NodeLabels: map[string]string{"b_type": "two"}}, {Name: "tainted", NodeTaints: []cluster.Taint{spot}},
		{Name: "taint-and-toleration", NodeTaints: []cluster.Taint{spot}, Tolerations: []Toleration{{Toleration: cluster.Toleration{Key: "instance",
			Operator: cluster.TolerationEqual, Value: "spot", Effect: cluster.TaintNoSchedule}}}},
		{Name: "label-x-a", NodeLabels: map[string]string{"x": "a"}}, {Name: "label-xy-b", NodeLabels: map[string]string{"x": "b", "y": "k"}}}
}

// sim is a stubbed preemption outcome for one flavor-resource.
type sim struct {
	pm     preemptionMode
	borrow int
}

type assignCase struct {
	flavors []ResourceFlavor // nil: the suite's
	cohorts []Cohort
	pods    []PodSet
	cq      ClusterQueue
	// usage is "flavor/resource" to a quantity, put on the queue (and on
	// the secondary queue of the same cohort).
	usage, secondaryUsage map[string]string
	secondary             *ClusterQueue
	sims                  map[string]sim // by "flavor/resource"; default Preempt, 0

	wantMode Mode
	// wantPodSets: per pod set "name:count res=flavor/Mode,..." (no
	// flavors: "name:count").
	wantPodSets []string
	// wantStatus: a pod set's status message, by name ("" or absent when it
	// fits).
	wantStatus    map[string]string
	wantBorrowing int
	// noStatus: the case checks neither status nor borrowing (Kueue's
	// test does not).
	noStatus bool
}

func (tc assignCase) run(t *testing.T) {
	t.Helper()
	o := &Objects{ResourceFlavors: assignFlavorsSuite(), ClusterQueues: []ClusterQueue{tc.cq}}
	if tc.flavors != nil {
		o.ResourceFlavors = tc.flavors
	}
	o.Cohorts = tc.cohorts
	if tc.secondary != nil {
		o.ClusterQueues = append(o.ClusterQueues, *tc.secondary)
	}
	for i := range o.ClusterQueues {
		if o.ClusterQueues[i].CohortName == "" {
			o.ClusterQueues[i].ResourceGroups = dropLimits(o.ClusterQueues[i].ResourceGroups)
		}
	}
	a, err := New(o, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	put := func(q string, usage map[string]string) {
		for k, v := range usage {
			f, r, _ := strings.Cut(k, "/")
			i, ok := a.frIndex[fr{f, cluster.ResourceName(r)}]
			if !ok {
				t.Fatalf("usage %s: no such flavor-resource", k)
			}
			a.cqs[q].node.addUsage(i, qty(cluster.ResourceName(r), v))
		}
	}
	put(tc.cq.Name, tc.usage)
	if tc.secondary != nil {
		put(tc.secondary.Name, tc.secondaryUsage)
	}
	wi := &info{w: &Workload{Namespace: "default", Name: "wl", PodSets: tc.pods}, key: "default/wl"}
	fa := &flavorAssigner{a: a, wi: wi, q: a.cqs[tc.cq.Name], simulate: func(k int, v int64) (preemptionMode, int) {
		f := a.frs[k]
		if s, ok := tc.sims[f.flavor+"/"+string(f.resource)]; ok {
			return s.pm, s.borrow
		}
		return pmPreempt, 0
	}}
	as := fa.assign(nil)
	assert.Equal(t, tc.wantMode, as.mode(), "representative mode")
	var got []string
	status := map[string]string{}
	for _, ps := range as.podSets {
		s := fmt.Sprintf("%s:%d", ps.name, ps.count)
		var fl []string
		for _, r := range slices.Sorted(maps.Keys(ps.flavors)) {
			fl = append(fl, fmt.Sprintf("%s=%s/%s", r, ps.flavors[r].name, ps.flavors[r].mode))
		}
		if len(fl) > 0 {
			s += " " + strings.Join(fl, ",")
		}
		got = append(got, s)
		if !ps.fit() {
			reasons := slices.Clone(ps.reasons)
			slices.Sort(reasons)
			status[ps.name] = strings.Join(reasons, ", ")
		}
	}
	assert.Equal(t, tc.wantPodSets, got, "pod sets")
	if tc.noStatus {
		return
	}
	want := tc.wantStatus
	if want == nil {
		want = map[string]string{}
	}
	assert.Equal(t, want, status, "status")
	assert.Equal(t, tc.wantBorrowing, as.borrowing, "borrowing")
}

func TestPortedAssignFlavors(t *testing.T) {
	mem := cluster.ResourceMemory
	cases := map[string]assignCase{
		"single flavor, fits": {
			pods:        []PodSet{ps("main", 1, "cpu", "1", "memory", "1Mi")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cpu, "1"), res(mem, "2Mi")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=default/Fit,memory=default/Fit"},
		},
		"single flavor, fits tainted flavor": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").tolSpot()},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("tainted", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=tainted/Fit"},
		},
		"single flavor, fits tainted flavor with toleration": {
			pods:        []PodSet{ps("main", 1, "cpu", "1")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("taint-and-toleration", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=taint-and-toleration/Fit"},
		},
		// 3 of 4 used, 2 asked: 1 more needed; the stub says Preempt.
		"single flavor, used resources, doesn't fit": {
			pods:        []PodSet{ps("main", 1, "cpu", "2")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cpu, "4")))).obj(),
			usage:       map[string]string{"default/cpu": "3"},
			wantMode:    Preempt,
			wantPodSets: []string{"main:1 cpu=default/Preempt"},
			wantStatus:  map[string]string{"main": "insufficient unused quota for cpu in flavor default, 1 more needed"},
		},
		// cpu: one (2) is too small for 3, two (4) fits; memory: b-one.
		"multiple resource groups, fits": {
			pods: []PodSet{ps("main", 1, "cpu", "3", "memory", "10Mi")},
			cq: mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "2")), fq("two", res(cpu, "4"))),
				rg(fq("b-one", res(mem, "1Gi")), fq("b-two", res(mem, "5Gi")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,memory=b-one/Fit"},
		},
		// cpu could preempt in one (1 of 3 used), but memory's 10Mi exceed
		// b-one's 1Mi: the pod set gets no flavors.
		"multiple resource groups, one could fit with preemption, other doesn't fit": {
			pods:        []PodSet{ps("main", 1, "cpu", "3", "memory", "10Mi")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "3"))), rg(fq("b-one", res(mem, "1Mi")))).obj(),
			usage:       map[string]string{"one/cpu": "1"},
			wantMode:    NoFit,
			wantPodSets: []string{"main:1"},
			wantStatus: map[string]string{"main": "insufficient quota for memory in flavor b-one, previously considered podsets requests (0) + current podset request (10Mi) > " +
				"maximum capacity (1Mi)"},
		},
		"multiple resource groups with multiple resources, fits": {
			pods: []PodSet{ps("main", 1, "cpu", "3", "memory", "10Mi", "example.com/gpu", "3")},
			cq: mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "2"), res(mem, "1Gi")), fq("two", res(cpu, "4"), res(mem, "15Mi"))),
				rg(fq("b-one", res(gpu, "4")), fq("b-two", res(gpu, "2")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,example.com/gpu=b-one/Fit,memory=two/Fit"},
		},
		// two's memory: 10Mi of 15Mi used, 5Mi more needed (stub: Preempt,
		// borrowing 1); b-one's gpu: 4 in the cohort, 2 used by the other
		// queue, 1 more needed (stub: Preempt).
		"multiple resource groups with multiple resources, fits with different modes": {
			pods: []PodSet{ps("main", 1, "cpu", "3", "memory", "10Mi", "example.com/gpu", "3")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "2"), res(mem, "1Gi")), fq("two", res(cpu, "4"), res(mem, "15Mi"))),
				rg(fq("b-one", res(gpu, "4")))).obj(),
			usage:          map[string]string{"two/memory": "10Mi"},
			secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("b-one", res(gpu, "0")))).obj()),
			secondaryUsage: map[string]string{"b-one/example.com/gpu": "2"},
			sims:           map[string]sim{"two/memory": {pmPreempt, 1}},
			wantMode:       Preempt,
			wantPodSets:    []string{"main:1 cpu=two/Fit,example.com/gpu=b-one/Preempt,memory=two/Preempt"},
			wantStatus: map[string]string{"main": "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2), " +
				"insufficient unused quota for example.com/gpu in flavor b-one, 1 more needed, insufficient unused quota for memory in flavor two, 5Mi more needed"},
			wantBorrowing: 1,
		},
		"multiple resources in a group, doesn't fit": {
			pods:        []PodSet{ps("main", 1, "cpu", "3", "memory", "10Mi")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "2"), res(mem, "1Gi")), fq("two", res(cpu, "4"), res(mem, "5Mi")))).obj(),
			wantMode:    NoFit,
			wantPodSets: []string{"main:1"},
			wantStatus: map[string]string{"main": "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2), " +
				"insufficient quota for memory in flavor two, previously considered podsets requests (0) + current podset request (10Mi) > maximum capacity (5Mi)"},
		},
		"multiple flavors, fits while skipping tainted flavor": {
			pods:        []PodSet{ps("main", 1, "cpu", "3")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("tainted", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit"},
		},
		// Only the flavors' own label keys count: ignored1 and the term on
		// ignored2 are dropped; type=two picks two.
		"multiple flavors, fits a node selector": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").sel(map[string]string{"type": "two", "ignored1": "foo"}).aff([]string{"ignored2=bar"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit"},
		},
		"multiple flavors, fits with node affinity": {
			pods: []PodSet{ps("main", 1, "cpu", "1", "memory", "1Mi").sel(map[string]string{"ignored1": "foo"}).aff([]string{"type=two"})},
			cq: mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4"), res(mem, "1Gi")),
				fq("two", res(cpu, "4"), res(mem, "1Gi")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,memory=two/Fit"},
		},
		// The first term names no key of the flavors: it matches any, and
		// terms are ORed.
		"multiple flavors, node affinity fits any flavor": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").aff([]string{"ignored2=bar"}, []string{"cpuType=two"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=one/Fit"},
		},
		"multiple flavors with different label keys, selector only uses flavor's own keys": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").sel(map[string]string{"x": "a", "y": "g"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("label-x-a", res(cpu, "4")), fq("label-xy-b", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=label-x-a/Fit"},
		},
		"labelless flavor in group with labeled flavor, workload uses labeled selector": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").sel(map[string]string{"type": "two"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=default/Fit"},
		},
		"multiple flavors, doesn't fit node affinity": {
			pods:        []PodSet{ps("main", 1, "cpu", "1").aff([]string{"type=three"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			wantMode:    NoFit,
			wantPodSets: []string{"main:1"},
			wantStatus:  map[string]string{"main": "flavor one doesn't match node affinity, flavor two doesn't match node affinity"},
		},
		// driver (5) only fits two (10); worker (3) fits one (4).
		"multiple specs, fit different flavors": {
			pods:        []PodSet{ps("driver", 1, "cpu", "5"), ps("worker", 1, "cpu", "3")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("two", res(cpu, "10")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"driver:1 cpu=two/Fit", "worker:1 cpu=one/Fit"},
		},
		// cpu 2 (may borrow 98) beside 198: driver 4 and worker 6 borrow;
		// memory 1Gi + 4Gi borrow 3Gi of the 198Gi.
		"multiple specs, fits borrowing": {
			pods: []PodSet{ps("driver", 1, "cpu", "4", "memory", "1Gi"), ps("worker", 1, "cpu", "6", "memory", "4Gi")},
			cq:   mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("default", res(cpu, "2", "98"), res(mem, "2Gi")))).obj(),
			secondary: ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").
				groups(rg(fq("default", res(cpu, "198"), res(mem, "198Gi")))).obj()),
			wantMode:      Fit,
			wantPodSets:   []string{"driver:1 cpu=default/Fit,memory=default/Fit", "worker:1 cpu=default/Fit,memory=default/Fit"},
			wantBorrowing: 1,
		},
		// The other queue lends nothing (lending limit 0): at most 1.
		"not enough space to borrow": {
			pods: []PodSet{ps("main", 1, "cpu", "2")},
			cq:   mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj(),
			secondary: ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").
				groups(rg(fq("one", res(cpu, "10", "", "0")))).obj()),
			secondaryUsage: map[string]string{"one/cpu": "9"},
			wantMode:       NoFit,
			wantPodSets:    []string{"main:1"},
			wantStatus:     map[string]string{"main": "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)"},
		},
		// 2 (may borrow 8), 9 used: 1 left under the limit, 2 asked.
		"past max, but can preempt in ClusterQueue": {
			pods:           []PodSet{ps("main", 1, "cpu", "2")},
			cq:             mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "2", "8")))).obj(),
			usage:          map[string]string{"one/cpu": "9"},
			secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "98")))).obj()),
			secondaryUsage: map[string]string{"one/cpu": "9"},
			sims:           map[string]sim{"one/cpu": {pmPreempt, 1}},
			wantMode:       Preempt,
			wantPodSets:    []string{"main:1 cpu=one/Preempt"},
			wantStatus:     map[string]string{"main": "insufficient unused quota for cpu in flavor one, 1 more needed"},
			wantBorrowing:  1,
		},
		"past min, but can preempt in ClusterQueue": {
			pods:        []PodSet{ps("main", 1, "cpu", "2")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "2")))).obj(),
			usage:       map[string]string{"one/cpu": "1"},
			wantMode:    Preempt,
			wantPodSets: []string{"main:1 cpu=one/Preempt"},
			wantStatus:  map[string]string{"main": "insufficient unused quota for cpu in flavor one, 1 more needed"},
		},
		// 3 + 7 in the cohort, 2 + 8 used: nothing free, 2 more needed.
		"past min, but can preempt in cohort and ClusterQueue": {
			pods:           []PodSet{ps("main", 1, "cpu", "2")},
			cq:             mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "3")))).obj(),
			usage:          map[string]string{"one/cpu": "2"},
			secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "7")))).obj()),
			secondaryUsage: map[string]string{"one/cpu": "8"},
			sims:           map[string]sim{"one/cpu": {pmPreempt, 1}},
			wantMode:       Preempt,
			wantPodSets:    []string{"main:1 cpu=one/Preempt"},
			wantStatus:     map[string]string{"main": "insufficient unused quota for cpu in flavor one, 2 more needed"},
			wantBorrowing:  1,
		},
		"can only preempt flavors that match affinity": {
			pods:        []PodSet{ps("main", 1, "cpu", "2").sel(map[string]string{"type": "two"})},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("two", res(cpu, "4")))).obj(),
			usage:       map[string]string{"one/cpu": "3", "two/cpu": "3"},
			wantMode:    Preempt,
			wantPodSets: []string{"main:1 cpu=two/Preempt"},
			wantStatus:  map[string]string{"main": "flavor one doesn't match node affinity, insufficient unused quota for cpu in flavor two, 1 more needed"},
		},
		// launcher (2) needs preemption in one (3 of 4 used); workers
		// (10 × 1, tolerating the taint) exceed one's 4 with the
		// launcher's 2, and need preemption in tainted (3 of 10 used).
		"each podset requires preemption on a different flavor": {
			pods:        []PodSet{ps("launcher", 1, "cpu", "2"), ps("workers", 10, "cpu", "1").tolSpot()},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")), fq("tainted", res(cpu, "10")))).obj(),
			usage:       map[string]string{"one/cpu": "3", "tainted/cpu": "3"},
			wantMode:    Preempt,
			wantPodSets: []string{"launcher:1 cpu=one/Preempt", "workers:10 cpu=tainted/Preempt"},
			wantStatus: map[string]string{
				"launcher": "insufficient unused quota for cpu in flavor one, 1 more needed, untolerated taint {instance spot NoSchedule <nil>} in flavor tainted",
				"workers": "insufficient quota for cpu in flavor one, previously considered podsets requests (2) + current podset request (10) > maximum capacity (4), " +
					"insufficient unused quota for cpu in flavor tainted, 3 more needed"},
		},
		"resource not listed in clusterQueue": {
			pods:        []PodSet{ps("main", 1, "example.com/gpu", "2")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "4")))).obj(),
			wantMode:    NoFit,
			wantPodSets: []string{"main:1"},
			wantStatus:  map[string]string{"main": "resource example.com/gpu unavailable in ClusterQueue"},
		},
		"zero resource request not in clusterQueue should succeed": {
			pods:        []PodSet{ps("main", 1, "cpu", "1", "example.com/gpu", "0")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=default/Fit"},
		},
		"zero resource request defined in clusterQueue should get flavor assigned": {
			pods:        []PodSet{ps("main", 1, "cpu", "1", "example.com/gpu", "0")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cpu, "4"), res(gpu, "4")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=default/Fit,example.com/gpu=default/Fit"},
		},
		// A queue that covers pods counts one per pod.
		"num pods fit": {
			pods:        []PodSet{ps("main", 3, "cpu", "1")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cluster.ResourcePods, "3"), res(cpu, "10")))).obj(),
			wantMode:    Fit,
			wantPodSets: []string{"main:3 cpu=default/Fit,pods=default/Fit"},
		},
		"num pods don't fit": {
			pods:        []PodSet{ps("main", 3, "cpu", "1")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("default", res(cluster.ResourcePods, "2"), res(cpu, "10")))).obj(),
			wantMode:    NoFit,
			wantPodSets: []string{"main:3"},
			wantStatus:  map[string]string{"main": "insufficient quota for pods in flavor default, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)"},
		},
		// one: 2 of 10 used, 9 asked: 1 more needed (stub: Preempt); both
		// MayStopSearch, so the search stops at one.
		"preempt before try next flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").fung(FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10")))).obj(),
			usage:       map[string]string{"one/cpu": "2"},
			wantMode:    Preempt,
			wantPodSets: []string{"main:1 cpu=one/Preempt,pods=one/Fit"},
			wantStatus:  map[string]string{"main": "insufficient unused quota for cpu in flavor one, 1 more needed"},
		},
		// (Kueue's duplicate of the case above.)
		"preempt before try next flavor; using WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").fung(FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10")))).obj(),
			usage:       map[string]string{"one/cpu": "2"},
			wantMode:    Preempt,
			wantPodSets: []string{"main:1 cpu=one/Preempt,pods=one/Fit"},
			wantStatus:  map[string]string{"main": "insufficient unused quota for cpu in flavor one, 1 more needed"},
		},
		// The defaults (WhenCanPreempt TryNextFlavor): two fits.
		"preempt try next flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10")))).obj(),
			usage:       map[string]string{"one/cpu": "2"},
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,pods=two/Fit"},
		},
		// one (10, may borrow 1) with 2 used fits 9 by borrowing 1 from the
		// other queue; two (1) cannot hold 9: one is kept.
		"borrow try next flavor, found the first flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "1")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "1")))).obj(),
			usage:         map[string]string{"one/cpu": "2"},
			secondary:     ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj()),
			wantMode:      Fit,
			wantPodSets:   []string{"main:1 cpu=one/Fit,pods=one/Fit"},
			wantBorrowing: 1,
		},
		// two (10) fits without borrowing: preferred.
		"borrow try next flavor, found the second flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "1")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10")))).obj(),
			usage:       map[string]string{"one/cpu": "2"},
			secondary:   ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj()),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,pods=two/Fit"},
		},
		// The default WhenCanBorrow MayStopSearch: one, borrowing.
		"borrow before try next flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "1")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10")))).obj(),
			usage:         map[string]string{"one/cpu": "2"},
			secondary:     ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj()),
			wantMode:      Fit,
			wantPodSets:   []string{"main:1 cpu=one/Fit,pods=one/Fit"},
			wantBorrowing: 1,
		},
		// one: 0 nominal (may borrow 12), the other queue uses 10 of its 12:
		// 10 more needed; borrowWithinCohort lets the oracle be asked
		// (stub: Preempt, borrowing 1), and MayStopSearch stops there.
		"when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch":                                                 borrowPreemptCase("12", MayStopSearch, MayStopSearch),
		"when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch":                    borrowPreemptCase("12", MayStopSearch, MayStopSearch),
		"when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch":                              borrowPreemptCase("", MayStopSearch, MayStopSearch),
		"when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch": borrowPreemptCase("", MayStopSearch, MayStopSearch),
		// With nothing used by the other queue, one fits by borrowing; but
		// TryNextFlavor looks on and two fits without.
		"when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor": {
			pods: []PodSet{ps("main", 1, "cpu", "12")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
				fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("one", res(cpu, "0", "12")), fq("two", res(cpu, "12")))).obj(),
			secondary:   ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "12")))).obj()),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit"},
		},
		"when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor,WhenCanPreempt=MayStopSearch": {
			pods: []PodSet{ps("main", 1, "cpu", "12")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
				fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: MayStopSearch}).
				groups(rg(fq("one", res(cpu, "0", "12")), fq("two", res(cpu, "12")))).obj(),
			secondary:   ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "12")))).obj()),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit"},
		},
		// The cohort has only the other queue's 11: the limit of 12 cannot
		// be reached.
		"when borrowing while preemption is needed, but borrowingLimit exceeds the quota available in the cohort": {
			pods: []PodSet{ps("main", 1, "cpu", "12")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
				groups(rg(fq("one", res(cpu, "0", "12")))).obj(),
			secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "11")))).obj()),
			secondaryUsage: map[string]string{"one/cpu": "10"},
			wantMode:       NoFit,
			wantPodSets:    []string{"main:1"},
			wantStatus:     map[string]string{"main": "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (12) > maximum capacity (11)"},
		},
		// one (10, lends 1) with 2 used borrows 1 for 9; two (10, lends
		// nothing) fits without borrowing.
		"lend try next flavor, found the second flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "", "1")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "10", "", "0")))).obj(),
			usage:       map[string]string{"one/cpu": "2"},
			secondary:   ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj()),
			wantMode:    Fit,
			wantPodSets: []string{"main:1 cpu=two/Fit,pods=two/Fit"},
		},
		"lend try next flavor, found the first flavor": {
			pods: []PodSet{ps("main", 1, "cpu", "9")},
			cq: mkCQ("test-clusterqueue").cohort("test-cohort").fung(FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor}).
				groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "", "1")), fq("two", res(cluster.ResourcePods, "10"), res(cpu, "1", "", "0")))).obj(),
			usage:         map[string]string{"one/cpu": "2"},
			secondary:     ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "1")))).obj()),
			wantMode:      Fit,
			wantPodSets:   []string{"main:1 cpu=one/Fit,pods=one/Fit"},
			wantBorrowing: 1,
		},
		// one: the other queue uses all of its 2, the oracle finds no
		// candidates; two fits by borrowing.
		"cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits)":                                                                            noCandidatesCase(),
		"cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits); using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch": noCandidatesCase(),
		// one (10, lends nothing) with 2 used: 1 more needed for 9.
		"quota exhausted, but can preempt in cohort and ClusterQueue": {
			pods:  []PodSet{ps("main", 1, "cpu", "9")},
			cq:    mkCQ("test-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cluster.ResourcePods, "10"), res(cpu, "10", "", "0")))).obj(),
			usage: map[string]string{"one/cpu": "2"},
			secondary: ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").
				groups(rg(fq("one", res(cluster.ResourcePods, "0"), res(cpu, "0")))).obj()),
			sims:          map[string]sim{"one/cpu": {pmPreempt, 1}},
			wantMode:      Preempt,
			wantPodSets:   []string{"main:1 cpu=one/Preempt,pods=one/Fit"},
			wantStatus:    map[string]string{"main": "insufficient unused quota for cpu in flavor one, 1 more needed"},
			wantBorrowing: 1,
		},
		// The first pod set takes 1 of one; the second (5) exceeds both
		// flavors' 2, one counting the 1 already assumed.
		"multi-podset, one fits and another fails, fitting podset attempts skipped in resolveNoFitReason": {
			pods:        []PodSet{ps("fitting-podset", 1, "cpu", "1").sel(map[string]string{"type": "one"}), ps("blocking-podset", 1, "cpu", "5")},
			cq:          mkCQ("test-clusterqueue").groups(rg(fq("one", res(cpu, "2")), fq("two", res(cpu, "2")))).obj(),
			wantMode:    NoFit,
			wantPodSets: []string{"fitting-podset:1 cpu=one/Fit", "blocking-podset:1"},
			wantStatus: map[string]string{"blocking-podset": "insufficient quota for cpu in flavor one, previously considered podsets requests (1) + current podset request (5) > maximum capacity (2), " +
				"insufficient quota for cpu in flavor two, previously considered podsets requests (0) + current podset request (5) > maximum capacity (2)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, tc.run)
	}
}

// borrowPreemptCase is the four "when borrowing while preemption is
// needed for flavor one ... MayStopSearch" cases: one has no nominal quota
// (and a borrowing limit of 12, or none), the other queue uses 10 of its 12.
func borrowPreemptCase(limit string, whenBorrow, whenPreempt FlavorFungibilityPolicy) assignCase {
	return assignCase{
		pods: []PodSet{ps("main", 1, "cpu", "12")},
		cq: mkCQ("test-clusterqueue").cohort("test-cohort").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
			fung(FlavorFungibility{WhenCanBorrow: whenBorrow, WhenCanPreempt: whenPreempt}).
			groups(rg(fq("one", res(cpu, "0", limit)), fq("two", res(cpu, "12")))).obj(),
		secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "12")))).obj()),
		secondaryUsage: map[string]string{"one/cpu": "10"},
		sims:           map[string]sim{"one/cpu": {pmPreempt, 1}},
		wantMode:       Preempt,
		wantPodSets:    []string{"main:1 cpu=one/Preempt"},
		wantStatus:     map[string]string{"main": "insufficient unused quota for cpu in flavor one, 10 more needed"},
		wantBorrowing:  1,
	}
}

func noCandidatesCase() assignCase {
	return assignCase{
		pods: []PodSet{ps("main", 1, "cpu", "2")},
		cq: mkCQ("test-clusterqueue").cohort("test-cohort").preempt(Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority}).
			fung(FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}).
			groups(rg(fq("one", res(cpu, "0", "2")), fq("two", res(cpu, "0", "2")))).obj(),
		secondary:      ptr(mkCQ("test-secondary-clusterqueue").cohort("test-cohort").groups(rg(fq("one", res(cpu, "2")), fq("two", res(cpu, "2")))).obj()),
		secondaryUsage: map[string]string{"one/cpu": "2"},
		sims:           map[string]sim{"one/cpu": {pmNoCandidates, 0}},
		wantMode:       Fit,
		wantPodSets:    []string{"main:1 cpu=two/Fit"},
		wantBorrowing:  1,
	}
}

// Kueue's TestReclaimBeforePriorityPreemption: flavors uno, due, tre,
// each 10 compute and 10 gpu in test-clusterqueue (withinClusterQueue and
// reclaimWithinCohort LowerPriority, WhenCanPreempt TryNextFlavor), none in
// other-clusterqueue of the same cohort. A request of 10 gpu needs
// preemption wherever 1 is used; among such flavors a reclaim (the stub
// says which) beats preemption in the queue, and a fit beats both.
func TestPortedReclaimBeforePriorityPreemption(t *testing.T) {
	type rc struct {
		pods              []PodSet
		usage, otherUsage map[string]string
		fung              *FlavorFungibility
		sims              map[string]sim
		want              string
		mode              Mode
	}
	cases := map[string]rc{
		"Select first flavor which fits": {pods: []PodSet{ps("main", 1, "gpu", "10")},
			usage: map[string]string{"uno/gpu": "1"}, otherUsage: map[string]string{"due/gpu": "1"},
			want: "main:1 gpu=tre/Fit", mode: Fit},
		"Select first flavor where gpu reclamation is possible": {pods: []PodSet{ps("main", 1, "gpu", "10")},
			usage: map[string]string{"uno/gpu": "1"}, otherUsage: map[string]string{"due/gpu": "1", "tre/gpu": "1"},
			sims: map[string]sim{"uno/gpu": {pmPreempt, 0}, "due/gpu": {pmReclaim, 0}},
			want: "main:1 gpu=due/Preempt", mode: Preempt},
		"Select first flavor when flavor fungibility is disabled": {pods: []PodSet{ps("main", 1, "gpu", "10")},
			usage: map[string]string{"uno/gpu": "1"}, otherUsage: map[string]string{"due/gpu": "1", "tre/gpu": "1"},
			fung: &FlavorFungibility{WhenCanPreempt: MayStopSearch}, want: "main:1 gpu=uno/Preempt", mode: Preempt},
		"Select first flavor when flavor fungibility is disabled; using deprecated WhenCanPreempt=MayStopSearch": {pods: []PodSet{ps("main", 1, "gpu", "10")},
			usage: map[string]string{"uno/gpu": "1"}, otherUsage: map[string]string{"due/gpu": "1", "tre/gpu": "1"},
			fung: &FlavorFungibility{WhenCanPreempt: MayStopSearch}, want: "main:1 gpu=uno/Preempt", mode: Preempt},
		"Select first flavor where priority based preemption is possible": {pods: []PodSet{ps("main", 1, "gpu", "10")},
			usage: map[string]string{"uno/gpu": "1", "due/gpu": "1", "tre/gpu": "1"}, want: "main:1 gpu=uno/Preempt", mode: Preempt},
		// due: gpu reclaim but compute preemption (worst counts); tre: gpu
		// reclaim and compute fits.
		"Select second flavor where gpu reclamation is possible, as compute Fits": {pods: []PodSet{ps("main", 1, "gpu", "10", "compute", "10")},
			usage: map[string]string{"uno/gpu": "1", "uno/compute": "1", "due/compute": "1"}, otherUsage: map[string]string{"due/gpu": "1", "tre/gpu": "1"},
			sims: map[string]sim{"uno/gpu": {pmPreempt, 0}, "due/gpu": {pmReclaim, 0}, "tre/gpu": {pmReclaim, 0}},
			want: "main:1 compute=tre/Fit,gpu=tre/Preempt", mode: Preempt},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			flavors := func(n string) []FlavorQuotas {
				var out []FlavorQuotas
				for _, f := range []string{"uno", "due", "tre"} {
					out = append(out, fq(f, res("compute", n), res("gpu", n)))
				}
				return out
			}
			q := mkCQ("test-clusterqueue").cohort("cohort").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
				fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor}).groups(rg(flavors("10")...)).obj()
			if c.fung != nil {
				q.FlavorFungibility = *c.fung
			}
			assignCase{flavors: []ResourceFlavor{{Name: "uno"}, {Name: "due"}, {Name: "tre"}}, pods: c.pods, cq: q, usage: c.usage,
				secondary: ptr(mkCQ("other-clusterqueue").cohort("cohort").groups(rg(flavors("0")...)).obj()), secondaryUsage: c.otherUsage,
				sims: c.sims, wantMode: c.mode, wantPodSets: []string{c.want}, noStatus: true}.run(t)
		})
	}
}

// Kueue's TestHierarchical (flavor assigner): cohorts three (4 cpu of
// flavor three) > two (4 of two) > one (4 of one); test-clusterqueue
// (nothing of its own) in one, other-clusterqueue in two. Flavor one is
// found at the nearest level, two one level up, three at the root: the
// search prefers the flavor borrowed from nearest.
func TestPortedHierarchicalFlavors(t *testing.T) {
	zero := []FlavorQuotas{fq("one", res(cpu, "0")), fq("two", res(cpu, "0")), fq("three", res(cpu, "0"))}
	type hc struct {
		flavors           []FlavorQuotas
		usage, otherUsage map[string]string
		fung              *FlavorFungibility
		sims              map[string]sim
		want              string
	}
	cases := map[string]hc{
		// one and two used up: three, from the root.
		"Select the top flavor": {flavors: zero, usage: map[string]string{"one/cpu": "4"}, otherUsage: map[string]string{"two/cpu": "4"},
			want: "main:1 cpu=three/Fit"},
		"Select the first flavor which fits": {flavors: zero, usage: map[string]string{"one/cpu": "4"}, want: "main:1 cpu=two/Fit"},
		// one (4 of its own, no borrowing) is full with no candidates: two,
		// borrowed from further up, is taken though PreemptionOverBorrowing.
		"Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates": {
			flavors: []FlavorQuotas{fq("one", res(cpu, "4", "0")), fq("two", res(cpu, "0")), fq("three", res(cpu, "0"))},
			usage:   map[string]string{"one/cpu": "4"},
			fung:    &FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"},
			sims:    map[string]sim{"one/cpu": {pmNoCandidates, 1}}, want: "main:1 cpu=two/Fit"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			q := mkCQ("test-clusterqueue").cohort("one").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
				fung(FlavorFungibility{WhenCanPreempt: TryNextFlavor}).groups(rg(c.flavors...)).obj()
			if c.fung != nil {
				q.FlavorFungibility = *c.fung
			}
			assignCase{flavors: []ResourceFlavor{{Name: "one"}, {Name: "two"}, {Name: "three"}},
				cohorts: []Cohort{{Name: "three", ResourceGroups: []ResourceGroup{rg(fq("three", res(cpu, "4")))}},
					{Name: "two", ParentName: "three", ResourceGroups: []ResourceGroup{rg(fq("two", res(cpu, "4")))}},
					{Name: "one", ParentName: "two", ResourceGroups: []ResourceGroup{rg(fq("one", res(cpu, "4")))}}},
				pods: []PodSet{ps("main", 1, "cpu", "4")}, cq: q, usage: c.usage,
				secondary: ptr(mkCQ("other-clusterqueue").cohort("two").groups(rg(zero...)).obj()), secondaryUsage: c.otherUsage,
				sims: c.sims, wantMode: Fit, wantPodSets: []string{c.want}, noStatus: true}.run(t)
		})
	}
}

// Kueue's TestFlavorScanRecordsLastTriedFlavorIdx, the cases without
// topology: the flavor the scan stopped at, which the next cycle resumes
// after (-1: it reached the last flavor, start over). cq has flavor-1 and
// flavor-2 (nominalPerFlavor each), a sibling in its cohort lends
// cohortSpare of each. (Its two cases where topology-aware placement then
// rejects the flavor are left to the topology work.) Kueue's cases with a
// MayStopSearch policy also set PreemptionOverBorrowing, which its webhook
// (and New) reject; the preference is dropped there: it only ranks flavors
// the scan goes on past, and these stop at the first or have equal modes.
func TestPortedFlavorScanRecordsLastTriedFlavorIdx(t *testing.T) {
	pob := FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}
	cases := map[string]struct {
		nominal, spare, request string
		usage                   map[string]string
		sims                    map[string]sim
		fung                    FlavorFungibility
		wantMode                Mode
		wantTried               int
	}{
		"quota and topology both fit on the first flavor: bookmark names it": {nominal: "10", spare: "0", request: "2", fung: pob, wantMode: Fit, wantTried: 0},
		// borrowing is not the best, and TryNextFlavor looks at flavor-2,
		// the last.
		"fits only by borrowing: bookmark says start over": {nominal: "1", spare: "20", request: "2", fung: pob, wantMode: Fit, wantTried: -1},
		"fits only by borrowing, but WhenCanBorrow is MayStopSearch: bookmark names the first flavor": {nominal: "1", spare: "20", request: "2",
			fung: FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: TryNextFlavor}, wantMode: Fit, wantTried: 0},
		"needs preemption and candidates exist: bookmark names the first flavor": {nominal: "2", spare: "0", request: "2",
			usage: map[string]string{"flavor-1/cpu": "2", "flavor-2/cpu": "2"}, sims: map[string]sim{"flavor-1/cpu": {pmPreempt, 0}, "flavor-2/cpu": {pmPreempt, 0}},
			fung: FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}, wantMode: Preempt, wantTried: 0},
		// a flavor without candidates never stops the scan.
		"needs preemption but no candidates: bookmark says start over whatever the policy": {nominal: "2", spare: "0", request: "2",
			usage: map[string]string{"flavor-1/cpu": "2", "flavor-2/cpu": "2"}, sims: map[string]sim{"flavor-1/cpu": {pmNoCandidates, 0}, "flavor-2/cpu": {pmNoCandidates, 0}},
			fung: FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: MayStopSearch}, wantMode: Preempt, wantTried: -1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			two := func(n string) ResourceGroup { return rg(fq("flavor-1", res(cpu, n)), fq("flavor-2", res(cpu, n))) }
			a, err := New(&Objects{ResourceFlavors: []ResourceFlavor{{Name: "flavor-1", NodeLabels: map[string]string{"flavor": "one"}},
				{Name: "flavor-2", NodeLabels: map[string]string{"flavor": "two"}}},
				ClusterQueues: []ClusterQueue{mkCQ("cq").cohort("cohort").fung(tc.fung).groups(two(tc.nominal)).obj(),
					mkCQ("sibling").cohort("cohort").groups(two(tc.spare)).obj()}}, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.usage {
				f, r, _ := strings.Cut(k, "/")
				a.cqs["cq"].node.addUsage(a.frIndex[fr{f, cluster.ResourceName(r)}], qty(cpu, v))
			}
			wi := &info{w: &Workload{Namespace: "default", Name: "wl", PodSets: []PodSet{ps("main", 1, "cpu", tc.request)}}, key: "default/wl"}
			fa := &flavorAssigner{a: a, wi: wi, q: a.cqs["cq"], simulate: func(k int, v int64) (preemptionMode, int) {
				f := a.frs[k]
				if s, ok := tc.sims[f.flavor+"/"+string(f.resource)]; ok {
					return s.pm, s.borrow
				}
				return pmPreempt, 0
			}}
			as := fa.assign(nil)
			assert.Equal(t, tc.wantMode, as.mode())
			assert.Equal(t, tc.wantTried, as.last.tried[0][cpu])
		})
	}
}

// Kueue's TestIsPreferred: which of two flavors' modes (preemption mode
// and borrowing level) the search prefers, by the queue's fungibility.
func TestPortedIsPreferred(t *testing.T) {
	both := FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor}
	pob := both
	pob.Preference = "PreemptionOverBorrowing"
	bop := both
	bop.Preference = "BorrowingOverPreemption"
	for name, tc := range map[string]struct {
		a, b granularMode
		f    FlavorFungibility
		want bool
	}{
		"feature gate disabled prioritises preemption":                                              {granularMode{pmFit, 0}, granularMode{pmPreempt, 0}, both, true},
		"explicit BorrowingOverPreemption prioritises borrowing distance":                           {granularMode{pmPreempt, 1}, granularMode{pmFit, 2}, bop, false},
		"explicit PreemptionOverBorrowing prioritises lower preemption":                             {granularMode{pmPreempt, 1}, granularMode{pmFit, 2}, pob, true},
		"explicit PreemptionOverBorrowing breaks borrowing ties with preemption":                    {granularMode{pmPreempt, 1}, granularMode{pmFit, 1}, pob, false},
		"explicit PreemptionOverBorrowing rejects no-candidate flavor before borrowing comparison":  {granularMode{pmNoCandidates, 1}, granularMode{pmFit, 2}, pob, false},
		"explicit PreemptionOverBorrowing prefers fit over shallower-borrowing no-candidate flavor": {granularMode{pmFit, 2}, granularMode{pmNoCandidates, 1}, pob, true},
		"no-candidate flavor remains preferable to no-fit flavor":                                   {granularMode{pmNoCandidates, 1}, granularMode{pmNoFit, 0}, FlavorFungibility{}, true},
		"no-fit flavor remains worse than no-candidate flavor":                                      {granularMode{pmNoFit, 0}, granularMode{pmNoCandidates, 1}, FlavorFungibility{}, false},
		"no-candidate flavors retain borrowing preference":                                          {granularMode{pmNoCandidates, 1}, granularMode{pmNoCandidates, 2}, FlavorFungibility{Preference: "PreemptionOverBorrowing"}, true},
		"no-candidate flavors retain borrowing preference in reverse":                               {granularMode{pmNoCandidates, 2}, granularMode{pmNoCandidates, 1}, FlavorFungibility{Preference: "PreemptionOverBorrowing"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, preferred(tc.a, tc.b, tc.f))
		})
	}
}
