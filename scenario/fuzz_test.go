package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var bigNumber = regexp.MustCompile(`[0-9]{5,}`)

// FuzzParse: any input is either a scenario or an error wrapping
// ErrScenario, never a panic; a small valid scenario also runs to the end
// or stops with an error, never a panic or a hang.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/scenarios/*.yaml")
	bad, _ := filepath.Glob("testdata/scenarios/bad/*.yaml")
	for _, name := range append(files, bad...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8192 || bigNumber.Match(data) {
			t.Skip("large counts and times make slow runs, not interesting ones")
		}
		sc, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrScenario) {
				t.Fatalf("error does not wrap ErrScenario: %v", err)
			}
			return
		}
		if len(sc.Pods) > 200 || len(sc.Nodes) > 200 {
			return
		}
		sc.Config.MaxCycles = 10_000
		_, _ = sc.Run() // run-time refusals are errors by design
	})
}
