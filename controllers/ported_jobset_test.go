package controllers_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// JobSet's own unit tests (its failure, success, startup and dependsOn
// policies) test functions of its controller on a status they are given;
// here each case is a run of a JobSet "js" that reaches that status, and
// the row checks what the controller then does. Each row names the case
// it ports. Left out: onJobFailureMessagePatterns (not modelled: a Job's
// failure message is not kept, and the importer warns); two Jobs failing
// at different past times seen in one sync (in a run, the JobSet acts on
// each failure as it happens); the elastic, in-place restart, TTL and
// volume claim tests (not modelled).

// failsAfter is a fate: the pods whose name starts with a prefix fail
// after d, on the attempts (the pod's last name part, the restart
// attempt's pod of index 0) below tries; -1 for every attempt.
func failsAfter(d time.Duration, tries int, prefixes ...string) func(cluster.PodKey, int) (time.Duration, bool) {
	return func(key cluster.PodKey, _ int) (time.Duration, bool) {
		name := key.Display()
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				attempt := name[strings.LastIndexByte(name, '-')+1:]
				if tries < 0 || attempt < string(rune('0'+tries)) && len(attempt) == 1 {
					return d, true
				}
			}
		}
		return 0, false
	}
}

// never is the fate of pods that never fail.
func never(cluster.PodKey, int) (time.Duration, bool) { return 0, false }

// withDeadline gives the Jobs of a role an active deadline.
func withDeadline(ws []controllers.Workload, role string, d time.Duration) []controllers.Workload {
	for i := range ws {
		if ws[i].Role == role && ws[i].Job != nil {
			rules := *ws[i].Job
			rules.ActiveDeadline = d
			ws[i].Job = &rules
		}
	}
	return ws
}

// parentOf is the JobSet's outcome: "state reason restarts at".
func parentOf(m *controllers.Manager) string {
	for _, p := range m.Parents() {
		line := p.Name + " " + string(p.State) + " " + p.Reason + " " + strconv.Itoa(p.Restarts)
		if p.Finished() {
			line += " " + p.FinishedAt.String()
		}
		return line
	}
	return ""
}

