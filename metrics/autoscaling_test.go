package metrics_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
)

// handMadeAutoscaling is a run of two groups told by hand:
//
//	1m   ScaleUp gpu [gpu-1 gpu-2]   gpu: 0 ready, 2 on the way
//	2m   NoScaleUp (no group)         nothing changes
//	5m   NodeReady gpu [gpu-1 gpu-2] gpu: 2 ready, 0 on the way
//	30m  ScaleDown gpu [gpu-1]       gpu: 1 ready
//	40m  ScaleUp gpu [gpu-3]         gpu: 1 ready, 1 on the way
//	55m  ScaleUpTimeout gpu [gpu-3]  gpu: 1 ready, 0 on the way
//
// cpu never moves. The summaries are the autoscaler's, passed through:
// gpu 3 added, 1 removed, most 2; node-hours gpu-1 1m..30m = 29/60,
// gpu-2 1m..60m = 59/60, gpu-3 40m..55m = 15/60: 103/60 h at 10/h.
func handMadeAutoscaling() ([]autoscaler.NodeGroup, []autoscaler.GroupSummary, []autoscaler.Event, []autoscaler.PodWait) {
	m := time.Minute
	groups := []autoscaler.NodeGroup{{Name: "gpu", Min: 0, Max: 4, PricePerHour: 10}, {Name: "cpu", Min: 0, Max: 2}}
	sums := []autoscaler.GroupSummary{
		{Name: "gpu", NodesAdded: 3, NodesRemoved: 1, MaxNodes: 2, NodeHours: 103.0 / 60, Cost: 1030.0 / 60},
		{Name: "cpu"},
	}
	events := []autoscaler.Event{
		{At: 1 * m, Kind: autoscaler.EventScaleUp, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}, Pods: []cluster.PodKey{"default/a"}},
		{At: 2 * m, Kind: autoscaler.EventNoScaleUp, Pods: []cluster.PodKey{"default/b"}, Reason: "no group fits"},
		{At: 5 * m, Kind: autoscaler.EventNodeReady, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}},
		{At: 30 * m, Kind: autoscaler.EventScaleDown, Group: "gpu", Nodes: []string{"gpu-1"}},
		{At: 40 * m, Kind: autoscaler.EventScaleUp, Group: "gpu", Nodes: []string{"gpu-3"}},
		{At: 55 * m, Kind: autoscaler.EventScaleUpTimeout, Group: "gpu", Nodes: []string{"gpu-3"}},
	}
	waits := []autoscaler.PodWait{
		{Pod: "default/a", ForNode: 4 * m, Bound: true},
		{Pod: "default/b", ForRoom: 2 * m},
		{Pod: "default/c", Bound: true},
	}
	return groups, sums, events, waits
}

func TestAddAutoscaling(t *testing.T) {
	m := time.Minute
	rep := &metrics.Report{Start: 0, End: 60 * m}
	rep.AddAutoscaling(handMadeAutoscaling())
	a := rep.Autoscaling
	require.NotNil(t, a)
	require.Len(t, a.Groups, 2)
	gpu := a.Groups[0]
	assert.Equal(t, metrics.NodeGroupSummary{Name: "gpu", PricePerHour: 10, Max: 4, NodesAdded: 3, NodesRemoved: 1, MaxNodes: 2,
		NodesAtEnd: 1, NodeHours: 103.0 / 60, Cost: 1030.0 / 60, PeakReady: 2, PeakPending: 2}, gpu)
	assert.Equal(t, "cpu", a.Groups[1].Name)
	assert.InDelta(t, 103.0/60, a.NodeHours, 1e-9)
	assert.InDelta(t, 1030.0/60, a.Cost, 1e-9)
	assert.Equal(t, [4]int{2, 1, 1, 1}, [4]int{a.ScaleUps, a.ScaleDowns, a.NoScaleUps, a.Timeouts})
	// waits for a node: [0, 0, 4m]: mean 80s, p50 0, max 4m; for room
	// [0, 0, 2m]: mean 40s
	assert.Equal(t, metrics.Durations{Count: 3, Mean: 80 * time.Second, P50: 0, P90: 4 * m, P99: 4 * m, Max: 4 * m}, a.WaitForNode)
	assert.Equal(t, 40*time.Second, a.WaitForRoom.Mean)
	assert.Equal(t, 1, a.PodsWaitingForNode)

	ready := rep.GroupNodesSeries(metrics.SeriesGroupNodes)
	require.Len(t, ready, 2)
	assert.Equal(t, "group=gpu nodes", ready[0].Name)
	assert.Equal(t, []metrics.Point{{At: 0, Value: 0}, {At: 5 * m, Value: 2}, {At: 30 * m, Value: 1}}, ready[0].Points)
	assert.Equal(t, []metrics.Point{{At: 0, Value: 0}}, ready[1].Points)
	onTheWay := rep.GroupNodesSeries(metrics.SeriesGroupProvisioning)
	assert.Equal(t, []metrics.Point{{At: 0, Value: 0}, {At: 1 * m, Value: 2}, {At: 5 * m, Value: 0}, {At: 40 * m, Value: 1}, {At: 55 * m, Value: 0}},
		onTheWay[0].Points)
}

func TestAutoscalingInTableJSONAndCSV(t *testing.T) {
	rep := &metrics.Report{Start: 0, End: time.Hour}
	rep.AddAutoscaling(handMadeAutoscaling())
	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	assert.Contains(t, table.String(), "NODE GROUP")
	assert.Regexp(t, `gpu +0\.\.4 +3 +1 +2 +1 +1\.7 +17\.2`, table.String())
	assert.Regexp(t, `waiting for a node +3 +1m20s`, table.String())
	out, err := rep.JSON(false)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"autoscaling": {`)
	assert.Contains(t, string(out), `"nodesAtEnd": 1`)
	var csv bytes.Buffer
	require.NoError(t, rep.WriteCSV(&csv))
	assert.Contains(t, csv.String(), "group=gpu nodes (nodes),group=gpu provisioning nodes (nodes)")
	assert.Contains(t, csv.String(), "\n300,2,0,0,0\n", "at 5m: 2 gpu nodes ready, none on the way, cpu none")

	none := &metrics.Report{}
	none.AddAutoscaling(nil, nil, nil, nil)
	assert.Nil(t, none.Autoscaling, "no groups: no section")
	out, err = none.JSON(false)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "autoscaling")
}
