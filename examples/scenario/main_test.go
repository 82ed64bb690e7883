package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	kube, err := filepath.Glob("../../scenario/testdata/kube/bad/*.*[ln]")
	require.NoError(t, err)
	require.NotEmpty(t, kube)
	for _, f := range append(files, kube...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, errOut, code := runCommand(t, f)
			if filepath.Base(f) == "unknown-plugin.yaml" { // the command skips it, with a warning
				require.Equal(t, 0, code, errOut)
				require.Contains(t, errOut, "warning: config.profiles[].plugins PreferLabel: not a plugin the simulator has")
				return
			}
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

// Kubernetes objects and scenario files run together; what the simulator
// does not model is listed on standard error, and the result is the same
// on every run.
func TestFilesRunTogether(t *testing.T) {
	args := []string{"../../scenario/testdata/kube/cluster.json", "../../scenario/testdata/kube/workloads.yaml"}
	out, errOut, code := runCommand(t, args...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: Pod spec.volumes[].persistentVolumeClaim: not modelled")
	require.Contains(t, errOut, "warning: StatefulSet spec.volumeClaimTemplates: not modelled")
	var res struct {
		Pods     []struct{ Name, Phase string } `json:"pods"`
		Warnings []string                       `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	// the StatefulSet of one file finds its pod db-0 in the other and makes
	// db-1 only; the DaemonSet covers the nodes of both
	require.Len(t, res.Pods, 26)
	require.Len(t, res.Warnings, strings.Count(errOut, "warning: "))
	again, _, _ := runCommand(t, args...)
	require.Equal(t, out, again)

	_, errOut, code = runCommand(t, args[0], args[0])
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is defined twice: first in "+args[0])
}

// A nodes dump and a folder of manifests: one simulation, with the same
// warnings capacity-planning prints for them (one loader), and -quiet
// keeping standard error to the warnings.
func TestNodesDumpAndFolder(t *testing.T) {
	dir := "../capacity-planning/testdata/cluster/"
	out, errOut, code := runCommand(t, "-quiet", dir+"nodes.json", dir+"manifests")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "warning: Deployment spec.template.spec.containers[].ports[].hostPort: not modelled, ignored (1 object, first "+dir+"manifests/web.yaml: Deployment default/web)\n"+
		"warning: Pod spec.volumes[].persistentVolumeClaim: not modelled, ignored (1 object, first "+dir+"manifests/db.yaml: Pod default/db)\n", errOut)
	var res struct {
		Pods []struct{ Name, Node, Phase string } `json:"pods"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Pods, 9)
	require.Equal(t, "node-exporter-master-1", res.Pods[4].Name, "the folder's files in name order: batch, db, node-exporter, web")
	require.Equal(t, "master-1", res.Pods[4].Node)

	_, errOut, code = runCommand(t, "-nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "flag provided but not defined: -nope")
}

// -duration gives the pods of Kubernetes objects a run time, so that a
// Job completes; a bad one is an error.
func TestDurationFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "job.yaml")
	require.NoError(t, os.WriteFile(file, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\"}}\n---\n"+
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: etl}\nspec: {completions: 5, parallelism: 3,\n"+
		"  template: {spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}}}\n"), 0o644))
	out, errOut, code := runCommand(t, "-duration", "{fixed: 30m}", file)
	require.Equal(t, 0, code, errOut)
	var res struct {
		Jobs []struct{ Name, Status, FinishedAt string } `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, []struct{ Name, Status, FinishedAt string }{{"etl", "Complete", "1h0m0s"}}, res.Jobs)

	out, _, code = runCommand(t, file)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"status": "Running"`, "without a run time the Job runs for ever")

	_, errOut, code = runCommand(t, "-duration", "30 minutes", file)
	require.Equal(t, 2, code, "a misuse of the flags, as capacity-planning says it")
	require.Contains(t, errOut, `invalid value "30 minutes" for flag -duration`)
}

// A configuration naming a plugin the simulator does not have runs
// without it, with a warning, as a user with an out-of-tree scheduler
// expects of the command (the Go API refuses it by default).
func TestUnknownPluginWarns(t *testing.T) {
	f := filepath.Join(t.TempDir(), "sched.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint: {enabled: [{name: Coscheduling}]}
  pluginConfig: [{name: Coscheduling, args: {permitWaitingTimeSeconds: 10}}]
---
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "2", memory: 2Gi, pods: "10"}}
`), 0o600))
	_, errOut, code := runCommand(t, f)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: KubeSchedulerConfiguration plugin Coscheduling: not a plugin the simulator has (out of tree, or misspelt): left out of the profile")
	require.Contains(t, errOut, "warning: KubeSchedulerConfiguration pluginConfig Coscheduling: not a plugin the simulator has: its arguments are ignored")
}

// A run that never settles ends at the safety cap with its result so far
// and a warning; the command exits 0.
func TestLivelockWarnsAndExitsZero(t *testing.T) {
	if raceOn {
		t.Skip("100,000 evictions: the run without the race detector checks it")
	}
	out, errOut, code := runCommand(t, "-quiet", "../../scenario/testdata/livelock.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "warning: the run stopped before it settled: 100000 evictions")
	require.Contains(t, errOut, "evicted most: default/v (100000 evictions, the last by default/db)")
	var res struct {
		Pods    []struct{ Name, Phase string } `json:"pods"`
		Stopped string                         `json:"stopped"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Pods, 2)
	require.Contains(t, res.Stopped, "evicted most: default/v")
}
