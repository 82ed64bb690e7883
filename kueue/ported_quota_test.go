package kueue

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's quota tests of its cache (pkg/cache/scheduler):
// TestAvailable (resource_test.go), what a ClusterQueue may still use and
// the most it could ever use, with lending and borrowing limits and
// cohorts of several levels, before usage is added, with it, and after it
// is removed again; and TestCohortLendable (resource_node_test.go). Each
// case under Kueue's name, the numbers in millicores ("10" is 10 cpu).

// availCase is one TestAvailable case: queues and cohorts of flavor red
// (and blue), usage per queue, and the expected amounts per queue and
// flavor ("cq1/red": "4").
type availCase struct {
	cqs                     []ClusterQueue
	cohorts                 []Cohort
	usage                   map[string]string // "cq/flavor" -> cpu
	wantAvailable, wantPotl map[string]string
}

func TestPortedAvailable(t *testing.T) {
	red := func(limits ...string) ResourceGroup { return rg(fq("red", res(cpu, limits...))) }
	cases := map[string]availCase{
		// No cohort: a queue has its own nominal quota, less its usage;
		// cq1 uses 1 of 0 and has 0, not less.
		"base cqs": {
			cqs: []ClusterQueue{mkCQ("cq1").groups(red("0")).obj(),
				mkCQ("cq2").groups(rg(fq("red", res(cpu, "5")), fq("blue", res(cpu, "10")))).obj()},
			usage:         map[string]string{"cq1/red": "1", "cq2/red": "2.5", "cq2/blue": "1"},
			wantAvailable: map[string]string{"cq1/red": "0", "cq2/red": "2.5", "cq2/blue": "9"},
			wantPotl:      map[string]string{"cq1/red": "0", "cq2/red": "5", "cq2/blue": "10"},
		},
		// The cohort has 10 of its own, cq1 lends 10, cq2 lends 9 and
		// keeps 1: 29 in the cohort. cq1 may have 29, cq2 its 1 and 29;
		// with 1 and 0.5 used (cq2's within what it keeps), 28 and 28.5.
		"cqs with cohort": {
			cqs:           []ClusterQueue{mkCQ("cq1").cohort("cohort").groups(red("10")).obj(), mkCQ("cq2").cohort("cohort").groups(red("10", "", "9")).obj()},
			cohorts:       []Cohort{{Name: "cohort", ResourceGroups: []ResourceGroup{red("10")}}},
			usage:         map[string]string{"cq1/red": "1", "cq2/red": "0.5"},
			wantAvailable: map[string]string{"cq1/red": "28", "cq2/red": "28.5"},
			wantPotl:      map[string]string{"cq1/red": "29", "cq2/red": "30"},
		},
		"cq borrows from cohort": {
			cqs:           []ClusterQueue{mkCQ("cq1").cohort("cohort").groups(red("10")).obj()},
			cohorts:       []Cohort{{Name: "cohort", ResourceGroups: []ResourceGroup{red("10")}}},
			usage:         map[string]string{"cq1/red": "11"},
			wantAvailable: map[string]string{"cq1/red": "9"},
			wantPotl:      map[string]string{"cq1/red": "20"},
		},
		// cq1 uses 31 of the 20 it may reach: the excess counts in the
		// cohort, so cq2 (which neither lends nor borrows) has 0 too.
		"cq oversubscription spills into cohort": {
			cqs:           []ClusterQueue{mkCQ("cq1").cohort("cohort").groups(red("10")).obj(), mkCQ("cq2").cohort("cohort").groups(red("10", "0", "0")).obj()},
			cohorts:       []Cohort{{Name: "cohort", ResourceGroups: []ResourceGroup{red("10")}}},
			usage:         map[string]string{"cq1/red": "31"},
			wantAvailable: map[string]string{"cq1/red": "0", "cq2/red": "0"},
			wantPotl:      map[string]string{"cq1/red": "20", "cq2/red": "10"},
		},
		// 40 in all; cq3 keeps 5. cq1: 35 at most; cq2: 10 + 2; cq3: 40.
		// Used 20 + 10 + 6 (1 of cq3's beyond its 5): 4 left; cq2 only 2.
		"lending and borrowing limits respected": {
			cqs: []ClusterQueue{mkCQ("cq1").cohort("cohort").groups(red("10")).obj(), mkCQ("cq2").cohort("cohort").groups(red("10", "2")).obj(),
				mkCQ("cq3").cohort("cohort").groups(red("10", "", "5")).obj()},
			cohorts:       []Cohort{{Name: "cohort", ResourceGroups: []ResourceGroup{red("10")}}},
			usage:         map[string]string{"cq1/red": "20", "cq2/red": "10", "cq3/red": "6"},
			wantAvailable: map[string]string{"cq1/red": "4", "cq2/red": "2", "cq3/red": "4"},
			wantPotl:      map[string]string{"cq1/red": "35", "cq2/red": "12", "cq3/red": "40"},
		},
		// root > left (10) > cq1 (10); root > right (10) > cq2 (10, lends
		// nothing). cq1 reaches 30, cq2 40.
		"hierarchical cohort": {
			cqs: []ClusterQueue{mkCQ("cq1").cohort("left").groups(red("10")).obj(), mkCQ("cq2").cohort("right").groups(red("10", "", "0")).obj()},
			cohorts: []Cohort{{Name: "root"}, {Name: "left", ParentName: "root", ResourceGroups: []ResourceGroup{red("10")}},
				{Name: "right", ParentName: "root", ResourceGroups: []ResourceGroup{red("10")}}},
			usage:         map[string]string{"cq1/red": "10", "cq2/red": "5"},
			wantAvailable: map[string]string{"cq1/red": "20", "cq2/red": "25"},
			wantPotl:      map[string]string{"cq1/red": "30", "cq2/red": "40"},
		},
		// left (10, may borrow 5 from root) holds left-cq1 (10) and
		// left-cq2 (10, may borrow 5); right (10) holds right-cq (10).
		"hierarchical cohort respects borrowing limit": {
			cqs: []ClusterQueue{mkCQ("left-cq1").cohort("left").groups(red("10")).obj(), mkCQ("left-cq2").cohort("left").groups(red("10", "5")).obj(),
				mkCQ("right-cq").cohort("right").groups(red("10")).obj()},
			cohorts: []Cohort{{Name: "root"}, {Name: "left", ParentName: "root", ResourceGroups: []ResourceGroup{red("10", "5")}},
				{Name: "right", ParentName: "root", ResourceGroups: []ResourceGroup{red("10")}}},
			wantAvailable: map[string]string{"left-cq1/red": "35", "left-cq2/red": "15", "right-cq/red": "50"},
			wantPotl:      map[string]string{"left-cq1/red": "35", "left-cq2/red": "15", "right-cq/red": "50"},
		},
		// left-cq1 (10) lends 5 to left (0), which lends 5 to root.
		"hierarchical cohort respects lending limit": {
			cqs: []ClusterQueue{mkCQ("left-cq1").cohort("left").groups(red("10", "", "5")).obj(), mkCQ("left-cq2").cohort("left").groups(red("10")).obj(),
				mkCQ("right-cq").cohort("right").groups(red("0")).obj(), mkCQ("root-cq").cohort("root").groups(red("0")).obj()},
			cohorts: []Cohort{{Name: "root"}, {Name: "left", ParentName: "root", ResourceGroups: []ResourceGroup{red("0", "", "5")}},
				{Name: "right", ParentName: "root", ResourceGroups: []ResourceGroup{red("0")}}},
			wantAvailable: map[string]string{"left-cq1/red": "20", "left-cq2/red": "15", "right-cq/red": "5", "root-cq/red": "5"},
			wantPotl:      map[string]string{"left-cq1/red": "20", "left-cq2/red": "15", "right-cq/red": "5", "root-cq/red": "5"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "red"}, {Name: "blue"}}, ClusterQueues: tc.cqs, Cohorts: tc.cohorts}
			for i := range o.ClusterQueues {
				if o.ClusterQueues[i].CohortName == "" {
					o.ClusterQueues[i].ResourceGroups = dropLimits(o.ClusterQueues[i].ResourceGroups)
				}
			}
			a, err := New(o, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			measure := func() (map[string]string, map[string]string) {
				avail, potl := map[string]string{}, map[string]string{}
				for _, q := range a.queues {
					for _, g := range q.rgs {
						for _, f := range g.flavors {
							k := a.frIndex[fr{f, cpu}]
							key := q.spec.Name + "/" + f
							avail[key] = cluster.FormatAmount(cpu, max(0, q.node.available(k)))
							potl[key] = cluster.FormatAmount(cpu, q.node.potentialAvailable(k))
						}
					}
				}
				return avail, potl
			}
			want := func(m map[string]string) map[string]string {
				out := map[string]string{}
				for k, v := range m {
					out[k] = cluster.FormatAmount(cpu, qty(cpu, v))
				}
				return out
			}
			change := func(add bool) {
				for k, v := range tc.usage {
					q, f, _ := strings.Cut(k, "/")
					n := a.cqs[q].node
					if add {
						n.addUsage(a.frIndex[fr{f, cpu}], qty(cpu, v))
					} else {
						n.removeUsage(a.frIndex[fr{f, cpu}], qty(cpu, v))
					}
				}
			}
			// before usage, available is the potential
			avail, potl := measure()
			assert.Equal(t, want(tc.wantPotl), avail, "available before usage")
			assert.Equal(t, want(tc.wantPotl), potl, "potentially available before usage")
			change(true)
			avail, potl = measure()
			assert.Equal(t, want(tc.wantAvailable), avail, "available")
			assert.Equal(t, want(tc.wantPotl), potl, "potentially available")
			change(false)
			avail, potl = measure()
			assert.Equal(t, want(tc.wantPotl), avail, "available after removal")
			assert.Equal(t, want(tc.wantPotl), potl, "potentially available after removal")
		})
	}
}

