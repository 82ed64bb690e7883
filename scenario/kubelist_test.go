package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// asKubectlList writes the objects of a YAML or JSON file of Kubernetes
// objects as kubectl's -o json writes a List: every item with its own
// apiVersion and kind, four spaces of indentation. It returns false for a
// file it cannot write so (a scenario, keys that are not strings).
func asKubectlList(t testing.TB, data []byte) ([]byte, bool) {
	t.Helper()
	list, ok := kubectlList(data)
	if !ok {
		return nil, false
	}
	out, err := json.MarshalIndent(list, "", "    ")
	return out, err == nil
}

// asKubectlYAMLList writes them as kubectl's -o yaml does: keys in order,
// two spaces of indentation, sequences at their key's column.
func asKubectlYAMLList(t testing.TB, data []byte) ([]byte, bool) {
	t.Helper()
	list, ok := kubectlList(data)
	if !ok {
		return nil, false
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if enc.Encode(list) != nil || enc.Close() != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// kubectlList is the List of the objects of a file, as kubectl dumps them.
func kubectlList(data []byte) (map[string]any, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var items []any
	for {
		var doc any
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if _, kube := m["kind"]; !kube {
			return nil, false
		}
		if list, ok := m["items"].([]any); ok && m["kind"] == "List" {
			items = append(items, list...)
		} else {
			items = append(items, m)
		}
	}
	if _, err := json.Marshal(items); err != nil {
		return nil, false // keys that are not strings
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items,
		"metadata": map[string]any{"resourceVersion": ""}}, true
}

// loadBothWays loads a file with its List read item by item and as a whole.
func loadBothWays(t *testing.T, name string, data []byte) (byItem, whole string) {
	t.Helper()
	render := func() string {
		sc, err := ParseFiles([]File{{Name: name, Data: data}})
		if err != nil {
			return "error: " + err.Error()
		}
		out, err := json.Marshal(sc)
		require.NoError(t, err)
		res, err := sc.Run()
		if err != nil {
			return string(out) + "\nrun error: " + err.Error()
		}
		events, err := res.JSON()
		require.NoError(t, err)
		return string(out) + "\n" + string(events)
	}
	byItem = render()
	readListsByItem = false
	defer func() { readListsByItem = true }()
	return byItem, render()
}

// A kubectl List read item by item, each item decoded as it is read and
// only the lines of its fields kept, gives what reading the whole file
// gives: the same scenario (every entry's source line), the same run, the
// same warnings, and for a faulty object the same error at the same line.
func TestKubectlListReadByItemAsWhole(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/kube/*.json", "testdata/kube/*.yaml", "testdata/kube/bad/*.yaml",
		"testdata/kube/bad/*.json", "testdata/kube/samples/*.yaml", "testdata/kube/public-samples/*/*.yaml"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	for _, layout := range []struct {
		ext   string
		write func(testing.TB, []byte) ([]byte, bool)
	}{{".json", asKubectlList}, {".yaml", asKubectlYAMLList}} {
		compared, errorsCompared := 0, 0
		for _, path := range files {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			list, ok := layout.write(t, data)
			if !ok {
				continue
			}
			if layout.ext == ".yaml" {
				_, err := schema.ParseYAMLItems(list, func(int, *yaml.Node) bool { return true })
				require.NoError(t, err, "%s is read item by item", path)
			}
			byItem, whole := loadBothWays(t, path+layout.ext, list)
			require.Equal(t, whole, byItem, path+layout.ext)
			compared++
			if strings.HasPrefix(whole, "error: ") {
				errorsCompared++
			}
		}
		require.GreaterOrEqual(t, compared, 25, layout.ext)
		require.GreaterOrEqual(t, errorsCompared, 12, layout.ext)
	}
}

// Faults put into a valid dump, one at a time, in an item the reader
// takes early and in fields it prunes or keeps: every one is reported as
// the whole-file reading reports it.
func TestKubectlListFaultsReadByItemAsWhole(t *testing.T) {
	data, err := os.ReadFile("testdata/kube/cluster.json")
	require.NoError(t, err)
	faults := []struct{ old, new string }{
		{`"cpu": "100m"`, `"cpu": "lots"`},
		{`"kind": "Pod"`, `"kind": "Pd"`},
		{`"apiVersion": "apps/v1"`, `"apiVersion": "apps/v2"`},
		{`"nodeName": "shop-worker-1"`, `"nodeName": "nowhere"`},
		{`"operator": "Exists"`, `"operator": "Sometimes"`},
		{`"name": "db-0"`, `"name": "DB_0"`},
		{`"phase": "Running"`, `"phase": 7`},
		{`"priorityClassName": "shop-high"`, `"priorityClassName": "shop-higher"`},
		{`"managedFields": [`, `"managedFieldz": [`},
		{`"uid": `, `"uid": 1, "uid2": `},
		{`"kind": "List"`, `"kind": "Lis"`},
		{`"items": [`, `"items": [7, `},
		{`"labels": {`, `"labels": {"bad key": "x", `},
		{`"spec": {`, `"spec": {"schedulingGates": [{"name": "g"}], `},
	}
	require.Greater(t, loadFaultsBothWays(t, "dump.json", string(data), faults), 30)
}

// loadFaultsBothWays puts each fault, one at a time, at the first, second
// and third place its text is found, and requires the file read with its
// List item by item as it is read whole; it returns how many it put.
func loadFaultsBothWays(t *testing.T, name, text string, faults []struct{ old, new string }) int {
	t.Helper()
	changed := 0
	for _, f := range faults {
		for n := range 3 {
			faulty, ok := replaceNth(text, f.old, f.new, n)
			if !ok {
				continue
			}
			changed++
			byItem, whole := loadBothWays(t, name, []byte(faulty))
			require.Equal(t, whole, byItem, fmt.Sprintf("%q -> %q (#%d)", f.old, f.new, n))
		}
	}
	return changed
}

// The same faults in kubectl's YAML layout, and what only YAML can hold
// (aliases, merge keys, tabs, text indented less than the items, a second
// document), each read as the whole-file reading reads it.
func TestKubectlYAMLListFaultsReadByItemAsWhole(t *testing.T) {
	data, err := os.ReadFile("testdata/kube/cluster.json")
	require.NoError(t, err)
	list, ok := asKubectlYAMLList(t, data)
	require.True(t, ok)
	faults := []struct{ old, new string }{
		{"cpu: 100m", "cpu: lots"},
		{"  kind: Pod\n", "  kind: Pd\n"},
		{"- apiVersion: apps/v1", "- apiVersion: apps/v2"},
		{"nodeName: shop-worker-1", "nodeName: nowhere"},
		{"operator: Exists", "operator: Sometimes"},
		{"name: db-0", "name: DB_0"},
		{"phase: Running", "phase: [7]"},
		{"priorityClassName: shop-high", "priorityClassName: shop-higher"},
		{"managedFields:", "managedFieldz:"},
		{"    uid: ", "    uid: 1\n    uid: "},
		{"kind: List", "kind: Lis"},
		{"items:\n", "items:\n- 7\n"},
		{"    labels:\n", "    labels:\n      bad key: x\n"},
		{"  spec:\n", "  spec:\n    schedulingGates:\n    - name: g\n"},
		{"    labels:\n", "    labels: &l\n"},
		{"    labels:\n      app", "    labels: *l\n    x:\n      app"},
		{"  spec:\n", "  spec:\n    <<: {nodeName: shop-worker-2}\n"},
		{"  status:\n", "  status:\n\t\n"},
		{"  status:\n", "  status:\n phase: x\n"},
		{"kind: List\n", "kind: List\n---\nkind: Pod\n"},
		{"  kind: Pod\n", "  kind: Pod\n# a comment\n\n"},
		{"  kind: Pod\n", "  kind: Pod\n  note: \"two\nlines\"\n"},
	}
	require.Greater(t, loadFaultsBothWays(t, "dump.yaml", string(list), faults), 50)
}

func replaceNth(s, old, new string, n int) (string, bool) {
	at := 0
	for range n + 1 {
		i := strings.Index(s[at:], old)
		if i < 0 {
			return "", false
		}
		at += i + len(old)
	}
	start := at - len(old)
	return s[:start] + new + s[at:], true
}

// kubectlDump is a kubectl List of copies of the pods of the sample dump
// (pending, without a node), with its other objects once.
func kubectlDump(b testing.TB, copies int) ([]byte, int) {
	data, err := os.ReadFile("testdata/kube/cluster.json")
	require.NoError(b, err)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(b, json.Unmarshal(data, &list))
	var items []any
	pods := 0
	for _, it := range list.Items {
		if it["kind"] != "Pod" {
			items = append(items, it)
		}
	}
	for c := range copies {
		for _, it := range list.Items {
			if it["kind"] != "Pod" {
				continue
			}
			var p map[string]any
			raw, _ := json.Marshal(it)
			require.NoError(b, json.Unmarshal(raw, &p))
			meta := p["metadata"].(map[string]any)
			meta["name"] = fmt.Sprintf("%s-c%d", meta["name"], c)
			delete(p["spec"].(map[string]any), "nodeName")
			p["status"] = map[string]any{"phase": "Pending"}
			items = append(items, p)
			pods++
		}
	}
	out, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "    ")
	require.NoError(b, err)
	return out, pods
}

