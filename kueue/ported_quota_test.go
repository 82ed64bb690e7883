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
