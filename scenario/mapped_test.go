package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// nodesList is a kubectl List of n Nodes, indented as kubectl indents it.
func nodesList(n int) string {
	var b strings.Builder
	b.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-%05d", "labels": {"rack": "r%d"}}, "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}}`, i, i%10)
	}
	b.WriteString("\n    ]\n}\n")
	return b.String()
}

// A file LoadFiles maps is read as one read into memory is: the same
// scenario.
func TestLoadFilesMappedAsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.json")
	if err := os.WriteFile(path, []byte(nodesList(3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	mapped := 0
	afterMap = func(string) { mapped++ }
	defer func() { afterMap = nil }()
	sc, err := LoadFiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if mapped != 1 {
		t.Skip("files are not mapped on this system")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseFiles([]File{{Name: path, Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(sc.Nodes), len(want.Nodes); got != want || got != 3000 {
		t.Fatalf("%d nodes mapped, %d read, want 3000", got, want)
	}
	for i := range sc.Nodes {
		if sc.Nodes[i].Name != want.Nodes[i].Name {
			t.Fatalf("node %d: %q mapped, %q read", i, sc.Nodes[i].Name, want.Nodes[i].Name)
		}
	}
}

// A mapped file cut short while it is read is an error naming it, not a
// crash: the pages past its new end are gone.
func TestLoadFilesMappedCutShort(t *testing.T) {
	for _, size := range []int{40, 3000} { // one goroutine reads it; several do
		path := filepath.Join(t.TempDir(), "nodes.json")
		if err := os.WriteFile(path, []byte(nodesList(size)), 0o644); err != nil {
			t.Fatal(err)
		}
		afterMap = func(p string) {
			if err := os.Truncate(p, 0); err != nil {
				t.Error(err)
			}
		}
		_, err := LoadFiles([]string{path})
		afterMap = nil
		if err == nil {
			t.Fatalf("%d nodes: a file cut short once mapped loads", size)
		}
		if !errors.Is(err, schema.ErrFileChanged) || !strings.Contains(err.Error(), path) {
			t.Fatalf("%d nodes: %v, want the file named and ErrFileChanged", size, err)
		}
	}
}
