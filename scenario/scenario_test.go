package scenario

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fw "github.com/gangsim/gangsim/framework"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// update rewrites the golden files; review the diff before committing.
var update = flag.Bool("update", false, "rewrite testdata golden files")

// runScenarioFile loads and runs one scenario file.
func runScenarioFile(path string) ([]byte, error) {
	out, _, err := runWithTranscript(path)
	return out, err
}

// runWithTranscript loads and runs one scenario file and returns its result
// and its event stream as text: one event a line, its cycle first.
func runWithTranscript(path string) (result, transcript []byte, err error) {
	sc, err := Load(path)
	if err == nil {
		sc.Config.CheckInvariants = true // every golden run is checked
	}
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	sc.autoscalerTap = func(e autoscaler.Event) { fmt.Fprintf(&b, "A %s\n", AutoscalerLine(e)) }
	res, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) { fmt.Fprintf(&b, "%d %v\n", e.Cycle, e) }))
	if err != nil {
		return nil, nil, err
	}
	out, err := res.JSON()
	return out, b.Bytes(), err
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -run %s -update", t.Name())
	require.Equal(t, string(want), string(got))
}

func TestScenarioGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got, transcript, err := runWithTranscript(f)
			require.NoError(t, err)
			golden(t, strings.TrimSuffix(f, ".yaml")+".json", got)
			// the transcript shows how the result came about, event by
			// event, so a change of behaviour over time shows in a diff
			golden(t, strings.TrimSuffix(f, ".yaml")+".events", transcript)
		})
	}
}

func TestScenarioBadFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/bad/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := runScenarioFile(f)
			require.Error(t, err)
			msg := err.Error()
			require.Contains(t, msg, f, "the error names the file")
			golden(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(msg+"\n"))
		})
	}
}

func TestScenarioLoadErrorsAreTyped(t *testing.T) {
	_, err := Load("testdata/scenarios/bad/unknown-field.yaml")
	require.True(t, errors.Is(err, ErrScenario))
	require.Contains(t, err.Error(), `pods[0] (api).reqests: unknown field`)
	_, err = Load("testdata/scenarios/no-such-file.yaml")
	require.True(t, errors.Is(err, ErrScenario))
	require.ErrorIs(t, err, fs.ErrNotExist, "the cause survives")

	_, err = Load("testdata/scenarios/bad/bad-quantity.yaml")
	require.ErrorIs(t, err, cluster.ErrQuantity)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, FieldError{File: "testdata/scenarios/bad/bad-quantity.yaml", Line: 4, Path: "pods[0] (api).requests.cpu", Err: fe.Err}, *fe)

	_, err = Load("testdata/scenarios/bad/unknown-class.yaml")
	require.ErrorIs(t, err, gangsim.ErrAdmission)
	_, err = Load("testdata/scenarios/bad/comp-cycle.yaml")
	require.ErrorIs(t, err, ErrScenario)
	_, err = Load("testdata/scenarios/bad/comp-priority.yaml")
	require.ErrorIs(t, err, podgroup.ErrHierarchy)
	_, err = Load("testdata/scenarios/bad/bad-effect.yaml")
	require.ErrorIs(t, err, cluster.ErrInvalidNode)
	_, err = Load("testdata/scenarios/bad/bad-strategy.yaml")
	require.ErrorIs(t, err, fw.ErrArgs)
	_, err = runScenarioFile("testdata/scenarios/bad/overcommitted.yaml")
	require.ErrorIs(t, err, cluster.ErrInvalidPod, "a run-time refusal keeps its cause too")
}

func TestScenarioDeterministic(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	files = append(files, "../examples/scenario/default.yaml")
	for _, f := range files {
		first, err := runScenarioFile(f)
		require.NoError(t, err)
		second, err := runScenarioFile(f)
		require.NoError(t, err)
		require.Equal(t, string(first), string(second), "%s: two runs differ", f)
	}
}

func TestScenarioJSONEqualsYAML(t *testing.T) {
	yamlText := "nodes:\n  - {name: n, allocatable: {cpu: \"2\"}}\npods:\n  - {name: p, requests: {cpu: 500m}}\n"
	jsonText := `{"nodes": [{"name": "n", "allocatable": {"cpu": "2"}}], "pods": [{"name": "p", "requests": {"cpu": "500m"}}]}`
	run := func(text string) []byte {
		sc, err := Parse("inline", []byte(text))
		require.NoError(t, err)
		res, err := sc.Run()
		require.NoError(t, err)
		out, err := res.JSON()
		require.NoError(t, err)
		return out
	}
	require.Equal(t, string(run(yamlText)), string(run(jsonText)))
}

// The documented limit (docs/semantics.md, hierarchies): children are placed greedily in a
// fixed order without backtracking. Here gang a takes the cpu of the only
// GPU rack, so gang b fails, although a in rack c and b in rack g would
// both fit; the hierarchy stays pending.
func TestCompositeGreedyOrderMissesAPlacement(t *testing.T) {
	sc, err := Load("testdata/scenarios/comp-greedy-limit.yaml")
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	phases := map[string]gangsim.Phase{}
	for _, p := range res.Pods {
		phases[p.Name] = p.Phase
	}
	require.Equal(t, gangsim.PhasePending, phases["a"])
	require.Equal(t, gangsim.PhasePending, phases["b"])

	// the placement the search missed is valid: both pods fit it
	s, err := sc.NewScheduler()
	require.NoError(t, err)
	for _, sp := range sc.Pods {
		p := sp.Pod
		switch p.Name {
		case "busy":
		case "a":
			p.NodeName, p.PodGroup = "c", ""
		case "b":
			p.NodeName, p.PodGroup = "g", ""
		}
		require.NoError(t, s.AddPod(p, 0), "pod %s fits where the other order puts it", p.Name)
	}
}

// A nil scenario and an addNode event without a node are errors, not
// panics.
func TestScenarioAPIMisuse(t *testing.T) {
	var sc *Scenario
	_, err := sc.Run()
	require.ErrorIs(t, err, ErrNilScenario)
	_, err = sc.NewScheduler()
	require.ErrorIs(t, err, ErrNilScenario)
	sc = &Scenario{Events: []Event{{At: time.Second, Kind: AddNode}}}
	_, err = sc.Run()
	require.ErrorContains(t, err, "addNode without a node")
}
