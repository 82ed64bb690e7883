package controllers_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The JobSet controller against a brute-force model on tiny JobSets: 1 to
// 3 replicated jobs of 1 to 3 Jobs each, each Job Indexed with 1 to 3
// pods (parallelism = completions, JobSet's usual Job) and a backoffLimit
// of 0 to 2; no failure policy, or one of maxRestarts 0 to 2 with no rule
// (RestartJobSet) or one rule for every failure: FailJobSet,
// RestartJobSet, or RestartJob (the failed Job alone, counted in the same
// count); pods that succeed
// or fail at random times on a cluster where all bind at once. The model
// runs each Job by the Job model (job_model_test.go) and applies
// JobSet's rules between their steps: all Jobs complete, the JobSet
// completes; a Job fails, the JobSet fails (no policy, FailJobSet, or
// restarts counted up to maxRestarts) or makes every Job, or that Job,
// anew. The pods made in
// order, the JobSet's end and restarts, and each Job's end must agree.

// jobSetModel is the model's JobSet.
type jobSetModel struct {
	jobs        []*jobModel
	policy      bool
	action      controllers.FailureAction // the one rule's action; "" for none (RestartJobSet)
	maxRestarts int
	restarts    int
	counted     int // restarts counted against maxRestarts, the JobSet's and its Jobs'
	state       string
	reason      string
	at          time.Duration
	deleted     map[int]bool // the Jobs deleted with the JobSet, still running
}

func (js *jobSetModel) run() {
	js.state, js.deleted = "Running", map[int]bool{}
	for _, j := range js.jobs {
		j.start(0)
	}
	for js.state == "Running" {
		first := -1
		var at time.Duration
		for i, j := range js.jobs {
			if t, ok := j.nextAt(); ok && (first < 0 || t < at) {
				first, at = i, t
			}
		}
		if first < 0 {
			return
		}
		js.jobs[first].step()
		js.settle(at)
	}
}

// settle applies the JobSet's rules at time now, after a Job's step.
func (js *jobSetModel) settle(now time.Duration) {
	failed, complete := -1, true
	for i, j := range js.jobs {
		if j.state == "Failed" && failed < 0 {
			failed = i
		}
		complete = complete && j.state == "Complete"
	}
	switch {
	case failed >= 0 && !js.policy:
		js.end(now, "Failed", "FailedJobs")
	case failed >= 0 && js.action == controllers.FailParent:
		js.end(now, "Failed", "FailJobSetFailurePolicyAction")
	case failed >= 0 && js.counted >= js.maxRestarts:
		js.end(now, "Failed", "ReachedMaxRestarts")
	case failed >= 0 && js.action == controllers.RestartChild:
		js.counted++
		js.jobs[failed].start(now) // that Job alone is made anew
	case failed >= 0:
		js.restarts++
		js.counted++
		for _, j := range js.jobs {
			j.start(now) // the Jobs' pods are deleted, and made anew
		}
	case complete:
		js.end(now, "Completed", "AllJobsCompleted")
	}
}

// end finishes the JobSet: its Jobs still running are deleted.
func (js *jobSetModel) end(now time.Duration, state, reason string) {
	js.state, js.reason, js.at = state, reason, now
	for i, j := range js.jobs {
		if j.state == "Running" {
			js.deleted[i] = true
			j.active, j.state = nil, "Deleted"
		}
	}
}

func TestJobSetAgainstModel(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 4848))
		plan := planner(uint64(seed), []float64{0, 0.15, 0.4}[r.IntN(3)])
		model := &jobSetModel{policy: r.IntN(2) == 0, maxRestarts: r.IntN(3)}
		var made []string
		p := &controllers.Parent{Clean: controllers.CleanAll}
		if model.policy {
			p.Failure = &controllers.FailurePolicy{MaxRestarts: model.maxRestarts}
			model.action = []controllers.FailureAction{"", controllers.FailParent, controllers.RestartAll, controllers.RestartChild}[r.IntN(4)]
			if model.action != "" {
				p.Failure.Rules = []controllers.FailureRule{{Action: model.action}}
			}
		}
		ws := []controllers.Workload{{Kind: controllers.KindJobSet, Namespace: "default", Name: "js", Parent: p}}
		desc := ""
		for rj := range 1 + r.IntN(3) {
			role := "r" + strconv.Itoa(rj)
			p.Roles = append(p.Roles, controllers.Role{Name: role})
			replicas, pods, backoff := 1+r.IntN(3), 1+r.IntN(3), r.IntN(3)
			desc += fmt.Sprintf(" %s: %d Jobs of %d pods, backoffLimit %d;", role, replicas, pods, backoff)
			for i := range replicas {
				name := "js-" + role + "-" + strconv.Itoa(i)
				model.jobs = append(model.jobs, &jobModel{name: name, comp: pods, par: pods, backoff: backoff, indexed: true,
					plan: plan, out: &made})
				rules := controllers.Job{Completions: int32p(int32(pods)), Parallelism: int32(pods), Indexed: true, BackoffLimit: int32(backoff)}
				ws = append(ws, controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: name, Of: p, Role: role,
					Template: gt.MakePod("").CPU("1").Obj(), Job: &rules,
					RunTime: func(key cluster.PodKey, _ int) time.Duration {
						if pl := plan(key.Display()); !pl.fails {
							return pl.d
						}
						return 1000 * time.Hour
					}})
			}
		}
		model.run()
		name := fmt.Sprintf("seed %d: failure policy %v (rule %q), maxRestarts %d;%s", seed, model.policy, model.action, model.maxRestarts, desc)

		m, events, err := runFailing(t, []cluster.Node{gt.MakeNode("n1").CPU("64").Obj()}, ws,
			func(key cluster.PodKey, _ int) (time.Duration, bool) {
				pl := plan(key.Display())
				return pl.d, pl.fails
			})
		require.NoError(t, err, name)
		var got []string
		for _, k := range m.Made() {
			got = append(got, k.Display())
		}
		require.Equal(t, made, got, "%s: the pods made\n%v", name, events)
		want := fmt.Sprintf("js %s %s %d %v", model.state, model.reason, model.restarts, model.at)
		require.Equal(t, want, parentOf(m), "%s\n%v", name, events)
		var wantJ []string
		for i, j := range model.jobs {
			line := fmt.Sprintf("%s %s %d/%d", j.name, j.state, j.succeeded, j.failed)
			if j.reason != "" {
				line += " " + j.reason
			}
			switch {
			case model.deleted[i]:
				line += " " + model.at.String()
			case j.state != "Running":
				line += " " + j.finishedAt.String()
			}
			wantJ = append(wantJ, line)
		}
		require.Equal(t, wantJ, run{m: m}.jobs(), "%s\n%v", name, events)
	}
}
