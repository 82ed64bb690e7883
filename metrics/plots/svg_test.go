package plots_test

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/metrics/plots"
)

var (
	textFamily = regexp.MustCompile(`<text [^>]*font-family:([^;"]+);`)
	faceFamily = regexp.MustCompile(`@font-face\{\s*font-family:"([^"]+)";[^}]*url\(data:font/ttf;charset=utf-8;base64,([A-Za-z0-9+/=]+)\)`)
	// loneMove is a path of one point: a line of no length, which draws
	// nothing.
	loneMove = regexp.MustCompile(`<path d="M[-0-9.e]+,[-0-9.e]+"`)
	// arc is a path drawing a circle: a mark.
	arc = regexp.MustCompile(`<path d="M[^"]*A[^"]*"`)
)

// embeddedFamilies returns the font families an SVG declares with their
// font data, and checks the data is a TrueType font.
func embeddedFamilies(t *testing.T, svg string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, m := range faceFamily.FindAllStringSubmatch(svg, -1) {
		data, err := base64.StdEncoding.DecodeString(m[2])
		require.NoError(t, err)
		require.Greater(t, len(data), 4)
		assert.Equal(t, []byte{0, 1, 0, 0}, data[:4], "a TrueType font")
		out[m[1]] = true
	}
	return out
}

// Every font an SVG's text names is embedded in it, so that it is drawn
// as measured on a machine without the font.
func TestSVGEmbedsItsFonts(t *testing.T) {
	for _, f := range plots.Figures(report(t, small)) {
		var b bytes.Buffer
		require.NoError(t, f.WriteTo(&b, plots.SVG))
		svg := b.String()
		faces := embeddedFamilies(t, svg)
		used := textFamily.FindAllStringSubmatch(svg, -1)
		require.NotEmpty(t, used, f.Name)
		for _, u := range used {
			assert.True(t, faces[u[1]], "%s: text in font %q, which the SVG does not embed", f.Name, u[1])
		}
	}
}

// InlineSVG gives the element without its prolog and its fonts apart,
// and the fonts are those the file form embeds.
func TestInlineSVG(t *testing.T) {
	f := plots.Pending(report(t, small))
	svg, faces, err := f.InlineSVG()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(svg), "<svg "), "no XML prolog")
	assert.True(t, strings.HasSuffix(string(svg), "</svg>\n"))
	assert.NotContains(t, string(svg), "@font-face")
	assert.NotContains(t, string(svg), "<defs>")
	require.Len(t, faces, 1, "one font: Liberation Sans, the page's too")
	assert.True(t, embeddedFamilies(t, faces[0])["Liberation Sans"])
	for _, u := range textFamily.FindAllStringSubmatch(string(svg), -1) {
		assert.Equal(t, "Liberation Sans", u[1])
	}
}

// A report of one instant (a cluster dump, nothing ending) draws its
// values as marks at that instant, with the instant named, not lines of
// no length.
func TestInstantReport(t *testing.T) {
	rep := report(t, `
nodes: [{name: a, count: 2, allocatable: {cpu: "56", memory: 64Gi}}]
pods:
  - {name: big, requests: {cpu: "50"}}
  - {name: small, requests: {cpu: "49"}}
  - {name: huge, requests: {cpu: "64"}}
`)
	require.Equal(t, rep.Start, rep.End)
	for _, f := range []plots.Figure{must(plots.Allocation(rep)), plots.Pending(rep)} {
		var b bytes.Buffer
		require.NoError(t, f.WriteTo(&b, plots.SVG))
		svg := b.String()
		assert.Contains(t, svg, "at one instant (0s)", f.Name)
		assert.Contains(t, svg, "the run is one instant, 0s", f.Name)
		assert.Empty(t, loneMove.FindAllString(svg, -1), "%s: a series drawn as a line of no length", f.Name)
		assert.NotEmpty(t, arc.FindAllString(svg, -1), "%s: marks", f.Name)
	}
}

func must(f plots.Figure, ok bool) plots.Figure {
	if !ok {
		panic("no figure")
	}
	return f
}
