package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseRunTime(t *testing.T) {
	for _, tt := range []struct {
		text, want, err string
	}{
		{text: "30m", want: "30m"},
		{text: " {exponential: 20m, max: 2h} ", want: "{exponential: 20m, max: 2h}"},
		{text: "{logNormal: {median: 10m, sigma: 0.5}}", want: "{logNormal: {median: 10m, sigma: 0.5}}"},
		{text: "0s"},
		{text: ""},
		{text: "30 minutes", err: `scenario: run time "30 minutes": duration: "30 minutes" is not a duration like 90s or 5m`},
		{text: "{exponential: 20m, fixed: 1h}", err: `scenario: run time "{exponential: 20m, fixed: 1h}": duration: needs exactly one of fixed, exponential (the mean) and logNormal; has 2`},
		{text: "{mean: 20m}", err: `scenario: run time "{mean: 20m}": duration.mean: unknown field`},
		{text: "[1m, 2m]", err: `scenario: run time "[1m, 2m]": duration: `},
		{text: "{a: [", err: `scenario: run time "{a: [": not a time like 30m or a mapping like {exponential: 20m}`},
	} {
		t.Run(tt.text, func(t *testing.T) {
			rt, err := ParseRunTime(tt.text)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, rt.String())
			require.Equal(t, tt.want == "", rt.IsZero())
		})
	}
}

// A drawn run time depends on the pod and the seed only, is a whole number
// of seconds, and respects max.
func TestRunTimeDraws(t *testing.T) {
	rt, err := ParseRunTime("{exponential: 20m, max: 1h}")
	require.NoError(t, err)
	a, b := rt.draw("default/a", 0), rt.draw("default/b", 0)
	require.Equal(t, a, rt.draw("default/a", 0))
	require.NotEqual(t, a, b)
	require.NotEqual(t, a, rt.draw("default/a", 1), "a pod made again draws again")
	rt.Seed = 7
	require.NotEqual(t, a, rt.draw("default/a", 0))
	for i := range 1000 {
		d := rt.draw("default/p", i)
		require.True(t, d >= time.Second && d <= time.Hour && d%time.Second == 0, "%v", d)
	}
	require.Equal(t, 5*time.Minute, FixedRunTime(5*time.Minute).draw("default/a", 3))
	require.True(t, FixedRunTime(0).IsZero())
}

// The default run time is for the pods of Kubernetes objects without the
// annotation: Pods and the pods workloads make, at load and while running;
// a scenario file's pods keep theirs.
func TestDefaultDuration(t *testing.T) {
	files := map[string]string{"nodes.yaml": ctlNodes,
		"job.yaml": jobYAML("annotated", "completions: 2", "10m"),
		"plain.yaml": `apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec:
  completions: 2
  template: {spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`,
		"file.yaml": "pods: [{name: forever, requests: {cpu: \"1\"}}]\n"}
	without := runObjects(t, files)
	require.Equal(t, JobResult{Name: "plain", Status: "Running", Active: 1}, without.job("plain"), "no run time: it runs for ever")

	rt, err := ParseRunTime("25m")
	require.NoError(t, err)
	r := runObjects(t, files, WithDefaultDuration(rt))
	require.Equal(t, JobResult{Name: "annotated", Status: "Complete", Succeeded: 2, FinishedAt: "20m0s"}, r.job("annotated"), "the annotation wins")
	require.Equal(t, JobResult{Name: "plain", Status: "Complete", Succeeded: 2, FinishedAt: "50m0s"}, r.job("plain"))
	ph := r.phases()
	require.Equal(t, "Succeeded n1", ph["bare"])
	require.Equal(t, "Bound n1", ph["forever"])
}

func FuzzParseRunTime(f *testing.F) {
	for _, s := range []string{"30m", "{exponential: 20m}", "{logNormal: {median: 1h, sigma: 1}, max: 2h}", "{fixed: 1h}", "0s", "", "[", "{max: 1h}", "*a", "&a {fixed: 1m}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rt, err := ParseRunTime(s)
		if err != nil {
			if !rt.IsZero() {
				t.Fatalf("ParseRunTime(%q) failed with a run time", s)
			}
			return
		}
		if rt.IsZero() {
			return
		}
		again, err := ParseRunTime(rt.String())
		if err != nil || again.dist != rt.dist {
			t.Fatalf("ParseRunTime(%q) = %q, which reads back as %v, %v", s, rt, again.dist, err)
		}
		if d := rt.draw("default/p", 0); d <= 0 {
			t.Fatalf("ParseRunTime(%q) draws %v", s, d)
		}
	})
}
