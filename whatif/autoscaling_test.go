package whatif_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/whatif"
)

// burst is eight pods of 3 cpu at 0s, each needing a 4-cpu node of its
// own, for 30m. With a group max of m, m pods get a node: the first scan
// (10s) requests them, they are ready at 2m10s; the other 8-m wait for
// the first to end (about 32m10s) and for their nodes to be reused.
const burst = `
nodeGroups:
  - name: cpu
    template: {allocatable: {cpu: "4", memory: 16Gi}}
    max: 2
    provisioningDelay: 2m
    pricePerHour: 1
pods:
  - {name: job, requests: {cpu: "3"}, duration: 30m, count: 8}
`

func TestAutoscalerVariants(t *testing.T) {
	for _, tc := range []struct{ spec, name string }{
		{"group:cpu:max=8", "group:cpu:max=8"},
		{"group:cpu:provisioningDelay=8m, autoscaler:expander=price", "group:cpu:provisioningDelay=8m,autoscaler:expander=price"},
		{"autoscaler:scaleDownUnneededTime=30m", "autoscaler:scaleDownUnneededTime=30m"},
	} {
		v, err := whatif.ParseVariant(tc.spec)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.name, v.Name)
	}
	for _, bad := range []struct{ spec, msg string }{
		{"group:cpu", "want group:NAME:FIELD=VALUE"},
		{"group:cpu:size=3", `node group field "size" is not one of max, min, provisioningDelay, pricePerHour`},
		{"autoscaler:expander", "want autoscaler:FIELD=VALUE"},
	} {
		_, err := whatif.ParseVariant(bad.spec)
		require.ErrorIs(t, err, whatif.ErrVariant)
		assert.Contains(t, err.Error(), bad.msg)
	}
	sc := parse(t, burst)
	for _, bad := range []struct{ spec, msg string }{
		{"group:gpu:max=3", `node group "gpu" is not one of the scenario's`},
		{"group:cpu:max=0", `max 0 must be at least 1`},
		{"group:cpu:provisioningDelay=-1m", `provisioningDelay "-1m" is not a time`},
		{"autoscaler:expander=cheapest", `autoscaler expander "cheapest" is not one of least-waste`},
		{"autoscaler:scaleDownUtilizationThreshold=2", `is not in (0, 1]`},
		{"autoscaler:maxNodesTotl=3", `autoscaler field "maxNodesTotl" is not one the variants set`},
	} {
		v, err := whatif.ParseVariant(bad.spec)
		require.NoError(t, err)
		_, err = v.Apply(sc)
		require.ErrorIs(t, err, whatif.ErrChange, bad.spec)
		assert.Contains(t, err.Error(), bad.msg)
	}
	v, err := whatif.ParseVariant("group:cpu:max=8")
	require.NoError(t, err)
	changed, err := v.Apply(sc)
	require.NoError(t, err)
	assert.Equal(t, 8, changed.NodeGroups[0].Max)
	assert.Equal(t, 2, sc.NodeGroups[0].Max, "the base is not changed")
}

func TestCompareCostAgainstWaits(t *testing.T) {
	sc := parse(t, burst)
	var vs []whatif.Variant
	for _, spec := range []string{"base", "group:cpu:max=8"} {
		v, err := whatif.ParseVariant(spec)
		require.NoError(t, err)
		vs = append(vs, v)
	}
	c, err := whatif.Compare(sc, vs, whatif.Options{Workers: 2})
	require.NoError(t, err)
	base, wide := c.Variants[0].Summary.Autoscaling, c.Variants[1].Summary.Autoscaling
	require.NotNil(t, base)
	require.NotNil(t, wide)
	// max 2: 2 nodes carry the 8 pods in 4 rounds of 30m; max 8: 8 nodes,
	// one round. Both pay about the same node-hours (8 pods of 30m each,
	// plus delays and 10m unneeded), but the waits for room differ.
	assert.Equal(t, 2, base.NodesAdded)
	assert.Equal(t, 8, wide.NodesAdded)
	assert.Greater(t, base.WaitForRoom.Max, 60*time.Minute.Seconds(), "the last round starts after 1h30m")
	assert.Less(t, wide.WaitForRoom.Max+wide.WaitForNode.Max, 5*time.Minute.Seconds())
	var b bytes.Buffer
	require.NoError(t, c.WriteTable(&b))
	assert.Contains(t, b.String(), "cost (node-hours)")
	assert.Contains(t, b.String(), "wait for a node p90 / max")
}

func TestSmallestGroupMax(t *testing.T) {
	sc := parse(t, burst)
	// every wait under 5m: all 8 pods need a node at once: max 8
	a, err := whatif.SmallestGroupMax(sc, "cpu", whatif.Criteria{MaxWait: 5 * time.Minute, Limit: 16}, whatif.Options{})
	require.NoError(t, err)
	require.True(t, a.Found, a.Reason)
	assert.Equal(t, 8, a.Count)
	assert.Equal(t, "group:cpu:max=8", a.Variant.Name)
	require.NotNil(t, a.Summary.Autoscaling)
	// the p50 under 5m: 4 of the 8 pods placed at 2m10s is enough (the
	// 4th smallest of 8 waits): max 4
	a, err = whatif.SmallestGroupMax(sc, "cpu", whatif.Criteria{MaxWait: 5 * time.Minute, Quantile: 0.5, Limit: 16}, whatif.Options{Workers: 2})
	require.NoError(t, err)
	require.True(t, a.Found, a.Reason)
	assert.Equal(t, 4, a.Count)
	for _, r := range a.Runs {
		assert.Positive(t, r.Cost, "every run has its cost")
	}
	var b bytes.Buffer
	require.NoError(t, a.WriteTable(&b))
	assert.Contains(t, b.String(), "COST  NODE-HOURS")
	_, err = whatif.SmallestGroupMax(sc, "cpu", whatif.Criteria{MaxWait: time.Minute, Quantile: 0.75}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
	_, err = whatif.SmallestGroupMax(sc, "gpu", whatif.Criteria{}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
}
