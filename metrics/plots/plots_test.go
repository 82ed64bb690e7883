package plots_test

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
	"github.com/gangsim/gangsim/scenario"
)

const small = `
nodes:
  - {name: a, labels: {rack: r1}, allocatable: {cpu: "4", memory: 8Gi, nvidia.com/gpu: "8"}}
  - {name: b, labels: {rack: r2}, allocatable: {cpu: "4", memory: 8Gi}}
pods:
  - {name: web, requests: {cpu: "1", memory: 1Gi}, priority: 100, duration: 2h, count: 4}
  - {name: job, requests: {cpu: "2", nvidia.com/gpu: "3"}, at: 10m, duration: 1h, count: 3}
`

func report(t testing.TB, text string) *metrics.Report {
	t.Helper()
	sc, err := scenario.Parse("small.yaml", []byte(text))
	require.NoError(t, err)
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: []string{"rack"}})
	_, err = sc.Run(gangsim.WithObserver(rec.Observe))
	require.NoError(t, err)
	rep := rec.Report()
	rep.Name = "small.yaml"
	return rep
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	paths, err := plots.Write(report(t, small), dir)
	require.NoError(t, err)
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	assert.Equal(t, []string{"allocation.png", "allocation.svg", "pending.png", "pending.svg", "waits.png", "waits.svg",
		"domains-rack.png", "domains-rack.svg"}, names)

	f, err := os.Open(filepath.Join(dir, "allocation.png"))
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 990, img.Bounds().Dx(), "9 inches at 110 dpi")

	svg, err := os.ReadFile(filepath.Join(dir, "allocation.svg"))
	require.NoError(t, err)
	for _, want := range []string{"simulated time (hours)", "cpu (cores)", "memory (GiB)", "nvidia.com/gpu (GPUs)", "allocated (requests", "capacity (allocatable"} {
		assert.Contains(t, string(svg), want, "axis labels with units and a legend")
	}
	waits, err := os.ReadFile(filepath.Join(dir, "waits.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(waits), "priority 100 (4 pods)")
}

// gpus is one node of two shared GPUs, shares and whole GPUs asked.
const gpus = `
nodes: [{name: g0, allocatable: {cpu: "16", memory: 64Gi}}]
deviceClasses: [{name: gpu, selectors: [{cel: {expression: 'device.driver == "gpu.nvidia.com"'}}]}]
resourceSlices:
  - name: g0-gpus
    driver: gpu.nvidia.com
    nodeName: g0
    pool: {name: g0, resourceSliceCount: 1}
    devices:
      - {name: gpu-0, attributes: {model: {string: A100}}, capacity: {gpu: {value: "1"}}, allowMultipleAllocations: true}
      - {name: gpu-1, attributes: {model: {string: A100}}, capacity: {gpu: {value: "1"}}, allowMultipleAllocations: true}
resourceClaimTemplates:
  - {name: whole, devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
  - {name: share, devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, capacity: {requests: {gpu: 300m}}}}]}}
pods:
  - {name: small, requests: {cpu: "1"}, resourceClaims: [{name: gpu, resourceClaimTemplateName: share}], duration: 30m, count: 3}
  - {name: big, requests: {cpu: "2"}, resourceClaims: [{name: gpu, resourceClaimTemplateName: whole}], at: 10m, duration: 1h}
`

// A run with devices has the devices figure: a panel per class and per
// model, and one for the class's fragmentation.
func TestDevicesFigure(t *testing.T) {
	sc, err := scenario.Parse("gpus.yaml", []byte(gpus))
	require.NoError(t, err)
	rec := metrics.NewRecorder(metrics.Options{})
	_, err = sc.Run(rec.Attach())
	require.NoError(t, err)
	f, ok := plots.Devices(rec.Report())
	require.True(t, ok)
	require.Len(t, f.Panels, 3, "class=gpu, model=A100, the fragmentation of gpu")
	var svg bytes.Buffer
	require.NoError(t, f.WriteTo(&svg, plots.SVG))
	for _, want := range []string{"class=gpu (devices)", "model=A100 (devices)", "allocated capacity", "class=gpu fragmentation", "2 task types"} {
		assert.Contains(t, svg.String(), want)
	}
	_, ok = plots.Devices(report(t, small))
	assert.False(t, ok, "no devices, no figure")
}

// The same report gives the same images, byte for byte.
func TestFiguresAreDeterministic(t *testing.T) {
	render := func() []byte {
		var out bytes.Buffer
		for _, f := range plots.Figures(report(t, small)) {
			for _, format := range []string{plots.PNG, plots.SVG} {
				require.NoError(t, f.WriteTo(&out, format))
			}
		}
		return out.Bytes()
	}
	require.Equal(t, render(), render())
}

func TestBadFormat(t *testing.T) {
	f := plots.Pending(report(t, small))
	require.ErrorContains(t, f.WriteTo(&bytes.Buffer{}, "gif"), `format "gif" is not png or svg`)
}

// A run where nothing is scheduled still draws what it has.
func TestEmptyReport(t *testing.T) {
	rep := report(t, "nodes: [{name: a, allocatable: {cpu: \"1\"}}]\n")
	figs := plots.Figures(rep)
	require.Len(t, figs, 2, "allocation and pending; no waits, no domains")
	for _, f := range figs {
		require.NoError(t, f.WriteTo(&bytes.Buffer{}, plots.PNG))
	}
}

// Write a run's figures as PNG and SVG.
func ExampleWrite() {
	sc, _ := scenario.Parse("example.yaml", []byte(`
nodes: [{name: n, labels: {zone: z1}, allocatable: {cpu: "4"}}]
pods: [{name: p, requests: {cpu: "1"}, duration: 1h, count: 6}]
`))
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: []string{"zone"}})
	_, _ = sc.Run(gangsim.WithObserver(rec.Observe))
	dir, _ := os.MkdirTemp("", "plots")
	defer os.RemoveAll(dir)
	paths, err := plots.Write(rec.Report(), dir, plots.PNG)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// allocation.png
	// pending.png
	// waits.png
	// domains-zone.png
}
