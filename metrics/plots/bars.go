package plots

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// BarPanel is one measure of a figure of grouped bars: its axis label
// (with its unit) and a value per series and group, Values[series][group].
type BarPanel struct {
	Label  string
	Values [][]float64
}

// barWidth is the thickness of a bar; groupGap the room between groups.
const (
	barWidth vg.Length = 7 // points
	groupGap vg.Length = 8
)

// GroupedBars returns a figure of horizontal bars, a panel per measure:
// a row per group (the first on top), in it a bar per series, coloured
// by series and named in the legend above the rows. Comparisons of
// variants use it: a group per queue, a series per variant. It fails
// when a panel's values do not match the groups and series.
func GroupedBars(name, title string, groups, series []string, panels []BarPanel) (Figure, error) {
	f := Figure{Name: name, Width: width}
	if len(groups) == 0 || len(series) == 0 || len(panels) == 0 {
		return f, fmt.Errorf("plots: %s: nothing to draw", name)
	}
	rowH := barWidth*vg.Length(len(series)) + groupGap
	f.PanelHeight = rowH*vg.Length(len(groups)) + vg.Points(legendSize*1.3)*vg.Length(len(series)) + 1.3*vg.Inch
	names := make([]string, len(groups))
	for i, g := range groups {
		names[len(groups)-1-i] = g
	}
	for _, bp := range panels {
		if len(bp.Values) != len(series) {
			return f, fmt.Errorf("plots: %s: %s has %d series, not %d", name, bp.Label, len(bp.Values), len(series))
		}
		p := newPlot(bp.Label, "")
		top := 0.0
		for s, vs := range bp.Values {
			if len(vs) != len(groups) {
				return f, fmt.Errorf("plots: %s: %s: series %s has %d values, not %d", name, bp.Label, series[s], len(vs), len(groups))
			}
			rev := make(plotter.Values, len(vs))
			for i, v := range vs {
				rev[len(vs)-1-i] = v
				top = max(top, v)
			}
			b, err := plotter.NewBarChart(rev, barWidth)
			if err != nil {
				return f, err
			}
			b.Horizontal = true
			b.Color = plotutil.Color(s)
			b.LineStyle.Width = 0
			// the series side by side in a group, the first on top
			b.Offset = barWidth * (vg.Length(len(series)-1)/2 - vg.Length(s))
			p.Add(b)
			p.Legend.Add(series[s], b)
		}
		p.NominalY(names...)
		p.X.Min, p.X.Max = 0, max(1, top)*1.05
		p.Y.Min = -0.6
		p.Y.Max = float64(len(groups)) - 0.4 + float64(len(series))*float64(vg.Points(legendSize*1.3)/rowH) + 0.3
		f.Panels = append(f.Panels, p)
	}
	f.setTitle(title)
	return f, nil
}
