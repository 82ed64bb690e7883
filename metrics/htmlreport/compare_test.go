package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/metrics/htmlreport"
	"github.com/gangsim/gangsim/metrics/plots"
)

// The comparison's page: its table, a column per variant, its figures
// inline with their captions and notes, in the report's head (styles,
// fonts, Content Security Policy); text escaped.
func TestWriteComparison(t *testing.T) {
	f, err := plots.GroupedBars("compare-x", "Time", []string{"a"}, []string{"base", "v"}, []plots.BarPanel{{Label: "mean", Values: [][]float64{{1}, {2}}}})
	require.NoError(t, err)
	f.Notes = []string{"A note."}
	var b bytes.Buffer
	require.NoError(t, htmlreport.WriteComparison(&b, htmlreport.Comparison{Name: "day.yaml", Span: "2 variants",
		Header: []string{"day.yaml", "base", "fairsharing:on"}, Rows: [][]string{{"pods placed", "3 of 4", "4 of 4"}, {"<b>", "x", "y"}},
		Figures: []plots.Figure{f}, Captions: map[string]string{"compare-x": "What it shows."}, Warnings: []string{"careful"}}))
	page := b.String()
	for _, want := range []string{"<title>Comparison: day.yaml</title>", `<th class="num code">fairsharing:on</th>`,
		`<tr><td>pods placed</td><td class="num">3 of 4</td><td class="num">4 of 4</td></tr>`, "&lt;b&gt;",
		`<figure class="plot" id="fig-compare-x">`, "<figcaption>What it shows. A note.</figcaption>", "Content-Security-Policy",
		"@font-face", "<li>careful</li>", "<script>"} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 1, strings.Count(page, "<svg"))
	assert.ErrorContains(t, htmlreport.WriteComparison(&b, htmlreport.Comparison{}), "no header")
}
