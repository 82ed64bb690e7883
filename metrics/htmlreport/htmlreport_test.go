package htmlreport_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/metrics/htmlreport"
	"github.com/gangsim/gangsim/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// small has a bit of everything a page shows: a domain key, a gang, a
// pod that fits no node, waits, a preemption.
const small = `
nodes:
  - {name: a, count: 2, labels: {rack: r1}, allocatable: {cpu: "4", memory: 8Gi}}
  - {name: b, labels: {rack: r2}, allocatable: {cpu: "4", memory: 8Gi}}
podGroups:
  - {name: gang, minCount: 2}
pods:
  - {name: web, requests: {cpu: "1", memory: 1Gi}, duration: 2h, count: 6}
  - {name: low, requests: {cpu: "2"}, priority: 1, duration: 3h}
  - {name: urgent, requests: {cpu: "3"}, priority: 100, at: 10m, duration: 1h}
  - {name: huge, requests: {cpu: "16"}, at: 5m}
  - {name: member, podGroup: gang, requests: {cpu: "3"}, at: 20m, duration: 1h, count: 2}
`

func report(t testing.TB, text string) *metrics.Report {
	t.Helper()
	sc, err := scenario.Parse("small.yaml", []byte(text))
	require.NoError(t, err)
	rec := metrics.NewRecorder(metrics.Options{DomainKeys: []string{"rack"}})
	_, err = sc.Run(rec.Attach())
	require.NoError(t, err)
	rep := rec.Report()
	rep.Name = "small.yaml"
	return rep
}

func smallInput(t testing.TB) htmlreport.Input {
	rep := report(t, small)
	rep.Warnings = []string{`pods[3] (huge): spec.containers[0].ports[0].hostPort: not modelled, <ignored> & "kept"`}
	return htmlreport.Input{Report: rep,
		Answers: []htmlreport.Answer{{Question: "fewest nodes like a-0 to add so that every pod is placed",
			Answer: "No answer: with 2 added, 1 pod is still pending (huge).", Details: "RUN  COUNT  OK\n1    0      no"}},
		Warnings: []string{"<script>alert(1)</script>"}}
}

func write(t testing.TB, in htmlreport.Input) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, htmlreport.Write(&b, in))
	return b.String()
}

// fontData is the font data inline in the page.
var fontData = regexp.MustCompile(`base64,[A-Za-z0-9+/=]{100,}`)

// The page of a small report, byte for byte (the font data, half a
// megabyte, is compared by its hash).
func TestGolden(t *testing.T) {
	got := fontData.ReplaceAllStringFunc(write(t, smallInput(t)), func(s string) string {
		data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "base64,"))
		require.NoError(t, err)
		return fmt.Sprintf("base64,[%d bytes of font data, sha256 %x]", len(data), sha256.Sum256(data))
	})
	path := filepath.Join("testdata", "small.html")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "rewrite with go test ./metrics/htmlreport -update")
}

func TestDeterministic(t *testing.T) {
	assert.Equal(t, write(t, smallInput(t)), write(t, smallInput(t)))
}

// Every section is there, and the text is escaped.
func TestContents(t *testing.T) {
	page := write(t, smallInput(t))
	for _, want := range []string{
		"<title>Capacity report: small.yaml</title>",
		"small.yaml: simulated 0s to 3h0m0s (3.0 hours), 3 nodes at the end.",
		`<section id="answers">`, "Fewest nodes like a-0 to add so that every pod is placed?",
		`<section id="warnings">`, "&lt;ignored&gt; &amp; &#34;kept&#34;", "&lt;script&gt;alert(1)&lt;/script&gt;",
		`<figure class="plot" id="fig-allocation">`, `id="fig-pending"`, `id="fig-waits"`, `id="fig-domains-rack"`,
		"<h3>By priority</h3>", "<td>priority 100</td>", "<h3>By workload</h3>", `<td class="code">web</td>`,
		`<td class="code">huge</td><td class="num">1</td><td class="why">no node could hold it even empty`,
		"0/3 nodes are available: 3 Insufficient cpu.",
		"Utilisation by domain", `<td class="code">rack=r1</td>`,
		"Insufficient cpu",
	} {
		assert.True(t, strings.Contains(page, want), "the page has %q", want)
	}
	assert.False(t, strings.Contains(page, "<script>alert"), "escaped")
	assert.Equal(t, 1, strings.Count(page, "@font-face"), "the font once for every figure")
}

