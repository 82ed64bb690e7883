package podtopologyspread_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

// hosts are nodes labelled with their name under the hostname key only.
func hosts(names ...string) []*gangsimtest.NodeWrapper {
	var out []*gangsimtest.NodeWrapper
	for _, n := range names {
		out = append(out, gangsimtest.MakeNode(n).Label(hostKey, n))
	}
	return out
}

// The cases are kube-scheduler's scoring cases for the plugin: the final
// scores (after NormalizeScore) of the feasible nodes. A spread written
// 2/~1~/0 counts the matching pods per node, ~n~ marking a node that is
// not feasible (its pods still count in its domain).
func TestScore(t *testing.T) {
	pod := func() *gangsimtest.PodWrapper { return gangsimtest.MakePod("p").Label("foo", "") }
	spread2103 := running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-d", 3})
	spread4321 := running("foo", on{"node-a", 4}, on{"node-b", 3}, on{"node-c", 2}, on{"node-d", 1})
	spread4213 := running("foo", on{"node-a", 4}, on{"node-b", 2}, on{"node-x", 1}, on{"node-y", 3})
	abcd := hosts("node-a", "node-b", "node-c", "node-d")
	// node-c lacks foo, which the pod's node selector asks for, and
	// carries a taint the pod does not tolerate
	policyNodes := []*gangsimtest.NodeWrapper{
		zoned("node-a", "").Label("foo", ""), zoned("node-b", "").Label("foo", ""),
		zoned("node-c", "").Taint("node.kubernetes.io/unschedulable", "", cluster.TaintNoSchedule),
	}
	spread211 := running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-c", 1})
	// zone foo pods 2/1 and node bar pods 0/1/0/1 over four nodes
	mixed := []*gangsimtest.PodWrapper{
		gangsimtest.MakePod("p-a1").NodeName("node-a").Label("foo", ""),
		gangsimtest.MakePod("p-b1").NodeName("node-b").Label("foo", "").Label("bar", ""),
		gangsimtest.MakePod("p-y1").NodeName("node-y").Label("foo", ""),
		gangsimtest.MakePod("p-y2").NodeName("node-y").Label("bar", ""),
	}
	tests := []struct {
		name        string
		args        *podtopologyspread.Args
		nodes       []*gangsimtest.NodeWrapper // nil: fourNodes
		pods        []*gangsimtest.PodWrapper
		terminating []string
		pod         cluster.Pod
		feasible    []string // nil: every node
		want        map[string]int64
	}{
		{name: "hostname, no pods: 100 everywhere",
			nodes: hosts("node-a", "node-b"), pod: incoming(pod(), soft(1, hostKey, foo)),
			want: map[string]int64{"node-a": 100, "node-b": 100}},
		{name: "hostname, one feasible node: 100",
			nodes: hosts("node-a", "node-b"), pods: running("foo", on{"node-a", 2}, on{"node-b", 1}),
			pod: incoming(pod(), soft(1, hostKey, foo)), feasible: []string{"node-a"},
			want: map[string]int64{"node-a": 100}},
		{name: "hostname, equal counts: 100 everywhere",
			nodes: hosts("node-a", "node-b"), pods: running("foo", on{"node-a", 1}, on{"node-b", 1}),
			pod: incoming(pod(), soft(1, hostKey, foo)), want: map[string]int64{"node-a": 100, "node-b": 100}},
		{name: "hostname, 2/1/0/3",
			nodes: abcd, pods: spread2103, pod: incoming(pod(), soft(1, hostKey, foo)),
			want: map[string]int64{"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}},
		{name: "hostname, a nil selector counts nothing: 100 everywhere",
			nodes: abcd, pods: spread2103, pod: incoming(pod(), soft(1, hostKey, nil)),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}},
		{name: "hostname, 2/1/0/3, maxSkew 2 adds 1 to every raw score",
			nodes: abcd, pods: spread2103, pod: incoming(pod(), soft(2, hostKey, foo)),
			want: map[string]int64{"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}},
		{name: "hostname, 4/3/2/1, maxSkew 3",
			nodes: abcd, pods: spread4321, pod: incoming(pod(), soft(3, hostKey, foo)),
			want: map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}},
		// kube-scheduler's case takes the selector of a Service; the
		// model has none (docs/semantics.md §12) and takes the owner's
		{name: "System defaults by the owner's selector, nodes without zones: as hostname with maxSkew 3",
			nodes: abcd, pods: spread4321, pod: ownedBy(pod().Obj(), "ReplicaSet", foo),
			want: map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}},
		{name: "System defaults do not apply to a pod without an owner",
			nodes: abcd, pods: spread4321, pod: pod().Obj(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
		{name: "hostname, 4/2/1/~3~",
			nodes: hosts("node-a", "node-b", "node-x", "node-y"), pods: spread4213,
			pod: incoming(pod(), soft(1, hostKey, foo)), feasible: []string{"node-a", "node-b", "node-x"},
			want: map[string]int64{"node-a": 33, "node-b": 83, "node-x": 100}},
		{name: "hostname, 4/?2?/1/~3~: node-b lacks the key, scores 0 and is left out",
			nodes: []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("node-a").Label(hostKey, "node-a"), gangsimtest.MakeNode("node-b").Label("n", "node-b"),
				gangsimtest.MakeNode("node-x").Label(hostKey, "node-x"), gangsimtest.MakeNode("node-y").Label(hostKey, "node-y")},
			pods: spread4213, pod: incoming(pod(), soft(1, hostKey, foo)), feasible: []string{"node-a", "node-b", "node-x"},
			want: map[string]int64{"node-a": 16, "node-b": 0, "node-x": 100}},
		{name: "zone, 4/2/1/~3~: zones 6 and 4",
			pods: spread4213, pod: incoming(pod(), soft(1, zoneKey, foo)), feasible: []string{"node-a", "node-b", "node-x"},
			want: map[string]int64{"node-a": 75, "node-b": 75, "node-x": 100}},
		{name: "zone and hostname, 2/~1~/2/~4~",
			pods: running("foo", on{"node-a", 2}, on{"node-b", 1}, on{"node-x", 2}, on{"node-y", 4}),
			pod:  incoming(pod(), soft(1, zoneKey, foo), soft(1, hostKey, foo)), feasible: []string{"node-a", "node-x"},
			want: map[string]int64{"node-a": 100, "node-x": 63}},
		{name: "zone (foo) and hostname (bar), 2/1 and 0/1/0/1",
			pods: mixed, pod: incoming(pod().Label("bar", ""), soft(1, zoneKey, foo), soft(1, hostKey, bar)),
			want: map[string]int64{"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}},
		{name: "zone (foo) and hostname (bar), 0/2 and 0/1/0/1",
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("p-b1").NodeName("node-b").Label("bar", ""),
				gangsimtest.MakePod("p-x1").NodeName("node-x").Label("foo", ""),
				gangsimtest.MakePod("p-y1").NodeName("node-y").Label("foo", "").Label("bar", ""),
			},
			pod:  incoming(pod().Label("bar", ""), soft(1, zoneKey, foo), soft(1, hostKey, bar)),
			want: map[string]int64{"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}},
		{name: "zone (foo) and hostname (bar), 2/1 and 0/1/0/~1~",
			pods: mixed, pod: incoming(pod().Label("bar", ""), soft(1, zoneKey, foo), soft(1, hostKey, bar)),
			feasible: []string{"node-a", "node-b", "node-x"},
			want:     map[string]int64{"node-a": 50, "node-b": 25, "node-x": 100}},
		{name: "matchLabelKeys with empty selectors: the same as selecting foo and bar",
			pods: mixed, pod: incoming(pod().Label("bar", ""),
				soft(1, zoneKey, &cluster.LabelSelector{}).matchLabelKeys("foo"), soft(1, hostKey, &cluster.LabelSelector{}).matchLabelKeys("bar")),
			want: map[string]int64{"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}},
		{name: "pods of other namespaces do not count",
			nodes: hosts("node-a", "node-b"),
			pods: []*gangsimtest.PodWrapper{
				gangsimtest.MakePod("p-a1").Namespace("ns1").NodeName("node-a").Label("foo", ""),
				gangsimtest.MakePod("p-a2").NodeName("node-a").Label("foo", ""),
				gangsimtest.MakePod("p-b1").NodeName("node-b").Label("foo", ""),
				gangsimtest.MakePod("p-b2").NodeName("node-b").Label("foo", ""),
			},
			pod: incoming(pod(), soft(1, hostKey, foo)), want: map[string]int64{"node-a": 100, "node-b": 33}},
		{name: "terminating pods do not count",
			nodes: hosts("node-a", "node-b"), pods: running("foo", on{"node-a", 1}, on{"node-b", 1}), terminating: []string{"p-foo-node-a-1"},
			pod: incoming(pod(), soft(1, hostKey, foo)), want: map[string]int64{"node-a": 100, "node-b": 0}},
		{name: "minDomains does nothing for ScheduleAnyway",
			nodes: []*gangsimtest.NodeWrapper{zoned("node-a", ""), zoned("node-b", ""), zoned("node-c", "")},
			pods:  running("foo", on{"node-a", 2}, on{"node-b", 2}, on{"node-c", 1}), pod: incoming(pod(), soft(2, nodeKey, foo).minDomains(10)),
			want: map[string]int64{"node-a": 75, "node-b": 75, "node-c": 100}},
		{name: "nodeAffinityPolicy Honor, node selector: node-c's pod does not count",
			nodes: policyNodes, pods: spread211, pod: incoming(pod().NodeSelector("foo", ""), soft(1, nodeKey, foo)),
			want: map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100}},
		{name: "nodeAffinityPolicy Ignore, node selector",
			nodes: policyNodes, pods: spread211, pod: incoming(pod().NodeSelector("foo", ""), soft(1, nodeKey, foo).affinityPolicy(cluster.PolicyIgnore)),
			want: map[string]int64{"node-a": 66, "node-b": 100, "node-c": 100}},
		{name: "nodeAffinityPolicy Honor, node affinity",
			nodes: policyNodes, pods: spread211, pod: requireNode(incoming(pod(), soft(1, nodeKey, foo)), "foo", cluster.SelectorIn, ""),
			want: map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100}},
		{name: "nodeAffinityPolicy Ignore, node affinity",
			nodes: policyNodes, pods: spread211, pod: requireNode(incoming(pod(), soft(1, nodeKey, foo).affinityPolicy(cluster.PolicyIgnore)), "foo", cluster.SelectorIn, ""),
			want: map[string]int64{"node-a": 66, "node-b": 100, "node-c": 100}},
		{name: "nodeTaintsPolicy Honor: the tainted node-c's pod does not count",
			nodes: policyNodes, pods: spread211, pod: incoming(pod(), soft(1, nodeKey, foo).taintsPolicy(cluster.PolicyHonor)),
			want: map[string]int64{"node-a": 0, "node-b": 33, "node-c": 100}},
		{name: "nodeTaintsPolicy Ignore (default)",
			nodes: policyNodes, pods: spread211, pod: incoming(pod(), soft(1, nodeKey, foo)),
			want: map[string]int64{"node-a": 66, "node-b": 100, "node-c": 100}},
		{name: "a DoNotSchedule constraint does not score",
			nodes: abcd, pods: spread2103, pod: incoming(pod(), hard(1, hostKey, foo)),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = fourNodes()
			}
			snap := snapshotOf(t, nodes, tt.pods, tt.terminating...)
			require.Equal(t, tt.want, gangsimtest.ScoreAll(t, newPlugin(t, tt.args, snap), tt.pod, snap, tt.feasible...))
		})
	}
}

// NormalizeScore turns raw sums around: the lowest gets 100, the others
// 100*(highest+lowest-raw)/highest, truncated.
func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name      string
		raw, want []int64
	}{
		{"kube's 2/1/0/3 example", []int64{4, 2, 0, 5}, []int64{20, 60, 100, 0}},
		{"the lowest above 0", []int64{9, 7, 6, 4}, []int64{44, 66, 77, 100}},
		{"highest 0: 100 everywhere", []int64{0, 0}, []int64{100, 100}},
		{"one node", []int64{7}, []int64{100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t, nil, nil)
			scores := make([]fw.NodeScore, len(tt.raw))
			for i, r := range tt.raw {
				scores[i] = fw.NodeScore{Node: i, Score: r}
			}
			require.Nil(t, pl.NormalizeScore(fw.NewCycleState(), nil, scores))
			got := make([]int64, len(scores))
			for i := range scores {
				got[i] = scores[i].Score
			}
			require.Equal(t, tt.want, got)
		})
	}
}
