package main

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot draws the mean allocation ratio against the arrived workload, one
// line per policy (the paper's Fig. 9a), into path; the format follows
// its extension (.svg, .png, .pdf, ...).
func Plot(r *Results, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("GPU allocation, mean over %d seeds", len(r.Seeds))
	p.X.Label.Text = "arrived GPU requests (% of the cluster's GPUs)"
	p.Y.Label.Text = "GPU allocation ratio (%)"
	p.Legend.Top, p.Legend.Left = true, true
	var lines []any
	for i, name := range r.Policies {
		var pts plotter.XYs
		for x := 1; x <= r.Top; x++ {
			if mean, _ := r.At(i, x); !math.IsNaN(mean) {
				pts = append(pts, plotter.XY{X: float64(x), Y: mean})
			}
		}
		lines = append(lines, name, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("gpu-sharing: plot: %w", err)
	}
	return nil
}
