package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// The checkers of the workload kinds' random scenarios reject the runs
// they are there to catch: each is fed a fabricated run that breaks its
// rule, and one that keeps it.

// fakeRun fabricates a run's event stream for podTraces.
type fakeRun struct {
	tr    *podTraces
	pods  map[string]*cluster.PodInfo
	cycle int
}

func newFakeRun() *fakeRun { return &fakeRun{tr: newPodTraces(), pods: map[string]*cluster.PodInfo{}} }

// arrive adds a pod with its labels, owner ("Kind/name" or "") and group.
func (f *fakeRun) arrive(at time.Duration, name string, labels map[string]string, owner, group string) *fakeRun {
	p := cluster.Pod{Name: name, Labels: labels, PodGroup: group}
	if kind, n, ok := cutOwner(owner); ok {
		p.Owner = &cluster.Owner{Kind: kind, Name: n}
	}
	f.pods[name] = cluster.NewPodInfo(p)
	f.tr.see(gangsim.Event{At: at, Kind: gangsim.EventPodArrived, Pod: f.pods[name]})
	return f
}

func cutOwner(owner string) (kind, name string, ok bool) {
	for i := range owner {
		if owner[i] == '/' {
			return owner[:i], owner[i+1:], true
		}
	}
	return "", "", false
}

// ev is an event of a pod, in the current cycle for a binding.
func (f *fakeRun) ev(at time.Duration, kind gangsim.EventKind, names ...string) *fakeRun {
	for _, n := range names {
		f.tr.see(gangsim.Event{At: at, Kind: kind, Pod: f.pods[n], Cycle: f.cycle})
	}
	return f
}

// bindCycle binds the pods in one cycle and ends it.
func (f *fakeRun) bindCycle(at time.Duration, names ...string) *fakeRun {
	f.cycle++
	f.ev(at, gangsim.EventPodBound, names...)
	f.tr.see(gangsim.Event{At: at, Kind: gangsim.EventCycle, Cycle: f.cycle})
	return f
}

// fakeJob is a Job j of parallelism 2, Indexed over 3 completions when
// indexed, with its backoff limit 1.
func fakeJob(indexed bool) *kindObject {
	o := &kindObject{kind: "Job", name: "j", selector: [][2]string{{"batch.kubernetes.io/job-name", "j"}}, ends: true,
		result: "Job j", backoff: 1, maxRestarts: -1, initial: 2}
	if indexed {
		r := role(`^j-(\d+)-(\d+)$`, 2, "Job/j", [2]int{0, 3}, [2]int{})
		r.slot, r.labels = 1, map[string]int{"batch.kubernetes.io/job-completion-index": 0}
		o.roles = append(o.roles, r)
	} else {
		o.roles = append(o.roles, role(`^j-(\d+)$`, 2, "Job/j", [2]int{}))
	}
	return o
}

func jobPod(index string) map[string]string {
	l := map[string]string{"batch.kubernetes.io/job-name": "j"}
	if index != "" {
		l["batch.kubernetes.io/job-completion-index"] = index
	}
	return l
}

