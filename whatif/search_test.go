package whatif_test

import (
	"bytes"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

func parse(t testing.TB, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(text))
	require.NoError(t, err)
	return sc
}

func counts(runs []whatif.SearchRun) (out []int) {
	for _, r := range runs {
		out = append(out, r.Count)
	}
	return out
}

// runOf returns the search's run of count k.
func runOf(t *testing.T, a *whatif.Answer, k int) whatif.SearchRun {
	t.Helper()
	for _, r := range a.Runs {
		if r.Count == k {
			return r
		}
	}
	t.Fatalf("no run with count %d in %v", k, counts(a.Runs))
	return whatif.SearchRun{}
}

// requireMinimal checks that the answer's run succeeded and the run one
// below it was taken and failed.
func requireMinimal(t *testing.T, a *whatif.Answer) {
	t.Helper()
	require.True(t, a.Found, a.Reason)
	require.True(t, runOf(t, a, a.Count).OK)
	if a.Count > 0 {
		require.False(t, runOf(t, a, a.Count-1).OK, "one fewer fails")
	}
}

// By hand: two 4-cpu nodes, five 3-cpu pods running forever; one pod a
// node, so five nodes: three to add.
const fivePods = `
nodes: [{name: n, allocatable: {cpu: "4"}, count: 2}]
pods: [{name: p, requests: {cpu: "3"}, count: 5}]
`

func TestFewestNodesToAdd(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		a, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{}, whatif.Options{Workers: workers})
		require.NoError(t, err)
		requireMinimal(t, a)
		assert.Equal(t, 3, a.Count)
		assert.Equal(t, []int{0, 1, 2, 4, 3}, counts(a.Runs), "gallop 1, 2, 4, then bisect: the same path for %d workers", workers)
		assert.Equal(t, 3, runOf(t, a, 0).PendingAtEnd)
		assert.Equal(t, 5, a.Summary.Nodes)
		assert.Equal(t, "add:n-0:3", a.Variant.Name)
	}
}

// By hand: one rack r1 of two 8-GPU nodes; three gangs of four 4-GPU pods,
// each gang in one rack, so each needs 16 GPUs of one rack. A rack like
// r1 holds one gang: two racks to add. Nodes like r1-0 go into rack r1,
// which then holds floor(8n/16) gangs for n nodes: six nodes, four to add.
const rackGangs = `
nodes: [{name: r1, labels: {rack: r1}, allocatable: {cpu: "64", nvidia.com/gpu: "8"}, count: 2}]
workloads:
  - name: train
    replicas: 3
    group: {minCount: 4, pods: 4, topologyKey: rack}
    pod: {requests: {cpu: "1", nvidia.com/gpu: "4"}}
`

