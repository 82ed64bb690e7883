package scenario

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// The example of docs/scenario-format.md, field by field.
const nodeGroupsDoc = `
nodeGroups:
  - name: gpu
    template:
      allocatable: {cpu: "32", memory: 256Gi, nvidia.com/gpu: "8"}
      labels: {pool: gpu}
      taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
      devices:
        - {driver: gpu.example.com, devices: [{name: gpu-0, attributes: {model: {string: A100}}}]}
    min: 0
    max: 40
    provisioningDelay: {exponential: 4m, max: 15m}
    pricePerHour: 32.77
    rackSize: 8
    rackLabel: rack
    zone: zone-a
  - {name: cpu, template: {allocatable: {cpu: "8"}}, min: 1, max: 3, provisioningDelay: 90s}
autoscaler:
  scanInterval: 10s
  scaleDownUnneededTime: 30m
  scaleDownDelayAfterAdd: 5m
  scaleDownDelayAfterDelete: 0s
  scaleDownDelayAfterFailure: 3m
  scaleDownUtilizationThreshold: 0.4
  scaleDownGpuUtilizationThreshold: 0.6
  maxNodeProvisionTime: 15m
  expander: priority
  priorities: {10: [".*"], 50: ["gpu.*"]}
  maxNodesTotal: 2000
  maxCoresTotal: 64000
  maxMemoryTotal: 256Ti
  scaleDownEnabled: false
  seed: 7
`

func TestNodeGroupsFields(t *testing.T) {
	sc, err := Parse("doc.yaml", []byte(nodeGroupsDoc))
	require.NoError(t, err)
	require.Len(t, sc.NodeGroups, 2)
	g := sc.NodeGroups[0]
	assert.Equal(t, "gpu", g.Name)
	assert.Equal(t, [2]int{0, 40}, [2]int{g.Min, g.Max})
	assert.Equal(t, int64(32_000), g.Template.Allocatable.MilliCPU)
	assert.Equal(t, int64(110), g.Template.Allocatable.Pods, "the kubelet's default")
	assert.Equal(t, map[string]string{"pool": "gpu"}, g.Template.Labels)
	assert.Equal(t, []cluster.Taint{{Key: "nvidia.com/gpu", Effect: cluster.TaintNoSchedule}}, g.Template.Taints)
	require.Len(t, g.Devices, 1)
	assert.Equal(t, "gpu.example.com", g.Devices[0].Driver)
	assert.Equal(t, 32.77, g.PricePerHour)
	assert.Equal(t, [2]any{8, "rack"}, [2]any{g.RackSize, g.RackLabel})
	assert.Equal(t, "zone-a", g.Zone)
	assert.Equal(t, "exponential(4m0s, max 15m0s)", g.ProvisioningDelay.Text)
	require.NotNil(t, g.ProvisioningDelay.Dist)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		d := g.ProvisioningDelay.Dist(rng)
		require.True(t, d >= time.Second && d <= 15*time.Minute, "%v", d)
	}
	c := sc.NodeGroups[1]
	assert.Equal(t, 90*time.Second, c.ProvisioningDelay.Fixed)
	assert.Nil(t, c.ProvisioningDelay.Dist)
	assert.Equal(t, "1m30s", c.ProvisioningDelay.Text)

	a := sc.Autoscaler
	assert.Equal(t, []time.Duration{10 * time.Second, 30 * time.Minute, 5 * time.Minute, 0, 3 * time.Minute, 15 * time.Minute},
		[]time.Duration{a.ScanInterval, a.ScaleDownUnneededTime, a.ScaleDownDelayAfterAdd, a.ScaleDownDelayAfterDelete, a.ScaleDownDelayAfterFailure, a.MaxNodeProvisionTime})
	assert.Equal(t, [2]float64{0.4, 0.6}, [2]float64{a.ScaleDownUtilizationThreshold, a.ScaleDownGPUUtilizationThreshold})
	assert.Equal(t, "priority", a.Expander)
	assert.Equal(t, map[int][]string{10: {".*"}, 50: {"gpu.*"}}, a.Priorities)
	assert.Equal(t, 2000, a.MaxNodesTotal)
	assert.Equal(t, int64(64000), a.MaxCoresTotal)
	assert.Equal(t, int64(256)<<40, a.MaxMemoryTotal)
	assert.True(t, a.ScaleDownDisabled)
	assert.Equal(t, uint64(7), sc.AutoscalerSeed)
}

func TestNodeGroupsInJSON(t *testing.T) {
	sc, err := Parse("doc.json", []byte(`{"nodeGroups": [{"name": "cpu", "template": {"allocatable": {"cpu": "4"}}, "max": 2}],
		"autoscaler": {"expander": "priority", "priorities": {"10": ["cpu"]}}}`))
	require.NoError(t, err)
	assert.Equal(t, map[int][]string{10: {"cpu"}}, sc.Autoscaler.Priorities)
}

// The same scenario run twice gives the same bytes, decisions included.
func TestAutoscaledRunsRepeat(t *testing.T) {
	var outs []string
	for range 2 {
		got, transcript, err := runWithTranscript("testdata/scenarios/autoscale-gang-rack.yaml")
		require.NoError(t, err)
		outs = append(outs, string(got)+string(transcript))
	}
	assert.Equal(t, outs[0], outs[1])
}
