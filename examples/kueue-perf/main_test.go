package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata/tiny/ from the tool's output")

// generate runs the tool into a new folder and returns it.
func generate(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	var stderr bytes.Buffer
	require.NoError(t, run(append(args, "-o", dir), &bytes.Buffer{}, &stderr))
	require.Contains(t, stderr.String(), dir+":")
	return dir
}

// TestTinyGolden pins the tool's output for testdata/tiny.yaml byte for
// byte. Worked out by hand: cohorts team-0 and team-1, each with the
// queues gpu-0-0-team-<c> and cpu-1-0-team-<c>. The gpu set's k-th
// creation comes k × 250 ms in, alternating its templates: a-0-0-0 at
// 250ms, b-0-0-1 at 500ms, a-0-1-0 at 750ms, b-0-1-1 at 1s; the cpu set's
// c-0-0-0 at 500ms and c-0-1-0 at 1s. At equal times the file keeps the
// generation order (team-0 before team-1, gpu before cpu). Nodes: twice
// the quota of all queues, 2 × 2 × (0.5 + 3) = 14 cpu, over 4 nodes is
// 3.5, rounded up to 4 cpu each; 12 pods need fewer than 110 a node.
func TestTinyGolden(t *testing.T) {
	dir := generate(t, "-config", "testdata/tiny.yaml")
	for _, name := range []string{kueueFile, scenarioFile} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		golden := filepath.Join("testdata", "tiny", name)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, got, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s differs from %s (go test -update rewrites it)", name, golden)
	}
}