// Kueue's TestCohortLendable: cq1 lends all its 8 cpu and 3 gpu, cq2 its
// 2 cpu: the cohort has 10 cpu and 3 gpu.
func TestPortedCohortLendable(t *testing.T) {
	o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{
		mkCQ("cq1").cohort("test-cohort").groups(rg(fq("default", res(cpu, "8", "", "8"), res(gpu, "3", "", "3")))).obj(),
		mkCQ("cq2").cohort("test-cohort").groups(rg(fq("default", res(cpu, "2", "", "2")))).obj()}}
	a, err := New(o, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := a.cohorts["test-cohort"]
	assert.Equal(t, qty(cpu, "10"), c.subtree[a.frIndex[fr{"default", cpu}]])
	assert.Equal(t, int64(3), c.subtree[a.frIndex[fr{"default", gpu}]])
}

// snapCase is one case of Kueue's TestSnapshotAddRemoveWorkload(s): the
// workloads removed from and added back to the snapshot, and the usage of
// each node after ("c1 default/cpu": "2").
type snapCase struct {
	remove, add []string
	want        map[string]string // nil: as at the start
}

// runSnap admits the workloads, then for each case removes and adds them
// as the preemption search does, and compares each node's usage.
func runSnap(t *testing.T, o *Objects, wls []admittedWorkload, cases map[string]snapCase) {
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := New(o, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range wls {
				if err := a.AddAdmitted(x.w.w, x.adm); err != nil {
					t.Fatal(err)
				}
			}
			usage := func() map[string]string {
				out := map[string]string{}
				for _, n := range a.allNodes() {
					for i, f := range a.frs {
						if n.quotas[i].set || n.cq == nil {
							out[n.name+" "+f.flavor+"/"+string(f.resource)] = cluster.FormatAmount(f.resource, n.usage[i])
						}
					}
				}
				return out
			}
			initial := usage()
			for _, k := range tc.remove {
				removeWorkload(a.workloads["/"+k])
			}
			for _, k := range tc.add {
				addWorkload(a.workloads["/"+k])
			}
			want := initial
			if tc.want != nil {
				want = map[string]string{}
				for k, v := range tc.want {
					_, fr, _ := strings.Cut(k, " ")
					_, r, _ := strings.Cut(fr, "/")
					want[k] = cluster.FormatAmount(cluster.ResourceName(r), qty(cluster.ResourceName(r), v))
				}
			}
			assert.Equal(t, want, usage())
		})
	}
}

