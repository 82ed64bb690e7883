package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/metrics/plots"
)

// Comparison is what a page of variants side by side shows: the table
// of the comparison (a header, then a row per measure, a cell per
// variant) and its figures.
type Comparison struct {
	// Title heads the page; "" gives "Comparison: " and Name.
	Title string
	// Name is the scenario's; Span says what was run ("3 variants").
	Name, Span string
	Header     []string
	Rows       [][]string
	Figures    []plots.Figure
	// Captions say what each figure shows, by figure name.
	Captions map[string]string
	Warnings []string
}

//go:embed compare.html.tmpl
var compareText string

var comparePage = template.Must(template.Must(template.New("compare").Parse(compareText)).Parse(headText))

// compareView is what the comparison's template reads.
type compareView struct {
	Comparison
	CSP          string
	Script       template.JS
	FontFaces    template.CSS
	FontFamilies string
	BodyFont     template.CSS
	Figures      []figureView
}

// WriteComparison writes the page of a comparison to w, its figures
// inline, in the report page's style.
func WriteComparison(w io.Writer, c Comparison) error {
	if len(c.Header) == 0 {
		return fmt.Errorf("htmlreport: a comparison with no header")
	}
	if c.Title == "" {
		c.Title = "Comparison: " + c.Name
	}
	v := compareView{Comparison: c, CSP: csp(), Script: template.JS(readyScript)}
	var faces []string
	for _, f := range c.Figures {
		svg, ff, err := f.InlineSVG()
		if err != nil {
			return err
		}
		for _, face := range ff {
			if !slices.Contains(faces, face) {
				faces = append(faces, face)
			}
		}
		caption := strings.Join(append([]string{c.Captions[f.Name]}, f.Notes...), " ")
		v.Figures = append(v.Figures, figureView{ID: "fig-" + f.Name, Caption: strings.TrimSpace(caption), SVG: template.HTML(svg)})
	}
	v.FontFaces, v.FontFamilies, v.BodyFont = fontsOf(faces)
	var b bytes.Buffer
	if err := comparePage.Execute(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
