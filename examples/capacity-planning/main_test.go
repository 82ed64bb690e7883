package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// When this variable is set the test binary behaves as the command, so that
// tests can check its exit status and output streams.
const asCommand = "GANGSIM_CAPACITY_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runCommand runs the command with args and extra environment variables.
func runCommand(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asCommand+"=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

// The README's main job: the embedded default day, its summary and its
// files, plots included. (How long it takes is measured in BENCHMARKS.md,
// not here: a loaded machine would fail a timed test.)
func TestDefaultDay(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCommand(t, nil, "-out", dir, "-quiet")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "no warning, and no progress with -quiet")
	for _, want := range []string{"default.yaml: simulated 0s to", "224 nodes", "nvidia.com/gpu (GPUs)", "WAIT", "priority 500",
		"PREEMPTIONS", "rack=a01", "NODE GROUP", "train-burst  0..16", "waiting for a node", "Wrote to " + dir,
		// Kueue's section: the two teams' ClusterQueues in their cohort
		"KUEUE  1680 workloads, 1680 admitted", "team-a        research  240", "team-b        research  1440", "TIME TO ADMISSION",
		"default/notebooks  team-a",
		// and its what-if, beside the day
		"What if team-a had 4 GPUs more of nominal quota? (-variant base -variant quota:team-a:default:nvidia.com/gpu:nominalQuota=+4)",
		"ClusterQueue team-a time to admission mean / p50 / p90 / p99", "-smallest-quota CQ:FLAVOR:RESOURCE"} {
		assert.Contains(t, out, want)
	}
	var rep struct {
		Nodes int `json:"nodes"`
		Pods  struct {
			Arrived int `json:"arrived"`
		} `json:"pods"`
		Series      []json.RawMessage `json:"series"`
		Autoscaling struct {
			NodeGroups []struct {
				Name       string  `json:"name"`
				NodesAdded int     `json:"nodesAdded"`
				Cost       float64 `json:"cost"`
			} `json:"nodeGroups"`
		} `json:"autoscaling"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, 224, rep.Nodes)
	assert.Positive(t, rep.Pods.Arrived)
	assert.NotEmpty(t, rep.Series)
	// the day's training gangs outgrow the static racks: the node group
	// adds whole racks, and they cost
	require.Len(t, rep.Autoscaling.NodeGroups, 1)
	g := rep.Autoscaling.NodeGroups[0]
	assert.Equal(t, "train-burst", g.Name)
	assert.Positive(t, g.NodesAdded)
	assert.Positive(t, g.Cost)
	for _, name := range []string{"timeseries.csv", "waits.csv", "allocation.svg", "pending.svg", "waits.svg", "domains-rack.svg", "nodegroups.svg"} {
		info, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.Positive(t, info.Size(), name)
	}
	for _, name := range []string{"allocation.png", "pending.png", "waits.png", "domains-rack.png", "nodegroups.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		_, err = png.Decode(f)
		f.Close()
		require.NoError(t, err, name)
	}
}

// A run with shared GPUs has the devices sections: in the table, in
// report.json, as CSV columns and as a figure. By hand in the file: at
// first six 0.3 shares fill gpu-0 of each node to 0.9, and of the 2.2 GPUs
// free only the 0.1 left on each gpu-0 is too small for a share: 9.09%.
func TestGPUSharingReport(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCommand(t, nil, "-out", dir, "testdata/gpu-sharing.yaml")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"DEVICES", "class=gpu", "model=A100", "DEVICE FRAGMENTATION", "devices.png"} {
		assert.Contains(t, out, want)
	}
	var rep struct {
		Devices []struct {
			By, Name string
			Devices  float64
		} `json:"devices"`
		DeviceFragmentation []struct {
			Class     string `json:"class"`
			TaskTypes int    `json:"taskTypes"`
		} `json:"deviceFragmentation"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	require.Len(t, rep.Devices, 3)
	assert.Equal(t, 4.0, rep.Devices[0].Devices)
	require.Len(t, rep.DeviceFragmentation, 1)
	assert.Equal(t, 2, rep.DeviceFragmentation[0].TaskTypes)
	csv, err := os.ReadFile(filepath.Join(dir, "timeseries.csv"))
	require.NoError(t, err)
	lines := strings.Split(string(csv), "\n")
	assert.Contains(t, lines[0], ",class=gpu device fragmentation (%),class=gpu fragmented devices (devices)")
	assert.True(t, strings.HasSuffix(lines[1], ",9.0909,0.2"), lines[1])
	_, err = os.Stat(filepath.Join(dir, "devices.svg"))
	require.NoError(t, err)
}

// The question, answered: how many racks must be added so that
// every training job starts within a minute (by hand in the file: 20).
func TestRacksQuestionJSON(t *testing.T) {
	out, errOut, code := runCommand(t, nil, "-add-like-rack", "g01", "-max-wait", "1m", "-json", "testdata/training.yaml")
	require.Equal(t, 0, code, errOut)
	var ans struct {
		RacksToAdd *int `json:"racksToAdd"`
		Found      bool `json:"found"`
		Runs       []struct {
			RacksToAdd int  `json:"racksToAdd"`
			OK         bool `json:"ok"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	require.NotNil(t, ans.RacksToAdd)
	assert.Equal(t, 20, *ans.RacksToAdd)
	ok := map[int]bool{}
	for _, r := range ans.Runs {
		ok[r.RacksToAdd] = r.OK
	}
	assert.Equal(t, map[int]bool{19: false, 20: true}, map[int]bool{19: ok[19], 20: ok[20]}, "minimal: one rack fewer fails")
}

// -add-like with -json: at least nodesToAdd, an integer, and the runs.
func TestAddLikeJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "five.yaml")
	require.NoError(t, os.WriteFile(file, []byte("nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\npods: [{name: p, requests: {cpu: \"3\"}, count: 5}]\n"), 0o644))
	out, errOut, code := runCommand(t, nil, "-add-like", "n-0", "-json", file)
	require.Equal(t, 0, code, errOut)
	var ans map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &ans))
	assert.Equal(t, 3.0, ans["nodesToAdd"])
	assert.Len(t, ans["runs"], 5)

	table, _, code := runCommand(t, nil, "-add-like", "n-0", file)
	require.Equal(t, 0, code)
	assert.Contains(t, table, "Answer: 3 (add:n-0:3), after 5 runs.")

	// with one variant, the question is asked of the variant
	out, errOut, code = runCommand(t, nil, "-add-like", "n-0", "-variant", "add:n-0:1", "-json", file)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &ans))
	assert.Equal(t, 2.0, ans["nodesToAdd"])
	assert.Equal(t, "fewest nodes like n-0 to add so that every pod is placed, with add:n-0:1", ans["question"])
}

// A sweep written as an Indexed Job, run completion by completion through
// JOB_COMPLETION_INDEX and merged, gives the local comparison.
func TestSweepLocally(t *testing.T) {
	dir := t.TempDir()
	variants := []string{"-variant", "base", "-variant", "add:g01-0:4", "-variant", "strategy:MostAllocated"}
	file := "testdata/training.yaml"
	job := filepath.Join(dir, "job.yaml")
	out, errOut, code := runCommand(t, nil, append(append([]string{"-write-job", job, "-job-image", "registry.example/cp:v1"}, variants...), file)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "an Indexed Job of 3 completions")
	yamlText, err := os.ReadFile(job)
	require.NoError(t, err)
	for _, want := range []string{"completionMode: Indexed", "completions: 3", "image: registry.example/cp:v1", "- -sweep-worker", "- /scenarios/training.yaml", "training.yaml: |"} {
		assert.Contains(t, string(yamlText), want)
	}

	var lines strings.Builder
	for i := range 3 {
		line, errOut, code := runCommand(t, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, append(append([]string{"-sweep-worker"}, variants...), file)...)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, 1, strings.Count(line, "\n"), "one JSON line")
		lines.WriteString(line)
	}
	linesFile := filepath.Join(dir, "lines.jsonl")
	require.NoError(t, os.WriteFile(linesFile, []byte(lines.String()), 0o644))
	merged, errOut, code := runCommand(t, nil, "-merge", linesFile, "-json")
	require.Equal(t, 0, code, errOut)
	local, errOut, code := runCommand(t, nil, append(append([]string{"-json"}, variants...), file)...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, local, merged)

	_, errOut, code = runCommand(t, nil, append([]string{"-sweep-worker"}, variants...)...)
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, "JOB_COMPLETION_INDEX is not set")
}

// -duration gives the pods of Kubernetes objects a run time: a Job of
// five completions, three at a time, holds 2.5 core-hours and ends at 1h.
func TestDurationFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "job.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`{"apiVersion": "v1", "kind": "List", "items": [
{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4"}}},
{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl"}, "spec": {"completions": 5, "parallelism": 3,
  "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}}]}`), 0o644))
	out, errOut, code := runCommand(t, nil, "-out", "", "-json", "-duration", "30m", file)
	require.Equal(t, 0, code, errOut)
	var rep struct {
		EndSeconds float64 `json:"endSeconds"`
		Resources  []struct {
			Resource       string  `json:"resource"`
			AllocatedHours float64 `json:"allocatedHours"`
		} `json:"resources"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 3600.0, rep.EndSeconds)
	assert.Equal(t, "cpu", rep.Resources[0].Resource)
	assert.InDelta(t, 2.5, rep.Resources[0].AllocatedHours, 1e-9)
}

// -each compares the inputs side by side, each simulated on its own.
func TestCompareFiles(t *testing.T) {
	out, errOut, code := runCommand(t, nil, "-out", "", "-each", "testdata/training.yaml", "../../scenario/testdata/scenarios/workloads.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "side by side")
	assert.Contains(t, out, "training.yaml")
	assert.Contains(t, out, "workloads.yaml")
}

func TestBadUse(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-add-like", "a", "-remove-like", "b"}, 2, "give one of -add-like, -add-like-rack, -remove-like, -smallest-group-max, -smallest-quota, -when, -variant and -merge"},
		{[]string{"-smallest-quota", "team-a:gpu"}, 2, `-smallest-quota "team-a:gpu" is not CLUSTERQUEUE:FLAVOR:RESOURCE`},
		{[]string{"-smallest-quota", "team-a:gpu:nvidia.com/gpu", "-max-wait", "5m", "-wait-of", "train"}, 2, "-wait-of does not go with it"},
		{[]string{"-smallest-quota", "team-z:gpu:nvidia.com/gpu"}, 1, `-smallest-quota: whatif: change does not apply: ClusterQueue "team-z" is not one of the scenario's`},
		{[]string{"-variant", "quota:team-a:default:nvidia.com/gpu:nominalQuota=lots"}, 1, `nominalQuota "lots" is not a quantity of nvidia.com/gpu`},
		{[]string{"-max-wait", "5m"}, 2, "-max-wait and -limit go with -add-like"},
		{[]string{"-smallest-group-max", "g", "-max-wait", "5m", "-wait-quantile", "0.75"}, 2, "-wait-quantile is 0.5, 0.9, 0.99 or 1"},
		{[]string{"-smallest-group-max", "g", "-wait-of", "train"}, 2, "-wait-of goes with -max-wait"},
		{[]string{"-workers", "-1"}, 2, "-workers -1 is negative"},
		{[]string{"-smallest-group-max", "g", "-limit", "1000000000"}, 2, "-limit 1000000000 is above 100000, the largest count a question tries"},
		{[]string{"-max-wait", "soon"}, 2, `invalid value "soon" for flag -max-wait`},
		{[]string{"-duration", "soon"}, 2, `invalid value "soon" for flag -duration: scenario: run time "soon"`},
		{[]string{"-variant", "grow:1"}, 2, `unknown change "grow"`},
		{[]string{"-write-job", "j.yaml", "-variant", "base"}, 2, "-write-job needs -job-image"},
		{[]string{"-sweep-worker"}, 2, "a sweep needs its variants"},
		{[]string{"-add-like", "n", "-each", "a.yaml", "b.yaml"}, 2, "-each compares the inputs side by side; questions, variants and sweeps take them merged"},
		{[]string{"-each", "-variant", "base"}, 2, "-each compares the inputs side by side"},
		{[]string{"-add-like", "nope"}, 1, `-add-like: whatif: change does not apply: node "nope" is not one of the scenario's nodes`},
		{[]string{"no-such-file.yaml"}, 1, "no-such-file.yaml"},
		{[]string{"../../scenario/testdata/scenarios/bad/workload-rate.yaml"}, 1, `workloads[0] (web).arrival.rate: "12 per hour" is not a rate`},
		{[]string{"-merge", "no-such-lines"}, 1, "no-such-lines"},
		{[]string{"-runs", "3"}, 2, "-runs goes with -when"},
		{[]string{"-when", "Job b", "-runs", "0"}, 2, "-runs 0: from 1 to 10000"},
		{[]string{"-when", "Job b", "-variant", "base"}, 2, "-when takes no -variant"},
		{[]string{"-when", "Job b", "-add-like", "n"}, 2, "give one of"},
		{[]string{"-when", "Job nope", "../../whatif/testdata/when/dump.yaml"}, 1, `whatif: no such job: "Job nope" makes no pods in the inputs (they hold Job default/a, Job default/b)`},
		{[]string{"-when", "../../whatif/testdata/when/dump.yaml", "../../whatif/testdata/when/dump.yaml"}, 1, "defined twice"},
		{[]string{"-when", "no-such-job.yaml"}, 1, "no-such-job.yaml"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runCommand(t, nil, append([]string{"-out", ""}, tt.args...)...)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestHelp(t *testing.T) {
	_, errOut, code := runCommand(t, nil, "-h")
	assert.Equal(t, 0, code)
	for _, want := range []string{"-add-like NODE", "-add-like-rack RACK", "-smallest-quota CQ:FLAVOR:RESOURCE", "quota:CQ:FLAVOR:RESOURCE", "-variant SPEC", "-write-job FILE", "-merge FILE", "-json"} {
		assert.Contains(t, errOut, want)
	}
}

// The inputs of a cluster as people have them: a kubectl dump of its
// nodes and a folder of manifests, one of which runs on the dump's
// control-plane node. They merge into one simulation, which answers a
// question in one command, with the warnings on standard error, once.
// By hand: 21 cores of requests that may go on the two 8-core workers
// (4 web pods of 2, 3 batch pods of 4, db's 1): one worker more.
func TestNodesDumpAndManifestsFolder(t *testing.T) {
	inputs := []string{"testdata/cluster/nodes.json", "testdata/cluster/manifests"}
	out, errOut, code := runCommand(t, nil, append([]string{"-add-like", "worker-1", "-json"}, inputs...)...)
	require.Equal(t, 0, code, errOut)
	var ans struct {
		NodesToAdd int `json:"nodesToAdd"`
		Found      bool
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	assert.Equal(t, 1, ans.NodesToAdd)
	warnings := []string{
		"Deployment spec.template.spec.containers[].ports[].hostPort: not modelled, ignored (1 object, first testdata/cluster/manifests/web.yaml: Deployment default/web)",
		"Pod spec.volumes[].persistentVolumeClaim: not modelled, ignored (1 object, first testdata/cluster/manifests/db.yaml: Pod default/db)",
	}
	assert.Equal(t, "warning: "+warnings[0]+"\nwarning: "+warnings[1]+"\n", errOut, "each warning once, however many runs the search took")

	// the report lists them too
	dir := t.TempDir()
	out, errOut, code = runCommand(t, nil, append([]string{"-out", dir, "-quiet"}, inputs...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "nodes.json, manifests: simulated")
	var rep struct {
		Nodes    int      `json:"nodes"`
		Warnings []string `json:"warnings"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, 3, rep.Nodes)
	assert.Equal(t, warnings, rep.Warnings)
}

// -remove-like without -max-wait says what it judged by, cautions that
// waits were not bounded (here up to 70h), and points to -max-wait;
// "No answer" names the pods no node of the kind could hold.
func TestAnswersExplainThemselves(t *testing.T) {
	file := filepath.Join(t.TempDir(), "queue.yaml")
	require.NoError(t, os.WriteFile(file, []byte("nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\n"+
		"pods: [{name: p, requests: {cpu: \"4\"}, duration: 10h, count: 8}, {name: huge, requests: {cpu: \"64\"}, duration: 1h}]\n"), 0o644))
	out, errOut, code := runCommand(t, nil, "-remove-like", "n-0", "-quiet", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "No answer: the scenario does not meet the criteria even as it is: 1 pod is still pending (huge).")

	require.NoError(t, os.WriteFile(file, []byte("nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\n"+
		"pods: [{name: p, requests: {cpu: \"4\"}, duration: 10h, count: 8}]\n"), 0o644))
	out, errOut, code = runCommand(t, nil, "-remove-like", "n-0", file)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"Answer: 1 (remove:n-0:1)", "Judged by: every pod placed by the end of the run; waits not bounded.",
		"Caution: waits were not bounded", "up to 70h0m0s", "ask again with -max-wait"} {
		assert.Contains(t, out, want)
	}
	out, errOut, code = runCommand(t, nil, "-remove-like", "n-0", "-json", file)
	require.Equal(t, 0, code, errOut)
	var ans struct {
		Criterion string   `json:"criterion"`
		Cautions  []string `json:"cautions"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans))
	assert.Equal(t, "every pod placed by the end of the run; waits not bounded", ans.Criterion)
	assert.Len(t, ans.Cautions, 2)

	require.NoError(t, os.WriteFile(file, []byte("nodes: [{name: n, allocatable: {cpu: \"4\"}, count: 2}]\n"+
		"pods: [{name: big, requests: {cpu: \"6\"}, count: 3}, {name: p, requests: {cpu: \"1\"}}]\n"), 0o644))
	out, errOut, code = runCommand(t, nil, "-add-like", "n-0", "-limit", "3", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "No answer: with 3 added, 3 pods are still pending (big-0, big-1, big-2); none of them fits an empty node like n-0.")
	assert.Contains(t, out, "  3 pods fit no empty node of the kind added: Insufficient cpu (big-0, big-1, big-2)")
}

// The written Job runs: its ConfigMaps, put in a folder as the kubelet
// mounts them (binaryData decoded), give every completion the inputs, a
// file over 1 MiB gzip-compressed included, and the merged lines are the
// local comparison.
func TestSweepJobRunsFromItsConfigMaps(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml") // over a ConfigMap's 1 MiB: shipped compressed
	var b strings.Builder
	for i := 0; b.Len() <= 1<<20; i++ {
		fmt.Fprintf(&b, "# padding line %d, so that the file is larger than a ConfigMap holds\n", i)
	}
	b.WriteString("pods: [{name: extra, requests: {cpu: \"1\"}, count: 3}]\n")
	require.NoError(t, os.WriteFile(big, []byte(b.String()), 0o644))
	inputs := []string{"testdata/cluster/nodes.json", "testdata/cluster/manifests", big}
	variants := []string{"-variant", "base", "-variant", "add:worker-1:1"}
	job := filepath.Join(dir, "job.yaml")
	out, errOut, code := runCommand(t, nil, append(append([]string{"-write-job", job, "-job-image", "i"}, variants...), inputs...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "its 6 scenario files")
	assert.Contains(t, out, "kubectl create -f "+job)

	mounted := filepath.Join(dir, "scenarios")
	require.NoError(t, os.Mkdir(mounted, 0o755))
	data, err := os.ReadFile(job)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var args []string
	for {
		var doc struct {
			Kind       string
			Data       map[string]string
			BinaryData map[string]string `yaml:"binaryData"`
			Spec       struct {
				Template struct {
					Spec struct {
						Containers []struct{ Args []string }
					}
				}
			}
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		}
		require.NoError(t, err)
		for k, v := range doc.Data {
			require.NoError(t, os.WriteFile(filepath.Join(mounted, k), []byte(v), 0o644))
		}
		for k, v := range doc.BinaryData {
			raw, err := base64.StdEncoding.DecodeString(v)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(mounted, k), raw, 0o644))
		}
		if doc.Kind == "Job" {
			args = doc.Spec.Template.Spec.Containers[0].Args
		}
	}
	require.Contains(t, args, "/scenarios/big.yaml.gz")
	for i, a := range args {
		args[i] = strings.Replace(a, "/scenarios/", mounted+"/", 1)
	}
	var lines strings.Builder
	for i := range 2 {
		line, errOut, code := runCommand(t, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, args...)
		require.Equal(t, 0, code, errOut)
		assert.Empty(t, errOut, "a worker prints its line and nothing else: kubectl logs mixes the streams")
		lines.WriteString(line)
	}
	linesFile := filepath.Join(dir, "lines.jsonl")
	require.NoError(t, os.WriteFile(linesFile, []byte(lines.String()), 0o644))
	comparison := func(args ...string) (c struct {
		Scenario string            `json:"scenario"`
		Variants []json.RawMessage `json:"variants"`
	}) {
		out, errOut, code := runCommand(t, nil, args...)
		require.Equal(t, 0, code, errOut)
		require.NoError(t, json.Unmarshal([]byte(out), &c))
		return c
	}
	merged := comparison("-merge", linesFile, "-json")
	local := comparison(append(append([]string{"-quiet", "-json"}, variants...), inputs...)...)
	assert.Equal(t, local.Variants, merged.Variants, "the same outcomes; the scenarios' names differ by their paths")
	assert.Contains(t, string(merged.Variants[1]), `"podsPlaced": 12`)
}

// The node group question on the default day: the smallest max of the
// training group that keeps the p99 wait of the training pods within 5m;
// every run it took has its cost.
func TestSmallestGroupMax(t *testing.T) {
	out, errOut, code := runCommand(t, nil, "-quiet", "-json", "-smallest-group-max", "train-burst", "-max-wait", "5m",
		"-wait-quantile", "0.99", "-wait-of", "train", "-limit", "12")
	require.Equal(t, 0, code, errOut)
	var ans struct {
		Found    bool `json:"found"`
		GroupMax int  `json:"groupMax"`
		Runs     []struct {
			Cost float64 `json:"cost"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	require.True(t, ans.Found, out)
	assert.Positive(t, ans.GroupMax)
	assert.LessOrEqual(t, ans.GroupMax, 12)
	require.NotEmpty(t, ans.Runs)
	for _, r := range ans.Runs {
		assert.Positive(t, r.Cost)
	}
}

// Kueue's quota question on the default day: the smallest nominal quota
// of GPUs of team-a (the notebooks, which wait for quota) that keeps the
// p90 of their times to admission within 15 minutes. team-a borrows the 4
// GPUs team-b lends, so even none of its own admits every notebook,
// hours late; 7 leaves the p90 over 15 minutes, the 8 it has within.
func TestSmallestQuota(t *testing.T) {
	out, errOut, code := runCommand(t, nil, "-quiet", "-json", "-smallest-quota", "team-a:default:nvidia.com/gpu", "-max-wait", "15m",
		"-wait-quantile", "0.9")
	require.Equal(t, 0, code, errOut)
	var ans struct {
		Found        bool   `json:"found"`
		NominalQuota int    `json:"nominalQuota"`
		Limit        int    `json:"limit"`
		Variant      string `json:"variant"`
		Runs         []struct {
			NominalQuota int     `json:"nominalQuota"`
			OK           bool    `json:"ok"`
			Pending      int     `json:"workloadsPendingAtEnd"`
			Bounded      float64 `json:"boundedWaitSeconds"`
		} `json:"runs"`
		Summary struct {
			Kueue struct {
				ClusterQueues []struct {
					Name  string `json:"name"`
					Quota []struct {
						Resource string  `json:"resource"`
						Nominal  float64 `json:"nominal"`
					} `json:"quota"`
				} `json:"clusterQueues"`
			} `json:"kueue"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	require.True(t, ans.Found, out)
	assert.Equal(t, 8, ans.NominalQuota)
	assert.Equal(t, 16, ans.Limit, "twice the 8 GPUs it has")
	assert.Equal(t, "quota:team-a:default:nvidia.com/gpu:nominalQuota=8", ans.Variant)
	var counts []int
	for _, r := range ans.Runs {
		counts = append(counts, r.NominalQuota)
		assert.Zero(t, r.Pending, "borrowing admits every notebook in the end")
		assert.Equal(t, r.Bounded <= 15*60, r.OK)
	}
	assert.Equal(t, []int{0, 1, 2, 4, 8, 6, 7}, counts)
	require.Len(t, ans.Summary.Kueue.ClusterQueues, 2)
	assert.Equal(t, "team-a", ans.Summary.Kueue.ClusterQueues[0].Name)
	assert.InDelta(t, 8, ans.Summary.Kueue.ClusterQueues[0].Quota[2].Nominal, 0)
}

// -when answers from a dump: the new job d and the dump's pending b, as
// whatif's tests work them out (testdata/when there).
func TestWhen(t *testing.T) {
	dir := "../../whatif/testdata/when/"
	out, errOut, code := runCommand(t, nil, "-when", dir+"small.yaml", "-when", "Job b", dir+"dump.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, `When will it start? From the moment of the inputs (time 0), one run.

Job default/b: starts at 12m1s (its pods all bound; the first at 12m1s)
  Kueue: Workload job-b-5678 admitted at 12m1s to ClusterQueue cq (main: cpu=default-flavor)
  waited for quota: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 more needed

Job default/d: starts at 2ms (its pods all bound; the first at 2ms)
  Kueue: Workload job-d-f93ac admitted at 2ms to ClusterQueue cq (main: cpu=default-flavor)
`, out)
	out, errOut, code = runCommand(t, nil, "-json", "-runs", "3", "-duration", "{exponential: 30m}", "-when", dir+"small.yaml", "-when", "Job b", dir+"dump.yaml")
	require.Equal(t, 0, code, errOut)
	var got struct {
		Runs int `json:"runs"`
		Jobs []struct {
			Job         string   `json:"job"`
			StartedRuns int      `json:"startedRuns"`
			StartP50    string   `json:"startP50"`
			Starts      []string `json:"starts"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Equal(t, 3, got.Runs)
	require.Len(t, got.Jobs, 2)
	assert.Equal(t, "Job default/b", got.Jobs[0].Job)
	assert.Equal(t, 3, got.Jobs[0].StartedRuns)
	assert.Len(t, got.Jobs[0].Starts, 3)
	// a file of new jobs on the embedded default day
	out, errOut, code = runCommand(t, nil, "-when", dir+"small.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Job default/d: ")
}