// Kueue's TestSnapshotAddRemoveWorkload: c1 (cpu 6 of default; memory 6Gi
// of alpha and of beta) and c2 (cpu 6) in a cohort, no lending limits: a
// queue's usage is all counted in the cohort too.
func TestPortedSnapshotAddRemoveWorkload(t *testing.T) {
	mem := cluster.ResourceMemory
	o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}, {Name: "alpha"}, {Name: "beta"}}, ClusterQueues: []ClusterQueue{
		mkCQ("c1").cohort("cohort").groups(rg(fq("default", res(cpu, "6"))), rg(fq("alpha", res(mem, "6Gi")), fq("beta", res(mem, "6Gi")))).obj(),
		mkCQ("c2").cohort("cohort").groups(rg(fq("default", res(cpu, "6")))).obj()}}
	wls := []admittedWorkload{
		{mkWl("c1-cpu", "").req(cpu, "1"), adm("c1", "main:1:cpu=default")},
		{mkWl("c1-memory-alpha", "").req(mem, "1Gi"), adm("c1", "main:1:memory=alpha")},
		{mkWl("c1-memory-beta", "").req(mem, "1Gi"), adm("c1", "main:1:memory=beta")},
		{mkWl("c2-cpu-1", "").req(cpu, "1"), adm("c2", "main:1:cpu=default")},
		{mkWl("c2-cpu-2", "").req(cpu, "1"), adm("c2", "main:1:cpu=default")}}
	all := []string{"c1-cpu", "c1-memory-alpha", "c1-memory-beta", "c2-cpu-1", "c2-cpu-2"}
	runSnap(t, o, wls, map[string]snapCase{
		"no-op remove add": {remove: []string{"c1-cpu", "c2-cpu-1"}, add: []string{"c1-cpu", "c2-cpu-1"}},
		"remove all": {remove: all, want: map[string]string{"cohort default/cpu": "0", "cohort alpha/memory": "0", "cohort beta/memory": "0",
			"c1 default/cpu": "0", "c1 alpha/memory": "0", "c1 beta/memory": "0", "c2 default/cpu": "0"}},
		"remove c1-cpu": {remove: []string{"c1-cpu"}, want: map[string]string{"cohort default/cpu": "2", "cohort alpha/memory": "1Gi", "cohort beta/memory": "1Gi",
			"c1 default/cpu": "0", "c1 alpha/memory": "1Gi", "c1 beta/memory": "1Gi", "c2 default/cpu": "2"}},
		"remove c1-memory-alpha": {remove: []string{"c1-memory-alpha"}, want: map[string]string{"cohort default/cpu": "3", "cohort alpha/memory": "0",
			"cohort beta/memory": "1Gi", "c1 default/cpu": "1", "c1 alpha/memory": "0", "c1 beta/memory": "1Gi", "c2 default/cpu": "2"}},
	})
}

