package scenario

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
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

// FuzzParseRate: a rate is positive and finite, or an error.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"12/h", "0.5/m", "3/10m", "1/s", "24/d", "1e308/1ns", "x/h", "1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRate(s)
		if err == nil && !(r > 0 && r < math.Inf(1)) {
			t.Fatalf("parseRate(%q) = %v", s, r)
		}
	})
}

// FuzzWorkloads: any workloads section is expanded or refused with an
// error wrapping ErrScenario, never a panic; an accepted one gives the
// same pods twice.
func FuzzWorkloads(f *testing.F) {
	for _, s := range []string{
		"- {name: w, replicas: 3, arrival: {every: 1m}, pod: {requests: {cpu: 1}}}",
		"- {name: w, replicas: 5, seed: 9, arrival: {rate: 2/h}, duration: {exponential: 10m}, pod: {}}",
		"- {name: w, arrival: {at: [0s, 1m], start: 5m}, duration: {logNormal: {median: 1h, sigma: 1}, max: 2h}, pod: {}}",
		"- {name: g, replicas: 2, group: {minCount: 2, pods: 2, topologyKey: rack}, sizes: [{weight: 2, pods: 3}, {requests: {cpu: 2}}], pod: {}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2048 || bigNumber.MatchString(s) {
			t.Skip("large counts make slow expansions, not interesting ones")
		}
		text := "nodes: [{name: n, labels: {rack: a}, allocatable: {cpu: 4}}]\nworkloads:\n" + s
		a, err := Parse("fuzz.yaml", []byte(text))
		if err != nil {
			if !errors.Is(err, ErrScenario) {
				t.Fatalf("error does not wrap ErrScenario: %v", err)
			}
			return
		}
		b, err := Parse("fuzz.yaml", []byte(text))
		if err != nil || !reflect.DeepEqual(a.Pods, b.Pods) {
			t.Fatalf("two loads differ: %v", err)
		}
	})
}