func TestKindShapeCheckerCatchesWrongPods(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name    string
		indexed bool
		run     func(f *fakeRun)
		err     string // "" when the run keeps the rules
	}{
		{"the pods of a Job", false, func(f *fakeRun) {
			f.arrive(0, "j-0", jobPod(""), "Job/j", "").arrive(0, "j-1", jobPod(""), "Job/j", "")
			f.ev(s, gangsim.EventPodSucceeded, "j-0").arrive(s, "j-2", jobPod(""), "Job/j", "")
		}, ""},
		{"more active than its parallelism", false, func(f *fakeRun) {
			f.arrive(0, "j-0", jobPod(""), "Job/j", "").arrive(0, "j-1", jobPod(""), "Job/j", "").arrive(s, "j-2", jobPod(""), "Job/j", "")
		}, "1s: Job j: 3 pods of ^j-(\\d+)$ active, more than 2"},
		{"a replacement made while the pod it replaces terminates", false, func(f *fakeRun) {
			f.arrive(0, "j-0", jobPod(""), "Job/j", "").arrive(0, "j-1", jobPod(""), "Job/j", "")
			f.bindCycle(0, "j-1").ev(s, gangsim.EventPodEvicted, "j-1").arrive(s, "j-2", jobPod(""), "Job/j", "")
		}, ""},
		{"too few at time 0", false, func(f *fakeRun) {
			f.arrive(0, "j-0", jobPod(""), "Job/j", "")
		}, "Job j: 1 pods made at once at time 0, not 2"},
		{"two pods of one index", true, func(f *fakeRun) {
			f.arrive(0, "j-0-0", jobPod("0"), "Job/j", "").arrive(0, "j-0-1", jobPod("0"), "Job/j", "")
		}, "0s: Job j: pods j-0-0 and j-0-1 are active at once, of one slot"},
		{"an index past the completions", true, func(f *fakeRun) {
			f.arrive(0, "j-3-0", jobPod("3"), "Job/j", "")
		}, "Job j: pod default/j-3-0: index 3 is outside 0..2"},
		{"a label that is not its index", true, func(f *fakeRun) {
			f.arrive(0, "j-1-0", jobPod("2"), "Job/j", "")
		}, "Job j: pod default/j-1-0: label batch.kubernetes.io/job-completion-index is \"2\", not \"1\""},
		{"another owner", true, func(f *fakeRun) {
			f.arrive(0, "j-1-0", jobPod("1"), "ReplicaSet/j", "")
		}, "Job j: pod default/j-1-0: owner \"ReplicaSet/j\", not \"Job/j\""},
		{"a name the kind does not make", true, func(f *fakeRun) {
			f.arrive(0, "j-x", jobPod(""), "Job/j", "")
		}, "Job j: pod default/j-x is not a pod its kind makes"},
		{"a pod of no object", true, func(f *fakeRun) {
			f.arrive(0, "stray", nil, "", "")
		}, "pod default/stray (labels map[]) is of no object the generator wrote"},
		{"a pod made again while it exists", false, func(f *fakeRun) {
			f.arrive(0, "j-0", jobPod(""), "Job/j", "").arrive(0, "j-1", jobPod(""), "Job/j", "").arrive(s, "j-1", jobPod(""), "Job/j", "")
		}, "a pod arrived while another of its name existed: 1s: default/j-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRun()
			c.run(f)
			err := checkKinds([]*kindObject{fakeJob(c.indexed)}, f.tr, &Result{})
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestKindGangCheckerCatchesPartialGangs(t *testing.T) {
	o := &kindObject{kind: "VolcanoJob", name: "v", selector: [][2]string{{"volcano.sh/job-name", "v"}}, gang: "v-0", gangMin: 2,
		backoff: -1, maxRestarts: -1, initial: -1, roles: []*podRole{role(`^v-t-(\d+)$`, 3, "Job/v", [2]int{0, 3})}}
	pod := map[string]string{"volcano.sh/job-name": "v"}
	three := func() *fakeRun {
		return newFakeRun().arrive(0, "v-t-0", pod, "Job/v", "v-0").arrive(0, "v-t-1", pod, "Job/v", "v-0").arrive(0, "v-t-2", pod, "Job/v", "v-0")
	}
	check := func(f *fakeRun) error { return checkKinds([]*kindObject{o}, f.tr, &Result{}) }
	require.NoError(t, check(three().bindCycle(0, "v-t-0", "v-t-1")))
	require.ErrorContains(t, check(three().bindCycle(0, "v-t-0")),
		"0s: VolcanoJob v: cycle 1 bound pods of gang v-0, leaving 1 bound, fewer than its minimum 2")
	// a replacement binding beside the gang's pods still bound keeps it whole
	require.NoError(t, check(three().bindCycle(0, "v-t-0", "v-t-1").ev(time.Minute, gangsim.EventPodTerminated, "v-t-1").bindCycle(time.Minute, "v-t-2")))
	// and alone, once the others are gone, does not
	require.ErrorContains(t, check(three().bindCycle(0, "v-t-0", "v-t-1").ev(time.Minute, gangsim.EventPodDeleted, "v-t-0", "v-t-1").bindCycle(time.Minute, "v-t-2")),
		"1m0s: VolcanoJob v: cycle 2 bound pods of gang v-0, leaving 1 bound")
	wrong := newFakeRun().arrive(0, "v-t-0", pod, "Job/v", "other")
	require.ErrorContains(t, check(wrong), "VolcanoJob v: pod default/v-t-0 is in group \"other\", not \"v-0\"")
}

func TestKindEndCheckerCatchesPodsPastTheEnd(t *testing.T) {
	s, m := time.Second, time.Minute
	o := fakeJob(false)
	o.initial = -1
	res := &Result{Jobs: []JobResult{{Name: "j", Status: "Complete", FinishedAt: "1m0s"}}}
	run := func() *fakeRun {
		return newFakeRun().arrive(0, "j-0", jobPod(""), "Job/j", "").arrive(0, "j-1", jobPod(""), "Job/j", "").bindCycle(0, "j-0")
	}
	check := func(f *fakeRun) error {
		f.tr.last = max(f.tr.last, 2*m) // the run went on after the Job's end
		return checkKinds([]*kindObject{o}, f.tr, res)
	}
	require.NoError(t, check(run().ev(m, gangsim.EventPodSucceeded, "j-0").ev(m, gangsim.EventPodDeleted, "j-1")))
	require.ErrorContains(t, check(run().ev(m, gangsim.EventPodSucceeded, "j-0").bindCycle(m+s, "j-1")),
		"1m1s: Job j finished (Complete) at 1m0s, and its pod default/j-1 is bound after")
	require.ErrorContains(t, check(run().ev(30*s, gangsim.EventPodDeleted, "j-1")),
		"2m0s: Job j finished (Complete) at 1m0s, and its pod default/j-0 still runs")
	// being deleted (its graceful termination) is not running
	require.NoError(t, check(run().ev(m, gangsim.EventPodEvicted, "j-0").ev(m, gangsim.EventPodDeleted, "j-1").ev(m+30*s, gangsim.EventPodDeleted, "j-0")))
	// a role that keeps its pods (an MPIJob's workers under cleanPodPolicy None)
	o.roles[0].keeps = true
	require.NoError(t, check(run().ev(30*s, gangsim.EventPodDeleted, "j-1")))
}

func TestKindRestartCheckerCatchesRestartsPastTheirBound(t *testing.T) {
	job := fakeJob(false)
	for _, c := range []struct {
		name string
		j    JobResult
		err  string
	}{
		{"within the limit", JobResult{Name: "j", Status: "Running", Failed: 1}, ""},
		{"failed past the limit", JobResult{Name: "j", Status: "Failed", Reason: "BackoffLimitExceeded", Failed: 2}, ""},
		{"running past the limit", JobResult{Name: "j", Status: "Running", Failed: 2}, "Job j: Job j Running () with 2 failures, its backoffLimit 1"},
		{"failed within the limit", JobResult{Name: "j", Status: "Failed", Reason: "BackoffLimitExceeded", Failed: 1}, "Job j: Job j Failed (BackoffLimitExceeded) with 1 failures"},
		{"a deadline", JobResult{Name: "j", Status: "Failed", Reason: "DeadlineExceeded", Failed: 0}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkKindRestarts(job, nil, newPodTraces(), &Result{Jobs: []JobResult{c.j}})
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
		})
	}
	// an MPIJob's launcher Job
	mpi := &kindObject{kind: "MPIJob", name: "m", backoffJob: "m-launcher", backoff: 0, maxRestarts: -1}
	require.NoError(t, checkKindRestarts(mpi, nil, newPodTraces(), &Result{Jobs: []JobResult{{Name: "m", Status: "Running", Failed: 3}}}))
	require.ErrorContains(t, checkKindRestarts(mpi, nil, newPodTraces(), &Result{Jobs: []JobResult{{Name: "m-launcher", Status: "Running", Failed: 1}}}),
		"MPIJob m: Job m-launcher Running () with 1 failures, its backoffLimit 0")
	js := &kindObject{kind: "JobSet", name: "js", result: "JobSet js", backoff: -1, maxRestarts: 1}
	require.NoError(t, checkKindRestarts(js, nil, newPodTraces(), &Result{Workloads: []WorkloadResult{{Kind: "JobSet", Name: "js", Restarts: 1}}}))
	require.ErrorContains(t, checkKindRestarts(js, nil, newPodTraces(), &Result{Workloads: []WorkloadResult{{Kind: "JobSet", Name: "js", Restarts: 2}}}),
		"JobSet js: 2 restarts, past its bound 1")
	f := newFakeRun().arrive(0, "js-r-0-0-2", map[string]string{"jobset.sigs.k8s.io/restart-attempt": "2"}, "", "")
	require.ErrorContains(t, checkKindRestarts(js, []member{{pod: 0}}, f.tr, &Result{}), "JobSet js: pod default/js-r-0-0-2 of restart attempt 2, past maxRestarts 1")
	vj := &kindObject{kind: "VolcanoJob", name: "v", result: "Job.batch.volcano.sh v", backoff: -1, maxRestarts: 2}
	require.NoError(t, checkKindRestarts(vj, nil, newPodTraces(), &Result{Workloads: []WorkloadResult{{Kind: "Job.batch.volcano.sh", Name: "v", Restarts: 2, Status: "Failed"}}}))
	require.ErrorContains(t, checkKindRestarts(vj, nil, newPodTraces(), &Result{Workloads: []WorkloadResult{{Kind: "Job.batch.volcano.sh", Name: "v", Restarts: 2, Status: "Running"}}}),
		"VolcanoJob v: 2 restarts, its maxRetry, and Running, not Failed")
}

func TestPodLimitCheckerCatchesPodsPastTheLimit(t *testing.T) {
	f := newFakeRun().arrive(0, "a", nil, "", "").arrive(0, "b", nil, "", "").arrive(0, "c", nil, "", "")
	require.NoError(t, checkPodLimit(f.tr, 3))
	require.ErrorContains(t, checkPodLimit(f.tr, 2), "3 pods made, past the limit of 2")
}
