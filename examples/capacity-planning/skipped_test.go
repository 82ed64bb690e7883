package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gpuFolder writes a folder as GPU users have one: a node, a Deployment
// of two pods of 1 GPU, and a TFJob and a RayService the simulator does
// not read (8 workers; a head and 3 workers: 12 missing).
func gpuFolder(t *testing.T, withPods bool) string {
	dir := t.TempDir()
	files := map[string]string{
		"node.yaml":       "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-0}\nstatus: {allocatable: {cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"8\", pods: \"110\"}}\n",
		"tfjob.yaml":      "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: train}\nspec: {tfReplicaSpecs: {Worker: {replicas: 8}}}\n",
		"rayservice.yaml": "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: serve}\nspec: {rayClusterConfig: {workerGroupSpecs: [{groupName: g, replicas: 3}]}}\n",
		"svc.yaml":        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
	}
	if withPods {
		files["web.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n" +
			"  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"1\"}}}]}\n"
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

// Skipped workloads are said in the summary, listed in report.json, and
// end the command with exit 3, which -allow-skipped turns into 0.
func TestSkippedWorkloadsExit3(t *testing.T) {
	dir, out := gpuFolder(t, true), t.TempDir()
	stdout, stderr, code := runCommand(t, nil, "-out", out, "-quiet", dir)
	require.Equal(t, 3, code, stderr)
	note := "2 objects that make pods were skipped, not read by the simulator (RayService 1, TFJob 1): 12 pods missing from the figures."
	assert.Contains(t, stdout, "NOTE: "+note)
	assert.Contains(t, stderr, "exit 3: 2 objects that make pods were skipped")
	assert.Contains(t, stderr, "-allow-skipped")
	var rep struct {
		Notices []string `json:"notices"`
		Skipped []struct {
			Kind    string `json:"kind"`
			Objects int    `json:"objects"`
			Pods    int    `json:"pods"`
		} `json:"skipped"`
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	require.Len(t, rep.Skipped, 2)
	assert.Equal(t, 4, rep.Skipped[0].Pods)
	assert.Equal(t, 8, rep.Skipped[1].Pods)
	assert.Equal(t, note, rep.Notices[0])
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "12 pods missing from the figures")

	// a question too, and -allow-skipped accepts it
	_, stderr, code = runCommand(t, nil, "-add-like", "gpu-0", "-quiet", dir)
	assert.Equal(t, 3, code, stderr)
	_, stderr, code = runCommand(t, nil, "-out", "", "-allow-skipped", "-quiet", dir)
	assert.Equal(t, 0, code, stderr)
}

// A folder that gives no pod at all is an error, which names what was
// skipped, not a report of zeros.
func TestNoPodIsAnError(t *testing.T) {
	dir := gpuFolder(t, false)
	_, stderr, code := runCommand(t, nil, "-out", "", "-quiet", dir)
	require.Equal(t, 1, code)
	assert.Contains(t, stderr, "invalid scenario: "+dir+": the inputs make no pod, so there is nothing to simulate; "+
		"2 objects that make pods were skipped, not read by the simulator (RayService 1, TFJob 1): 12 pods not simulated")
}

// A run in which no pod has a run time says that nothing ends, that the
// waits mean nothing, and how to give run times; with -duration it does
// not.
func TestNoRunTimesNotice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "forever.yaml")
	require.NoError(t, os.WriteFile(file, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"4\"}}\n---\n"+
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: p}}\n"+
		"  template:\n    metadata: {labels: {app: p}}\n    spec: {containers: [{name: c, resources: {requests: {cpu: \"3\"}}}]}\n"), 0o644))
	stdout, stderr, code := runCommand(t, nil, "-out", "", "-quiet", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "NOTE: No pod has a run time, so nothing ends")
	assert.Contains(t, stdout, "waits are not meaningful")
	assert.Contains(t, stdout, "-duration 30m")
	stdout, stderr, code = runCommand(t, nil, "-out", "", "-quiet", "-duration", "1h", file)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "NOTE:")
}

// A folder's mistakes are reported at once, one line each, and the
// command exits 1.
func TestFolderErrorsAtOnce(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: {memroy: 1Gi}}}]}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: -1}\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".yaml"), []byte(text), 0o644))
	}
	_, stderr, code := runCommand(t, nil, "-out", "", "-quiet", dir)
	require.Equal(t, 1, code)
	assert.Regexp(t, `^invalid scenario: \S+/a.yaml: line 4: Pod default/a: .*memroy.*\ninvalid scenario: \S+/b.yaml: line 4: Deployment default/web: spec.replicas: -1 is negative\n$`, stderr)
}

// A GKE node dump turns ExtendedResourceToleration on: the GPU pods run on
// the tainted GPU node; -extended-resource-toleration=false turns it off,
// and a warning says why the pods stay pending.
func TestGKEExtendedResourceToleration(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gke.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`apiVersion: v1
kind: Node
metadata: {name: gke-gpu-0, labels: {cloud.google.com/gke-nodepool: gpu-pool}}
spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
status: {allocatable: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "4", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: infer}
spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
`), 0o644))
	stdout, stderr, code := runCommand(t, nil, "-out", "", "-quiet", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "1 arrived, 1 placed")
	assert.Contains(t, stderr, "ExtendedResourceToleration admission is on")
	stdout, stderr, code = runCommand(t, nil, "-out", "", "-quiet", "-extended-resource-toleration=false", file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "1 arrived, 0 placed")
	assert.Contains(t, stderr, "warning: Pod spec.tolerations: does not tolerate the taint of the extended resource it requests (nvidia.com/gpu)")
}

// A sweep's workers load the inputs as the command that wrote the Job:
// with its -duration and -extended-resource-toleration.
func TestSweepWorkersLoadAlike(t *testing.T) {
	job := filepath.Join(t.TempDir(), "job.yaml")
	_, stderr, code := runCommand(t, nil, "-write-job", job, "-job-image", "i", "-duration", "30m", "-extended-resource-toleration=false",
		"-variant", "base", "-variant", "add:g01-0:1", "testdata/training.yaml")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(job)
	require.NoError(t, err)
	assert.Contains(t, string(data), "- -duration\n")
	assert.Contains(t, string(data), "- 30m\n")
	assert.Contains(t, string(data), "- -extended-resource-toleration=false\n")
}

// An answer asked of inputs with skipped workloads cautions that its runs
// lack their pods.
func TestAnswerCautionsSkipped(t *testing.T) {
	stdout, stderr, code := runCommand(t, nil, "-add-like", "gpu-0", "-quiet", gpuFolder(t, true))
	require.Equal(t, 3, code, stderr)
	assert.Contains(t, stdout, "Caution: 2 objects that make pods were skipped, not read by the simulator (RayService 1, TFJob 1): "+
		"12 pods missing from the figures; every run, and so the answer, leaves them out.")
}
