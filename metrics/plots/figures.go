package plots

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
)

// legends explain the allocation figure's lines.
var legends = map[string]string{
	"allocated":  "allocated (requests of the pods on nodes)",
	"capacity":   "capacity (allocatable of the nodes)",
	"fragmented": "fragmented (free on used nodes, but no pending pod fits)",
}

const (
	width       = 9 * vg.Inch
	panelHeight = 2.6 * vg.Inch
	timeLabel   = "simulated time (hours)"
)

// Allocation returns the allocation figure: one panel per resource (pods
// left out), with the allocated amount, the capacity and the fragmented
// amount over time, in the resource's unit. ok is false when the report
// has no resource with capacity.
func Allocation(rep *metrics.Report) (f Figure, ok bool) {
	f = Figure{Name: "allocation", Width: width, PanelHeight: panelHeight}
	for _, r := range rep.Resources {
		if r.Resource == cluster.ResourcePods || r.Capacity == 0 {
			continue
		}
		p := timePlot(rep, "")
		axisLabel(p, string(r.Resource), r.Unit, f.PanelHeight)
		top, lines := 0.0, 0
		for i, m := range []string{"allocated", "capacity", "fragmented"} {
			pts := steps(rep, find(rep, seriesOf(r.Resource, m)))
			if m == "fragmented" && maxY(pts) == 0 {
				f.Notes = append(f.Notes, fmt.Sprintf("%s: nothing fragmented at any time (no line drawn).", r.Resource))
				continue
			}
			if addLine(p, legends[m], pts, i, i) {
				lines++
			}
			top = max(top, maxY(pts))
		}
		roomForLegend(p, top, lines, f.PanelHeight)
		f.Panels = append(f.Panels, p)
	}
	if len(f.Panels) == 0 {
		return f, false
	}
	f.setTitle("Allocation " + overTime(rep) + ": " + name(rep))
	return f, true
}

// seriesOf names the series of a resource's metric (allocated, capacity,
// fragmented): "allocated cpu"; for GPUs served through DRA, the device
// series of their class ("class=gpu.nvidia.com allocated device
// capacity").
func seriesOf(r cluster.ResourceName, metric string) string {
	if !strings.HasPrefix(string(r), metrics.DRAPrefix) {
		return metric + " " + string(r)
	}
	return string(r) + " " + map[string]string{"allocated": "allocated device capacity", "capacity": "devices", "fragmented": "fragmented devices"}[metric]
}

// Pending returns the figure of pending pods and pending groups over time;
// the groups' panel is left out, with a note, when none was ever pending.
func Pending(rep *metrics.Report) Figure {
	f := Figure{Name: "pending", Width: width, PanelHeight: panelHeight}
	for i, what := range []string{"pods", "groups"} {
		pts := steps(rep, find(rep, "pending "+what))
		if what == "groups" && maxY(pts) == 0 {
			f.Notes = append(f.Notes, "No PodGroup was pending at any time (no panel).")
			continue
		}
		p := timePlot(rep, "pending "+what+" (count)")
		addLine(p, "pending "+what, pts, i, 0)
		roomForLegend(p, maxY(pts), 1, f.PanelHeight)
		p.Y.Tick.Marker = countTicks{}
		f.Panels = append(f.Panels, p)
	}
	f.setTitle("Pending pods and PodGroups " + overTime(rep) + ": " + name(rep))
	return f
}

