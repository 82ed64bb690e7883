package whatif_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
		// a hostile count answers at once, naming the first ten
		{"huge count", line(3, 1_000_000_000_000_000, "s"), "999999999999999 of 1000000000000000 completions are missing: indices 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, and 999999999999989 more"},
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
		Args: []string{"-sweep-worker", "-variant", "base", "-variant", "add:n-0:1"}, Completions: 2,
		Requests: map[string]string{"cpu": "1", "memory": "1Gi"}, Limits: map[string]string{"memory": "1Gi"},
		MountPath: "/scenarios", Files: []whatif.JobFile{{Name: "s.yaml", Data: []byte("nodes: []\n")}, {Name: "a.yaml", Data: []byte("x: 1\n")}}}
	var b bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&b, spec))
	var again bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&again, spec))
	require.Equal(t, b.String(), again.String(), "the same bytes")

	docs := decodeAll(t, b.String())
	require.Len(t, docs, 2)
	cm, job := docs[0], docs[1]
	assert.Equal(t, "ConfigMap", cm["kind"])
	assert.Equal(t, map[string]any{"a.yaml": "x: 1\n", "s.yaml": "nodes: []\n"}, cm["data"])
	assert.Equal(t, "Job", job["kind"])
	js := job["spec"].(map[string]any)
	assert.Equal(t, "Indexed", js["completionMode"])
	assert.Equal(t, 2, js["completions"])
	c := container(job)
	assert.Equal(t, "registry.example/capacity-planning:v1", c["image"])
	assert.Equal(t, []any{"-sweep-worker", "-variant", "base", "-variant", "add:n-0:1", "/scenarios/s.yaml", "/scenarios/a.yaml"}, c["args"],
		"the files' paths follow, in the spec's order")
	assert.Equal(t, map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}, "limits": map[string]any{"memory": "1Gi"}}, c["resources"])

	// without files (an embedded scenario) there is no ConfigMap
	spec.Files = nil
	var noFiles bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&noFiles, spec))
	assert.NotContains(t, noFiles.String(), "ConfigMap")
	assert.NotContains(t, noFiles.String(), "volumes")
}

func TestWriteIndexedJobErrors(t *testing.T) {
	ok := whatif.JobSpec{Name: "s", Image: "i", Completions: 1, MountPath: "/s"}
	with := func(f func(*whatif.JobSpec)) whatif.JobSpec {
		s := ok
		f(&s)
		return s
	}
	for _, tt := range []struct {
		spec whatif.JobSpec
		want string
	}{
		{with(func(s *whatif.JobSpec) { s.Name = "Sweep" }), `job name "Sweep" is not a DNS label`},
		{with(func(s *whatif.JobSpec) { s.Image = "" }), "job image is empty"},
		{with(func(s *whatif.JobSpec) { s.Completions = 0 }), "0 completions"},
		{with(func(s *whatif.JobSpec) { s.MountPath, s.Files = "s", []whatif.JobFile{{Name: "a"}} }), `mount path "s" is not absolute`},
		{with(func(s *whatif.JobSpec) { s.Files = []whatif.JobFile{{Name: "a b.yaml"}} }), `file name "a b.yaml" is not a ConfigMap key`},
		{with(func(s *whatif.JobSpec) { s.Files = []whatif.JobFile{{Name: "a"}, {Name: "a"}} }), "two files are named a"},
		{with(func(s *whatif.JobSpec) { s.Requests = map[string]string{"memory": "lots"} }), "the worker's request of memory"},
		{with(func(s *whatif.JobSpec) {
			s.Requests, s.Limits = map[string]string{"cpu": "2"}, map[string]string{"cpu": "1500m"}
		}), "the worker's cpu request 2 is more than its limit 1500m"},
	} {
		err := whatif.WriteIndexedJob(&bytes.Buffer{}, tt.spec)
		require.ErrorIs(t, err, whatif.ErrSweep, tt.want)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// Files over a ConfigMap's 1 MiB of data are spread over several,
// mounted as one projected volume; a file larger than one ConfigMap goes
// compressed; one too large even then is refused with its sizes.
func TestJobFilesOverTheConfigMapLimit(t *testing.T) {
	text := func(n int, seed byte) []byte { // n bytes of YAML comments
		line := []byte("# " + strings.Repeat(string('a'+seed%26), 61) + "\n")
		return bytes.Repeat(line, n/len(line))
	}
	spec := whatif.JobSpec{Name: "big", Image: "i", Completions: 1, MountPath: "/scenarios", Files: []whatif.JobFile{
		{Name: "a.yaml", Data: text(600_000, 0)}, {Name: "b.yaml", Data: text(600_000, 1)},
		{Name: "dump.json", Data: text(3_000_000, 2)}, {Name: "raw.bin", Data: []byte{0xff, 0xfe}}}}
	names, err := spec.ConfigMaps()
	require.NoError(t, err)
	assert.Equal(t, []string{"big-scenarios", "big-scenarios-2"}, names)
	var b bytes.Buffer
	require.NoError(t, whatif.WriteIndexedJob(&b, spec))
	docs := decodeAll(t, b.String())
	require.Len(t, docs, 3)
	for _, cm := range docs[:2] {
		size := 0
		for _, v := range cm["data"].(map[string]any) {
			size += len(v.(string))
		}
		if bin, ok := cm["binaryData"].(map[string]any); ok {
			for _, v := range bin {
				raw, err := base64.StdEncoding.DecodeString(v.(string))
				require.NoError(t, err)
				size += len(raw)
			}
		}
		assert.LessOrEqual(t, size, whatif.MaxConfigMapData)
	}
	second := docs[1]
	assert.Contains(t, second["data"], "b.yaml")
	bin := second["binaryData"].(map[string]any)
	assert.Contains(t, bin, "dump.json.gz", "compressed: it fits no ConfigMap as it is")
	assert.Contains(t, bin, "raw.bin", "not UTF-8: binaryData as it is")
	raw, _ := base64.StdEncoding.DecodeString(bin["dump.json.gz"].(string))
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	back, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, spec.Files[2].Data, back)

	c := container(docs[2])
	assert.Equal(t, []any{"/scenarios/a.yaml", "/scenarios/b.yaml", "/scenarios/dump.json.gz", "/scenarios/raw.bin"}, c["args"])
	vol := docs[2]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["volumes"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"sources": []any{
		map[string]any{"configMap": map[string]any{"name": "big-scenarios"}},
		map[string]any{"configMap": map[string]any{"name": "big-scenarios-2"}}}}, vol["projected"])

	random := make([]byte, 1_100_000) // does not compress
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	spec.Files = []whatif.JobFile{{Name: "noise.yaml", Data: random}}
	err = whatif.WriteIndexedJob(&bytes.Buffer{}, spec)
	require.ErrorIs(t, err, whatif.ErrSweep)
	assert.Contains(t, err.Error(), "scenario file noise.yaml is 1100000 bytes (1.0 MiB), and ")
	assert.Contains(t, err.Error(), "compressed: more than one ConfigMap holds (1048576 bytes of data, the API server's limit)")
}

func decodeAll(t *testing.T, text string) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(text))
	var out []map[string]any
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err == io.EOF {
			return out
		} else {
			require.NoError(t, err)
		}
		out = append(out, doc)
	}
}

func container(job map[string]any) map[string]any {
	spec := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}
