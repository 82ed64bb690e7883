package plots

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gangsim/gangsim/metrics"
)

// Figure is one image: panels stacked top to bottom sharing its width.
type Figure struct {
	// Name is the file name without extension ("allocation").
	Name   string
	Panels []*plot.Plot
	// Width and PanelHeight size the image.
	Width, PanelHeight vg.Length
	// Notes say in a line each what was left out because it would show
	// nothing (a line flat at zero, a panel with nothing in it); the
	// HTML report puts them under the figure.
	Notes []string
}

// The formats Write produces.
const (
	PNG = "png"
	SVG = "svg"
)

// dpi is the resolution of PNG images.
const dpi = 110

// Figures returns the report's figures: allocation over time, devices
// over time, pending pods and groups over time, the nodes of each node
// group over time (with an autoscaler), Kueue's quota used and its
// workloads per ClusterQueue over time (with Kueue), the wait-time
// distribution, and one per-domain allocation chart per domain key. A
// figure with nothing to show (no devices, no waits, no domains) is left
// out.
func Figures(rep *metrics.Report) []Figure {
	var out []Figure
	if f, ok := Allocation(rep); ok {
		out = append(out, f)
	}
	if f, ok := Devices(rep); ok {
		out = append(out, f)
	}
	out = append(out, Pending(rep))
	if f, ok := NodeGroups(rep); ok {
		out = append(out, f)
	}
	if f, ok := KueueQuota(rep); ok {
		out = append(out, f)
	}
	if f, ok := KueuePending(rep); ok {
		out = append(out, f)
	}
	if f, ok := KueueAdmission(rep); ok {
		out = append(out, f)
	}
	if f, ok := Waits(rep); ok {
		out = append(out, f)
	}
	return append(out, Domains(rep)...)
}

// Write draws every figure of the report into dir, in each format given
// (PNG and SVG when none is), and returns the paths written, in order.
func Write(rep *metrics.Report, dir string, formats ...string) ([]string, error) {
	if len(formats) == 0 {
		formats = []string{PNG, SVG}
	}
	var paths []string
	for _, f := range Figures(rep) {
		for _, format := range formats {
			path := filepath.Join(dir, f.Name+"."+format)
			if err := f.Save(path, format); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// Save writes the figure to a file in a format (PNG or SVG).
func (f Figure) Save(path, format string) (err error) {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, file.Close()) }()
	return f.WriteTo(file, format)
}

// canvases lays the panels out on the figure's canvas, one under the
// other, aligned.
func (f Figure) canvases(dc draw.Canvas) []draw.Canvas {
	rows := make([][]*plot.Plot, len(f.Panels))
	for i, p := range f.Panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadX: vg.Points(4), PadY: vg.Points(8)}
	out := make([]draw.Canvas, len(rows))
	for i, row := range plot.Align(rows, tiles, dc) {
		out[i] = row[0]
	}
	return out
}

// WriteTo writes the figure in a format (PNG or SVG). An SVG holds the
// fonts its text uses (as CSS @font-face rules with the font data), so
// that it looks the same, text measured and placed as drawn, on a
// machine without them.
func (f Figure) WriteTo(w io.Writer, format string) error {
	height := f.PanelHeight * vg.Length(len(f.Panels))
	var c vg.CanvasWriterTo
	switch strings.ToLower(format) {
	case PNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, height), vgimg.UseDPI(dpi))}
	case SVG:
		// the fonts go inside: a viewer without them would measure
		// the text otherwise and clip it
		c = vgsvg.NewWith(vgsvg.UseWH(f.Width, height), vgsvg.EmbedFonts(true))
	default:
		return fmt.Errorf("plots: format %q is not png or svg", format)
	}
	canvases := f.canvases(draw.New(c))
	for i, p := range f.Panels {
		p.Draw(canvases[i])
	}
	_, err := c.WriteTo(w)
	return err
}
