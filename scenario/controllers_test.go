package scenario

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/controllers"
)

// ctlResult is a run of Kubernetes objects (and scenario files) with its
// result and its event stream, one event a line.
type ctlResult struct {
	sc     *Scenario
	res    *Result
	events []string
}

func runObjects(t *testing.T, files map[string]string, opts ...Option) ctlResult {
	t.Helper()
	var in []File
	for _, name := range slices.Sorted(maps.Keys(files)) {
		in = append(in, File{Name: name, Data: []byte(files[name])})
	}
	sc, err := ParseFiles(in, opts...)
	require.NoError(t, err)
	sc.Config.CheckInvariants = true
	var events []string
	res, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) { events = append(events, e.String()) }))
	require.NoError(t, err)
	return ctlResult{sc, res, events}
}

// phases maps each pod of the result to its phase and node.
func (r ctlResult) phases() map[string]string {
	out := map[string]string{}
	for _, p := range r.res.Pods {
		out[p.Name] = string(p.Phase) + " " + p.Node
	}
	return out
}

// named are the events of the kinds given, as "time kind pod".
func (r ctlResult) named(kinds ...string) []string {
	var out []string
	for _, e := range r.events {
		f := strings.Fields(e)
		for _, k := range kinds {
			if len(f) >= 3 && f[1] == k {
				out = append(out, f[0]+" "+f[1]+" "+f[2])
			}
		}
	}
	return out
}

func (r ctlResult) job(name string) JobResult {
	for _, j := range r.res.Jobs {
		if j.Name == name {
			return j
		}
	}
	return JobResult{}
}

const ctlNodes = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", memory: 32Gi}}}
`

// jobYAML is a Job with a run time on its template.
func jobYAML(name, spec, duration string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata: {name: %s}
spec: {%s,
  template: {metadata: {annotations: {gangsim.io/duration: %s}},
    spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}
`, name, spec, duration)
}

// The case: a Job of 5 completions, 3 at a time, whose pods run
// 30m, runs 3 pods, then 2 as they succeed, and completes at 1h.
func TestJobRunsToItsCompletions(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "job.yaml": jobYAML("etl", "completions: 5, parallelism: 3", "30m")})
	require.Equal(t, []string{
		"0s PodBound default/etl-0", "0s PodBound default/etl-1", "0s PodBound default/etl-2",
		"30m0s PodSucceeded default/etl-0", "30m0s PodSucceeded default/etl-1", "30m0s PodSucceeded default/etl-2",
		"30m0s PodBound default/etl-3", "30m0s PodBound default/etl-4",
		"1h0m0s PodSucceeded default/etl-3", "1h0m0s PodSucceeded default/etl-4",
	}, r.named("PodBound", "PodSucceeded"))
	require.Equal(t, JobResult{Name: "etl", Status: "Complete", Succeeded: 5, FinishedAt: "1h0m0s"}, r.job("etl"))
	require.Equal(t, "1h0m0s", r.res.Stats.SimulatedTime)
	require.Equal(t, 1, r.res.Stats.JobsComplete)
	require.Len(t, r.res.Pods, 5, "every pod of the Job is in the result")
	for _, p := range r.res.Pods {
		require.Equal(t, gangsim.PhaseSucceeded, p.Phase, p.Name)
	}
}

// Without completions, a Job is a work queue: parallelism pods, none new
// after the first success, complete when the last one ends.
func TestJobWorkQueue(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "job.yaml": jobYAML("queue", "parallelism: 2", "20m")})
	require.Equal(t, []string{"0s PodBound default/queue-0", "0s PodBound default/queue-1"}, r.named("PodBound"))
	require.Equal(t, JobResult{Name: "queue", Status: "Complete", Succeeded: 2, FinishedAt: "20m0s"}, r.job("queue"))
}

// An Indexed Job's pods are <job>-<index>-<k> with the index label; a
// failed index is run again by a new pod of the same index, after the
// backoff.
func TestIndexedJobRetriesAFailedIndex(t *testing.T) {
	job := strings.Replace(jobYAML("train", "completions: 3, parallelism: 2, completionMode: Indexed", "10m"), `cpu: "1"`, `cpu: "4"`, 1)
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "job.yaml": job, "urgent.yaml": `
priorityClasses: [{name: urgent, value: 1000}]
pods:
  - {name: urgent, at: 5m, duration: 1m, priorityClassName: urgent, requests: {cpu: "4"}}
`})
	require.Equal(t, []string{
		"0s PodBound default/train-0-0", "0s PodBound default/train-1-0",
		"5m0s PodEvicted default/train-1-0", // the newest of the equal victims
		"5m30s PodBound default/urgent",
		"6m30s PodSucceeded default/urgent",
		"6m30s PodBound default/train-1-1", // index 1 again, made at 5m10s after the backoff
		"10m0s PodSucceeded default/train-0-0",
		"10m0s PodBound default/train-2-0",
		"16m30s PodSucceeded default/train-1-1",
		"20m0s PodSucceeded default/train-2-0",
	}, r.named("PodBound", "PodEvicted", "PodSucceeded"))
	require.Contains(t, r.named("PodArrived"), "5m10s PodArrived default/train-1-1")
	require.Equal(t, JobResult{Name: "train", Status: "Complete", Succeeded: 3, Failed: 1, FinishedAt: "20m0s"}, r.job("train"))
	ph := r.phases()
	require.Equal(t, "Failed ", ph["train-1-0"])
	require.Equal(t, "Succeeded n1", ph["train-1-1"])
	for _, p := range r.sc.Controllers[0].pods {
		require.Equal(t, "train", r.sc.Pods[p].Pod.Labels["batch.kubernetes.io/job-name"])
	}
}

