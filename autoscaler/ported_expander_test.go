package autoscaler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The cases of the cluster autoscaler's expander tests (expander/priority,
// expander/mostpods, expander/waste), on this model's expanders: each row
// gives groups (their templates), the options the scale-up offers (a
// group, its node count, pods and what they ask), and the group the
// expander must pick. Where the cluster autoscaler returns several equal
// options and draws among them, the row lists them all; this model takes
// the first in group order (docs/autoscaling.md), which the row checks
// too.
func TestExpanderCasesFromClusterAutoscaler(t *testing.T) {
	type grp struct {
		name   string
		cpu    int64 // millicores
		memory int64 // bytes
	}
	micro, large, t3, m4 := "my-asg.t2.micro", "my-asg.t2.large", "my-asg.t3.large", "my-asg.m4.4xlarge"
	asgs := []grp{{micro, 1000, 1 << 30}, {large, 1000, 1 << 30}, {t3, 1000, 1 << 30}, {m4, 1000, 1 << 30}}
	config := map[int][]string{5: {`.*t2\.micro.*`}, 10: {`.*t2\.large.*`, `.*t3\.large.*`}, 50: {`.*m4\.4xlarge.*`}}
	oneEntry := map[int][]string{10: {`.*t2\.large.*`}}
	wildcard := map[int][]string{5: {`.*`}, 10: {`.t2\.large.*`}}
	one := func(g string) opt { return opt{group: g, nodes: 1, pods: 1, cpu: 100, memory: 1 << 20} }
	const cpuPerPod, memPerPod = 500, 1000 << 20
	wasteGroups := []grp{{"balanced", 16 * cpuPerPod, 16 * memPerPod}, {"highmem", 16 * cpuPerPod, 32 * memPerPod}, {"lowcpu", 8 * cpuPerPod, 16 * memPerPod}}
	pod1 := func(g string) opt { return opt{group: g, nodes: 1, pods: 1, cpu: cpuPerPod, memory: memPerPod} }
	cases := []struct {
		name     string
		skip     string
		expander string
		prios    map[int][]string
		groups   []grp
		opts     []opt
		best     []string // the cluster autoscaler's best options
	}{
		// cluster autoscaler: TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfOne
		{name: "TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfOne", expander: "priority", prios: config, groups: asgs,
			opts: []opt{one(large)}, best: []string{large}},
		// cluster autoscaler: TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfMany
		{name: "TestPriorityExpanderCorrecltyFiltersSingleMatchingOptionOutOfMany", expander: "priority", prios: config, groups: asgs,
			opts: []opt{one(large), one(m4)}, best: []string{m4}},
		// cluster autoscaler: TestPriorityExpanderFiltersToHigherPriorityMatch
		{name: "TestPriorityExpanderFiltersToHigherPriorityMatch", expander: "priority", prios: wildcard, groups: asgs,
			opts: []opt{one(large), one(micro)}, best: []string{large}},
		// cluster autoscaler: TestPriorityExpanderCorrecltyFiltersTwoMatchingOptionsOutOfMany
		{name: "TestPriorityExpanderCorrecltyFiltersTwoMatchingOptionsOutOfMany", expander: "priority", prios: config, groups: asgs,
			opts: []opt{one(large), one(t3), one(micro)}, best: []string{large, t3}},
		// cluster autoscaler: TestPriorityExpanderCorrecltyFallsBackToAllWhenNoMatches
		{name: "TestPriorityExpanderCorrecltyFallsBackToAllWhenNoMatches", expander: "priority", prios: config, groups: asgs,
			opts: []opt{one(large), one(t3)}, best: []string{large, t3}},
		// cluster autoscaler: TestPriorityExpanderCorrecltyHandlesConfigUpdate (its first
		// part: groups no expression matches are not used)
		{name: "TestPriorityExpanderCorrecltyHandlesConfigUpdate", expander: "priority", prios: oneEntry, groups: asgs,
			opts: []opt{one(large), one(t3), one(m4)}, best: []string{large}},
		// cluster autoscaler: TestPriorityExpanderCorrecltySkipsBadChangeConfig
		{name: "TestPriorityExpanderCorrecltySkipsBadChangeConfig", skip: "the priorities are fixed for a run and checked when it starts (New refuses a bad table); no ConfigMap changes during a run"},
		// cluster autoscaler: TestMostPods (one option; one with a pod beats one without; two with one pod tie)
		{name: "TestMostPods/one option", expander: "most-pods", groups: asgs, opts: []opt{{group: micro, nodes: 1}}, best: []string{micro}},
		{name: "TestMostPods/more pods", expander: "most-pods", groups: asgs, opts: []opt{{group: micro, nodes: 1}, one(large)}, best: []string{large}},
		{name: "TestMostPods/a tie", expander: "most-pods", groups: asgs, opts: []opt{{group: micro, nodes: 1}, one(large), one(t3)}, best: []string{large, t3}},
		// cluster autoscaler: TestLeastWaste (one group without pods; with one pod; a
		// group with more memory wastes more; one with less cpu wastes less)
		{name: "TestLeastWaste/no pods", expander: "least-waste", groups: wasteGroups, opts: []opt{{group: "balanced", nodes: 1}}, best: []string{"balanced"}},
		{name: "TestLeastWaste/one pod", expander: "least-waste", groups: wasteGroups, opts: []opt{pod1("balanced")}, best: []string{"balanced"}},
		{name: "TestLeastWaste/highmem", expander: "least-waste", groups: wasteGroups, opts: []opt{pod1("balanced"), pod1("highmem")}, best: []string{"balanced"}},
		{name: "TestLeastWaste/lowcpu", expander: "least-waste", groups: wasteGroups, opts: []opt{pod1("balanced"), pod1("highmem"), pod1("lowcpu")}, best: []string{"lowcpu"}},
		// cluster autoscaler: TestPriceExpander and the preferred-node tests
		{name: "TestPriceExpander", skip: "the price expander here is the price per pod helped, without the cluster autoscaler's preferred-node term and its node-unfitness penalty (docs/autoscaling.md)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			var groups []NodeGroup
			for _, g := range tc.groups {
				groups = append(groups, NodeGroup{Name: g.name, Max: 10,
					Template: gt.MakeNode("t").MilliCPU(g.cpu).Memory(fmt.Sprint(g.memory)).Pods(100).Obj()})
			}
			a, err := New(Config{Expander: tc.expander, Priorities: tc.prios}, groups, nil)
			require.NoError(t, err)
			byName := map[string]*groupState{}
			for _, g := range a.groups {
				byName[g.Name] = g
			}
			var opts []option
			for _, o := range tc.opts {
				opts = append(opts, option{g: byName[o.group], nodes: o.nodes, pods: make([]*cluster.PodInfo, o.pods), reqCPU: o.cpu, reqMem: o.memory})
			}
			got := a.expand(opts).g.Name
			require.Contains(t, tc.best, got)
			first := "" // the first of the best in group order
			for _, g := range a.groups {
				if first == "" && slices.Contains(tc.best, g.Name) {
					first = g.Name
				}
			}
			require.Equal(t, first, got, "ties go to the group given first")
		})
	}
}

// opt is an option a row offers the expander: a group, its node count,
// and its pods with what they ask in total (millicores, bytes).
type opt struct {
	group       string
	nodes, pods int
	cpu, memory int64
}
