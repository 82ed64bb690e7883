package gangsim

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// update rewrites the golden files; review the diff before committing.
var update = flag.Bool("update", false, "rewrite testdata golden files")

// runScenarioFile loads and runs one scenario file.
func runScenarioFile(path string) ([]byte, error) {
	sc, err := LoadScenario(path)
	if err != nil {
		return nil, err
	}
	res, err := sc.Run()
	if err != nil {
		return nil, err
	}
	return res.JSON()
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
			got, err := runScenarioFile(f)
			require.NoError(t, err)
			golden(t, strings.TrimSuffix(f, ".yaml")+".json", got)
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
	_, err := LoadScenario("testdata/scenarios/bad/unknown-field.yaml")
	require.True(t, errors.Is(err, ErrScenario))
	require.Contains(t, err.Error(), `pods[0] (api).reqests: unknown field`)
	_, err = LoadScenario("testdata/scenarios/no-such-file.yaml")
	require.True(t, errors.Is(err, ErrScenario))
}

func TestScenarioDeterministic(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	files = append(files, "examples/scenario/default.yaml")
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
		sc, err := ParseScenario("inline", []byte(text))
		require.NoError(t, err)
		res, err := sc.Run()
		require.NoError(t, err)
		out, err := res.JSON()
		require.NoError(t, err)
		return out
	}
	require.Equal(t, string(run(yamlText)), string(run(jsonText)))
}