// TestTinyLoadsAndRuns reads the golden folder as the scenario command
// does and checks what it stands for: the pods' creation times, run times,
// priorities and requests; the ClusterQueues as Kueue's generator makes
// them. Without Kueue's admission every pod is bound when it arrives, so
// the last (c-0-1-0, created at 1s, running 2s) ends at 3s.
func TestTinyLoadsAndRuns(t *testing.T) {
	sc, err := scenario.LoadFiles([]string{filepath.Join("testdata", "tiny")})
	require.NoError(t, err)

	type want struct {
		ns, name string
		at, run  time.Duration
		class    string
		cpu      int64
	}
	ms := time.Millisecond
	wants := []want{
		{"gpu-0-0-team-0", "a-0-0-0", 250 * ms, 1500 * ms, "priority-10", 250},
		{"gpu-0-0-team-1", "a-0-0-0", 250 * ms, 1500 * ms, "priority-10", 250},
		{"gpu-0-0-team-0", "b-0-0-1", 500 * ms, 100 * ms, "priority-minus-5", 1000},
		{"cpu-1-0-team-0", "c-0-0-0", 500 * ms, 2000 * ms, "priority-10", 2000},
		{"gpu-0-0-team-1", "b-0-0-1", 500 * ms, 100 * ms, "priority-minus-5", 1000},
		{"cpu-1-0-team-1", "c-0-0-0", 500 * ms, 2000 * ms, "priority-10", 2000},
		{"gpu-0-0-team-0", "a-0-1-0", 750 * ms, 1500 * ms, "priority-10", 250},
		{"gpu-0-0-team-1", "a-0-1-0", 750 * ms, 1500 * ms, "priority-10", 250},
		{"gpu-0-0-team-0", "b-0-1-1", 1000 * ms, 100 * ms, "priority-minus-5", 1000},
		{"cpu-1-0-team-0", "c-0-1-0", 1000 * ms, 2000 * ms, "priority-10", 2000},
		{"gpu-0-0-team-1", "b-0-1-1", 1000 * ms, 100 * ms, "priority-minus-5", 1000},
		{"cpu-1-0-team-1", "c-0-1-0", 1000 * ms, 2000 * ms, "priority-10", 2000},
	}
	require.Len(t, sc.Pods, len(wants))
	for i, w := range wants {
		p := sc.Pods[i]
		require.Equal(t, w.ns+"/"+w.name, p.Pod.Namespace+"/"+p.Pod.Name, "pod %d", i)
		require.Equal(t, w.at, p.At, p.Pod.Name)
		require.Equal(t, w.run, p.Duration, p.Pod.Name)
		require.Equal(t, w.class, p.Pod.PriorityClassName, p.Pod.Name)
		require.Equal(t, w.cpu, p.Pod.Requests.MilliCPU, p.Pod.Name)
		require.Equal(t, w.ns, p.Pod.Labels[queueNameLabel], p.Pod.Name)
		require.Equal(t, w.name[:1], p.Pod.Labels[classLabel], p.Pod.Name)
	}
	classes := map[string]int32{}
	for _, c := range sc.PriorityClasses {
		classes[c.Name] = c.Value
	}
	require.Equal(t, int32(10), classes["priority-10"])
	require.Equal(t, int32(-5), classes["priority-minus-5"])
	require.Len(t, sc.Nodes, 4)
	require.Equal(t, int64(4000), sc.Nodes[0].Allocatable.MilliCPU)

	k := sc.Kueue
	require.NotNil(t, k)
	require.Equal(t, []string{"default"}, names(k.ResourceFlavors, func(f kueue.ResourceFlavor) string { return f.Name }))
	require.Equal(t, []string{"gpu-0-0-team-0", "cpu-1-0-team-0", "gpu-0-0-team-1", "cpu-1-0-team-1"},
		names(k.ClusterQueues, func(q kueue.ClusterQueue) string { return q.Name }))
	require.Equal(t, []string{"gpu-0-0-team-0/gpu-0-0-team-0", "cpu-1-0-team-0/cpu-1-0-team-0", "gpu-0-0-team-1/gpu-0-0-team-1", "cpu-1-0-team-1/cpu-1-0-team-1"},
		names(k.LocalQueues, func(q kueue.LocalQueue) string { return q.Namespace + "/" + q.Name + "" }))
	gpu, cpuQ := k.ClusterQueues[0], k.ClusterQueues[1]
	require.Equal(t, "team-0", gpu.CohortName)
	require.Equal(t, kueue.BestEffortFIFO, gpu.QueueingStrategy)
	require.NotNil(t, gpu.NamespaceSelector)
	require.Equal(t, kueue.PreemptLowerPriority, gpu.Preemption.ReclaimWithinCohort)
	require.Equal(t, kueue.PreemptLowerOrNewerEqualPriority, gpu.Preemption.WithinClusterQueue)
	q := gpu.ResourceGroups[0].Flavors[0]
	require.Equal(t, "default", q.Name)
	require.Equal(t, cluster.ResourceCPU, q.Resources[0].Name)
	require.Equal(t, int64(500), q.Resources[0].NominalQuota)
	require.Equal(t, int64(2000), *q.Resources[0].BorrowingLimit)
	require.Nil(t, cpuQ.ResourceGroups[0].Flavors[0].Resources[0].BorrowingLimit)
	require.Equal(t, kueue.PreemptNever, cpuQ.Preemption.WithinClusterQueue)
	require.NotNil(t, k.Configuration)
	require.Nil(t, k.Configuration.WaitForPodsReady, "Kueue's perf run has no waitForPodsReady")
	require.Nil(t, k.Configuration.FairSharing)

	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, 12, res.Stats.Scheduled)
	require.Equal(t, 0, res.Stats.Pending)
	// Kueue holds work back: in team-0's cohort (3.5 cpu: 500m + 3),
	// c-0-1-0 (2 cpu, at 1s) finds 2.5 in use (c-0-0-0 2, two a's 250m
	// each) and waits; the requeue batches after each release move it back
	// (2.102s: 2.25 in use, still no room); the one a second after the
	// release at 1.75s comes at 2.75s, when c-0-0-0 has ended (2.5s):
	// admitted then, it runs 2 s, to 4.75s (each team the same)
	require.Equal(t, "4.75s", res.Stats.SimulatedTime)
}

