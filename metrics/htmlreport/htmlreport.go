package htmlreport

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/plots"
)

// Input is what a page shows: a run's report, and what the program that
// ran it adds.
type Input struct {
	Report *metrics.Report
	// Title heads the page; "" gives "Capacity report: " and the
	// report's name.
	Title string
	// Answers are the questions asked of the run, in the order asked.
	Answers []Answer
	// Warnings are the program's own cautions, listed after the
	// report's (Report.Warnings, the loader's).
	Warnings []string
}

// Answer is one question asked of the run and its answer, in words.
type Answer struct {
	// Question says what was asked: "fewest nodes like a01-0 to add so
	// that every pod is placed".
	Question string
	// Answer is the answer in one line: "3 (add:a01-0:3), after 5 runs",
	// or "No answer: ..." with the reason.
	Answer string
	// Details is preformatted text shown under it, such as the runs the
	// answer rests on; "" for none.
	Details string
}

// maxPendingRows bounds the pod by pod table of pending pods; the causes
// table above it counts them all.
const maxPendingRows = 500

// The page's template; head.html.tmpl holds the head every page shares
// (its styles, fonts and Content Security Policy).
var (
	//go:embed page.html.tmpl
	pageText string
	//go:embed head.html.tmpl
	headText string
)

var page = template.Must(template.Must(template.New("page").Parse(pageText)).Parse(headText))

// readyScript marks the page when its figures and fonts are ready:
// data-plots on the html element reads "ready N/N" once the N figures
// have a size and the embedded fonts have loaded, or says what is
// missing; data-height is then the page's height in CSS pixels (for a
// screenshot of all of it).
const readyScript = `
(function () {
  var root = document.documentElement;
  var figures = document.querySelectorAll("figure.plot svg");
  var families = (root.dataset.fonts || "").split("|").filter(Boolean);
  root.dataset.plots = "loading";
  Promise.all(families.map(function (f) { return document.fonts.load("12px \"" + f + "\""); })).then(function (loaded) {
    var missing = families.filter(function (f, i) { return loaded[i].length === 0; });
    var drawn = 0;
    figures.forEach(function (svg) {
      var box = svg.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && svg.querySelector("text, path")) { drawn++; }
    });
    root.dataset.plots = missing.length > 0 ? "fonts missing: " + missing.join(", ") :
      (drawn === figures.length ? "ready " : "not drawn ") + drawn + "/" + figures.length;
    root.dataset.height = String(root.scrollHeight);
  }, function (err) {
    root.dataset.plots = "fonts failed: " + err;
    console.error("fonts failed", err);
  });
})();
`

// scriptHash is readyScript's hash for the page's Content Security
// Policy, which allows that script alone.
var scriptHash = func() string {
	sum := sha256.Sum256([]byte(readyScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// Write writes the page of a report to w.
func Write(w io.Writer, in Input) error {
	v, err := newView(in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// figures renders the report's figures inline, and the @font-face rules
// they need, each once, in the order first needed.
func figures(rep *metrics.Report) ([]figureView, []string, error) {
	var out []figureView
	var faces []string
	for _, f := range plots.Figures(rep) {
		svg, ff, err := f.InlineSVG()
		if err != nil {
			return nil, nil, err
		}
		for _, face := range ff {
			if !slices.Contains(faces, face) {
				faces = append(faces, face)
			}
		}
		c := strings.Join(append([]string{caption(f.Name)}, f.Notes...), " ")
		out = append(out, figureView{ID: "fig-" + f.Name, Caption: c, SVG: template.HTML(svg)})
	}
	return out, faces, nil
}