// Waits returns the wait-time distribution: for each priority, the share
// of its scheduled pods that waited at most a given time. ok is false
// when no pod was scheduled.
func Waits(rep *metrics.Report) (f Figure, ok bool) {
	if len(rep.Waits) == 0 {
		return f, false
	}
	longest := slices.MaxFunc(rep.Waits, func(a, b metrics.PodWait) int { return int(a.Wait - b.Wait) }).Wait
	end := max(60, longest.Seconds()) // seconds
	// a long axis label makes gonum/plot shrink a log axis: keep it short
	p := newPlot("wait (log scale)", "pods that waited at most this long (%)")
	p.Title.Text = "Pod waits from arrival to first binding, by priority (under 1s drawn at 1s): " + name(rep)
	for i, pw := range rep.Pods.WaitByPriority {
		var waits []float64
		for _, w := range rep.Waits {
			if w.Priority == pw.Priority {
				waits = append(waits, max(1, w.Wait.Seconds()))
			}
		}
		addLine(p, fmt.Sprintf("priority %d (%d pods)", pw.Priority, len(waits)), cdf(waits, end), i, i)
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, durationTicks(end)
	p.X.Min, p.X.Max = 1, end
	percentAxis(p)
	roomAbovePercent(p, len(rep.Pods.WaitByPriority), 4*vg.Inch)
	return Figure{Name: "waits", Width: width, PanelHeight: 4 * vg.Inch, Panels: []*plot.Plot{p}}, true
}

// Domains returns one figure per domain key: each domain's time-averaged
// allocation of each resource (pods left out), as a share of its
// capacity.
func Domains(rep *metrics.Report) []Figure {
	var keys []string
	for _, d := range rep.Domains {
		if !slices.Contains(keys, d.Key) {
			keys = append(keys, d.Key)
		}
	}
	var out []Figure
	for _, key := range keys {
		out = append(out, domainFigure(rep, key))
	}
	return out
}

func domainFigure(rep *metrics.Report, key string) Figure {
	var values []string
	var resources []cluster.ResourceName
	util := map[string]map[cluster.ResourceName]float64{}
	for _, d := range rep.Domains {
		if d.Key != key || d.Resource == cluster.ResourcePods {
			continue
		}
		if !slices.Contains(values, d.Value) {
			values = append(values, d.Value)
			util[d.Value] = map[cluster.ResourceName]float64{}
		}
		if !slices.Contains(resources, d.Resource) {
			resources = append(resources, d.Resource)
		}
		util[d.Value][d.Resource] = 100 * d.Utilization
	}
	p := newPlot(key, "mean allocation (% of capacity)")
	p.Title.Text = "Mean allocation by " + key + ": " + name(rep)
	barWidth := min(vg.Points(30), (width-vg.Inch)/vg.Length(len(values)*(len(resources)+1)))
	for i, res := range resources {
		vals := make(plotter.Values, len(values))
		for j, v := range values {
			vals[j] = util[v][res]
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			continue // only for NaN or infinite values, which utilisations are not
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(i-len(resources)/2) * barWidth
		if len(resources)%2 == 0 {
			bars.Offset += barWidth / 2
		}
		p.Add(bars)
		p.Legend.Add(string(res), bars)
	}
	p.NominalX(values...)
	p.X.Min, p.X.Max = -0.6, float64(len(values))-0.4
	if len(values) > 8 {
		p.X.Tick.Label.Rotation = math.Pi / 3
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	percentAxis(p)
	roomAbovePercent(p, len(resources), 4*vg.Inch)
	return Figure{Name: "domains-" + fileSafe(key), Width: width, PanelHeight: 4 * vg.Inch, Panels: []*plot.Plot{p}}
}

func newPlot(x, y string) *plot.Plot {
	p := plot.New()
	useFont(p)
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker, p.Y.Tick.Marker = cleanTicks{}, cleanTicks{}
	p.Y.Min = 0
	return p
}

// figureFont is the figures' typeface: Liberation Sans, which gonum/plot
// ships and measures text with, a metric twin of Arial. The HTML report
// sets its own text in it too (the embedded font first in the page's
// font stack), so that page and figures read as one.
var figureFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// legendSize is the legends' font size: smaller than the labels', so
// that a legend takes less of its panel.
const legendSize = 10

// useFont sets every text of a plot in figureFont, keeping its size.
func useFont(p *plot.Plot) {
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = figureFont.Typeface, figureFont.Variant
	}
	p.Legend.TextStyle.Font.Size = legendSize
}

// axisLabel labels a panel's y axis "name (unit)"; a label longer than
// the axis of a panel of that height (a device class, a model) gives its
// name to a title above the panel instead, the unit alone on the axis, so
// that it never runs into the next panel.
func axisLabel(p *plot.Plot, name, unit string, panel vg.Length) {
	label := name + " (" + unit + ")"
	if p.Y.Label.TextStyle.Width(label) <= panel-vg.Inch*0.55 {
		p.Y.Label.Text = label
		return
	}
	p.Title.Text, p.Y.Label.Text = name, unit
}

// percentAxis makes the y axis 0 to 100% with ticks every 20%.
func percentAxis(p *plot.Plot) {
	p.Y.Min, p.Y.Max = 0, 102
	var ticks []plot.Tick
	for v := 0; v <= 100; v += 10 {
		t := plot.Tick{Value: float64(v)}
		if v%20 == 0 {
			t.Label = fmt.Sprint(v)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
}

// timePlot returns a panel over simulated time. A report of one instant
// has no time axis to draw lines along: its panel spans an hour around
// the instant, with one tick there, and its series are drawn as marks
// (addLine).
func timePlot(rep *metrics.Report, y string) *plot.Plot {
	p := newPlot(timeLabel, y)
	if rep.End == rep.Start {
		at := rep.End.Hours()
		p.X.Label.Text = "simulated time: the run is one instant, " + metrics.Round(rep.End).String()
		p.X.Min, p.X.Max = at-0.5, at+0.5
		p.X.Tick.Marker = plot.ConstantTicks{{Value: at, Label: metrics.Round(rep.End).String()}}
	}
	return p
}

// overTime names the span of the over-time figures in their titles.
func overTime(rep *metrics.Report) string {
	if rep.End == rep.Start {
		return "at one instant (" + metrics.Round(rep.End).String() + ")"
	}
	return "over time"
}

// addLine adds a step line in colour i and dash pattern dash, and says
// whether it added anything; points all at one time (a report of one
// instant) are drawn as marks of shape i, which a line of no length would
// not show.
func addLine(p *plot.Plot, label string, pts plotter.XYs, i, dash int) bool {
	if len(pts) == 0 {
		return false
	}
	if pts[0].X == pts[len(pts)-1].X {
		addMarks(p, label, pts, i)
		return true
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return false // only for NaN or infinite values, which series do not hold
	}
	l.StepStyle = plotter.PostStep
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.5)
	l.Dashes = plotutil.Dashes(dash)
	p.Add(l)
	p.Legend.Add(label, l)
	return true
}

// markShapes are filled glyphs, told apart by shape as well as colour.
var markShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}

// addMarks adds points as marks in colour and shape i; a lone mark's
// value is written in its legend.
func addMarks(p *plot.Plot, label string, pts plotter.XYs, i int) {
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return // only for NaN or infinite values, which series do not hold
	}
	sc.GlyphStyle.Color = plotutil.Color(i)
	sc.GlyphStyle.Shape = markShapes[i%len(markShapes)]
	sc.GlyphStyle.Radius = vg.Points(4)
	if len(pts) == 1 {
		label += ": " + value(pts[0].Y)
	}
	p.Add(sc)
	p.Legend.Add(label, sc)
}

// value renders a series value: whole numbers without decimals.
func value(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// roomForLegend raises the top of a panel's y axis so that its legend
// of n entries, in the panel's top left corner, sits above the highest
// line (top) and never covers it.
func roomForLegend(p *plot.Plot, top float64, n int, panel vg.Length) {
	p.Y.Max = max(1, top) / (1 - legendShare(n, panel))
}

// roomAbovePercent does the same for a 0-100% axis: the legend goes
// above 100%, where no value is.
func roomAbovePercent(p *plot.Plot, n int, panel vg.Length) {
	p.Y.Max = 102 / (1 - legendShare(n, panel))
}

// legendShare is the part of a panel's data area a legend of n entries
// takes from the top, with a margin: each entry a line of the legend's
// font, the area the panel less its axis, labels and a title (about
// 0.8 inch).
func legendShare(n int, panel vg.Length) float64 {
	entries := vg.Length(n) * vg.Points(legendSize*1.3)
	area := panel - vg.Inch*0.8
	return min(0.6, float64((entries+vg.Points(8))/area))
}

// steps returns a series as plot points in hours, its last value carried
// to the report's end.
func steps(rep *metrics.Report, s *metrics.Series) plotter.XYs {
	if s == nil || len(s.Points) == 0 {
		return nil
	}
	pts := make(plotter.XYs, 0, len(s.Points)+1)
	for _, pt := range s.Points {
		pts = append(pts, plotter.XY{X: pt.At.Hours(), Y: pt.Value})
	}
	if last := s.Points[len(s.Points)-1]; last.At < rep.End {
		pts = append(pts, plotter.XY{X: rep.End.Hours(), Y: last.Value})
	}
	return pts
}

// cdf returns the empirical distribution of a sample as steps: at each
// distinct value, the percentage of the sample at or below it, carried to
// end.
func cdf(sample []float64, end float64) plotter.XYs {
	slices.Sort(sample)
	var pts plotter.XYs
	for i, v := range sample {
		y := 100 * float64(i+1) / float64(len(sample))
		if n := len(pts); n > 0 && pts[n-1].X == v {
			pts[n-1].Y = y
			continue
		}
		pts = append(pts, plotter.XY{X: v, Y: y})
	}
	return append(pts, plotter.XY{X: end, Y: 100})
}

// countTicks are the default ticks without the fractional ones: a count
// axis reads 0, 1, 2, never 2.50.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if hi-lo <= 10 { // small counts: every one
		for v := math.Ceil(lo); v <= hi; v++ {
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprint(int64(v))})
		}
		return out
	}
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = fmt.Sprint(int64(t.Value))
		}
		out = append(out, t)
	}
	return out
}