func names[T any](xs []T, name func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}

// TestBaselineLoads writes Kueue's baseline and reads it as the scenario
// command does. Until Kueue's admission runs, the only warnings allowed
// are those of Kueue's kinds (read and checked, not run yet).
func TestBaselineLoads(t *testing.T) {
	dir := generate(t)
	sc, err := scenario.LoadFiles([]string{dir})
	require.NoError(t, err)
	require.Len(t, sc.Pods, 15_000)
	require.Len(t, sc.Kueue.ClusterQueues, 30)
	require.Len(t, sc.Kueue.LocalQueues, 30)
	require.Len(t, sc.Kueue.ResourceFlavors, 1)
	require.Empty(t, sc.Kueue.Cohorts, "Kueue's generator makes no Cohort object")
	for _, w := range sc.Warnings {
		require.Contains(t, []string{"ClusterQueue", "LocalQueue", "ResourceFlavor", "Configuration"}, w.Kind, w.String())
	}
	// The last creation: the large set (every 1.2 s, 50 times) of the last
	// queue, 60 s in; each queue makes 350 + 100 + 50 workloads.
	last := sc.Pods[len(sc.Pods)-1]
	require.Equal(t, "cq-0-5-cohort-4/large-2-49-0", last.Pod.Namespace+"/"+last.Pod.Name)
	require.Equal(t, 60*time.Second, last.At)
	require.Equal(t, time.Second, last.Duration)
	require.Equal(t, int64(20_000), last.Pod.Requests.MilliCPU)
	require.Equal(t, "priority-200", last.Pod.PriorityClassName)
	perClass := map[string]int{}
	for i, p := range sc.Pods {
		perClass[p.Pod.Labels[classLabel]]++
		if i > 0 {
			require.LessOrEqual(t, sc.Pods[i-1].At, p.At, "pods are listed by creation time")
		}
	}
	require.Equal(t, map[string]int{"small": 10_500, "medium": 3_000, "large": 1_500}, perClass)
	// 30 queues of 20 cpu: twice 600 cpu on 4 nodes.
	require.Len(t, sc.Nodes, 4)
	require.Equal(t, int64(300_000), sc.Nodes[0].Allocatable.MilliCPU)
}

// TestLargeScaleSameBytes writes large-scale twice: the same bytes, 1,000
// ClusterQueues and 50,000 workloads.
func TestLargeScaleSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,000 workloads twice")
	}
	read := func(dir string) (string, string) {
		k, err := os.ReadFile(filepath.Join(dir, kueueFile))
		require.NoError(t, err)
		s, err := os.ReadFile(filepath.Join(dir, scenarioFile))
		require.NoError(t, err)
		return string(k), string(s)
	}
	k1, s1 := read(generate(t, "-config", "large-scale"))
	k2, s2 := read(generate(t, "-config", "large-scale"))
	require.Equal(t, k1, k2)
	require.Equal(t, s1, s2)
	require.Equal(t, 1000, strings.Count(k1, "\nkind: ClusterQueue\n"))
	require.Equal(t, 50_000, strings.Count(s1, `"kueue.x-k8s.io/queue-name"`))
}

