package podtopologyspread_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

// The cases are kube-scheduler's filtering cases for the plugin (which
// pod, on which cluster, is accepted or rejected with which code), on
// kube's four nodes unless a case says otherwise: node-a and node-b in
// zone1, node-x and node-y in zone2. A spread written 2/1/0/3 counts the
// matching pods on node-a, node-b, node-x and node-y; ~n~ marks a node
// the inclusion policies leave out of the domains.
func TestFilter(t *testing.T) {
	skew := fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod topology spread constraints").WithPlugin(podtopologyspread.Name)
	missing := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match pod topology spread constraints (missing required label)").WithPlugin(podtopologyspread.Name)
	pod := func() *gangsimtest.PodWrapper { return gangsimtest.MakePod("p").Label("foo", "") }
	spread2103 := running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-y", 3})
	threeHosts := []*gangsimtest.NodeWrapper{zoned("node-a", ""), zoned("node-b", ""), zoned("node-c", "")}
	spread221 := running("foo", on{"node-a", 2}, on{"node-b", 2}, on{"node-c", 1})
	// for the inclusion policies: node-y has no label foo and a taint
	policyNodes := func() []*gangsimtest.NodeWrapper {
		return []*gangsimtest.NodeWrapper{
			zoned("node-a", "zone1").Label("foo", ""), zoned("node-b", "zone1").Label("foo", ""),
			zoned("node-x", "zone2").Label("foo", ""), zoned("node-y", "zone2").Taint("node.kubernetes.io/unschedulable", "", cluster.TaintNoSchedule),
		}
	}
	spread1101 := running("foo", on{"node-a", 1}, on{"node-b", 1}, on{"node-y", 1})
	tests := []struct {
		name        string
		args        *podtopologyspread.Args
		nodes       []*gangsimtest.NodeWrapper // nil: fourNodes
		pods        []*gangsimtest.PodWrapper
		terminating []string
		pod         cluster.Pod
		want        map[string]*fw.Status // the rejected nodes
	}{
		// one constraint
		{name: "no existing pods", pod: incoming(pod(), hard(1, zoneKey, foo))},
		{name: "no existing pods, the pod does not match itself", pod: incoming(pod(), hard(1, zoneKey, bar))},
		{name: "pods of other namespaces do not count: 0/2 in zones",
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("p-a1").Namespace("ns1").NodeName("node-a").Label("foo", ""),
				gangsimtest.MakePod("p-a2").Namespace("ns2").NodeName("node-a").Label("foo", ""),
				gangsimtest.MakePod("p-x1").NodeName("node-x").Label("foo", ""),
				gangsimtest.MakePod("p-y1").NodeName("node-y").Label("foo", ""),
			},
			pod: incoming(pod(), hard(1, zoneKey, foo)), want: map[string]*fw.Status{"node-x": skew, "node-y": skew}},
		{name: "a nil selector counts no pods and does not match the pod",
			pods: running("foo", on{"node-x", 1}, on{"node-y", 1}), pod: incoming(pod(), hard(1, zoneKey, nil))},
		{name: "an empty selector counts no pods either (it matches the pod: 0+1-0 <= 1)",
			pods: spread2103, pod: incoming(pod(), hard(1, nodeKey, &cluster.LabelSelector{}))},
		{name: "3/3 in zones: every node fits",
			pods: running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-y", 3}), pod: incoming(pod(), hard(1, zoneKey, foo))},
		{name: "node-b lacks the zone label: its pod does not count, it is rejected as unresolvable, 1/2 in zones",
			nodes: []*gangsimtest.NodeWrapper{zoned("node-a", "zone1"), zoned("node-b", "").Label("zon", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")},
			pods:  running("foo", on{"node-a", 1}, on{"node-b", 1}, on{"node-x", 1}, on{"node-y", 1}),
			pod:   incoming(pod(), hard(1, zoneKey, foo)), want: map[string]*fw.Status{"node-b": missing, "node-x": skew, "node-y": skew}},
		{name: "no node carries the key",
			nodes: []*gangsimtest.NodeWrapper{zoned("node-a", "zone1"), zoned("node-x", "zone2")},
			pod:   incoming(pod(), hard(1, "rack", foo)), want: map[string]*fw.Status{"node-a": missing, "node-x": missing}},
		{name: "2/1/0/3 on nodes: only node-x fits",
			pods: spread2103, pod: incoming(pod(), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "2/1/0/3 on nodes, maxSkew 2: node-b and node-x fit",
			pods: spread2103, pod: incoming(pod(), hard(2, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-y": skew}},
		{name: "2/1/0/3 on nodes, the pod does not match itself: node-b and node-x fit",
			pods: spread2103, pod: incoming(gangsimtest.MakePod("p").Label("bar", ""), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-y": skew}},
		{name: "node affinity In node-a, node-y: 2/~1~/~0~/3, node-a fits (node-b and node-x are NodeAffinity's to reject)",
			pods: spread2103, pod: requireNode(incoming(pod(), hard(1, nodeKey, foo)), nodeKey, cluster.SelectorIn, "node-a", "node-y"),
			want: map[string]*fw.Status{"node-y": skew}},
		{name: "terminating pods do not count",
			nodes: []*gangsimtest.NodeWrapper{zoned("node-a", ""), zoned("node-b", "")},
			pods:  running("foo", on{"node-a", 1}, on{"node-b", 1}), terminating: []string{"p-foo-node-a-1"},
			pod: incoming(pod(), hard(1, nodeKey, foo)), want: map[string]*fw.Status{"node-b": skew}},
		{name: "node affinity NotIn node-b: 0/~2~/0/1 in zones, zone1 counts 0",
			pods: running("foo", on{"node-b", 2}, on{"node-y", 1}),
			pod:  requireNode(incoming(pod(), hard(1, zoneKey, foo)), nodeKey, cluster.SelectorNotIn, "node-b"),
			want: map[string]*fw.Status{"node-x": skew, "node-y": skew}},

		// minDomains
		{name: "2/2/1, maxSkew 2, minDomains 4 above the 3 domains: the least counts 0, only node-c fits",
			nodes: threeHosts, pods: spread221, pod: incoming(pod(), hard(2, nodeKey, foo).minDomains(4)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "2/2/1, maxSkew 2, minDomains 2 below the 3 domains: every node fits",
			nodes: threeHosts, pods: spread221, pod: incoming(pod(), hard(2, nodeKey, foo).minDomains(2))},
		{name: "zones 2/1, maxSkew 2, minDomains 3 above the 2 domains: zone2 fits",
			pods: running("foo", on{"node-a", 1}, on{"node-b", 1}, on{"node-y", 1}), pod: incoming(pod(), hard(2, zoneKey, foo).minDomains(3)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "zones 2/1, maxSkew 2, minDomains 1: every node fits",
			pods: running("foo", on{"node-a", 1}, on{"node-b", 1}, on{"node-y", 1}), pod: incoming(pod(), hard(2, zoneKey, foo).minDomains(1))},

		// node inclusion policies
		{name: "nodeAffinityPolicy Honor (default), node selector: 1/1/0/~1~, node-y is NodeAffinity's to reject",
			nodes: policyNodes(), pods: spread1101, pod: incoming(pod().NodeSelector("foo", ""), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "nodeAffinityPolicy Ignore, node selector: 1/1/0/1",
			nodes: policyNodes(), pods: spread1101, pod: incoming(pod().NodeSelector("foo", ""), hard(1, nodeKey, foo).affinityPolicy(cluster.PolicyIgnore)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "nodeAffinityPolicy Honor, node affinity: 1/1/0/~1~",
			nodes: policyNodes(), pods: spread1101, pod: requireNode(incoming(pod(), hard(1, nodeKey, foo)), "foo", cluster.SelectorIn, ""),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "nodeAffinityPolicy Ignore, node affinity: 1/1/0/1",
			nodes: policyNodes(), pods: spread1101, pod: requireNode(incoming(pod(), hard(1, nodeKey, foo).affinityPolicy(cluster.PolicyIgnore)), "foo", cluster.SelectorIn, ""),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "nodeTaintsPolicy Honor: the untolerated node-y is left out, 1/1/0/~1~",
			nodes: policyNodes(), pods: spread1101, pod: incoming(pod(), hard(1, nodeKey, foo).taintsPolicy(cluster.PolicyHonor)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "nodeTaintsPolicy Ignore (default): 1/1/0/1",
			nodes: policyNodes(), pods: spread1101, pod: incoming(pod(), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "nodeTaintsPolicy Honor, the taint tolerated: 1/1/0/1",
			nodes: policyNodes(), pods: spread1101,
			pod:  incoming(pod().Toleration("node.kubernetes.io/unschedulable", "", cluster.TaintNoSchedule), hard(1, nodeKey, foo).taintsPolicy(cluster.PolicyHonor)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},

		// matchLabelKeys
		{name: "matchLabelKeys: only the pods of the pod's version count, 0/1/0/0",
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("v1-a1").NodeName("node-a").Label("foo", "").Label("version", "v1"),
				gangsimtest.MakePod("v1-a2").NodeName("node-a").Label("foo", "").Label("version", "v1"),
				gangsimtest.MakePod("v2-b1").NodeName("node-b").Label("foo", "").Label("version", "v2"),
			},
			pod:  incoming(pod().Label("version", "v2"), hard(1, nodeKey, foo).matchLabelKeys("version")),
			want: map[string]*fw.Status{"node-b": skew}},
		{name: "matchLabelKeys naming a label the pod lacks: the selector alone, 2/1/0/0",
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("v1-a1").NodeName("node-a").Label("foo", "").Label("version", "v1"),
				gangsimtest.MakePod("v1-a2").NodeName("node-a").Label("foo", "").Label("version", "v1"),
				gangsimtest.MakePod("v2-b1").NodeName("node-b").Label("foo", "").Label("version", "v2"),
			},
			pod:  incoming(pod(), hard(1, nodeKey, foo).matchLabelKeys("version")),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew}},

		// two constraints: a node must pass both
		{name: "zone and node, 3/3 and 2/1/0/3: node-x",
			pods: spread2103, pod: incoming(pod(), hard(1, zoneKey, foo), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "zone and node, 3/4 and 2/1/0/4: none",
			pods: running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-y", 4}), pod: incoming(pod(), hard(1, zoneKey, foo), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-x": skew, "node-y": skew}},
		{name: "different selectors, 1/0 (foo) and 1/0/0/1 (bar): node-x",
			pods: append(running("foo", on{"node-a", 1}), running("bar", on{"node-y", 1})...),
			pod:  incoming(pod().Label("bar", ""), hard(1, zoneKey, foo), hard(1, nodeKey, bar)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "different selectors, 1/0 (foo) and 0/0/1/1 (bar): none",
			pods: append(running("foo", on{"node-a", 1}), running("bar", on{"node-x", 1}, on{"node-y", 1})...),
			pod:  incoming(pod().Label("bar", ""), hard(1, zoneKey, foo), hard(1, nodeKey, bar)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-x": skew, "node-y": skew}},
		{name: "different selectors, 2/3 (foo) and 1/0/0/1 (bar): node-b",
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("p-a1").NodeName("node-a").Label("foo", ""),
				gangsimtest.MakePod("p-a2").NodeName("node-a").Label("foo", "").Label("bar", ""),
				gangsimtest.MakePod("p-y1").NodeName("node-y").Label("foo", ""),
				gangsimtest.MakePod("p-y2").NodeName("node-y").Label("foo", "").Label("bar", ""),
				gangsimtest.MakePod("p-y3").NodeName("node-y").Label("foo", ""),
			},
			pod:  incoming(pod().Label("bar", ""), hard(1, zoneKey, foo), hard(1, nodeKey, bar)),
			want: map[string]*fw.Status{"node-a": skew, "node-x": skew, "node-y": skew}},
		{name: "different selectors, the pod matches only the node one: node-a and node-b",
			pods: append(running("foo", on{"node-a", 1}), running("bar", on{"node-x", 1}, on{"node-y", 1})...),
			pod:  incoming(gangsimtest.MakePod("p").Label("bar", ""), hard(1, zoneKey, foo), hard(1, nodeKey, bar)),
			want: map[string]*fw.Status{"node-x": skew, "node-y": skew}},
		{name: "zone and node, node-x lacks the node label: 1/1 and 1/0/-/1, node-b",
			nodes: []*gangsimtest.NodeWrapper{zoned("node-a", "zone1"), zoned("node-b", "zone1"), gangsimtest.MakeNode("node-x").Label(zoneKey, "zone2"), zoned("node-y", "zone2")},
			pods:  running("foo", on{"node-a", 1}, on{"node-y", 1}),
			pod:   incoming(pod(), hard(1, zoneKey, foo), hard(1, nodeKey, foo)),
			want:  map[string]*fw.Status{"node-a": skew, "node-x": missing, "node-y": skew}},
		{name: "policies per constraint, zone honours the node selector, node ignores it: 2/~0~ and 1/1/0/1, node-x",
			nodes: policyNodes(), pods: spread1101,
			pod:  incoming(pod().NodeSelector("foo", ""), hard(1, zoneKey, foo), hard(1, nodeKey, foo).affinityPolicy(cluster.PolicyIgnore)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "policies per constraint, zone honours taints, node ignores them: 2/0 and 1/1/0/1, node-x",
			nodes: policyNodes(), pods: spread1101,
			pod:  incoming(pod(), hard(1, zoneKey, foo).taintsPolicy(cluster.PolicyHonor), hard(1, nodeKey, foo)),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},

		// soft constraints and defaults do not filter
		{name: "a ScheduleAnyway constraint does not filter", pods: spread2103, pod: incoming(pod(), soft(1, nodeKey, foo))},
		{name: "System defaults are ScheduleAnyway: nothing filtered",
			pods: spread2103, pod: ownedBy(pod().Obj(), "ReplicaSet", foo)},
		{name: "List defaults filter the pods of a ReplicaSet, by its selector",
			args: &podtopologyspread.Args{DefaultingType: podtopologyspread.SpreadDefaultingList, DefaultConstraints: []podtopologyspread.DefaultSpreadConstraint{
				{MaxSkew: 1, TopologyKey: nodeKey, WhenUnsatisfiable: cluster.DoNotSchedule}}},
			pods: spread2103, pod: ownedBy(pod().Obj(), "ReplicaSet", foo),
			want: map[string]*fw.Status{"node-a": skew, "node-b": skew, "node-y": skew}},
		{name: "List defaults leave out a pod owned by a Job",
			args: &podtopologyspread.Args{DefaultingType: podtopologyspread.SpreadDefaultingList, DefaultConstraints: []podtopologyspread.DefaultSpreadConstraint{
				{MaxSkew: 1, TopologyKey: nodeKey, WhenUnsatisfiable: cluster.DoNotSchedule}}},
			pods: spread2103, pod: ownedBy(pod().Obj(), "Job", foo)},
		{name: "List defaults leave out a pod with constraints of its own",
			args: &podtopologyspread.Args{DefaultingType: podtopologyspread.SpreadDefaultingList, DefaultConstraints: []podtopologyspread.DefaultSpreadConstraint{
				{MaxSkew: 1, TopologyKey: nodeKey, WhenUnsatisfiable: cluster.DoNotSchedule}}},
			pods: spread2103, pod: ownedBy(incoming(pod(), soft(1, nodeKey, foo)), "ReplicaSet", foo)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = fourNodes()
			}
			snap := snapshotOf(t, nodes, tt.pods, tt.terminating...)
			want := tt.want
			if want == nil {
				want = map[string]*fw.Status{}
			}
			require.Equal(t, want, gangsimtest.FilterAll(t, newPlugin(t, tt.args, snap), tt.pod, snap))
		})
	}
}

// AddPod and RemovePod follow the snapshot's tentative changes, as
// preemption makes them: the verdicts after the change are those of the
// changed cluster. A terminating pod, which PreFilter leaves out, counts
// in the extensions as it does in kube-scheduler's: removing one lowers
// its domain below what PreFilter counted.
func TestPreFilterExtensions(t *testing.T) {
	skew := fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod topology spread constraints").WithPlugin(podtopologyspread.Name)
	pod := incoming(gangsimtest.MakePod("p").Label("foo", ""), hard(1, zoneKey, foo))
	tests := []struct {
		name        string
		pods        []*gangsimtest.PodWrapper
		terminating []string
		add         *gangsimtest.PodWrapper // reserved on its node
		remove      string                  // a pod taken off its node
		before      map[string]*fw.Status
		after       map[string]*fw.Status
	}{
		{name: "removing a victim in zone2 evens the zones: 1/2 then 1/1",
			pods:   running("foo", on{"node-a", 1}, on{"node-x", 1}, on{"node-y", 1}),
			remove: "p-foo-node-y-1",
			before: map[string]*fw.Status{"node-x": skew, "node-y": skew},
			after:  map[string]*fw.Status{}},
		{name: "adding a matching pod to zone1: 1/1 then 2/1",
			pods:   running("foo", on{"node-a", 1}, on{"node-x", 1}),
			add:    gangsimtest.MakePod("new").NodeName("node-b").Label("foo", ""),
			before: map[string]*fw.Status{},
			after:  map[string]*fw.Status{"node-a": skew, "node-b": skew}},
		{name: "adding a pod the selector does not match changes nothing",
			pods:   running("foo", on{"node-a", 1}, on{"node-x", 1}),
			add:    gangsimtest.MakePod("new").NodeName("node-b").Label("bar", ""),
			before: map[string]*fw.Status{},
			after:  map[string]*fw.Status{}},
		{name: "removing a terminating pod counts -1, as in kube-scheduler: 1/1 then 1/0",
			pods:        append(running("foo", on{"node-a", 1}, on{"node-x", 1}), gangsimtest.MakePod("old").NodeName("node-y").Label("foo", "")),
			terminating: []string{"old"}, remove: "old",
			before: map[string]*fw.Status{},
			after:  map[string]*fw.Status{"node-a": skew, "node-b": skew}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := snapshotOf(t, fourNodes(), tt.pods, tt.terminating...)
			pl := newPlugin(t, nil, snap)
			pi := cluster.NewPodInfo(pod)
			state := fw.NewCycleState()
			require.Nil(t, pl.PreFilter(state, pi, snap))
			verdicts := func() map[string]*fw.Status {
				got := map[string]*fw.Status{}
				for i := range snap.Len() {
					if st := pl.Filter(state, pi, snap.Node(i)); st != nil {
						got[snap.Node(i).Node().Name] = st
					}
				}
				return got
			}
			require.Equal(t, tt.before, verdicts(), "before")
			if tt.add != nil {
				added := cluster.NewPodInfo(tt.add.Obj())
				i, _ := snap.Index(tt.add.Obj().NodeName)
				snap.Reserve(added, i)
				require.Nil(t, pl.AddPod(state, pi, added, snap.Node(i)))
			}
			if tt.remove != "" {
				for i := range snap.Len() {
					for _, e := range snap.Node(i).PodList() {
						if e.Pod().Name == tt.remove {
							require.NoError(t, snap.Remove(e.Key(), i))
							require.Nil(t, pl.RemovePod(state, pi, e, snap.Node(i)))
						}
					}
				}
			}
			require.Equal(t, tt.after, verdicts(), "after")
		})
	}
}
