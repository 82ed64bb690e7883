package plots

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gangsim/gangsim/metrics"
)

// rowHeight is the height a queue's row takes in a figure of one row
// per queue; rowsExtra is what its title, axis and legend take.
const (
	rowHeight = 0.3 * vg.Inch
	rowsExtra = 1.6 * vg.Inch
)

// spread is a sample's quantiles, as the distribution figure draws them.
type spread struct {
	p10, p25, p50, p75, p90, max float64
}

// spreadOf returns the quantiles of times sorted shortest first, in
// seconds, each at least a second (the log axis starts there).
func spreadOf(times []time.Duration) spread {
	x := make([]float64, len(times))
	for i, d := range times {
		x[i] = max(1, d.Seconds())
	}
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, x, nil) }
	return spread{p10: q(0.1), p25: q(0.25), p50: q(0.5), p75: q(0.75), p90: q(0.9), max: x[len(x)-1]}
}

// KueueAdmission returns the figure of the times to admission per
// ClusterQueue (the busiest metrics.MaxKueueQueues when there are
// more), one row each, in the objects' order from the top: a box from
// the first to the third quartile, the median across it, a line from
// the 10th to the 90th percentile and a mark at the longest, on a log
// axis of time (under a second drawn at a second). ok is false without
// Kueue or when no workload was admitted.
func KueueAdmission(rep *metrics.Report) (f Figure, ok bool) {
	k := rep.Kueue
	if k == nil || k.Admitted == 0 {
		return f, false
	}
	shown := metrics.ShownQueues(k.ClusterQueues)
	longest := 60.0
	for _, q := range shown {
		if n := len(q.AdmissionTimes); n > 0 {
			longest = max(longest, q.AdmissionTimes[n-1].Seconds())
		}
	}
	p := newPlot("time to admission (log scale)", "")
	p.Title.Text = "Time to admission per ClusterQueue: " + name(rep)
	names := make([]string, len(shown))
	var none []string
	for i, q := range shown {
		y := float64(len(shown) - 1 - i) // the first queue on top
		names[len(shown)-1-i] = fmt.Sprintf("%s (%d)", q.Name, len(q.AdmissionTimes))
		if len(q.AdmissionTimes) == 0 {
			none = append(none, q.Name)
			continue
		}
		drawSpread(p, y, spreadOf(q.AdmissionTimes), plotutil.Color(0))
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.7, float64(len(shown))-0.3+legendRows(3)
	end := axisEnd(longest)
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, durationTicks(end)
	p.X.Min, p.X.Max = 1, end
	legendSpread(p)
	f = Figure{Name: "kueue-admission", Width: width, PanelHeight: rowHeight*vg.Length(len(shown)) + rowsExtra, Panels: []*plot.Plot{p}}
	if len(none) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("No workload of %s was admitted (no box).", joinNames(none)))
	}
	if len(shown) < len(k.ClusterQueues) {
		f.Notes = append(f.Notes, fmt.Sprintf("The %d busiest of %d ClusterQueues; all are in report.json.", len(shown), len(k.ClusterQueues)))
	}
	return f, true
}

// axisEnd is where a log axis of time up to longest seconds ends: at
// the first labelled tick (durationTicks) past it.
func axisEnd(longest float64) float64 {
	for _, end := range []float64{60, 600, 3600, 6 * 3600, 86400, 7 * 86400} {
		if end >= longest*1.05 {
			return end
		}
	}
	return longest * 1.05
}

// legendRows is the room, in rows, a legend of n entries takes above
// the rows.
func legendRows(n int) float64 { return float64(n) * 0.55 }

// drawSpread draws one row's distribution at y.
func drawSpread(p *plot.Plot, y float64, s spread, c color.Color) {
	line := func(pts plotter.XYs, width vg.Length) {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return // only for NaN or infinite values, which quantiles of durations are not
		}
		l.Color, l.Width = c, width
		p.Add(l)
	}
	line(plotter.XYs{{X: s.p10, Y: y}, {X: s.p90, Y: y}}, vg.Points(1))
	box, err := plotter.NewPolygon(plotter.XYs{{X: s.p25, Y: y - 0.3}, {X: s.p75, Y: y - 0.3}, {X: s.p75, Y: y + 0.3}, {X: s.p25, Y: y + 0.3}})
	if err == nil {
		r, g, b, _ := c.RGBA()
		box.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 90}
		box.LineStyle.Color, box.LineStyle.Width = c, vg.Points(1)
		p.Add(box)
	}
	line(plotter.XYs{{X: s.p50, Y: y - 0.35}, {X: s.p50, Y: y + 0.35}}, vg.Points(2.5))
	if sc, err := plotter.NewScatter(plotter.XYs{{X: s.max, Y: y}}); err == nil {
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}
		p.Add(sc)
	}
}

// legendSpread explains the marks of drawSpread, in the panel's top
// left corner (above the rows: the y axis leaves room for it).
func legendSpread(p *plot.Plot) {
	c := plotutil.Color(0)
	box := &plotter.Polygon{}
	r, g, b, _ := c.RGBA()
	box.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 90}
	box.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1)}
	whisker := &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1)}}
	mark := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}}
	p.Legend.Padding = vg.Points(2)
	p.Legend.Add("middle half (25th to 75th percentile), median across it", box)
	p.Legend.Add("10th to 90th percentile", whisker)
	p.Legend.Add("longest", mark)
}

// joinNames lists names in words: "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
