package scenario

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// fuzzLimits are the limits of the fuzz targets' loads: a count or a
// replicas field far beyond them fails fast, as it would with the default
// limits, while what loads stays small enough to run within a second.
var fuzzLimits = WithLimits(fuzzLimitValues)

// fuzzLimitValues are fuzzLimits' numbers.
var fuzzLimitValues = Limits{Nodes: 64, Pods: 512, AliasedValues: 50_000}

// FuzzParse: any input is either a scenario or an error wrapping
// ErrScenario and naming the file, never a panic. A scenario that loads
// runs to the end with the invariant checker on, gives the same result
// twice, and fails, if at all, only for what a load cannot know (a cycle
// cap reached, a pod arriving on a node that has no room for it).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/scenarios/*.yaml")
	bad, _ := filepath.Glob("testdata/scenarios/bad/*.yaml")
	for _, name := range append(files, bad...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer checkQuick(t, time.Now())
		sc, err := Parse("fuzz.yaml", data, fuzzLimits)
		if err != nil {
			checkLoadError(t, err, "fuzz.yaml")
			return
		}
		checkRuns(t, sc)
	})
}

// checkQuick fails an input whose load and runs took more than a few
// seconds while fuzzing: within fuzzLimits, a slow input is a finding. The
// seed corpus that go test runs is not timed (a loaded machine or the race
// detector would fail it, and speed is measured elsewhere).
func checkQuick(t *testing.T, start time.Time) {
	t.Helper()
	if !fuzzing() {
		return
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("loading and running this input takes %v", took)
	}
}

// fuzzing says the test binary runs a fuzzer (-test.fuzz), not only the
// seed corpus.
var fuzzing = sync.OnceValue(func() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
})

// checkLoadError requires an error that wraps ErrScenario and names the
// file.
func checkLoadError(t *testing.T, err error, file string) {
	t.Helper()
	if !errors.Is(err, ErrScenario) {
		t.Fatalf("error does not wrap ErrScenario: %v", err)
	}
	if !strings.Contains(err.Error(), file) {
		t.Fatalf("error does not name the file: %v", err)
	}
}

// checkRuns runs a loaded scenario twice with the invariant checker on:
// the runs end, quickly, with the same bytes; an error is one a load
// cannot foresee.
func checkRuns(t *testing.T, sc *Scenario) {
	t.Helper()
	sc.Config.MaxCycles = 5_000
	sc.Config.CheckInvariants = true
	first, err := sc.Run()
	if err != nil {
		if !runTimeRefusal(err) {
			t.Fatalf("a scenario that loads fails to run: %v", err)
		}
		return
	}
	second, err := sc.Run()
	if err != nil {
		t.Fatalf("the second run fails: %v", err)
	}
	a, _ := first.JSON()
	b, _ := second.JSON()
	if string(a) != string(b) {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
}

// runTimeRefusal reports whether a run's error is one only the run can
// find: the cycle cap, or a pod arriving running on a node that the pods
// before it have filled.
func runTimeRefusal(err error) bool {
	return errors.Is(err, gangsim.ErrNoProgress) || errors.Is(err, ErrPodLimit) ||
		errors.Is(err, cluster.ErrInvalidPod) && strings.Contains(err.Error(), "has no room")
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
		text := "nodes: [{name: n, labels: {rack: a}, allocatable: {cpu: 4}}]\nworkloads:\n" + s
		a, err := Parse("fuzz.yaml", []byte(text), fuzzLimits)
		if err != nil {
			if !errors.Is(err, ErrScenario) {
				t.Fatalf("error does not wrap ErrScenario: %v", err)
			}
			return
		}
		b, err := Parse("fuzz.yaml", []byte(text), fuzzLimits)
		if err != nil || !reflect.DeepEqual(a.Pods, b.Pods) {
			t.Fatalf("two loads differ: %v", err)
		}
	})
}
