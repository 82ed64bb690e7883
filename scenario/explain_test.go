package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExplanationByHand explains one pod on five nodes, every number
// worked out by hand with the default profile: TaintToleration (weight 3),
// NodeResourcesFit LeastAllocated (1), NodeResourcesBalancedAllocation (1).
// The pod asks 1500m cpu and 1Gi.
//
//	d (1 cpu)               rejected: Insufficient cpu
//	e (NoSchedule taint)    rejected: untolerated taint
//	a (4 cpu, 8Gi, PreferNoSchedule taint, empty)
//	  taint raw 1 -> 100-100*1/1 = 0, x3 = 0
//	  fit: cpu 2500*100/4000 = 62, memory 7Gi*100/8Gi = 87 -> 149/2 = 74
//	  balanced: with 0.375/0.125, std 0.125 -> 87; without 100
//	            -> 50 + (50+87-100)/2 = 68
//	  total 0 + 74 + 68 = 142
//	b (4 cpu, 8Gi, 2 cpu and 4Gi used)
//	  taint 0 -> 100, x3 = 300
//	  fit: cpu 500*100/4000 = 12, memory 3Gi*100/8Gi = 37 -> 49/2 = 24
//	  balanced: with 0.875/0.625 -> 87; without 0.5/0.5 -> 100 -> 68
//	  total 300 + 24 + 68 = 392
//	c (2 cpu, 8Gi, empty)
//	  taint 300
//	  fit: cpu 500*100/2000 = 25, memory 87 -> 112/2 = 56
//	  balanced: with 0.75/0.125, std 0.3125 -> 68; without 100 -> 59
//	  total 300 + 56 + 59 = 415: c wins
func TestExplanationByHand(t *testing.T) {
	sc, err := Parse("explain.yaml", []byte(`
nodes:
  - {name: a, allocatable: {cpu: "4", memory: 8Gi}, taints: [{key: k, effect: PreferNoSchedule}]}
  - {name: b, allocatable: {cpu: "4", memory: 8Gi}}
  - {name: c, allocatable: {cpu: "2", memory: 8Gi}}
  - {name: d, allocatable: {cpu: "1", memory: 8Gi}}
  - {name: e, allocatable: {cpu: "4", memory: 8Gi}, taints: [{key: k, effect: NoSchedule}]}
pods:
  - {name: used, nodeName: b, requests: {cpu: "2", memory: 4Gi}}
  - {name: p, requests: {cpu: 1500m, memory: 1Gi}}
explain: [p]
`))
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	require.Len(t, res.Explanations, 1)
	ex := res.Explanations[0]
	require.Equal(t, "p", ex.Pod)
	require.Equal(t, "c", ex.Node)
	require.True(t, ex.Scored)
	require.Equal(t, []FilteredResult{
		{Plugin: "NodeResourcesFit", Nodes: 1, Reasons: []ReasonResult{{Reason: "Insufficient cpu", Nodes: 1}}},
		{Plugin: "TaintToleration", Nodes: 1, Reasons: []ReasonResult{{Reason: "node(s) had untolerated taint(s)", Nodes: 1}}},
	}, ex.Filtered)
	scores := func(taintRaw, taintNorm, fit, balanced int64) []PluginScoreResult {
		return []PluginScoreResult{
			{Plugin: "TaintToleration", Raw: taintRaw, Normalized: taintNorm, Weight: 3},
			{Plugin: "NodeResourcesFit", Raw: fit, Normalized: fit, Weight: 1},
			{Plugin: "NodeResourcesBalancedAllocation", Raw: balanced, Normalized: balanced, Weight: 1},
		}
	}
	require.Equal(t, []NodeScoreResult{
		{Node: "a", Total: 142, Plugins: scores(1, 0, 74, 68)},
		{Node: "b", Total: 392, Plugins: scores(0, 100, 24, 68)},
		{Node: "c", Total: 415, Plugins: scores(0, 100, 56, 59)},
	}, ex.Nodes)
	for _, p := range res.Pods {
		if p.Name == "p" {
			require.Equal(t, "c", p.Node, "explaining changes no decision")
		}
	}
}
