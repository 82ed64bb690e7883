package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile autoscaling inputs (issue 48).

// A scan interval below a second is refused, naming the field: at 1ns a
// run crawled through the first instant for ever.
func TestAutoscalerScanIntervalFloor(t *testing.T) {
	_, err := Parse("tiny.yaml", []byte(`
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 3}
autoscaler: {scanInterval: 1ns}
`))
	require.Error(t, err)
	require.ErrorContains(t, err, "tiny.yaml")
	require.ErrorContains(t, err, "autoscaler.scanInterval")
	require.ErrorContains(t, err, `"1ns" is below 1s`)
}

// A group whose nodes take longer than maxNodeProvisionTime is warned
// about at load, and the run ends (the back-off grows, 5m to 30m, and
// the autoscaler stops waiting for its end once at its most).
func TestAutoscalerNeverProvisioningGroupEnds(t *testing.T) {
	text := `
nodeGroups:
  - {name: slow, template: {allocatable: {cpu: "4"}}, max: 3, provisioningDelay: 20m}
pods:
  - {name: web, requests: {cpu: "1"}}
`
	sc, err := Parse("slow.yaml", []byte(text))
	require.NoError(t, err)
	var ws []string
	for _, w := range sc.Warnings {
		ws = append(ws, w.String())
	}
	require.Contains(t, strings.Join(ws, "\n"), "nodeGroups[].provisioningDelay: is longer than maxNodeProvisionTime (15m0s)")
	res, lines := runScaled(t, text)
	require.EqualValues(t, "Pending", res.Pods[0].Phase)
	joined := strings.Join(lines, "\n")
	require.Contains(t, joined, "group backed off for 30m0s")
	require.Equal(t, 4, strings.Count(joined, "ScaleUp group=slow"))
}

// A cores limit beyond 9.2e15 (its millicores past int64) no longer
// wraps around and blocks every scale-up.
func TestAutoscalerHugeCoresLimit(t *testing.T) {
	_, lines := runScaled(t, `
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 3, provisioningDelay: 1m}
autoscaler: {maxCoresTotal: 9300000000000000}
pods:
  - {name: web, requests: {cpu: "1"}}
`)
	require.Contains(t, strings.Join(lines, "\n"), "ScaleUp group=cpu")
}

// A price of 1e308 an hour costs the largest float64, and the result is
// still written (it was a bare "json: unsupported value: +Inf").
func TestAutoscalerHugePriceKeepsTheResult(t *testing.T) {
	res, _ := runScaled(t, `
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 3, provisioningDelay: 1m, pricePerHour: 1e308}
pods:
  - {name: web, requests: {cpu: "1"}, duration: 10h}
`)
	out, err := res.JSON()
	require.NoError(t, err)
	require.Contains(t, string(out), `"cost": 1.7976931348623157e+308`)
}

// maxNodesPerScaleUp and maxBinpackingChecks are read, and must be
// positive.
func TestAutoscalerScaleUpBoundsRead(t *testing.T) {
	sc, err := Parse("b.yaml", []byte(`
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 3}
autoscaler: {maxNodesPerScaleUp: 7, maxBinpackingChecks: 5000}
`))
	require.NoError(t, err)
	require.Equal(t, 7, sc.Autoscaler.MaxNodesPerScaleUp)
	require.Equal(t, 5000, sc.Autoscaler.MaxBinpackingChecks)
	_, err = Parse("b.yaml", []byte(`
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 3}
autoscaler: {maxNodesPerScaleUp: 0}
`))
	require.ErrorContains(t, err, "autoscaler.maxNodesPerScaleUp")
}