// Kueue's TestSnapshotAddRemoveWorkloadWithLendingLimit: lend-a (10,
// lends 4: keeps 6) and lend-b (10, lends 6: keeps 4). lend-a holds 1 + 9
// + 6 = 16, 10 beyond what it keeps; lend-b 4, within. Only what exceeds
// a queue's kept quota counts in the cohort.
func TestPortedSnapshotAddRemoveWorkloadWithLendingLimit(t *testing.T) {
	o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}}, ClusterQueues: []ClusterQueue{
		mkCQ("lend-a").cohort("lend").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptLowerPriority}).
			groups(rg(fq("default", res(cpu, "10", "", "4")))).obj(),
		mkCQ("lend-b").cohort("lend").preempt(Preemption{WithinClusterQueue: PreemptNever, ReclaimWithinCohort: PreemptAny}).
			groups(rg(fq("default", res(cpu, "10", "", "6")))).obj()}}
	wls := []admittedWorkload{
		{mkWl("lend-a-1", "").req(cpu, "1"), adm("lend-a", "main:1:cpu=default")},
		{mkWl("lend-a-2", "").req(cpu, "9"), adm("lend-a", "main:1:cpu=default")},
		{mkWl("lend-a-3", "").req(cpu, "6"), adm("lend-a", "main:1:cpu=default")},
		{mkWl("lend-b-1", "").req(cpu, "4"), adm("lend-b", "main:1:cpu=default")}}
	all := []string{"lend-a-1", "lend-a-2", "lend-a-3", "lend-b-1"}
	u := func(lend, a, b string) map[string]string {
		return map[string]string{"lend default/cpu": lend, "lend-a default/cpu": a, "lend-b default/cpu": b}
	}
	runSnap(t, o, wls, map[string]snapCase{
		"remove all then add all": {remove: all, add: all},
		"remove all":              {remove: all, want: u("0", "0", "0")},
		// 7 used, 6 kept: 1 in the cohort.
		"remove workload, but still using quota over GuaranteedQuota":         {remove: []string{"lend-a-2"}, want: u("1", "7", "4")},
		"remove wokload, using same quota as GuaranteedQuota":                 {remove: []string{"lend-a-1", "lend-a-2"}, want: u("0", "6", "4")},
		"remove workload, using less quota than GuaranteedQuota":              {remove: []string{"lend-a-2", "lend-a-3"}, want: u("0", "1", "4")},
		"remove all then add workload, using less quota than GuaranteedQuota": {remove: all, add: []string{"lend-a-1"}, want: u("0", "1", "0")},
		"remove all then add workload, using same quota as GuaranteedQuota":   {remove: all, add: []string{"lend-a-3"}, want: u("0", "6", "0")},
		"remove all then add workload, using quota over GuaranteedQuota":      {remove: all, add: []string{"lend-a-2"}, want: u("3", "9", "0")},
	})
}
