package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fiveOnTwo is two nodes of 4 cores and five pods of 3: three more nodes
// place them all.
const fiveOnTwo = "nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\npods: [{name: p, requests: {cpu: \"3\"}, count: 5}]\n"

func scenarioFile(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "five.yaml")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	return file
}

// A report writes report.html beside report.json, and says so.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCommand(t, nil, "-out", dir, scenarioFile(t, fiveOnTwo))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "report.json, timeseries.csv, waits.csv, report.html, allocation.png")
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	for _, want := range []string{"<title>Capacity report: five.yaml</title>", `id="fig-allocation"`, `<section id="pending">`,
		"waits for room: 2 nodes could hold it empty, but none has 3 cores of cpu free"} {
		assert.True(t, strings.Contains(string(page), want), "report.html has %q", want)
	}
	assert.NotContains(t, string(page), `<section id="answers">`, "no question, no answers")
}

// A question asked with -out writes the answer's run, the answer in
// report.html; without -out it writes nothing.
func TestAnswerReport(t *testing.T) {
	file := scenarioFile(t, fiveOnTwo)
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runCommand(t, nil, "-add-like", "n-0", "-out", dir, file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Answer: 3 (add:n-0:3), after 5 runs.")
	assert.Contains(t, out, "Wrote to "+dir)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	for _, want := range []string{"Fewest nodes like n-0 to add so that every pod is placed?",
		`<p class="a">Answer: 3 (add:n-0:3), after 5 runs.</p>`, "five.yaml, with the answer add:n-0:3", "RUN  COUNT  OK"} {
		assert.True(t, strings.Contains(string(page), want), "report.html has %q", want)
	}
	var rep struct {
		Nodes int `json:"nodes"`
		Pods  struct {
			PendingAtEnd int `json:"pendingAtEnd"`
		} `json:"pods"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, 5, rep.Nodes, "the run with the answer's three nodes")
	assert.Zero(t, rep.Pods.PendingAtEnd)

	// no answer: the scenario as asked, its pending pods explained
	dir = filepath.Join(t.TempDir(), "none")
	out, errOut, code = runCommand(t, nil, "-add-like", "n-0", "-limit", "1", "-out", dir, file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "No answer")
	page, err = os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<p class="a">No answer: `)
	assert.Contains(t, string(page), "waits for room")

	// without -out, a question writes no files (the default folder neither)
	cwd := t.TempDir()
	t.Chdir(cwd)
	_, errOut, code = runCommand(t, nil, "-add-like", "n-0", file)
	require.Equal(t, 0, code, errOut)
	entries, err := os.ReadDir(cwd)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
