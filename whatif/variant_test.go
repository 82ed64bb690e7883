package whatif_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/plugins/noderesources"
	"github.com/gangsim/gangsim/whatif"
)

func TestParseVariant(t *testing.T) {
	tests := []struct {
		spec string
		want []whatif.Change
		name string
	}{
		{"base", nil, "base"},
		{" add:n-0:3 ", []whatif.Change{whatif.AddNodesLike{Node: "n-0", Count: 3}}, "add:n-0:3"},
		{"add-domain:rack=r1:2,strategy:MostAllocated", []whatif.Change{whatif.AddDomainsLike{Key: "rack", Value: "r1", Count: 2},
			whatif.ScoringStrategy{Type: "MostAllocated"}}, "add-domain:rack=r1:2,strategy:MostAllocated"},
		{"remove:n-0:0, weight:PodGroupPodsCount:5", []whatif.Change{whatif.RemoveNodesLike{Node: "n-0"},
			whatif.PluginWeight{Plugin: "PodGroupPodsCount", Weight: 5}}, "remove:n-0:0,weight:PodGroupPodsCount:5"},
		{"add-domain:topology.kubernetes.io/zone=z1:1", []whatif.Change{whatif.AddDomainsLike{Key: "topology.kubernetes.io/zone", Value: "z1", Count: 1}},
			"add-domain:topology.kubernetes.io/zone=z1:1"},
		{"strategy:RequestedToCapacityRatio:0=0/100=10", []whatif.Change{whatif.ScoringStrategy{Type: "RequestedToCapacityRatio",
			Shape: []noderesources.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}}},
			"strategy:RequestedToCapacityRatio:0=0/100=10"},
	}
	for _, tt := range tests {
		v, err := whatif.ParseVariant(tt.spec)
		require.NoError(t, err, tt.spec)
		assert.Equal(t, tt.want, v.Changes, tt.spec)
		assert.Equal(t, tt.name, v.Name, tt.spec)
	}
}

func TestParseVariantErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"", `whatif: invalid variant: empty (write "base" for no change)`},
		{"grow:n:1", `change 1 ("grow:n:1"): unknown change "grow" (known: add, add-domain, remove, strategy, weight, group, autoscaler, quota, cohort-quota, clusterqueue, cohort, fairsharing)`},
		{"add:n", `change 1 ("add:n"): want add:NODE:COUNT`},
		{"add:n:-1", `count "-1" is not in 0..100000`},
		{"add:n:x", `count "x" is not in 0..100000`},
		{"add:n:1,remove::1", `change 2 ("remove::1"): want remove:NODE:COUNT`},
		{"add-domain:rack:1", `want add-domain:KEY=VALUE:COUNT`},
		{"strategy:Balanced", `"Balanced" is not LeastAllocated, MostAllocated or RequestedToCapacityRatio`},
		{"strategy:MostAllocated:0=1", `MostAllocated takes no shape`},
		{"strategy:RequestedToCapacityRatio", `want strategy:RequestedToCapacityRatio:UTILIZATION=SCORE/UTILIZATION=SCORE... (e.g. 0=0/100=10)`},
		{"strategy:RequestedToCapacityRatio:0=0/x", `shape point "x" is not UTILIZATION=SCORE`},
		{"strategy:RequestedToCapacityRatio:50=0/10=10", `shape[1].utilization: Invalid value: 10: values must be sorted in increasing order`},
		{"strategy:RequestedToCapacityRatio:0=11", `shape[0].score: Invalid value: 11: not in valid range [0, 10]`},
		{"weight:X:0", `weight "0" is not a whole number from 1 to 2147483647`},
		{"weight:X", `want weight:PLUGIN:WEIGHT`},
	}
	for _, tt := range tests {
		_, err := whatif.ParseVariant(tt.spec)
		require.Error(t, err, tt.spec)
		assert.True(t, errors.Is(err, whatif.ErrVariant))
		assert.Contains(t, err.Error(), tt.want)
	}
}

// FuzzParseVariant: any text is a variant or an ErrVariant, and a
// variant's name reads back as the same variant.
func FuzzParseVariant(f *testing.F) {
	for _, s := range []string{"base", "add:n:1", "add-domain:rack=r1:2,strategy:MostAllocated", "remove:x:3,weight:P:100", "add:n:1,,",
		"strategy:RequestedToCapacityRatio:0=0/100=10", "fairsharing:on", "fairsharing:LessThanOrEqualToFinalShare/LessThanInitialShare",
		"clusterqueue:*:fairSharing.weight=0.5", "cohort:pool:fairSharing.weight=2,fairsharing:off", "clusterqueue:*:queueingStrategy=StrictFIFO"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := whatif.ParseVariant(s)
		if err != nil {
			if !errors.Is(err, whatif.ErrVariant) {
				t.Fatalf("%q: error %v does not wrap ErrVariant", s, err)
			}
			return
		}
		again, err := whatif.ParseVariant(v.Name)
		if err != nil || again.Name != v.Name {
			t.Fatalf("%q: name %q reads back as %q, %v", s, v.Name, again.Name, err)
		}
	})
}