// BenchmarkKubectlDumpLoad loads a kubectl List of 10,000 pods, in JSON
// and in kubectl's YAML layout, item by
// item and as a whole; heap-KB/pod is the most heap its objects took at
// once (sampled every millisecond), the figure that decides whether a
// million-pod dump fits in memory.
func BenchmarkKubectlDumpLoad(b *testing.B) {
	data, pods := kubectlDump(b, 715)
	yamlData, ok := asKubectlYAMLList(b, data)
	require.True(b, ok)
	for _, in := range []File{{Name: "dump.json", Data: data}, {Name: "dump.yaml", Data: yamlData}} {
		for _, byItem := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/byItem=%v", in.Name, byItem), func(b *testing.B) {
				readListsByItem = byItem
				defer func() { readListsByItem = true }()
				peak := peakHeap(func() {
					for b.Loop() {
						_, err := ParseFiles([]File{in})
						require.NoError(b, err)
					}
				})
				b.ReportMetric(float64(peak)/float64(pods)/1024, "heap-KB/pod")
			})
		}
	}
}

// peakHeap runs f and returns the most bytes of heap objects, live or not
// yet collected, seen during it.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := read(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	f()
	close(done)
	return peak.Load() - min(base, peak.Load())
}

// A stream of YAML documents read one document at a time, each decoded as
// it is read and its tree let go (readStream, issue 48), loads as the
// whole stream parsed first does: the same scenario, run, warnings, and
// for a faulty object the same error at the same line.
func TestYAMLStreamReadByDocumentAsWhole(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/kube/*.yaml", "testdata/kube/bad/*.yaml", "testdata/kube/samples/*.yaml",
		"testdata/kube/public-samples/*/*.yaml"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	compared, errorsCompared := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		if bytes.IndexByte(data, '*') >= 0 || schema.LooksLikeJSON(data) {
			continue // read as a whole either way
		}
		byDoc, whole := loadBothWays(t, path, data)
		require.Equal(t, whole, byDoc, path)
		compared++
		if strings.HasPrefix(whole, "error: ") {
			errorsCompared++
		}
	}
	require.GreaterOrEqual(t, compared, 50)
	require.GreaterOrEqual(t, errorsCompared, 10)
}
