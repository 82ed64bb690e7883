package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gangsim/gangsim/metrics"
)

// kueuePanelHeight is the height of a Kueue figure's panel: smaller
// than the others', since there is one per ClusterQueue.
const kueuePanelHeight = 2.2 * vg.Inch

// KueueQuota returns the figure of Kueue's quota: one panel per
// ClusterQueue (the busiest metrics.MaxKueueQueues when there are more),
// the usage of each flavor and resource as a share of its nominal quota
// over time, the part above the nominal quota (borrowed from the cohort)
// shaded. ok is false without Kueue.
func KueueQuota(rep *metrics.Report) (f Figure, ok bool) {
	k := rep.Kueue
	if k == nil || len(k.ClusterQueues) == 0 {
		return f, false
	}
	f = Figure{Name: "kueue-quota", Width: width, PanelHeight: kueuePanelHeight}
	shown := metrics.ShownQueues(k.ClusterQueues)
	for _, q := range shown {
		p := timePlot(rep, "used (% of nominal)")
		p.Title.Text = queueTitle(q)
		top, lines := 100.0, 1
		domain := metrics.KueueClusterQueueDomain + q.Name
		used := rep.KueueSeries(domain, metrics.SeriesKueueUsed)
		for i, u := range q.Quota {
			if u.Nominal == 0 {
				if u.UsedPeak > 0 {
					f.Notes = append(f.Notes, fmt.Sprintf("%s: %s of flavor %s used with no nominal quota (not drawn).", q.Name, u.Resource, u.Flavor))
				}
				continue
			}
			s := seriesFor(used, u.Flavor, string(u.Resource))
			pts := steps(rep, s)
			for j := range pts {
				pts[j].Y = 100 * pts[j].Y / u.Nominal
			}
			shadeAbove(p, pts, 100, plotutil.Color(i))
			if addLine(p, fmt.Sprintf("%s %s (nominal %s %s)", u.Flavor, u.Resource, value(u.Nominal), u.Unit), pts, i, 0) {
				lines++
			}
			top = max(top, maxY(pts))
		}
		addLine(p, "nominal quota (borrowed above it, shaded)", flat(rep, 100), len(q.Quota), 2)
		roomForLegend(p, top, lines, f.PanelHeight)
		f.Panels = append(f.Panels, p)
	}
	f.setTitle("Kueue quota used per ClusterQueue " + overTime(rep) + ": " + name(rep))
	if len(shown) < len(k.ClusterQueues) {
		f.Notes = append(f.Notes, fmt.Sprintf("The %d busiest of %d ClusterQueues; all are in report.json and timeseries.csv.", len(shown), len(k.ClusterQueues)))
	}
	return f, true
}

// KueuePending returns the figure of Kueue's workloads: one panel per
// ClusterQueue (as KueueQuota), its pending workloads, active and
// inadmissible, and those admitted (holding quota), over time. ok is
// false without Kueue.
func KueuePending(rep *metrics.Report) (f Figure, ok bool) {
	k := rep.Kueue
	if k == nil || len(k.ClusterQueues) == 0 {
		return f, false
	}
	f = Figure{Name: "kueue-pending", Width: width, PanelHeight: kueuePanelHeight}
	shown := metrics.ShownQueues(k.ClusterQueues)
	labels := []string{"pending, not yet refused", "pending, inadmissible (Kueue said why)", "admitted (holding quota)"}
	for _, q := range shown {
		p := timePlot(rep, "workloads")
		p.Title.Text = queueTitle(q)
		domain := metrics.KueueClusterQueueDomain + q.Name
		top, lines := 0.0, 0
		for i, metric := range []string{metrics.SeriesKueuePendingActive, metrics.SeriesKueuePendingInadmissible, metrics.SeriesKueueHolding} {
			s := rep.KueueSeries(domain, metric)
			if len(s) == 0 {
				continue
			}
			pts := steps(rep, s[0])
			if addLine(p, labels[i], pts, i, i) {
				lines++
			}
			top = max(top, maxY(pts))
		}
		roomForLegend(p, top, lines, f.PanelHeight)
		p.Y.Tick.Marker = countTicks{}
		f.Panels = append(f.Panels, p)
	}
	f.setTitle("Kueue workloads per ClusterQueue " + overTime(rep) + ": " + name(rep))
	if len(shown) < len(k.ClusterQueues) {
		f.Notes = append(f.Notes, fmt.Sprintf("The %d busiest of %d ClusterQueues; all are in report.json and timeseries.csv.", len(shown), len(k.ClusterQueues)))
	}
	return f, true
}

// queueTitle names a ClusterQueue's panel.
func queueTitle(q metrics.KueueQueueSummary) string {
	if q.Cohort != "" {
		return "ClusterQueue " + q.Name + " (cohort " + q.Cohort + ")"
	}
	return "ClusterQueue " + q.Name
}

// seriesFor picks the series of a flavor's resource among a queue's.
func seriesFor(ss []*metrics.Series, flavor, resource string) *metrics.Series {
	for _, s := range ss {
		if strings.HasSuffix(s.Domain, " flavor="+flavor) && string(s.Resource) == resource {
			return s
		}
	}
	return nil
}

// shadeAbove fills, in a light tint of c, the area between a step line
// and the level where the line is above it.
func shadeAbove(p *plot.Plot, pts plotter.XYs, level float64, c color.Color) {
	if len(pts) < 2 || maxY(pts) <= level {
		return
	}
	var outline plotter.XYs
	for i := range pts[:len(pts)-1] {
		y := max(pts[i].Y, level)
		outline = append(outline, plotter.XY{X: pts[i].X, Y: y}, plotter.XY{X: pts[i+1].X, Y: y})
	}
	outline = append(outline, plotter.XY{X: pts[len(pts)-1].X, Y: level}, plotter.XY{X: pts[0].X, Y: level})
	poly, err := plotter.NewPolygon(outline)
	if err != nil {
		return // only for NaN or infinite values, which series do not hold
	}
	r, g, b, _ := c.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
	poly.LineStyle.Width = 0
	p.Add(poly)
}
