package plots

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gangsim/gangsim/metrics"
)

func TestTrimZeros(t *testing.T) {
	for in, want := range map[string]string{"25000.00": "25000", "0.50": "0.5", "1.0": "1", "0": "0", "": "", "1e+06": "1e+06", "12.25": "12.25", "100": "100"} {
		assert.Equal(t, want, trimZeros(in), in)
	}
	for _, tk := range (cleanTicks{}).Ticks(0, 50000) {
		assert.NotContains(t, tk.Label, ".", "no spurious decimals on a large axis")
	}
}

// A legend never covers the data: drawn by gonum/plot as the figures draw
// it, its lowest entry stays above the highest line, for legends of one
// to four entries, on panels of both heights, with and without a title.
func TestLegendAboveData(t *testing.T) {
	for _, height := range []vg.Length{panelHeight, 4 * vg.Inch} {
		for n := 1; n <= 4; n++ {
			for _, title := range []string{"", "Allocation over time: a very long scenario name.yaml\nclass=gpu.nvidia.com"} {
				name := fmt.Sprintf("%v, %d entries, title %t", height, n, title != "")
				p := newPlot("simulated time (hours)", "cpu (cores)")
				p.Title.Text = title
				top := 7000.0
				for i := range n {
					addLine(p, fmt.Sprintf("line %d with a long legend text (free on used nodes)", i), plotter.XYs{{X: 0, Y: top}, {X: 10, Y: top}}, i, i)
				}
				roomForLegend(p, top, n, height)
				f := Figure{Width: width, PanelHeight: height, Panels: []*plot.Plot{p}}
				c := f.canvases(draw.New(vgimg.New(f.Width, height)))[0]
				data := p.DataCanvas(c)
				lineY := data.Min.Y + vg.Length((top-p.Y.Min)/(p.Y.Max-p.Y.Min))*(data.Max.Y-data.Min.Y)
				legend := p.Legend.Rectangle(data)
				require.GreaterOrEqual(t, float64(legend.Min.Y), float64(lineY), name)
			}
		}
	}
}

// A device group with no device and a class never fragmented have no
// panel, but a note; a resource never fragmented has no flat line.
func TestEmptyPanelsLeftOut(t *testing.T) {
	rep := &metrics.Report{Name: "r", End: time.Hour, Devices: []metrics.DeviceSummary{{By: "class", Name: "empty"}},
		DeviceFragmentation: []metrics.DeviceFragmentation{{Class: "gpu"}}}
	_, ok := Devices(rep)
	assert.False(t, ok, "nothing left to draw")
	rep.Devices = append(rep.Devices, metrics.DeviceSummary{By: "class", Name: "gpu", Devices: 2, DevicesPeak: 2})
	rep.Series = []metrics.Series{{Name: "class=gpu devices", Points: []metrics.Point{{At: 0, Value: 2}}}}
	f, ok := Devices(rep)
	require.True(t, ok)
	assert.Len(t, f.Panels, 1)
	assert.Equal(t, []string{"class=empty: no device on the nodes at any time (no panel).",
		"class=gpu: no device capacity fragmented at any time (no panel)."}, f.Notes)
}
