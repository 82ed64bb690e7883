package plots

import (
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/gangsim/gangsim/metrics"
)

// NodeGroups returns the figure of the autoscaler's node groups: one
// panel per group, its ready nodes and its nodes on the way (requested,
// not ready yet) over time, with the group's max as a dashed line. ok is
// false without node groups.
func NodeGroups(rep *metrics.Report) (f Figure, ok bool) {
	a := rep.Autoscaling
	if a == nil || len(a.Groups) == 0 {
		return f, false
	}
	f = Figure{Name: "nodegroups", Width: width, PanelHeight: panelHeight}
	ready := rep.GroupNodesSeries(metrics.SeriesGroupNodes)
	onTheWay := rep.GroupNodesSeries(metrics.SeriesGroupProvisioning)
	for i, g := range a.Groups {
		p := timePlot(rep, "group "+g.Name+" (nodes)")
		top, lines := float64(g.Max), 1
		for j, s := range [][]*metrics.Series{ready, onTheWay} {
			if i >= len(s) || strings.TrimPrefix(s[i].Domain, "group=") != g.Name {
				continue
			}
			pts := steps(rep, s[i])
			if addLine(p, []string{"ready nodes", "nodes on the way (requested, not ready)"}[j], pts, j, j) {
				lines++
			}
			top = max(top, maxY(pts))
		}
		addLine(p, "max", flat(rep, float64(g.Max)), 2, 2)
		roomForLegend(p, top, lines, f.PanelHeight)
		p.Y.Tick.Marker = countTicks{}
		f.Panels = append(f.Panels, p)
	}
	f.setTitle("Nodes per node group " + overTime(rep) + ": " + name(rep))
	return f, true
}

// flat is a level line over the report's span.
func flat(rep *metrics.Report, v float64) plotter.XYs {
	return plotter.XYs{{X: rep.Start.Hours(), Y: v}, {X: rep.End.Hours(), Y: v}}
}
