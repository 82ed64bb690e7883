package metrics_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

const twoPods = `
nodes: [{name: n, labels: {rack: r1}, allocatable: {cpu: "4", memory: 8Gi}}]
pods:
  - {name: a, requests: {cpu: "1", memory: 1Gi}, duration: 10m}
  - {name: b, requests: {cpu: "2"}, at: 5m, duration: 10m}
`

// The CSV has one row per instant at which something changed, every
// series in its unit, values holding until the next row.
func TestCSV(t *testing.T) {
	rep := record(t, twoPods, 0, "rack")
	var b bytes.Buffer
	require.NoError(t, rep.WriteCSV(&b))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "time_seconds,capacity cpu (cores),allocated cpu (cores),fragmented cpu (cores),"+
		"capacity memory (GiB),allocated memory (GiB),fragmented memory (GiB),"+
		"capacity pods (pods),allocated pods (pods),fragmented pods (pods),pending pods (pods),pending groups (groups),"+
		"rack=r1 capacity cpu (cores),rack=r1 allocated cpu (cores),rack=r1 capacity memory (GiB),rack=r1 allocated memory (GiB),"+
		"rack=r1 capacity pods (pods),rack=r1 allocated pods (pods)", lines[0])
	assert.Equal(t, "0,4,1,0,8,1,0,110,1,0,0,0,4,1,8,1,110,1", lines[1])
	assert.Equal(t, "300,4,3,0,8,1,0,110,2,0,0,0,4,3,8,1,110,2", lines[2])
	assert.Equal(t, "900,4,0,0,8,0,0,110,0,0,0,0,4,0,8,0,110,0", lines[4])
}

// The same scenario gives the same bytes, in every format.
func TestRenderingIsDeterministic(t *testing.T) {
	render := func() string {
		rep := record(t, twoPods+"\nworkloads: [{name: w, seed: 1, replicas: 30, arrival: {rate: 1/m}, duration: {exponential: 5m}, pod: {requests: {cpu: 500m}}}]\n", 0, "rack")
		js, err := rep.JSON(true)
		require.NoError(t, err)
		var csv, waits, table bytes.Buffer
		require.NoError(t, rep.WriteCSV(&csv))
		require.NoError(t, rep.WriteWaitsCSV(&waits))
		require.NoError(t, rep.WriteTable(&table))
		return string(js) + csv.String() + waits.String() + table.String()
	}
	first := render()
	for range 3 {
		require.Equal(t, first, render())
	}
}

func TestJSONShape(t *testing.T) {
	rep := record(t, twoPods, 0)
	rep.Name = "two"
	out, err := rep.JSON(false)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "two", got["name"])
	assert.Equal(t, 900.0, got["endSeconds"])
	assert.NotContains(t, got, "series")
	wait := got["pods"].(map[string]any)["wait"].(map[string]any)
	assert.Equal(t, 2.0, wait["count"])
	assert.Equal(t, 0.0, wait["maxSeconds"])
	withSeries, err := rep.JSON(true)
	require.NoError(t, err)
	assert.Contains(t, string(withSeries), `"points": [`)
	assert.Contains(t, string(withSeries), `"waits": [`)
	var waits bytes.Buffer
	require.NoError(t, rep.WriteWaitsCSV(&waits))
	assert.Equal(t, "pod,priority,arrived_seconds,wait_seconds\na,0,0,0\nb,0,300,0\n", waits.String())
	compact, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.NotContains(t, string(compact), "points", "a Report inside a value marshals its summaries")
}

func TestTable(t *testing.T) {
	rep := record(t, twoPods, 0, "rack")
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	out := b.String()
	for _, want := range []string{"simulated 0s to 15m0s, 1 nodes", "cpu (cores)", "50.0%", "WAIT", "rack=r1", "PREEMPTIONS  0"} {
		assert.Contains(t, out, want)
	}
}

// Record a scenario's event stream and read the allocation integral and
// the waits.
func ExampleRecorder() {
	sc, err := scenario.Parse("example.yaml", []byte(`
nodes: [{name: n, allocatable: {cpu: "2"}}]
pods:
  - {name: a, requests: {cpu: "2"}, duration: 1h}
  - {name: b, requests: {cpu: "1"}, duration: 30m}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := metrics.NewRecorder(metrics.Options{})
	if _, err := sc.Run(gangsim.WithObserver(rec.Observe)); err != nil {
		fmt.Println(err)
		return
	}
	rep := rec.Report()
	cpu := rep.Resources[0]
	fmt.Printf("%s: %.1f core-hours over %v, utilisation %.0f%%\n", cpu.Resource, cpu.AllocatedHours, rep.End, 100*cpu.Utilization)
	fmt.Printf("waits: p50 %v, max %v\n", rep.Pods.Wait.P50, rep.Pods.Wait.Max)
	// Output:
	// cpu: 2.5 core-hours over 1h30m0s, utilisation 83%
	// waits: p50 0s, max 1h0m0s
}

func ExampleReport_WriteTable() {
	sc, _ := scenario.Parse("example.yaml", []byte(`
nodes: [{name: n, allocatable: {cpu: "2", memory: 4Gi}}]
pods: [{name: a, requests: {cpu: "1", memory: 1Gi}, duration: 1h, count: 3}]
`))
	rec := metrics.NewRecorder(metrics.Options{})
	_, _ = sc.Run(gangsim.WithObserver(rec.Observe))
	rep := rec.Report()
	rep.Name = "example.yaml"
	// The third pod waits an hour for cpu; meanwhile the node's free 2Gi
	// of memory are fragmented: it is the only pending pod, it requests
	// memory, and it does not fit.
	_ = rep.WriteTable(os.Stdout)

	// Output:
	// example.yaml: simulated 0s to 2h0m0s, 1 nodes at the end
	//
	// RESOURCE      CAPACITY  ALLOCATED  PEAK  UTILISATION  FRAGMENTED  PEAK FRAGMENTED
	// cpu (cores)   2         1.5        2     75.0%        0           0
	// memory (GiB)  4         1.5        2     37.5%        1           2
	// pods (pods)   110       1.5        2     1.4%         0           0
	// (capacity, allocated and fragmented are time averages; utilisation is allocated over capacity)
	//
	// PODS    3 arrived, 3 placed, 0 never placed, 0 pending at the end, 3 succeeded, 0 evictions
	// GROUPS  0 arrived, 0 placed, 0 never placed
	//
	// WAIT                       COUNT  MEAN   P50  P90     P99     MAX
	// pods                       3      20m0s  0s   1h0m0s  1h0m0s  1h0m0s
	//   priority 0               3      20m0s  0s   1h0m0s  1h0m0s  1h0m0s
	// groups (time to schedule)  0      0s     0s   0s      0s      0s
	//
	// WAIT BY WORKLOAD  SCHEDULED  MEAN   P50  P90     P99     MAX     PENDING
	// a                 3          20m0s  0s   1h0m0s  1h0m0s  1h0m0s  0
	//
	// PREEMPTIONS  0, evicting 0 pods (0 breaking a budget)
	//
	// UNSCHEDULABLE REASON  ATTEMPTS  PODS
	// Insufficient cpu      1         1
}
