package nodeaffinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
)

func req(key string, op cluster.SelectorOperator, values ...string) cluster.SelectorRequirement {
	return cluster.SelectorRequirement{Key: key, Operator: op, Values: values}
}

// term is one required term holding reqs (ANDed).
func term(reqs ...cluster.SelectorRequirement) cluster.SelectorTerm {
	return cluster.SelectorTerm{MatchExpressions: reqs}
}

// pod is w with the required node affinity terms (ORed), when there are
// any.
func pod(w *gangsimtest.PodWrapper, terms ...cluster.SelectorTerm) *cluster.PodInfo {
	p := w.Obj()
	if len(terms) > 0 {
		p.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{Required: terms}}
	}
	return cluster.NewPodInfo(p)
}

func TestNodeAffinityFilter(t *testing.T) {
	// The rejection is unresolvable: no eviction changes a label.
	mismatch := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector").WithPlugin(nodeaffinity.Name)
	In, NotIn, Exists, Gt := cluster.SelectorIn, cluster.SelectorNotIn, cluster.SelectorExists, cluster.SelectorGt
	node := func() *gangsimtest.NodeWrapper { return gangsimtest.MakeNode("n") }
	p := func() *gangsimtest.PodWrapper { return gangsimtest.MakePod("p") }
	tests := []struct {
		name string
		node *gangsimtest.NodeWrapper
		pod  *cluster.PodInfo
		want *fw.Status // nil when the pod fits
	}{
		{"no constraint", node(), pod(p()), nil},
		{"selector matches", node().Label("zone", "a").Label("x", "y"), pod(p().NodeSelector("zone", "a")), nil},
		{"selector value differs", node().Label("zone", "b"), pod(p().NodeSelector("zone", "a")), mismatch},
		{"selector key missing", node(), pod(p().NodeSelector("zone", "a")), mismatch},
		{"every selector key must match", node().Label("zone", "a"), pod(p().NodeSelector("zone", "a").NodeSelector("disk", "ssd")), mismatch},
		{"term In", node().Label("zone", "b"), pod(p(), term(req("zone", In, "a", "b"))), nil},
		{"term In misses", node().Label("zone", "c"), pod(p(), term(req("zone", In, "a", "b"))), mismatch},
		{"terms are ORed", node().Label("zone", "c").Label("gpu", "yes"), pod(p(), term(req("zone", In, "a")), term(req("gpu", Exists))), nil},
		{"requirements are ANDed", node().Label("zone", "a").Label("disk", "hdd"), pod(p(), term(req("zone", In, "a"), req("disk", NotIn, "hdd"))), mismatch},
		{"Gt compares integers", node().Label("cores", "8"), pod(p(), term(req("cores", Gt, "4"))), nil},
		{"selector and affinity both needed", node().Label("zone", "a").Label("disk", "hdd"), pod(p().NodeSelector("zone", "a"), term(req("disk", In, "ssd"))), mismatch},
		{"selector and affinity both met", node().Label("zone", "a").Label("disk", "ssd"), pod(p().NodeSelector("zone", "a"), term(req("disk", In, "ssd"))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, nodeaffinity.NodeAffinity{}.Filter(nil, tt.pod, gangsimtest.NodeInfo(t, tt.node)))
		})
	}
}

// NormalizeScore scales the sums of the matched preferred terms' weights
// so that the highest gets 100 (kube-scheduler's default normalisation).
func TestNodeAffinityNormalizeScore(t *testing.T) {
	tests := []struct {
		name      string
		raw, want []int64
	}{
		{"scaled to the highest, truncated", []int64{0, 10, 40}, []int64{0, 25, 100}},
		{"all 0 stays 0", []int64{0, 0}, []int64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := make([]fw.NodeScore, len(tt.raw))
			for i, r := range tt.raw {
				scores[i] = fw.NodeScore{Node: i, Score: r}
			}
			require.Nil(t, nodeaffinity.NodeAffinity{}.NormalizeScore(nil, nil, scores))
			got := make([]int64, len(scores))
			for i := range scores {
				got[i] = scores[i].Score
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// FilterSkips holds only for pods whose Filter passes every node: no node
// selector and no required terms (an empty list of them matches no node).
func TestNodeAffinityFilterSkips(t *testing.T) {
	p := func() *gangsimtest.PodWrapper { return gangsimtest.MakePod("p") }
	withAffinity := func(na *cluster.NodeAffinity) *cluster.PodInfo {
		q := p().Obj()
		q.Affinity = &cluster.Affinity{NodeAffinity: na}
		return cluster.NewPodInfo(q)
	}
	preferred := []cluster.PreferredSchedulingTerm{{Weight: 1, Preference: term(req("zone", cluster.SelectorIn, "a"))}}
	tests := []struct {
		name  string
		pod   *cluster.PodInfo
		skips bool
	}{
		{"nothing", pod(p()), true},
		{"affinity without node affinity", withAffinity(nil), true},
		{"preferred terms only", withAffinity(&cluster.NodeAffinity{Preferred: preferred}), true},
		{"node selector", pod(p().NodeSelector("zone", "a")), false},
		{"required term", pod(p(), term(req("zone", cluster.SelectorIn, "a"))), false},
		{"empty required list", withAffinity(&cluster.NodeAffinity{Required: []cluster.SelectorTerm{}}), false},
	}
	nodes := []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("bare"), gangsimtest.MakeNode("zoned").Label("zone", "b")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.skips, nodeaffinity.NodeAffinity{}.FilterSkips(tt.pod))
			passes := true
			for _, n := range nodes {
				passes = passes && nodeaffinity.NodeAffinity{}.Filter(nil, tt.pod, gangsimtest.NodeInfo(t, n)) == nil
			}
			if tt.skips {
				require.True(t, passes, "a pod the filter skips must pass every node")
			} else {
				require.False(t, passes, "these pods are rejected by some node")
			}
		})
	}
}