var (
	reference = regexp.MustCompile(`\b(?:src|href|xlink:href)="([^"]*)"`)
	cssURL    = regexp.MustCompile(`url\(([^)]{0,40})`)
	script    = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	policy    = regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`)
)

// The page loads nothing: every reference is inside it, and its
// Content Security Policy forbids the rest but allows its own script.
func TestSelfContained(t *testing.T) {
	page := write(t, smallInput(t))
	for _, m := range reference.FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.HasPrefix(m[1], "#") || strings.HasPrefix(m[1], "data:"), "reference %q", m[1])
	}
	for _, m := range cssURL.FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.HasPrefix(m[1], "data:"), "url(%s", m[1])
	}
	scripts := script.FindAllStringSubmatch(page, -1)
	require.Len(t, scripts, 1)
	sum := sha256.Sum256([]byte(scripts[0][1]))
	m := policy.FindStringSubmatch(page)
	require.NotNil(t, m)
	csp := html.UnescapeString(m[1])
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'", "the policy allows the page's script")
}

// A report of one instant says so.
func TestInstant(t *testing.T) {
	rep := report(t, "nodes: [{name: n, allocatable: {cpu: \"4\"}}]\npods: [{name: p, requests: {cpu: \"3\"}}]\n")
	page := write(t, htmlreport.Input{Report: rep})
	assert.Contains(t, page, "The run is one instant (0s)")
	assert.Contains(t, page, "at the run&#39;s one instant")
	assert.Contains(t, page, "No pod is pending at the end")
	assert.NotContains(t, page, `<section id="answers">`)
	assert.NotContains(t, page, `<section id="warnings">`)
}

func TestNoReport(t *testing.T) {
	assert.ErrorContains(t, htmlreport.Write(&bytes.Buffer{}, htmlreport.Input{}), "no report")
}

// Write a run's report as one HTML page.
func ExampleWrite() {
	sc, _ := scenario.Parse("example.yaml", []byte(`
nodes: [{name: n, allocatable: {cpu: "4"}}]
pods: [{name: p, requests: {cpu: "1"}, duration: 1h, count: 6}]
`))
	rec := metrics.NewRecorder(metrics.Options{})
	_, _ = sc.Run(rec.Attach())
	rep := rec.Report()
	rep.Name = "example.yaml"
	var page bytes.Buffer
	err := htmlreport.Write(&page, htmlreport.Input{Report: rep, Answers: []htmlreport.Answer{
		{Question: "how long do pods wait", Answer: fmt.Sprintf("at most %v", rep.Pods.Wait.Max)}}})
	fmt.Println(err, strings.Contains(page.String(), "How long do pods wait?"), strings.Count(page.String(), "<figure"))
	// Output: <nil> true 3
}

func TestAutoscalingSection(t *testing.T) {
	var plain bytes.Buffer
	require.NoError(t, htmlreport.Write(&plain, htmlreport.Input{Report: report(t, small)}))
	assert.NotContains(t, plain.String(), `id="autoscaling"`, "no node groups: no section")

	rep := report(t, small)
	m := time.Minute
	rep.AddAutoscaling([]autoscaler.NodeGroup{{Name: "gpu", Max: 3, PricePerHour: 2}},
		[]autoscaler.GroupSummary{{Name: "gpu", NodesAdded: 2, NodesRemoved: 1, MaxNodes: 2, NodeHours: 1.5, Cost: 3}},
		[]autoscaler.Event{
			{At: 10 * m, Kind: autoscaler.EventScaleUp, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}},
			{At: 14 * m, Kind: autoscaler.EventNodeReady, Group: "gpu", Nodes: []string{"gpu-1", "gpu-2"}},
			{At: 60 * m, Kind: autoscaler.EventScaleDown, Group: "gpu", Nodes: []string{"gpu-2"}},
		}, []autoscaler.PodWait{{Pod: "default/web-0", ForNode: 4 * m, ForRoom: m, Bound: true}})
	var b bytes.Buffer
	require.NoError(t, htmlreport.Write(&b, htmlreport.Input{Report: rep}))
	page := b.String()
	assert.Contains(t, page, `<a href="#autoscaling">Autoscaling</a>`)
	assert.Contains(t, page, "made 1 scale-up and 1 scale-down; 0 scans found pending pods no group could help. The node groups cost 3 for 1.5 node-hours.")
	assert.Contains(t, page, `<tr><td class="code">gpu</td><td class="num">0..3</td><td class="num">2.00</td><td class="num">2</td><td class="num">1</td><td class="num">2</td><td class="num">1</td><td class="num">1.5</td><td class="num">3</td></tr>`)
	assert.Contains(t, page, `<tr><td>waiting for a node</td><td class="num">1</td><td class="num">4m0s</td>`)
	assert.Contains(t, page, `id="fig-nodegroups"`)
}