func TestPortedJobSetFailurePolicy(t *testing.T) {
	const (
		ble = "BackoffLimitExceeded"
		de  = "DeadlineExceeded"
	)
	rule := func(a controllers.FailureAction, reasons, roles []string) controllers.FailureRule {
		return controllers.FailureRule{Action: a, Reasons: reasons, Roles: roles}
	}
	// two replicated jobs of one Job of one pod each, running an hour;
	// the Job of rj1 (or rj2) fails at 5m, by its backoff limit (its pod
	// deleted, backoffLimit 0) or its deadline
	build := func(fp *controllers.FailurePolicy, failing, reason string) ([]controllers.Workload, func(cluster.PodKey, int) (time.Duration, bool)) {
		p := &controllers.Parent{Roles: []controllers.Role{{Name: "rj1"}, {Name: "rj2"}}, Failure: fp, Clean: controllers.CleanAll,
			AttemptLabel: "jobset.sigs.k8s.io/restart-attempt"}
		ws := jobSet(p, byPrefix(time.Hour), controllers.Job{BackoffLimit: 0}, "rj1:1:1", "rj2:1:1")
		if reason == de {
			return withDeadline(ws, failing, 5*time.Minute), never
		}
		return ws, failsAfter(5*time.Minute, -1, "js-"+failing+"-")
	}
	const (
		applied    = "js Failed FailJobSetFailurePolicyAction 0 5m0s"
		notApplied = "js Failed ReachedMaxRestarts 0 5m0s" // the default action, RestartJobSet, at maxRestarts 0
	)
	for _, tt := range []struct {
		name    string // JobSet's case
		rules   []controllers.FailureRule
		failing string // the replicated job whose Job fails
		reason  string
		want    string
	}{
		// TestFailurePolicyRuleIsApplicable, the rule's action FailJobSet
		{"rule matches all replicated jobs and all reasons", []controllers.FailureRule{rule(controllers.FailParent, nil, nil)}, "rj1", ble, applied},
		{"rule matches all replicated jobs and the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, nil)}, "rj1", ble, applied},
		{"rule matches all replicated jobs, not the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, nil)}, "rj1", de, notApplied},
		{"rule matches the parent replicatedJob and all reasons", []controllers.FailureRule{rule(controllers.FailParent, nil, []string{"rj1"})}, "rj1", ble, applied},
		{"rule matches the parent replicatedJob and the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, []string{"rj1"})}, "rj1", ble, applied},
		{"rule matches the parent replicatedJob, not the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, []string{"rj1"})}, "rj1", de, notApplied},
		{"rule does not match the parent replicatedJob, matches all reasons", []controllers.FailureRule{rule(controllers.FailParent, nil, []string{"rj1"})}, "rj2", ble, notApplied},
		{"rule does not match the parent replicatedJob, matches the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, []string{"rj1"})}, "rj2", ble, notApplied},
		{"rule matches neither the parent replicatedJob nor the reason", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, []string{"rj1"})}, "rj2", de, notApplied},
		// TestFindFirstFailedPolicyRuleAndJob: the first rule matching
		// acts, FailJobSet telling which did
		{"1 failed job, 0 failure policy rules", nil, "rj1", ble, notApplied},
		{"1 failed job, 1 rule not matching", []controllers.FailureRule{rule(controllers.FailParent, []string{de}, nil)}, "rj1", ble, notApplied},
		{"1 failed job, 3 rules, the first matching", []controllers.FailureRule{rule(controllers.FailParent, []string{ble}, nil),
			rule(controllers.RestartAll, []string{de}, nil), rule(controllers.RestartAll, []string{"FailedIndexes"}, nil)}, "rj1", ble, applied},
		{"1 failed job, 3 rules, the second matching", []controllers.FailureRule{rule(controllers.RestartAllUncounted, []string{ble}, nil),
			rule(controllers.FailParent, []string{de}, nil), rule(controllers.RestartAllUncounted, []string{"FailedIndexes"}, nil)}, "rj1", de, applied},
		{"1 failed job, 3 rules, the third matching", []controllers.FailureRule{rule(controllers.RestartAllUncounted, []string{ble}, nil),
			rule(controllers.RestartAllUncounted, []string{"FailedIndexes"}, nil), rule(controllers.FailParent, []string{de}, nil)}, "rj1", de, applied},
		{"2 rules, the first matching no job, the second matching", []controllers.FailureRule{rule(controllers.RestartAll, nil, []string{"fakeReplicatedJobName"}),
			rule(controllers.FailParent, []string{ble}, nil)}, "rj1", ble, applied},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, fate := build(&controllers.FailurePolicy{Rules: tt.rules}, tt.failing, tt.reason)
			m, events, err := runFailing(t, node8, ws, fate)
			require.NoError(t, err)
			require.Equal(t, tt.want, parentOf(m), "%v", events)
		})
	}
}

// TestPortedJobSetRestarts ports TestApplyFailurePolicyRuleAction and the
// API's rule for RestartJob: RestartJobSet restarts every Job, counted,
// until the restarts counted reach maxRestarts, when the JobSet fails;
// RestartJobSetAndIgnoreMaxRestarts restarts uncounted; RestartJob
// restarts the failed Job alone, counted in the same count (a later
// RestartJobSet sees it), and does not add to the JobSet's restarts.
// The Job of rj1 fails at 5m on its first two attempts.
func TestPortedJobSetRestarts(t *testing.T) {
	for _, tt := range []struct {
		name  string // JobSet's case
		fp    controllers.FailurePolicy
		fate  func(cluster.PodKey, int) (time.Duration, bool)
		want  string
		wantJ []string
	}{{
		name: "FailJobSet action",
		fp:   controllers.FailurePolicy{MaxRestarts: 5, Rules: []controllers.FailureRule{{Action: controllers.FailParent}}},
		fate: failsAfter(5*time.Minute, 2, "js-rj1-"), want: "js Failed FailJobSetFailurePolicyAction 0 5m0s",
	}, {
		name: "RestartJobSet when restarts < maxRestarts increments restarts count and counts towards max",
		fp:   controllers.FailurePolicy{MaxRestarts: 5},
		fate: failsAfter(5*time.Minute, 2, "js-rj1-"), want: "js Completed AllJobsCompleted 2 1h10m0s",
	}, {
		name: "RestartJobSet action when restarts >= maxRestarts fails the jobset",
		fp:   controllers.FailurePolicy{MaxRestarts: 1},
		fate: failsAfter(5*time.Minute, 2, "js-rj1-"), want: "js Failed ReachedMaxRestarts 1 10m0s",
	}, {
		name: "RestartJobSetAndIgnoreMaxRestarts action does not count toward max restarts",
		fp:   controllers.FailurePolicy{MaxRestarts: 1, Rules: []controllers.FailureRule{{Action: controllers.RestartAllUncounted}}},
		fate: failsAfter(5*time.Minute, 2, "js-rj1-"), want: "js Completed AllJobsCompleted 2 1h10m0s",
	}, {
		// the API: RestartJob restarts the Job alone while the counted
		// restarts are below maxRestarts; rj2 runs on
		name:  "RestartJob: the failed Job alone, counted",
		fp:    controllers.FailurePolicy{MaxRestarts: 1, Rules: []controllers.FailureRule{{Action: controllers.RestartChild}}},
		fate:  failsAfter(5*time.Minute, 2, "js-rj1-"),
		want:  "js Failed ReachedMaxRestarts 0 10m0s",
		wantJ: []string{"js-rj1-0 Failed 0/1 BackoffLimitExceeded 10m0s", "js-rj2-0 Deleted 0/0 10m0s"},
	}, {
		name:  "RestartJobAndIgnoreMaxRestarts: the failed Job alone, uncounted",
		fp:    controllers.FailurePolicy{MaxRestarts: 0, Rules: []controllers.FailureRule{{Action: controllers.RestartChildFree}}},
		fate:  failsAfter(5*time.Minute, 2, "js-rj1-"),
		want:  "js Completed AllJobsCompleted 0 1h10m0s",
		wantJ: []string{"js-rj1-0 Complete 1/0 1h10m0s", "js-rj2-0 Complete 1/0 1h0m0s"},
	}, {
		// the API: RestartJobSet checks restartsCountTowardsMax plus
		// the Jobs' counted restarts against maxRestarts
		name: "RestartJobSet counts the Jobs' own restarts",
		fp: controllers.FailurePolicy{MaxRestarts: 1, Rules: []controllers.FailureRule{
			{Action: controllers.RestartChild, Roles: []string{"rj1"}}, {Action: controllers.RestartAll, Roles: []string{"rj2"}}}},
		fate: func(key cluster.PodKey, n int) (time.Duration, bool) {
			if d, ok := failsAfter(5*time.Minute, 1, "js-rj1-")(key, n); ok {
				return d, ok
			}
			return failsAfter(20*time.Minute, 1, "js-rj2-")(key, n)
		},
		want: "js Failed ReachedMaxRestarts 0 20m0s",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p := &controllers.Parent{Roles: []controllers.Role{{Name: "rj1"}, {Name: "rj2"}}, Failure: &tt.fp, Clean: controllers.CleanAll,
				AttemptLabel: "jobset.sigs.k8s.io/restart-attempt"}
			ws := jobSet(p, byPrefix(time.Hour), controllers.Job{BackoffLimit: 0}, "rj1:1:1", "rj2:1:1")
			m, events, err := runFailing(t, node8, ws, tt.fate)
			require.NoError(t, err)
			require.Equal(t, tt.want, parentOf(m), "%v", events)
			if tt.wantJ != nil {
				require.Equal(t, tt.wantJ, run{m: m}.jobs(), "%v", events)
			}
		})
	}
}

