package whatif_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/whatif"
)

func variants(t testing.TB, specs ...string) []whatif.Variant {
	t.Helper()
	var out []whatif.Variant
	for _, s := range specs {
		v, err := whatif.ParseVariant(s)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

const sweepScenario = `
nodes: [{name: n, labels: {rack: r1}, allocatable: {cpu: "4", memory: 8Gi}, count: 2}]
workloads:
  - {name: w, seed: 1, replicas: 20, arrival: {rate: 30/h}, duration: {exponential: 10m}, pod: {requests: {cpu: "2", memory: 1Gi}}}
`

// The same comparison whatever the number of workers, in the order given.
func TestCompareIsDeterministic(t *testing.T) {
	vs := variants(t, "base", "add:n-0:1", "strategy:MostAllocated", "add:n-0:2,strategy:MostAllocated")
	var outs []string
	for _, workers := range []int{1, 3} {
		c, err := whatif.Compare(parse(t, sweepScenario), vs, whatif.Options{Workers: workers, DomainKeys: []string{"rack"}})
		require.NoError(t, err)
		js, err := c.JSON()
		require.NoError(t, err)
		outs = append(outs, string(js))
		require.Len(t, c.Variants, 4)
		assert.Equal(t, "add:n-0:1", c.Variants[1].Variant)
		assert.Equal(t, 3, c.Variants[1].Summary.Nodes)
	}
	assert.Equal(t, outs[0], outs[1])
}

func TestComparisonTable(t *testing.T) {
	c, err := whatif.Compare(parse(t, sweepScenario), variants(t, "base", "add:n-0:2"), whatif.Options{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, c.WriteTable(&b))
	out := b.String()
	for _, want := range []string{"test.yaml", "base", "add:n-0:2", "nodes", "wait p50 / p90 / p99", "cpu utilisation", "memory fragmented (mean)"} {
		assert.Contains(t, out, want)
	}
}

// A sweep run completion by completion through the environment variable,
// then merged, gives the comparison a local run gives, byte for byte.
func TestSweepThroughTheIndex(t *testing.T) {
	vs := variants(t, "base", "add:n-0:1", "strategy:MostAllocated")
	base := parse(t, sweepScenario)
	var lines bytes.Buffer
	for _, i := range []int{2, 0, 1} { // completions finish in any order
		env := map[string]string{whatif.CompletionIndexEnv: fmt.Sprint(i)}
		index, err := whatif.CompletionIndex(func(k string) string { return env[k] }, len(vs))
		require.NoError(t, err)
		line, err := whatif.RunIndex(base, vs, index, nil)
		require.NoError(t, err)
		out, err := line.MarshalLine()
		require.NoError(t, err)
		require.Equal(t, 1, bytes.Count(out, []byte("\n")), "one line")
		lines.Write(out)
	}
	merged, err := whatif.Merge(&lines)
	require.NoError(t, err)
	local, err := whatif.Compare(base, vs, whatif.Options{})
	require.NoError(t, err)
	a, _ := merged.JSON()
	b, _ := local.JSON()
	require.Equal(t, string(b), string(a))
}

func TestCompletionIndexErrors(t *testing.T) {
	for value, want := range map[string]string{
		"":   "JOB_COMPLETION_INDEX is not set",
		"3":  `JOB_COMPLETION_INDEX="3" is not an index in 0..2`,
		"-1": `is not an index in 0..2`,
		"x":  `is not an index in 0..2`,
	} {
		_, err := whatif.CompletionIndex(func(string) string { return value }, 3)
		require.ErrorIs(t, err, whatif.ErrSweep)
		assert.Contains(t, err.Error(), want)
	}
}

func TestMergeErrors(t *testing.T) {
	line := func(i, n int, sc string) string {
		return fmt.Sprintf(`{"index":%d,"count":%d,"scenario":%q,"variant":"v","summary":{}}`, i, n, sc)
	}
	tests := []struct{ name, input, want string }{
		{"empty", "\n\n", "no lines to merge"},
		{"garbage", "hello\n", "line 1: not a sweep line"},
		{"unknown field", `{"index":0,"count":1,"extra":1}` + "\n", `line 1: not a sweep line: json: unknown field "extra"`},
		{"missing", line(0, 3, "s") + "\n" + line(2, 3, "s"), "1 of 3 completions are missing: indices 1"},
		{"twice", line(0, 2, "s") + "\n" + line(0, 2, "s"), "line 2: index 0 given twice"},
		{"other sweep", line(0, 2, "s") + "\n" + line(1, 2, "t"), `line 2: from another sweep ("t" of 2 variants, not "s" of 2)`},
		{"out of range", line(5, 2, "s"), "line 1: index 5 is not in 0..1"},
	}
	for _, tt := range tests {
		_, err := whatif.Merge(strings.NewReader(tt.input))
		require.Error(t, err, tt.name)
		assert.True(t, errors.Is(err, whatif.ErrSweep), tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
	}
}

func TestWriteIndexedJob(t *testing.T) {
	spec := whatif.JobSpec{Name: "sweep", Image: "registry.example/capacity-planning:v1", Command: []string{"/capacity-planning"},
		Args: []string{"-sweep-worker", "-variant", "base", "-variant", "add:n-0:1", "/scenarios/s.yaml"}, Completions: 2,
		MountPath: "/scenarios", Files: map[string][]byte{"s.yaml": []byte("nodes: []\n"), "a.yaml": []byte("x: 1\n")}}
	var b bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&b, spec))
	var again bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&again, spec))
	require.Equal(t, b.String(), again.String(), "the same bytes")

	dec := yaml.NewDecoder(&b)
	var cm, job map[string]any
	require.NoError(t, dec.Decode(&cm))
	require.NoError(t, dec.Decode(&job))
	assert.Equal(t, "ConfigMap", cm["kind"])
	assert.Equal(t, map[string]any{"a.yaml": "x: 1\n", "s.yaml": "nodes: []\n"}, cm["data"])
	assert.Equal(t, "Job", job["kind"])
	js := job["spec"].(map[string]any)
	assert.Equal(t, "Indexed", js["completionMode"])
	assert.Equal(t, 2, js["completions"])
	c := js["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, "registry.example/capacity-planning:v1", c["image"])
	assert.Equal(t, []any{"-sweep-worker", "-variant", "base", "-variant", "add:n-0:1", "/scenarios/s.yaml"}, c["args"])

	// without files (an embedded scenario) there is no ConfigMap
	spec.Files = nil
	var noFiles bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&noFiles, spec))
	assert.NotContains(t, noFiles.String(), "ConfigMap")
	assert.NotContains(t, noFiles.String(), "volumes")

	for _, bad := range []whatif.JobSpec{
		{Name: "Sweep", Image: "i", Completions: 1, MountPath: "/s"},
		{Name: "s", Completions: 1, MountPath: "/s"},
		{Name: "s", Image: "i", MountPath: "/s"},
		{Name: "s", Image: "i", Completions: 1, MountPath: "s", Files: map[string][]byte{"a": nil}},
	} {
		require.ErrorIs(t, whatif.WriteIndexedJob(&bytes.Buffer{}, bad), whatif.ErrSweep)
	}
}