// Preemption victims are the Job's failures: past backoffLimit the Job
// fails, and its pods are Failed.
func TestJobFailsPastItsBackoffLimit(t *testing.T) {
	job := strings.Replace(jobYAML("etl", "backoffLimit: 1", "1h"), `cpu: "1"`, `cpu: "8"`, 1)
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "job.yaml": job, "urgent.yaml": `
priorityClasses: [{name: urgent, value: 1000}]
pods:
  - {name: first, at: 10m, duration: 5m, priorityClassName: urgent, requests: {cpu: "8"}}
  - {name: second, at: 20m, duration: 5m, priorityClassName: urgent, requests: {cpu: "8"}}
`})
	require.Equal(t, []string{
		"0s PodArrived default/etl-0", "0s PodBound default/etl-0",
		"10m0s PodArrived default/first", "10m0s PodEvicted default/etl-0",
		"10m10s PodArrived default/etl-1", // after the backoff of the first failure
		"10m30s PodDeleted default/etl-0", // terminated: it failed, it is not run again
		"10m30s PodBound default/first",
		"15m30s PodSucceeded default/first", "15m30s PodBound default/etl-1",
		"20m0s PodArrived default/second", "20m0s PodEvicted default/etl-1",
		"20m30s PodDeleted default/etl-1", "20m30s PodBound default/second",
		"25m30s PodSucceeded default/second",
	}, r.named("PodArrived", "PodBound", "PodEvicted", "PodSucceeded", "PodDeleted"))
	require.Equal(t, JobResult{Name: "etl", Status: "Failed", Reason: "BackoffLimitExceeded", Failed: 2, FinishedAt: "20m0s"}, r.job("etl"))
	ph := r.phases()
	require.Equal(t, "Failed ", ph["etl-0"])
	require.Equal(t, "Failed ", ph["etl-1"])
	require.Equal(t, 1, r.res.Stats.JobsFailed)
}

// A Job's pods on a node that is removed fail; a suspended Job makes
// nothing; activeDeadlineSeconds fails a Job and deletes its pods.
func TestJobNodeRemovalSuspendAndDeadline(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes,
		"a.yaml":      jobYAML("lost", "backoffLimit: 0", "1h"),
		"b.yaml":      jobYAML("held", "suspend: true", "1h"),
		"c.yaml":      jobYAML("slow", "activeDeadlineSeconds: 600, parallelism: 2, completions: 4", "1h"),
		"events.yaml": "nodes: [{name: spare, allocatable: {cpu: \"1\"}}]\nevents: [{at: 5m, removeNode: n1}]\n",
	})
	require.Equal(t, JobResult{Name: "lost", Status: "Failed", Reason: "BackoffLimitExceeded", Failed: 1, FinishedAt: "5m0s"}, r.job("lost"))
	require.Equal(t, JobResult{Name: "held", Status: "Suspended"}, r.job("held"))
	slow := r.job("slow")
	require.Equal(t, "DeadlineExceeded", slow.Reason, "%+v", slow)
	require.Equal(t, "10m0s", slow.FinishedAt)
	for name, want := range map[string]string{"lost-0": "Failed ", "slow-0": "Failed ", "slow-1": "Failed "} {
		require.Equal(t, want, r.phases()[name], name)
	}
}

// activeDeadlineSeconds: 0 is a Job the API server takes (the field must
// not be negative): it fails as soon as it starts, making no pod (issue
// 48; it was refused as not positive).
func TestJobActiveDeadlineOfZero(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes,
		"a.yaml": jobYAML("now", "activeDeadlineSeconds: 0, parallelism: 2, completions: 4", "1h"),
	})
	require.Equal(t, JobResult{Name: "now", Status: "Failed", Reason: "DeadlineExceeded", FinishedAt: "0s"}, r.job("now"))
	require.Empty(t, r.phases())
}

func splitEvent(e string) []string { return strings.Fields(e) }