// TestPortedJobSetSuccessPolicy ports TestJobMatchesSuccessPolicy,
// TestNumJobsMatchingSuccessPolicy and TestNumJobsExpectedToSucceed: the
// JobSet completes when the Jobs of its target replicated jobs (all, when
// none is named) have completed, all of them, or one (Any). Replicated
// job rjN has N Jobs; those of rj1 run 10m, rj2 20m, rj3 30m.
func TestPortedJobSetSuccessPolicy(t *testing.T) {
	for _, tt := range []struct {
		name    string // JobSet's case
		any     bool
		targets []string
		want    string
	}{
		{"jobset's TargetReplicatedJobs is empty (all jobs expected)", false, nil, "js Completed AllJobsCompleted 0 30m0s"},
		{"all replicated jobs match success policy (1 + 2 of 1, 2, 3 replicas)", false, []string{"rj1", "rj2"}, "js Completed AllJobsCompleted 0 20m0s"},
		{"some replicated jobs don't match success policy (1 + 3)", false, []string{"rj1", "rj3"}, "js Completed AllJobsCompleted 0 30m0s"},
		{"any single job matching the jobSelector", true, nil, "js Completed AllJobsCompleted 0 10m0s"},
		{"job does not match any of the TargetReplicatedJobs (Any of rj3)", true, []string{"rj3"}, "js Completed AllJobsCompleted 0 30m0s"},
		{"job matches one of the TargetReplicatedJobs (Any of rj2, rj3)", true, []string{"rj2", "rj3"}, "js Completed AllJobsCompleted 0 20m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &controllers.Parent{Roles: []controllers.Role{{Name: "rj1"}, {Name: "rj2"}, {Name: "rj3"}},
				SuccessAny: tt.any, SuccessTargets: tt.targets, Clean: controllers.CleanAll}
			ws := jobSet(p, byPrefix(time.Hour, "js-rj1", 10*time.Minute, "js-rj2", 20*time.Minute, "js-rj3", 30*time.Minute),
				controllers.Job{BackoffLimit: 6}, "rj1:1:1", "rj2:2:1", "rj3:3:1")
			m, events, err := runFailing(t, node8, ws, never)
			require.NoError(t, err)
			require.Equal(t, tt.want, parentOf(m), "%v", events)
		})
	}
}