// cleanTicks are gonum/plot's default ticks with their labels written
// without the decimals that say nothing: 25000, not 25000.00; 0.5, not
// 0.50.
type cleanTicks struct{}

// Ticks implements plot.Ticker.
func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = trimZeros(ticks[i].Label)
	}
	return ticks
}

// trimZeros drops a decimal number's trailing zeros, and its point when
// nothing is left after it ("25000.00" is "25000", "0.50" "0.5"); other
// labels (an exponent, none) are kept.
func trimZeros(label string) string {
	if !strings.Contains(label, ".") || strings.ContainsAny(label, "eE") {
		return label
	}
	return strings.TrimSuffix(strings.TrimRight(label, "0"), ".")
}

// durationTicks labels a log axis in seconds with readable durations, up
// to end.
func durationTicks(end float64) plot.ConstantTicks {
	marks := []struct {
		secs  float64
		label string
	}{{1, "1s"}, {10, "10s"}, {60, "1m"}, {600, "10m"}, {3600, "1h"}, {6 * 3600, "6h"}, {86400, "1d"}, {7 * 86400, "1w"}}
	var ticks []plot.Tick
	for _, m := range marks {
		if m.secs <= end*1.01 {
			ticks = append(ticks, plot.Tick{Value: m.secs, Label: m.label})
		}
	}
	return ticks
}

func find(rep *metrics.Report, name string) *metrics.Series {
	for i := range rep.Series {
		if rep.Series[i].Name == name {
			return &rep.Series[i]
		}
	}
	return nil
}

func maxY(pts plotter.XYs) float64 {
	m := 0.0
	for _, p := range pts {
		m = max(m, p.Y)
	}
	return m
}

func name(rep *metrics.Report) string {
	if rep.Name == "" {
		return "run"
	}
	return rep.Name
}

// fileSafe turns a label key into a file name part.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '-'
		}
		return r
	}, s)
}

// setTitle gives a figure its title, above its first panel (and above
// that panel's own title, when it has one).
func (f *Figure) setTitle(title string) {
	p := f.Panels[0]
	if p.Title.Text != "" {
		title += "\n" + p.Title.Text
	}
	p.Title.Text = title
}