const twoRacks = `
nodes:
  - {name: a, labels: {rack: r1, kubernetes.io/hostname: a}, allocatable: {cpu: "4"}, count: 2}
  - {name: b, labels: {rack: r2}, allocatable: {cpu: "8"}}
pods: [{name: p, requests: {cpu: "1"}}]
`

// Apply works on a copy: the base keeps its nodes and config.
func TestApplyLeavesTheBase(t *testing.T) {
	base := parse(t, twoRacks)
	v, err := whatif.ParseVariant("add:a-0:2,add-domain:rack=r1:1,remove:b:1,strategy:MostAllocated,weight:NodeResourcesFit:3")
	require.NoError(t, err)
	sc, err := v.Apply(base)
	require.NoError(t, err)
	var names []string
	for _, n := range sc.Nodes {
		names = append(names, n.Name+" "+n.Labels["rack"]+" "+n.Labels["kubernetes.io/hostname"])
	}
	assert.Equal(t, []string{"a-0 r1 a", "a-1 r1 a", "a-0-new1 r1 a-0-new1", "a-0-new2 r1 a-0-new2",
		"a-0-new3 r1-new1 a-0-new3", "a-1-new1 r1-new1 a-1-new1", "a-0-new1-new1 r1-new1 a-0-new1-new1",
		"a-0-new2-new1 r1-new1 a-0-new2-new1"}, names, "b removed; every name fresh")
	assert.Len(t, base.Nodes, 3, "the base is unchanged")
	assert.Empty(t, base.Config.Profiles)
	assert.Len(t, sc.Config.Profiles, 1)
	assert.Equal(t, "test.yaml [add:a-0:2,add-domain:rack=r1:1,remove:b:1,strategy:MostAllocated,weight:NodeResourcesFit:3]", sc.Name)
}

func TestApplyErrors(t *testing.T) {
	base := parse(t, twoRacks)
	for spec, want := range map[string]string{
		"add:zz:1":             `node "zz" is not one of the scenario's nodes`,
		"add-domain:rack=r9:1": `no node of the scenario has the label rack=r9`,
		"remove:b:2":           `only 1 nodes like "b" can be removed, not 2`,
		"add-domain:zone=r1:1": `no node of the scenario has the label zone=r1`,
		"remove:zz:1":          `node "zz" is not one of the scenario's nodes`,
		"add:a-0:1,add:a-0:1":  "",
	} {
		v, err := whatif.ParseVariant(spec)
		require.NoError(t, err)
		_, err = v.Apply(base)
		if want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorIs(t, err, whatif.ErrChange, spec)
		assert.Contains(t, err.Error(), want, spec)
	}
}

// threeNodesFivePods is a cluster where packing puts every pod on n-0.
const threeNodesFivePods = `
nodes: [{name: n, allocatable: {cpu: "8", memory: 8Gi}, count: 3}]
pods: [{name: p, requests: {cpu: "1", memory: 1Gi}, count: 5}]
`

// requireVariantPacksAsTheFile runs spec's change of threeNodesFivePods
// and the file with config: the same pods on the same nodes, all on n-0.
func requireVariantPacksAsTheFile(t *testing.T, spec, config string) {
	t.Helper()
	v, err := whatif.ParseVariant(spec)
	require.NoError(t, err)
	changed, err := v.Apply(parse(t, threeNodesFivePods))
	require.NoError(t, err)
	a, err := changed.Run()
	require.NoError(t, err)
	b, err := parse(t, config+threeNodesFivePods).Run()
	require.NoError(t, err)
	assert.Equal(t, b.Pods, a.Pods)
	for _, p := range a.Pods {
		assert.Equal(t, "n-0", p.Node, "%s packs", spec)
	}
}

// A strategy change gives the run the file's own scoringStrategy gives.
func TestStrategyEqualsTheFile(t *testing.T) {
	requireVariantPacksAsTheFile(t, "strategy:MostAllocated", "config: {scoringStrategy: {type: MostAllocated}}\n")
}

// A RequestedToCapacityRatio change gives the run the file's own
// scoringStrategy with the same shape gives; a rising shape packs.
func TestRatioStrategyEqualsTheFile(t *testing.T) {
	requireVariantPacksAsTheFile(t, "strategy:RequestedToCapacityRatio:0=0/100=10",
		"config: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}}}\n")
	back, err := whatif.ParseVariant("strategy:RequestedToCapacityRatio:0=0/100=10,strategy:LeastAllocated")
	require.NoError(t, err)
	spread, err := back.Apply(parse(t, threeNodesFivePods))
	require.NoError(t, err)
	r, err := spread.Run()
	require.NoError(t, err)
	assert.NotEqual(t, r.Pods[0].Node, r.Pods[1].Node, "the shape goes with its type: LeastAllocated spreads")
}
