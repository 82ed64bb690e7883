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
)

// asKubectlList writes the objects of a YAML or JSON file of Kubernetes
// objects as kubectl's -o json writes a List: every item with its own
// apiVersion and kind, four spaces of indentation. It returns false for a
// file it cannot write so (a scenario, keys that are not strings).
func asKubectlList(t testing.TB, data []byte) ([]byte, bool) {
	t.Helper()
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
	out, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items,
		"metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
	if err != nil {
		return nil, false
	}
	return out, true
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
		"testdata/kube/bad/*.json", "testdata/kube/samples/*.yaml"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	compared, errorsCompared := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		list, ok := asKubectlList(t, data)
		if !ok {
			continue
		}
		byItem, whole := loadBothWays(t, path+".json", list)
		require.Equal(t, whole, byItem, path)
		compared++
		if strings.HasPrefix(whole, "error: ") {
			errorsCompared++
		}
	}
	require.GreaterOrEqual(t, compared, 25)
	require.GreaterOrEqual(t, errorsCompared, 12)
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
	changed := 0
	for _, f := range faults {
		for n := range 3 { // the first, second and third place the text is found
			text, ok := replaceNth(string(data), f.old, f.new, n)
			if !ok {
				continue
			}
			changed++
			byItem, whole := loadBothWays(t, "dump.json", []byte(text))
			require.Equal(t, whole, byItem, fmt.Sprintf("%s -> %s (#%d)", f.old, f.new, n))
		}
	}
	require.Greater(t, changed, 30)
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
func kubectlDump(b *testing.B, copies int) ([]byte, int) {
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

// BenchmarkKubectlDumpLoad loads a kubectl List of 10,000 pods, item by
// item and as a whole; heap-KB/pod is the most heap its objects took at
// once (sampled every millisecond), the figure that decides whether a
// million-pod dump fits in memory.
func BenchmarkKubectlDumpLoad(b *testing.B) {
	data, pods := kubectlDump(b, 715)
	for _, byItem := range []bool{true, false} {
		b.Run(fmt.Sprintf("byItem=%v", byItem), func(b *testing.B) {
			readListsByItem = byItem
			defer func() { readListsByItem = true }()
			peak := peakHeap(func() {
				for b.Loop() {
					_, err := ParseFiles([]File{{Name: "dump.json", Data: data}})
					require.NoError(b, err)
				}
			})
			b.ReportMetric(float64(peak)/float64(pods)/1024, "heap-KB/pod")
		})
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
