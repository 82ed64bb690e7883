package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kueueInput is two teams' ClusterQueues in a cohort, team-a borrowing.
const kueueInput = "testdata/kueue.yaml"

// A run with Kueue prints and writes Kueue's section; its figures are
// written beside the others.
func TestKueueReport(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCommand(t, nil, "-out", dir, kueueInput)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"KUEUE  5 workloads, 5 admitted, 0 pending at the end, 0 evictions",
		"CLUSTERQUEUE  COHORT", "team-a default cpu (cores)", "TIME TO ADMISSION", "LOCALQUEUE", "research/b"} {
		assert.Contains(t, out, want)
	}
	assert.Contains(t, out, "kueue-quota.png, kueue-quota.svg, kueue-pending.png, kueue-pending.svg")
	csv, err := os.ReadFile(filepath.Join(dir, "timeseries.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csv), ",clusterqueue=team-a flavor=default quota borrowed cpu (cores),")
	page, err := os.ReadFile(filepath.Join(dir, htmlName))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<section id="kueue">`)

	// without Kueue: nothing of it
	out, errOut, code = runCommand(t, nil, "-out", "", "testdata/training.yaml")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "KUEUE")
}

// The page of a run with Kueue in headless Chromium: no console message,
// every figure drawn (GANGSIM_BROWSER_TEST=1, as TestReportInBrowser).
func TestKueueReportInBrowser(t *testing.T) {
	if os.Getenv(browserTestEnv) == "" {
		t.Skipf("set %s=1 to open the report in headless Chromium", browserTestEnv)
	}
	browser := chromium(t)
	dir := t.TempDir()
	_, errOut, code := runCommand(t, nil, "-out", dir, kueueInput)
	require.Equal(t, 0, code, errOut)
	page := filepath.Join(dir, htmlName)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	figures := strings.Count(string(html), `<figure class="plot"`)
	const width = 1366
	dom, log := headless(t, browser, page, fmt.Sprintf("--window-size=%d,900", width), "--dump-dom")
	assert.Empty(t, consoleLine.FindAllString(log, -1), "console messages")
	state := plotsState.FindStringSubmatch(dom)
	require.NotNil(t, state, "the page's script did not run")
	require.Equal(t, fmt.Sprintf("ready %d/%d", figures, figures), state[1])
	m := pageHeight.FindStringSubmatch(dom)
	require.NotNil(t, m)
	height, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	out := os.Getenv(browserOutEnv)
	if out == "" {
		out = t.TempDir()
	}
	shot := filepath.Join(out, "kueue-report.png")
	_, log = headless(t, browser, page, fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+shot)
	assert.Empty(t, consoleLine.FindAllString(log, -1), "console messages")
	t.Logf("screenshot of %s (%d figures): %s", page, figures, shot)
	// the borrowed quota's shade: gonum/plot's first colour, light
	assert.Greater(t, pixels(decodePNG(t, shot), 0xFB, 0xD1, 0xD3), 2000, "the borrowed part shaded")
}

// -variant with -out writes the comparison's files: its JSON, its page
// with Kueue's figures (a bar per variant) and the figures themselves;
// without -out, none.
func TestCompareVariantsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cmp")
	out, errOut, code := runCommand(t, nil, "-out", dir, "-variant", "fairsharing:off", "-variant", "fairsharing:on", kueueInput)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "workloads preempted / preempted for it")
	assert.Contains(t, out, "Wrote to "+dir+": comparison.json, comparison.html, compare-kueue-admission.png, compare-kueue-admission.svg, "+
		"compare-kueue-usage.png, compare-kueue-usage.svg, compare-kueue-preemptions.png, compare-kueue-preemptions.svg")
	page, err := os.ReadFile(filepath.Join(dir, "comparison.html"))
	require.NoError(t, err)
	for _, want := range []string{"<title>Comparison: kueue.yaml</title>", `id="fig-compare-kueue-admission"`, ">fairsharing:on</th>",
		"a bar per variant"} {
		assert.Contains(t, string(page), want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"preempting": 0`)

	out, errOut, code = runCommand(t, nil, "-variant", "base", kueueInput)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out+errOut, "Wrote to", "no -out: no files")
}

// The comparison's page in headless Chromium: no console message, every
// figure drawn (GANGSIM_BROWSER_TEST=1, as TestReportInBrowser).
func TestComparisonInBrowser(t *testing.T) {
	if os.Getenv(browserTestEnv) == "" {
		t.Skipf("set %s=1 to open the comparison in headless Chromium", browserTestEnv)
	}
	browser := chromium(t)
	dir := t.TempDir()
	_, errOut, code := runCommand(t, nil, "-out", dir, "-variant", "fairsharing:off", "-variant", "fairsharing:on", kueueInput)
	require.Equal(t, 0, code, errOut)
	page := filepath.Join(dir, "comparison.html")
	dom, log := headless(t, browser, page, "--window-size=1366,900", "--dump-dom")
	assert.Empty(t, consoleLine.FindAllString(log, -1), "console messages")
	state := plotsState.FindStringSubmatch(dom)
	require.NotNil(t, state, "the page's script did not run")
	assert.Equal(t, "ready 3/3", state[1])
}