// TestPortedJobSetStartup ports TestDependencyReachedStatus and
// TestReplicatedJobStarted: a replicated job that depends on another
// starts once that one's Jobs are all complete (Complete) or each ready,
// complete or failed (Ready); under InOrder each starts once the one
// before has each Job ready, complete or failed. A pod is ready once
// bound; the cluster has 3 cpus, a 1-cpu pod of another Job holds one for
// 5 minutes, and every pod asks 1 cpu.
func TestPortedJobSetStartup(t *testing.T) {
	blocker := job("blocker", 5*time.Minute, controllers.Job{Completions: int32p(1), Parallelism: 1, BackoffLimit: 6})
	for _, tt := range []struct {
		name    string // JobSet's case
		roles   []controllers.Role
		inOrder bool
		specs   []string // role:replicas:pods
		rt      func(cluster.PodKey, int) time.Duration
		want    string // when the pod of the last role arrives
	}{{
		name:  "ReplicatedJob doesn't have any dependencies",
		roles: []controllers.Role{{Name: "init"}, {Name: "trainer"}},
		specs: []string{"init:2:1", "trainer:1:1"}, rt: byPrefix(time.Hour), want: "0s",
	}, {
		name:  "depends on ReplicatedJob reaches complete status (2 Jobs, done at 10m and 20m)",
		roles: []controllers.Role{{Name: "init"}, {Name: "trainer", DependsOn: []controllers.Dependency{{Role: "init", Complete: true}}}},
		specs: []string{"init:2:1", "trainer:1:1"}, rt: byPrefix(time.Hour, "js-init-0", 10*time.Minute, "js-init-1", 20*time.Minute), want: "20m0s",
	}, {
		name:  "depends on ReplicatedJob reaches ready status (3 Jobs, the last bound at 5m)",
		roles: []controllers.Role{{Name: "init"}, {Name: "trainer", DependsOn: []controllers.Dependency{{Role: "init"}}}},
		specs: []string{"init:3:1", "trainer:1:1"}, rt: byPrefix(time.Hour), want: "5m0s",
	}, {
		name:  "depends on ReplicatedJob reaches ready status (ready and succeeded)",
		roles: []controllers.Role{{Name: "init"}, {Name: "trainer", DependsOn: []controllers.Dependency{{Role: "init"}}}},
		specs: []string{"init:3:1", "trainer:1:1"}, rt: byPrefix(time.Hour, "js-init-0", 2*time.Minute), want: "2m0s",
	}, {
		name:  "replicas 4; replicatedJobStatus all ready (InOrder)",
		roles: []controllers.Role{{Name: "a"}, {Name: "b"}}, inOrder: true,
		specs: []string{"a:2:1", "b:1:1"}, rt: byPrefix(time.Hour), want: "0s",
	}, {
		name:  "replicas 4; replicatedJobStatus all active (InOrder: waits for the last to be bound)",
		roles: []controllers.Role{{Name: "a"}, {Name: "b"}}, inOrder: true,
		specs: []string{"a:3:1", "b:1:1"}, rt: byPrefix(time.Hour), want: "5m0s",
	}, {
		name:  "replicas 4; replicatedJobStatus mix of ready, failed and succeded (InOrder: one succeeded)",
		roles: []controllers.Role{{Name: "a"}, {Name: "b"}}, inOrder: true,
		specs: []string{"a:3:1", "b:1:1"}, rt: byPrefix(time.Hour, "js-a-0", 2*time.Minute), want: "2m0s",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p := &controllers.Parent{Roles: tt.roles, InOrder: tt.inOrder, Clean: controllers.CleanAll}
			ws := append([]controllers.Workload{blocker}, jobSet(p, tt.rt, controllers.Job{BackoffLimit: 6}, tt.specs...)...)
			nodes := []cluster.Node{gt.MakeNode("n1").CPU("3").Obj()}
			_, events, err := runFailing(t, nodes, ws, never)
			require.NoError(t, err)
			last := tt.roles[len(tt.roles)-1].Name
			var got string
			for _, e := range events {
				if f := strings.Fields(e); f[1] == "PodArrived" && strings.HasPrefix(f[2], "js-"+last+"-") {
					got = f[0]
					break
				}
			}
			require.Equal(t, tt.want, got, "%v", events)
		})
	}
}

// TestPortedJobSetPods: a replicated job makes replicas Jobs of
// parallelism pods each, named <jobset>-<replicatedJob>-<index>-<pod
// index>-<attempt>, all at once without a startup order.
func TestPortedJobSetPods(t *testing.T) {
	p := &controllers.Parent{Roles: []controllers.Role{{Name: "a"}, {Name: "b"}}, Clean: controllers.CleanAll}
	ws := jobSet(p, byPrefix(time.Hour), controllers.Job{BackoffLimit: 6}, "a:2:3", "b:3:1")
	m, _, err := runFailing(t, node8, ws, never)
	require.NoError(t, err)
	var made []string
	for _, k := range m.Made() {
		made = append(made, k.Display())
	}
	require.Equal(t, []string{"js-a-0-0-0", "js-a-0-1-0", "js-a-0-2-0", "js-a-1-0-0", "js-a-1-1-0", "js-a-1-2-0",
		"js-b-0-0-0", "js-b-1-0-0", "js-b-2-0-0"}, made)
}
