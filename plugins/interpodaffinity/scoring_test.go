package interpodaffinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
)

// The cases follow kube-scheduler's scoring cases for the plugin: the
// final scores (after NormalizeScore) over four nodes: node-a (region r1,
// zone z1), node-b (r1, z2), node-c (r2, z3) and node-d, which carries
// neither key.
func TestScore(t *testing.T) {
	nodes := []*gangsimtest.NodeWrapper{node("node-a", "r1", "z1"), node("node-b", "r1", "z2"), node("node-c", "r2", "z3"), node("node-d", "", "")}
	// the incoming pod is labelled security=S1; existing pods service=...
	s1 := func() cluster.Pod { return gangsimtest.MakePod("p").Label("security", "S1").Obj() }
	svc := func(name, node string) cluster.Pod {
		return gangsimtest.MakePod(name).NodeName(node).Label("service", "securityscan").Obj()
	}
	selectsS1 := exists("security")
	weight := func(w int32) *int32 { return &w }
	tests := []struct {
		name  string
		args  *interpodaffinity.Args
		pods  []cluster.Pod
		nsLab []cluster.Namespace
		pod   cluster.Pod
		want  map[string]int64
	}{
		{name: "no terms anywhere: 0 everywhere",
			pods: []cluster.Pod{svc("e", "node-a")}, pod: s1(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
		{name: "preferred affinity to the region of a matching pod; node-d lacks the key",
			pods: []cluster.Pod{svc("e", "node-a")}, pod: preferAffinity(s1(), 5, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 0, "node-d": 0}},
		{name: "preferred anti-affinity to the region of a matching pod",
			pods: []cluster.Pod{svc("e", "node-a")}, pod: preferAnti(s1(), 5, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 100, "node-d": 100}},
		{name: "affinity 8 to the region and anti-affinity 5 to the zone of one pod: 3/8/0/0",
			pods: []cluster.Pod{svc("e", "node-a")},
			pod:  preferAnti(preferAffinity(s1(), 8, term(regionKey, exists("service"))), 5, term(zoneKey, exists("service"))),
			want: map[string]int64{"node-a": 37, "node-b": 100, "node-c": 0, "node-d": 0}},
		{name: "every matching pod adds the weight: 4/4/2/0",
			pods: []cluster.Pod{svc("e1", "node-a"), svc("e2", "node-a"), svc("e3", "node-c")},
			pod:  preferAffinity(s1(), 2, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 50, "node-d": 0}},
		{name: "an existing pod's preferred affinity selecting the pod adds to its zone",
			pods: []cluster.Pod{preferAffinity(svc("e", "node-c"), 4, term(zoneKey, selectsS1))}, pod: s1(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 100, "node-d": 0}},
		{name: "an existing pod's preferred anti-affinity selecting the pod subtracts",
			pods: []cluster.Pod{preferAnti(svc("e", "node-c"), 4, term(zoneKey, selectsS1))}, pod: s1(),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 0, "node-d": 100}},
		{name: "an existing pod's preferred term of another namespace does not select the pod",
			pods: []cluster.Pod{preferAffinity(gangsimtest.MakePod("e").Namespace("other").NodeName("node-c").Obj(), 4, term(zoneKey, selectsS1))},
			pod:  s1(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
		{name: "an existing pod's required affinity adds hardPodAffinityWeight (1), beside a preferred 3",
			pods: []cluster.Pod{requireAffinity(svc("e1", "node-a"), term(regionKey, selectsS1)), preferAffinity(svc("e2", "node-c"), 3, term(zoneKey, selectsS1))},
			pod:  s1(),
			want: map[string]int64{"node-a": 33, "node-b": 33, "node-c": 100, "node-d": 0}},
		{name: "hardPodAffinityWeight 5",
			args: &interpodaffinity.Args{HardPodAffinityWeight: weight(5)},
			pods: []cluster.Pod{requireAffinity(svc("e1", "node-a"), term(regionKey, selectsS1)), preferAffinity(svc("e2", "node-c"), 3, term(zoneKey, selectsS1))},
			pod:  s1(),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 60, "node-d": 0}},
		{name: "hardPodAffinityWeight 0 leaves required terms out",
			args: &interpodaffinity.Args{HardPodAffinityWeight: weight(0)},
			pods: []cluster.Pod{requireAffinity(svc("e1", "node-a"), term(regionKey, selectsS1)), preferAffinity(svc("e2", "node-c"), 3, term(zoneKey, selectsS1))},
			pod:  s1(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 100, "node-d": 0}},
		{name: "ignorePreferredTermsOfExistingPods: a pod without preferred terms is not scored",
			args: &interpodaffinity.Args{IgnorePreferredTermsOfExistingPods: true},
			pods: []cluster.Pod{preferAffinity(svc("e", "node-c"), 4, term(zoneKey, selectsS1))}, pod: s1(),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
		{name: "ignorePreferredTermsOfExistingPods: a pod with preferred terms still counts the existing pods' terms",
			args: &interpodaffinity.Args{IgnorePreferredTermsOfExistingPods: true},
			pods: []cluster.Pod{preferAffinity(svc("e", "node-c"), 4, term(zoneKey, selectsS1)), svc("e2", "node-a")},
			pod:  preferAffinity(s1(), 2, term(regionKey, exists("service"))), // r1 2, r2 2 and z3 4
			want: map[string]int64{"node-a": 33, "node-b": 33, "node-c": 100, "node-d": 0}},
		{name: "existing pods' required anti-affinity does not score",
			pods: []cluster.Pod{requireAnti(svc("e", "node-a"), term(zoneKey, selectsS1))},
			pod:  preferAffinity(s1(), 5, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 0, "node-d": 0}},
		{name: "a matching pod of another namespace does not count",
			pods: []cluster.Pod{gangsimtest.MakePod("e").Namespace("other").NodeName("node-a").Label("service", "x").Obj()},
			pod:  preferAffinity(s1(), 5, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 0, "node-d": 0}},
		{name: "a matching pod of another namespace counts for an empty namespace selector",
			pods: []cluster.Pod{gangsimtest.MakePod("e").Namespace("other").NodeName("node-a").Label("service", "x").Obj()},
			pod:  preferAffinity(s1(), 5, nsSelector(term(regionKey, exists("service")), &cluster.LabelSelector{})),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 0, "node-d": 0}},
		{name: "namespace selector by labels",
			nsLab: []cluster.Namespace{{Name: "team-a", Labels: map[string]string{"team": "a"}}},
			pods: []cluster.Pod{
				gangsimtest.MakePod("e1").Namespace("team-a").NodeName("node-c").Label("service", "x").Obj(),
				gangsimtest.MakePod("e2").Namespace("other").NodeName("node-a").Label("service", "x").Obj(),
			},
			pod:  preferAffinity(s1(), 5, nsSelector(term(regionKey, exists("service")), in("team", "a"))),
			want: map[string]int64{"node-a": 0, "node-b": 0, "node-c": 100, "node-d": 0}},
		{name: "the ratio is taken before the multiplication by 100: 29 of 100 gives 28",
			pods: []cluster.Pod{
				gangsimtest.MakePod("e1").NodeName("node-a").Label("service", "a").Obj(),
				gangsimtest.MakePod("e2").NodeName("node-c").Label("service", "c").Obj(),
			},
			pod:  preferAffinity(preferAffinity(s1(), 29, term(zoneKey, in("service", "a"))), 100, term(regionKey, in("service", "c"))),
			want: map[string]int64{"node-a": 28, "node-b": 0, "node-c": 100, "node-d": 0}},
		{name: "equal sums on every node carrying the key, node-d lacking it",
			pods: []cluster.Pod{svc("e1", "node-a"), svc("e2", "node-c")},
			pod:  preferAffinity(s1(), 5, term(regionKey, exists("service"))),
			want: map[string]int64{"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := world{nodes: nodes, pods: tt.pods, namespaces: tt.nsLab}.snapshot(t)
			require.Equal(t, tt.want, gangsimtest.ScoreAll(t, newPlugin(t, tt.args, snap), tt.pod, snap))
		})
	}
}

// NormalizeScore stretches the sums between the lowest (0) and the
// highest (100): 100 * ((sum - lowest) / (highest - lowest)) in floating
// point, the ratio first, truncated; all equal gives 0 everywhere. The
// order matters where the ratio has no exact binary form: 0.29 * 100 is
// 28.999999999999996, so 29 of 100 (or 58 of 200) gives 28, not 29.
func TestNormalizeScore(t *testing.T) {
	tests := []struct {
		name      string
		raw, want []int64
	}{
		{"negative, zero and positive sums", []int64{-3, 0, 5}, []int64{0, 37, 100}},
		{"only negative sums", []int64{-5, -1}, []int64{0, 100}},
		{"all equal: 0 everywhere", []int64{4, 4}, []int64{0, 0}},
		{"one node: 0", []int64{7}, []int64{0}},
		{"29 of 100 truncates to 28", []int64{0, 29, 100}, []int64{0, 28, 100}},
		{"29 of 50 truncates to 57", []int64{0, 29, 50}, []int64{0, 57, 100}},
		{"58 of 200 below the lowest, as in a differential run", []int64{-325, -125, -175, -236, -152, -267}, []int64{0, 100, 75, 44, 86, 28}},
		{"57 of 100 truncates to 56", []int64{10, 67, 110}, []int64{0, 56, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := interpodaffinity.NewInterPodAffinity(nil, nil)
			require.NoError(t, err)
			scores := make([]fw.NodeScore, len(tt.raw))
			for i, r := range tt.raw {
				scores[i] = fw.NodeScore{Node: i, Score: r}
			}
			require.Nil(t, pl.NormalizeScore(nil, nil, scores))
			got := make([]int64, len(scores))
			for i := range scores {
				got[i] = scores[i].Score
			}
			require.Equal(t, tt.want, got)
		})
	}
}