func TestBadConfigs(t *testing.T) {
	const tasTopo = "topology: {name: t, levels: [{name: rack, count: 2, nodeLabel: r}, {name: node, count: 2, nodeLabel: h}]}\n"
	const tasRF = "resourceFlavor: {name: rf, nodeLabel: pool, topologyName: t}\n"
	const wl = `[{className: s, runtimeMs: 10, priority: 1, request: 1}]`
	cfg := func(queue, workloads string) string {
		return `cohorts: [{className: co, count: 1, queuesSets: [{className: cq, count: 1, nominalQuota: 4` + queue +
			`, workloadsSets: [{count: 2, creationIntervalMs: 10, workloads: ` + workloads + `}]}]}]`
	}
	for _, tc := range []struct{ name, config, want string }{
		{"empty", ``, "empty file"},
		{"no cohorts", `cohorts: []`, "cohorts: at least one cohort set"},
		{"unknown field", `cohort: []`, "field cohort not found"},
		{"TAS topology", `topology: {name: t}` + "\n" + cfg("", wl), "topology.levels: 0 levels: from 2"},
		{"TAS flavor not naming it", tasTopo + `resourceFlavor: {name: rf, nodeLabel: pool}` + "\n" + cfg("", wl), `resourceFlavor.topologyName: must name the topology "t"`},
		{"TAS flavor without label", tasTopo + `resourceFlavor: {name: rf, topologyName: t}` + "\n" + cfg("", wl), `resourceFlavor.nodeLabel: "": `},
		{"TAS level count", strings.Replace(tasTopo, "count: 2", "count: 0", 1) + tasRF + cfg("", wl), "topology.levels[0].count: 0: at least 1"},
		{"TAS hostname not last", strings.Replace(tasTopo, "nodeLabel: r", "nodeLabel: kubernetes.io/hostname", 1) + tasRF + cfg("", wl), "must be the last level"},
		{"TAS constraint", tasTopo + tasRF + cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, tasConstraint: strict, tasLevel: r}]`), `tasConstraint: "strict" is not required, preferred or balanced`},
		{"TAS unknown level", tasTopo + tasRF + cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, tasConstraint: required, tasLevel: zone}]`), `tasLevel: "zone" is not the nodeLabel of a topology level`},
		{"TAS balanced without size", tasTopo + tasRF + cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, podCount: 2, tasConstraint: balanced, tasLevel: r}]`), "sliceSize: 0: from 1 to the workload's 2 pods"},
		{"TAS size without balanced", tasTopo + tasRF + cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, podCount: 2, tasConstraint: required, tasLevel: r, sliceSize: 1}]`), "sliceSize: only for tasConstraint balanced"},
		{"TAS flavor", `resourceFlavor: {name: rf, nodeLabel: x}` + "\n" + cfg("", wl), "resourceFlavor: nodeLabel and topologyName"},
		{"bad flavor name", `resourceFlavor: {name: RF}` + "\n" + cfg("", wl), `resourceFlavor.name: "RF" is not a DNS label`},
		{"negative count", `cohorts: [{className: co, count: -1}]`, "cohorts[0].count: -1 is negative"},
		{"long name", `cohorts: [{className: ` + strings.Repeat("c", 60) + `, count: 1, queuesSets: [{className: cq, count: 1, nominalQuota: 1}]}]`,
			"cohorts[0].queuesSets[0].className: ClusterQueue and namespace"},
		{"capital name", `cohorts: [{className: Co, count: 1, queuesSets: [{className: cq, count: 1, nominalQuota: 1}]}]`, "would not be a DNS label"},
		{"no quota", `cohorts: [{className: co, count: 1, queuesSets: [{className: cq, count: 1}]}]`, "cohorts[0].queuesSets[0].nominalQuota: missing"},
		{"bad quota", strings.Replace(cfg("", wl), "nominalQuota: 4", "nominalQuota: 4x", 1), "cohorts[0].queuesSets[0].nominalQuota: \"4x\" is not a valid quantity"},
		{"bad borrowing", cfg(", borrowingLimit: -2", wl), "cohorts[0].queuesSets[0].borrowingLimit:"},
		{"bad reclaim", cfg(", reclaimWithinCohort: Always", wl), `reclaimWithinCohort: "Always" is not Never, LowerPriority or Any`},
		{"bad within", cfg(", withinClusterQueue: Any", wl), `withinClusterQueue: "Any" is not Never, LowerPriority or LowerOrNewerEqualPriority`},
		{"zero runtime", cfg("", `[{className: s, runtimeMs: 0, priority: 1, request: 1}]`), "workloads[0].runtimeMs: 0: must be at least 1"},
		{"system priority", cfg("", `[{className: s, runtimeMs: 1, priority: 2000000000, request: 1}]`), "workloads[0].priority: 2000000000 is outside"},
		{"no request", cfg("", `[{className: s, runtimeMs: 1, priority: 1}]`), "workloads[0].request: missing"},
		{"bad request", cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: lots}]`), "workloads[0].request: \"lots\" is not a valid quantity"},
		{"bad class", cfg("", `[{className: S_1, runtimeMs: 1, priority: 1, request: 1}]`), `workloads[0].className: "S_1" must be a DNS label`},
		{"pod count", cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, podCount: -4}]`), "workloads[0].podCount: -4: from 0 (one pod)"},
		{"TAS level", cfg("", `[{className: s, runtimeMs: 1, priority: 1, request: 1, tasLevel: rack}]`), "tasConstraint, tasLevel and sliceSize"},
		{"negative interval", strings.Replace(cfg("", wl), "creationIntervalMs: 10", "creationIntervalMs: -10", 1), "creationIntervalMs: -10 is negative"},
		{"too late", strings.Replace(cfg("", wl), "creationIntervalMs: 10", "creationIntervalMs: 9000000000000", 1), "after a hundred years"},
		{"too many", strings.NewReplacer("count: 2,", "count: 9000000,", "count: 1, nominalQuota", "count: 2, nominalQuota").Replace(cfg("", wl)), "more than 10000000 pods in all"},
		{"too many queues", `cohorts: [{className: co, count: 1000, queuesSets: [{className: cq, count: 101, nominalQuota: 1}]}]`, "cohorts[0].queuesSets[0].count: more than 100000 ClusterQueues in all"},
		{"quota as a map", strings.Replace(cfg("", wl), "nominalQuota: 4", "nominalQuota: {cpu: 4}", 1), "a quantity must be a string or a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig("gen.yaml", []byte(tc.config))
			require.ErrorIs(t, err, errConfig)
			require.ErrorContains(t, err, "gen.yaml: ")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTwiceTheSameQueue(t *testing.T) {
	twice := `cohorts:
- {className: co, count: 1, queuesSets: [{className: cq, count: 1, nominalQuota: 1}]}
- {className: co, count: 1, queuesSets: [{className: cq, count: 1, nominalQuota: 1}]}
`
	path := filepath.Join(t.TempDir(), "twice.yaml")
	require.NoError(t, os.WriteFile(path, []byte(twice), 0o644))
	err := run([]string{"-config", path, "-o", filepath.Join(t.TempDir(), "out")}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorIs(t, err, errConfig)
	require.ErrorContains(t, err, "ClusterQueue cq-0-0-co-0 is made twice")

	huge := `cohorts: [{className: co, count: 2, queuesSets: [{className: cq, count: 1, nominalQuota: 9000000000000000}]}]`
	require.NoError(t, os.WriteFile(path, []byte(huge), 0o644))
	err = run([]string{"-config", path, "-o", filepath.Join(t.TempDir(), "out")}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorIs(t, err, errConfig)
	require.ErrorContains(t, err, "nominal quotas add up to more than 1000000000000 cpu")
}

func TestCompare(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-compare"}, &out, &bytes.Buffer{}))
	require.Contains(t, out.String(), "| ClusterQueue usage, class cq | 55.9 % | at least 50.0 % |  |\n")
	require.Contains(t, out.String(), "| mean time to admission, small | 215.5 s | at most 260.0 s |  |\n")
	out.Reset()
	require.NoError(t, run([]string{"-config", "large-scale", "-compare"}, &out, &bytes.Buffer{}))
	require.Contains(t, out.String(), "| wall time of the run | 1179.4 s | at most 1416.0 s |  |\n")
	require.Contains(t, out.String(), "| mean time to admission, large | 105.6 s | at most 128.0 s |  |\n")
	require.ErrorIs(t, run([]string{"-config", "testdata/tiny.yaml", "-compare"}, &out, &bytes.Buffer{}), errUsage)
}

func TestMisuse(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"-nope"}, {"-nodes", "0"}, {"-as", "jobs"}, {"-config", "tas", "-as", "workloads", "-o", os.DevNull + "-x"},
		{"-scale", "0"}, {"-scale", "NaN"}, {"-scale", "1001"}} {
		require.ErrorIs(t, run(args, &bytes.Buffer{}, &bytes.Buffer{}), errUsage, args)
	}
	err := run([]string{"-config", "no-such-file.yaml"}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorIs(t, err, errConfig)
	require.ErrorContains(t, err, "-config: not baseline, large-scale, tas, fair-day or a file that can be read")
}

// TestEmbeddedAreKueues checks the embedded configurations' totals: 30
// queues and 15,000 workloads, 1,000 and 50,000, and tas's 30 and 15,000.
func TestEmbeddedAreKueues(t *testing.T) {
	for _, tc := range []struct {
		name              string
		queues, workloads int
	}{{"baseline", 30, 15_000}, {"large-scale", 1_000, 50_000}, {"tas", 30, 15_000}} {
		c, _, err := loadConfig(tc.name)
		require.NoError(t, err)
		p, err := makePlan(c, 4)
		require.NoError(t, err)
		require.Len(t, p.queues, tc.queues, tc.name)
		require.Len(t, p.workloads, tc.workloads, tc.name)
		require.True(t, slices.IsSortedFunc(p.workloads, func(a, b workload) int { return int(a.at - b.at) }))
	}
}

// TestTinyAsWorkloads writes the tiny configuration as Kueue's Workload
// objects. Each makes its pod <workload>-main-0 with the run time of its
// annotation; the pods come in order of creationTimestamp, but the
// format has them all arrive at time 0 (the gap doc.go describes: when
// the format reads a creation time as an arrival, this test should see
// the times of TestTinyLoadsAndRuns).
func TestTinyAsWorkloads(t *testing.T) {
	var stderr bytes.Buffer
	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, run([]string{"-config", "testdata/tiny.yaml", "-as", "workloads", "-o", dir}, &bytes.Buffer{}, &stderr))
	require.Contains(t, stderr.String(), "these Workloads all arrive at time 0")
	sc, err := scenario.LoadFiles([]string{dir})
	require.NoError(t, err)
	require.Len(t, sc.Pods, 12)
	first, last := sc.Pods[0], sc.Pods[11]
	require.Equal(t, "gpu-0-0-team-0/a-0-0-0-main-0", first.Pod.Namespace+"/"+first.Pod.Name)
	require.Equal(t, 1500*time.Millisecond, first.Duration)
	require.Equal(t, int64(250), first.Pod.Requests.MilliCPU)
	require.Equal(t, "cpu-1-0-team-1/c-0-1-0-main-0", last.Pod.Namespace+"/"+last.Pod.Name)
	require.Equal(t, 2*time.Second, last.Duration)
	for _, p := range sc.Pods {
		require.Zero(t, p.At, "Kubernetes objects arrive at time 0 in this format")
	}
	require.Len(t, sc.Kueue.ClusterQueues, 4)
	require.Len(t, sc.Nodes, 4)

	// Back to pods in the same folder: the List and the nodes file go.
	require.NoError(t, run([]string{"-config", "testdata/tiny.yaml", "-o", dir}, &bytes.Buffer{}, &bytes.Buffer{}))
	_, err = os.Stat(filepath.Join(dir, clusterFile))
	require.ErrorIs(t, err, os.ErrNotExist)
	sc, err = scenario.LoadFiles([]string{dir})
	require.NoError(t, err)
	require.Equal(t, 250*time.Millisecond, sc.Pods[0].At)
}