// The runner's stops for controllers change nothing of a run: every golden
// scenario without controllers, driven step by step as if it had some
// (pausing when the last pod with a run time ends, settling before the
// next timer at the end), makes the events and the result of the plain
// run; so do workloads whose pods have no run time.
func TestSteppedRunMatchesThePlainRun(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	files = append(files, "testdata/kube/workloads.yaml")
	for _, file := range files {
		if file == "testdata/scenarios/controllers.yaml" {
			continue // its controllers make pods
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			plain, plainRes := steppedRun(t, file, false)
			stepped, steppedRes := steppedRun(t, file, true)
			require.Equal(t, plain, stepped)
			require.Equal(t, plainRes, steppedRes)
		})
	}
}

// steppedRun runs a file, with a Manager of its controllers (none for a
// scenario file) when stepped, and without any when not.
func steppedRun(t *testing.T, file string, stepped bool) ([]string, []byte) {
	t.Helper()
	sc, err := Load(file)
	require.NoError(t, err)
	sc.Config.CheckInvariants = true
	var events []string
	rec := newRecorder()
	opts := []gangsim.Option{gangsim.WithObserver(rec.observe), gangsim.WithObserver(func(e gangsim.Event) { events = append(events, e.String()) })}
	if len(sc.Explain) > 0 {
		opts = append(opts, gangsim.WithExplain(sc.Explain...))
	}
	var m *controllers.Manager
	if stepped {
		m = sc.manager()
		opts = append(opts, m.Attach())
	} else {
		sc.Controllers = nil
	}
	s, err := sc.NewScheduler(opts...)
	require.NoError(t, err)
	require.NoError(t, sc.drive(s, m, nil, nil, nil, nil))
	res := rec.result(sc, s, m, nil)
	res.Jobs, res.Stats.JobsComplete, res.Stats.JobsFailed = nil, 0, 0
	out, err := res.JSON()
	require.NoError(t, err)
	return events, out
}

// A Job counts the pods of the inputs: an Indexed Job's indexes done and
// running are not run again, and a Job whose failures are past its limit
// already fails at once, its running pod deleted.
func TestJobCountsThePodsOfTheInputs(t *testing.T) {
	pod := func(name, phase, index, job string) string {
		return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata: {name: %s, labels: {batch.kubernetes.io/job-completion-index: "%s"}, ownerReferences: [{kind: Job, name: %s, controller: true}],
    annotations: {gangsim.io/duration: 10m}}
  spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}], nodeName: n1}
  status: {phase: %s}
`, name, index, job, phase)
	}
	dump := "apiVersion: v1\nkind: List\nitems:\n" + pod("train-0-x1", "Succeeded", "0", "train") + pod("train-1-x2", "Running", "1", "train") +
		pod("old-a", "Failed", "", "old") + pod("old-b", "Failed", "", "old") + pod("old-c", "Running", "", "old")
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "dump.yaml": dump,
		"train.yaml": jobYAML("train", "completions: 4, parallelism: 2, completionMode: Indexed", "10m"),
		"old.yaml":   jobYAML("old", "completions: 3, backoffLimit: 1", "10m")})
	require.Equal(t, []string{"0s PodArrived default/train-1-x2", "0s PodArrived default/train-2-0", "10m0s PodArrived default/train-3-0"}, filterPrefix(r.named("PodArrived"), "default/train-"))
	require.Equal(t, JobResult{Name: "train", Status: "Complete", Succeeded: 4, FinishedAt: "20m0s"}, r.job("train"))
	require.Equal(t, JobResult{Name: "old", Status: "Failed", Reason: "BackoffLimitExceeded", Failed: 3, FinishedAt: "0s"}, r.job("old"))
	require.Equal(t, "Failed ", r.phases()["old-c"])
}

// filterPrefix keeps the events whose pod starts with prefix.
func filterPrefix(events []string, prefix string) []string {
	var out []string
	for _, e := range events {
		if f := strings.Fields(e); len(f) >= 3 && strings.HasPrefix(f[2], prefix) {
			out = append(out, e)
		}
	}
	return out
}

// A Job under a quota of 2 pods: the third pod is refused (not created,
// Rejected in the result); the Job makes a pod again when its first pods
// succeed and free the quota, so it completes at 20m, not at 10m.
func TestJobUnderQuotaMakesRefusedPodsLater(t *testing.T) {
	quota := "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {pods: \"2\"}}\n"
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "quota.yaml": quota, "job.yaml": jobYAML("etl", "completions: 3, parallelism: 3", "10m")})
	require.Equal(t, []string{
		"0s PodBound default/etl-0", "0s PodBound default/etl-1",
		"10m0s PodSucceeded default/etl-0", "10m0s PodSucceeded default/etl-1",
		"10m0s PodBound default/etl-3",
		"20m0s PodSucceeded default/etl-3",
	}, r.named("PodBound", "PodSucceeded"))
	require.Equal(t, []string{"0s PodRejected default/etl-2"}, r.named("PodRejected"))
	require.Equal(t, JobResult{Name: "etl", Status: "Complete", Succeeded: 3, FinishedAt: "20m0s"}, r.job("etl"))
	require.Equal(t, "Rejected ", r.phases()["etl-2"])
	require.Equal(t, 1, r.res.Stats.Rejected)
}