func TestGangsNeedWholeRacks(t *testing.T) {
	racks, err := whatif.FewestDomainsToAdd(parse(t, rackGangs), "rack", "r1", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	requireMinimal(t, racks)
	assert.Equal(t, 2, racks.Count)
	assert.Equal(t, "racksToAdd", racks.CountKey)
	assert.Equal(t, 3, racks.Summary.GroupsPlaced)

	nodes, err := whatif.FewestNodesToAdd(parse(t, rackGangs), "r1-0", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	requireMinimal(t, nodes)
	assert.Equal(t, 4, nodes.Count)
}

// By hand: three 1-hour pods on one 1-cpu node wait 0, 1h and 2h. With a
// bound of 90m one node more (waits 0, 0, 1h) is enough; with 30m, two. A
// wait exactly at the bound is within it: 2h needs no node, 1h one.
func TestWaitBound(t *testing.T) {
	sc := `
nodes: [{name: n, allocatable: {cpu: "1"}}]
pods: [{name: p, requests: {cpu: "1"}, duration: 1h, count: 3}]
`
	for _, tt := range []struct {
		bound time.Duration
		want  int
	}{{0, 0}, {90 * time.Minute, 1}, {30 * time.Minute, 2}, {2 * time.Hour, 0}, {time.Hour, 1}} {
		a, err := whatif.FewestNodesToAdd(parse(t, sc), "n", whatif.Criteria{MaxWait: tt.bound}, whatif.Options{})
		require.NoError(t, err)
		requireMinimal(t, a)
		assert.Equal(t, tt.want, a.Count, "bound %v", tt.bound)
	}
}

// By hand: six identical 4-cpu nodes, two 3-cpu pods: four can go. The
// node a pod names stays.
func TestMostNodesToRemove(t *testing.T) {
	a, err := whatif.MostNodesToRemove(parse(t, `
nodes: [{name: n, allocatable: {cpu: "4"}, count: 6}]
pods:
  - {name: p, requests: {cpu: "3"}, count: 2}
`), "n-0", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	require.True(t, a.Found)
	assert.Equal(t, 4, a.Count)
	assert.True(t, runOf(t, a, 4).OK)
	assert.False(t, runOf(t, a, 5).OK, "one more fails")
	assert.Equal(t, "nodesToRemove", a.CountKey)

	cands, err := whatif.RemovalCandidates(parse(t, `
nodes: [{name: n, allocatable: {cpu: "4"}, count: 3}, {name: big, allocatable: {cpu: "8"}}]
pods: [{name: p, requests: {cpu: "3"}, nodeName: n-2}]
`), "n-0")
	require.NoError(t, err)
	assert.Equal(t, []string{"n-1", "n-0"}, cands, "same kind, not named by a pod, last names first")
}

func TestNotFound(t *testing.T) {
	a, err := whatif.FewestNodesToAdd(parse(t, `
nodes: [{name: n, allocatable: {cpu: "4"}}]
pods: [{name: huge, requests: {cpu: "16"}}]
`), "n", whatif.Criteria{Limit: 4}, whatif.Options{})
	require.NoError(t, err)
	assert.False(t, a.Found)
	assert.Equal(t, -1, a.Count)
	assert.Equal(t, []int{0, 1, 2, 4}, counts(a.Runs))
	assert.Equal(t, "with 4 added, 1 pod is still pending (huge); none of them fits an empty node like n", a.Reason)
	assert.Equal(t, []whatif.NoFit{{Reason: "Insufficient cpu", Pods: 1, First: []string{"huge"}}}, a.NoFit)

	r, err := whatif.MostNodesToRemove(parse(t, `
nodes: [{name: n, allocatable: {cpu: "4"}}]
pods: [{name: huge, requests: {cpu: "16"}}]
`), "n", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	assert.False(t, r.Found)

	_, err = whatif.FewestNodesToAdd(parse(t, fivePods), "nope", whatif.Criteria{}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
	_, err = whatif.FewestDomainsToAdd(parse(t, fivePods), "rack", "r9", whatif.Criteria{}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
}

// "No answer" names the pods that fit no empty node of the kind added,
// with kube-scheduler's reasons, and leaves out those that would fit one
// on their own (here affine, which waits for a pod that never comes, and
// the gang's members, too many for the limit's nodes together).
func TestNoAnswerExplains(t *testing.T) {
	sc := parse(t, `
nodes: [{name: n, labels: {pool: a}, allocatable: {cpu: "4"}, taints: [{key: dedicated, value: x, effect: NoSchedule}]}]
pods:
  - {name: huge, count: 7, requests: {cpu: "16"}, tolerations: [{key: dedicated, operator: Exists}]}
  - {name: picky, requests: {cpu: "1"}, nodeSelector: {pool: b}, tolerations: [{key: dedicated, operator: Exists}]}
  - {name: plain, requests: {cpu: "1"}}
  - {name: elsewhere, requests: {cpu: "1"}, schedulerName: other, tolerations: [{key: dedicated, operator: Exists}]}
  - name: affine
    requests: {cpu: "1"}
    tolerations: [{key: dedicated, operator: Exists}]
    affinity:
      podAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: ghost}}, topologyKey: kubernetes.io/hostname}
`)
	a, err := whatif.FewestNodesToAdd(sc, "n", whatif.Criteria{Limit: 2}, whatif.Options{})
	require.NoError(t, err)
	require.False(t, a.Found)
	assert.Equal(t, "with 2 added, 11 pods are still pending (affine, elsewhere, huge-0, huge-1, huge-2 and 6 more); 10 of them fit no empty node like n", a.Reason)
	require.Len(t, a.NoFit, 4)
	assert.Equal(t, whatif.NoFit{Reason: "Insufficient cpu", Pods: 7, First: []string{"huge-0", "huge-1", "huge-2", "huge-3", "huge-4"}}, a.NoFit[0])
	reasons := map[string]string{}
	for _, g := range a.NoFit[1:] {
		require.Equal(t, 1, g.Pods)
		reasons[g.First[0]] = g.Reason
	}
	assert.Equal(t, "node(s) didn't match Pod's node affinity/selector", reasons["picky"])
	assert.Equal(t, "node(s) had untolerated taint(s)", reasons["plain"])
	assert.Contains(t, reasons["elsewhere"], "other", "no filter ran: the pod's own reason")

	var b bytes.Buffer
	require.NoError(t, a.WriteTable(&b))
	assert.Contains(t, b.String(), "  7 pods fit no empty node of the kind added: Insufficient cpu (huge-0, huge-1, huge-2, huge-3, huge-4 and 2 more)\n")
	assert.Contains(t, b.String(), "  1 pod fits no empty node of the kind added: node(s) had untolerated taint(s) (plain)\n")
	js, err := a.JSON()
	require.NoError(t, err)
	var parsed struct {
		NoFit []whatif.NoFit `json:"noFit"`
	}
	require.NoError(t, json.Unmarshal(js, &parsed))
	assert.Equal(t, a.NoFit, parsed.NoFit)

	// racks: the nodes of one rack like the template, empty
	r, err := whatif.FewestDomainsToAdd(parse(t, `
nodes: [{name: g, labels: {rack: r1}, allocatable: {cpu: "8"}, count: 2}]
pods: [{name: wide, requests: {cpu: "12"}}, {name: fits, requests: {cpu: "8"}, count: 9}]
`), "rack", "r1", whatif.Criteria{Limit: 1}, whatif.Options{})
	require.NoError(t, err)
	assert.Equal(t, "with 1 added, 6 pods are still pending (fits-4, fits-5, fits-6, fits-7, fits-8 and 1 more); 1 of them fits no empty node of a rack like r1", r.Reason)
	assert.Equal(t, []whatif.NoFit{{Reason: "Insufficient cpu", Pods: 1, First: []string{"wide"}}}, r.NoFit)
}

// A found answer says what it was judged by; waits of more than a day in
// its run, and a removal without a wait bound, are cautioned.
func TestAnswerCautions(t *testing.T) {
	// one 4-cpu node, pods of 4 cpu for 10h each, arriving together: the
	// last of four waits 30h; with nothing to remove the answer is 0
	sc := parse(t, `
nodes: [{name: n, allocatable: {cpu: "4"}, count: 2}]
pods: [{name: p, requests: {cpu: "4"}, duration: 10h, count: 8}]
`)
	r, err := whatif.MostNodesToRemove(sc, "n-0", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	require.True(t, r.Found)
	assert.Equal(t, 1, r.Count, "one node runs them all, one after another")
	assert.Equal(t, "every pod placed by the end of the run; waits not bounded", r.Criterion)
	require.Len(t, r.Cautions, 2)
	assert.Equal(t, "waits were not bounded: the answer only asks that every pod is placed by the end of the run, however long it waited "+
		"(in the answer's run up to 70h0m0s); ask with a wait bound for an answer that keeps waits short", r.Cautions[0])
	assert.Equal(t, "in the answer's run pods waited up to 70h0m0s (p99 70h0m0s), more than a day: every pod is placed by the end, but not soon", r.Cautions[1])
	var b bytes.Buffer
	require.NoError(t, r.WriteTable(&b))
	assert.Contains(t, b.String(), "Judged by: every pod placed by the end of the run; waits not bounded.\nCaution: waits were not bounded")

	bounded, err := whatif.MostNodesToRemove(sc, "n-0", whatif.Criteria{MaxWait: 30 * time.Hour}, whatif.Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, bounded.Count)
	assert.Equal(t, "every pod placed by the end of the run, and no pod waiting more than 30h0m0s", bounded.Criterion)
	assert.Empty(t, bounded.Cautions, "waits of 30h, which the bound allows: the user's own word")
}

// Progress counts every run, on the caller's goroutine.
func TestProgress(t *testing.T) {
	var seen []whatif.Progress
	a, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{}, whatif.Options{Workers: 2,
		Progress: func(p whatif.Progress) { seen = append(seen, p) }})
	require.NoError(t, err)
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	assert.Equal(t, last.Done, last.Total)
	assert.GreaterOrEqual(t, last.Done, len(a.Runs), "speculative runs count too")
}

func TestAnswerJSON(t *testing.T) {
	a, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{}, whatif.Options{})
	require.NoError(t, err)
	out, err := a.JSON()
	require.NoError(t, err)
	var got struct {
		Question   string
		NodesToAdd *int `json:"nodesToAdd"`
		Found      bool
		Runs       []struct {
			NodesToAdd   int     `json:"nodesToAdd"`
			OK           bool    `json:"ok"`
			PendingAtEnd int     `json:"pendingAtEnd"`
			MaxWait      float64 `json:"maxWaitSeconds"`
		}
		Summary whatif.Summary
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.NotNil(t, got.NodesToAdd)
	assert.Equal(t, 3, *got.NodesToAdd)
	assert.True(t, got.Found)
	require.Len(t, got.Runs, 5)
	assert.Equal(t, 4, got.Runs[3].NodesToAdd)
	assert.True(t, got.Runs[3].OK)
	assert.Equal(t, 5, got.Summary.PodsPlaced)
	again, _ := a.JSON()
	assert.Equal(t, string(out), string(again))

	var b bytes.Buffer
	require.NoError(t, a.WriteTable(&b))
	assert.Contains(t, b.String(), "Fewest nodes like n-0 to add so that every pod is placed?\nAnswer: 3 (add:n-0:3), after 5 runs.")
}

// Watch follows every simulation, speculative ones included, from its
// first event to its end, on the goroutines that run them; it changes
// nothing in the answer.
func TestWatch(t *testing.T) {
	var started, ended, events atomic.Int64
	var last whatif.Progress
	opts := whatif.Options{Workers: 3, Progress: func(p whatif.Progress) { last = p },
		Watch: func() (gangsim.Observer, func()) {
			started.Add(1)
			return func(gangsim.Event) { events.Add(1) }, func() { ended.Add(1) }
		}}
	a, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{MaxWait: time.Minute}, opts)
	require.NoError(t, err)
	plain, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{MaxWait: time.Minute}, whatif.Options{Workers: 3})
	require.NoError(t, err)
	assert.Equal(t, plain, a)
	assert.Equal(t, int64(last.Total), started.Load())
	assert.Equal(t, started.Load(), ended.Load(), "every run ends, the ones a wait bound stopped included")
	assert.Positive(t, events.Load())
}
