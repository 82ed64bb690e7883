package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// When this variable is set the test binary behaves as the command, so that
// tests can check its exit status and output streams.
const asCommand = "GANGSIM_SCENARIO_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runCommand(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCommand+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

func TestDefaultScenarioRuns(t *testing.T) {
	out, errOut, code := runCommand(t)
	require.Equal(t, 0, code, errOut)
	var res struct {
		Pods []struct{ Name, Phase string } `json:"pods"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.NotEmpty(t, res.Pods)
}

func TestBadFilesExitOne(t *testing.T) {
	files, err := filepath.Glob("../../scenario/testdata/scenarios/bad/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, errOut, code := runCommand(t, f)
			require.Equal(t, 1, code)
			require.Empty(t, out)
			require.Contains(t, errOut, f)
		})
	}
}

func TestGoodFileExitsZero(t *testing.T) {
	out, errOut, code := runCommand(t, "../../scenario/testdata/scenarios/reasons.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"phase": "Pending"`)
}
