//go:build linux

package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A mapped List cut short once its items are spanned, while goroutines
// read them, is ErrFileChanged: the goroutine that touches a page gone
// returns it, and the program goes on.
func TestParseJSONListItemsFileCutShort(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"kind": "List", "items": [`)
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"kind": "Pod", "metadata": {"name": "pod-%05d", "labels": {"app": "a%d"}}}`, i, i%7)
	}
	b.WriteString("]}\n")
	path := filepath.Join(t.TempDir(), "list.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, b.Len(), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		t.Skip("cannot map:", err)
	}
	defer syscall.Munmap(data)
	var cut sync.Once
	_, _, err = ParseJSONListItems(data, 2, func() func(int, *yaml.Node) (int, bool) {
		return func(i int, _ *yaml.Node) (int, bool) {
			cut.Do(func() {
				if err := os.Truncate(path, 0); err != nil {
					t.Error(err)
				}
			})
			return i, true
		}
	})
	if !errors.Is(err, ErrFileChanged) {
		t.Fatalf("got %v, want ErrFileChanged", err)
	}
}
