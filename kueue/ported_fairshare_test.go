package kueue

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestDominantResourceShare (pkg/cache/scheduler,
// fair_sharing_test.go): the share of a ClusterQueue "cq", of the queue
// that lends it ("lending-cq") and of their cohorts, with usage on cq
// and, where given, a workload's requests more. Want is "node:share:
// resource" with the share rounded up as Kueue reports it; an omitted
// node has share 0 and no dominant resource.

// fsw is a fair-sharing weight given in units ("0.5").
func fsw(units float64) *FairSharing {
	w := int64(math.Round(units * 1e9))
	return &FairSharing{Weight: &w}
}

func TestPortedDominantResourceShare(t *testing.T) {
	cpuGPU := func(c, g string, gLimits ...string) ResourceGroup {
		return rg(fq("default", res(cpu, c), res(gpu, append([]string{g}, gLimits...)...)))
	}
	onlyGPU := func(g ...string) ResourceGroup { return rg(fq("default", res(gpu, g...))) }
	cq := func(cohort string, w *FairSharing, g ...ResourceGroup) ClusterQueue {
		q := mkCQ("cq").cohort(cohort).groups(g...).obj()
		q.FairSharing = w
		return q
	}
	lending := func(w *FairSharing, g ...ResourceGroup) ClusterQueue {
		q := mkCQ("lending-cq").cohort("test-cohort").groups(g...).obj()
		q.FairSharing = w
		return q
	}
	cases := map[string]struct {
		cqs     []ClusterQueue
		cohorts []Cohort
		usage   map[string]string // "flavor/resource" -> amount, on cq
		req     map[string]string // the workload's, when given
		want    []string
	}{
		"no cohort": {
			cqs:   []ClusterQueue{cq("", nil, cpuGPU("2000", "5"))},
			usage: map[string]string{"default/cpu": "1", "default/example.com/gpu": "2"},
		},
		"usage below nominal": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), cpuGPU("2", "5")), lending(fsw(1), cpuGPU("8", "5"))},
			usage: map[string]string{"default/cpu": "1", "default/example.com/gpu": "2"},
		},
		// (7-5)*1000/10
		"usage above nominal": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), cpuGPU("2", "5")), lending(fsw(1), cpuGPU("8", "5"))},
			usage: map[string]string{"default/cpu": "3", "default/example.com/gpu": "7"},
			want:  []string{"cq:200:example.com/gpu"},
		},
		"usage slightly above nominal in a cohort with large quotas": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), onlyGPU("500")), lending(fsw(300), onlyGPU("1000"))},
			usage: map[string]string{"default/example.com/gpu": "501"},
			want:  []string{"cq:1:example.com/gpu"},
		},
		"usage way above nominal in a cohort with large quotas and weights": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(300), onlyGPU("500")), lending(fsw(300), onlyGPU("1000"))},
			usage: map[string]string{"default/example.com/gpu": "800"},
			want:  []string{"cq:1:example.com/gpu"},
		},
		// (3-2)*1000/10
		"one resource above nominal": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), cpuGPU("2", "5")), lending(fsw(1), cpuGPU("8", "5"))},
			usage: map[string]string{"default/cpu": "3", "default/example.com/gpu": "3"},
			want:  []string{"cq:100:cpu"},
		},
		// (1+4-2)*1000/10
		"usage with workload above nominal": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), cpuGPU("2", "5")), lending(fsw(1), cpuGPU("8", "5"))},
			usage: map[string]string{"default/cpu": "1", "default/example.com/gpu": "2"},
			req:   map[string]string{"default/cpu": "4", "default/example.com/gpu": "4"},
			want:  []string{"cq:300:cpu"},
		},
		// gpu is borrowed but nothing of it can be lent: cpu dominates
		"A resource with zero lendable": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(1), cpuGPU("2", "2", "", "0")), lending(fsw(1), cpuGPU("8", "64", "", "0"))},
			usage: map[string]string{"default/cpu": "1", "default/example.com/gpu": "1"},
			req:   map[string]string{"default/cpu": "4", "default/example.com/gpu": "4"},
			want:  []string{"cq:300:cpu"},
		},
		// ((15+10-20)+0)*1000/200 (spot under nominal)
		"multiple flavors": {
			cqs: []ClusterQueue{cq("test-cohort", fsw(1), rg(fq("on-demand", res(cpu, "20")), fq("spot", res(cpu, "80")))),
				lending(fsw(1), rg(fq("on-demand", res(cpu, "100")), fq("spot", res(cpu, "0"))))},
			usage: map[string]string{"on-demand/cpu": "15", "spot/cpu": "5"},
			req:   map[string]string{"on-demand/cpu": "10"},
			want:  []string{"cq:25:cpu"},
		},
		// ((7-5)*1000/10)/2
		"above nominal with integer weight": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(2), onlyGPU("5")), lending(fsw(1), onlyGPU("5"))},
			usage: map[string]string{"default/example.com/gpu": "7"},
			want:  []string{"cq:100:example.com/gpu"},
		},
		// ((7-5)*1000/10)/(1/2)
		"above nominal with decimal weight": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(0.5), onlyGPU("5")), lending(fsw(1), onlyGPU("5"))},
			usage: map[string]string{"default/example.com/gpu": "7"},
			want:  []string{"cq:400:example.com/gpu"},
		},
		"above nominal with zero weight": {
			cqs:   []ClusterQueue{cq("test-cohort", fsw(0), onlyGPU("5")), lending(fsw(1), onlyGPU("10"))},
			usage: map[string]string{"default/example.com/gpu": "7"},
			want:  []string{"cq:9223372036854775807:example.com/gpu"},
		},
		// cq: 5/50; child-cohort: 5/50 over its weight 2
		"cohort has resource share": {
			cqs: []ClusterQueue{cq("child-cohort", fsw(1), onlyGPU("5"))},
			cohorts: []Cohort{{Name: "child-cohort", ParentName: "root", FairSharing: fsw(2)},
				{Name: "root", ResourceGroups: []ResourceGroup{onlyGPU("45")}}},
			usage: map[string]string{"default/example.com/gpu": "10"},
			want:  []string{"cq:100:example.com/gpu", "child-cohort:50:example.com/gpu"},
		},
		"resource share defined for resources only available at the root cohort": {
			cqs: []ClusterQueue{cq("child-cohort", fsw(1), onlyGPU("0"))},
			cohorts: []Cohort{{Name: "child-cohort", ParentName: "root", FairSharing: fsw(2)},
				{Name: "root", ResourceGroups: []ResourceGroup{onlyGPU("50")}}},
			usage: map[string]string{"default/example.com/gpu": "10"},
			want:  []string{"cq:200:example.com/gpu", "child-cohort:100:example.com/gpu"},
		},
		// cq may reach only the 10 its cohort may borrow: 10/10; the
		// cohort borrows 10 of root's 50
		"resource share affected by borrowing limit": {
			cqs: []ClusterQueue{cq("child-cohort", nil, onlyGPU("0"))},
			cohorts: []Cohort{{Name: "child-cohort", ParentName: "root", ResourceGroups: []ResourceGroup{onlyGPU("0", "10")}},
				{Name: "root", ResourceGroups: []ResourceGroup{onlyGPU("50")}}},
			usage: map[string]string{"default/example.com/gpu": "10"},
			want:  []string{"cq:1000:example.com/gpu", "child-cohort:200:example.com/gpu"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "default"}, {Name: "on-demand"}, {Name: "spot"}}, ClusterQueues: tc.cqs, Cohorts: tc.cohorts}
			a, err := New(o, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			amounts := func(m map[string]string) []frAmount {
				var out []frAmount
				for k, v := range m {
					f, r, _ := strings.Cut(k, "/")
					i, ok := a.frIndex[fr{f, cluster.ResourceName(r)}]
					if !ok {
						t.Fatalf("no flavor-resource %s", k)
					}
					out = append(out, frAmount{i, qty(cluster.ResourceName(r), v)})
				}
				return out
			}
			for _, u := range amounts(tc.usage) {
				a.cqs["cq"].node.addUsage(u.fr, u.v)
			}
			req := amounts(tc.req)
			var got []string
			nodes := []*node{}
			for _, q := range a.queues {
				nodes = append(nodes, q.node)
			}
			for _, k := range sortedKeys(a.cohorts) {
				nodes = append(nodes, a.cohorts[k])
			}
			for _, n := range nodes {
				d := a.dominantShare(n, req)
				if v := d.rounded(); v != 0 || d.dominant != "" || d.borrowing {
					got = append(got, n.name+":"+strconv.FormatInt(v, 10)+":"+string(d.dominant))
				}
			}
			want := map[string]bool{}
			for _, w := range tc.want {
				want[w] = true
			}
			gotSet := map[string]bool{}
			for _, g := range got {
				gotSet[g] = true
			}
			assert.Equal(t, want, gotSet)
		})
	}
}
