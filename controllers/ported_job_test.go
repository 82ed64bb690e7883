package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// TestPortedJobSync ports the cases of kube's job controller sync test
// (TestControllerSyncJob) that the simulator models: a Job with the pods
// of the inputs (running or pending, by completion index) and the
// counts of those that ended before the run; the first sync, at time 0,
// makes and deletes pods, and the run goes on to the Job's end. Every pod
// runs an hour, so that what happens at 0s is the first sync's.
//
// Rows left out, and why: the controller errors and "limited pods" (the
// fake pod control's failures and burst limit: the simulator's pod
// creation does not fail but by a quota, TestJobController); "deleting
// job" and the suspending rows with unsatisfied expectations (no Job is
// deleted during a run, and the simulator has no informer lag); "too few
// active pods and active back-off" (the failures of the inputs start no
// backoff: their times are unknown, docs/kubernetes-inputs.md);
// podFailurePolicy, successPolicy, managedBy, ready and terminating
// counts (not modelled, or not kept).
func TestPortedJobSync(t *testing.T) {
	type in struct {
		index string // its completion index label; "" for none
		bound bool   // running on n1; else pending
	}
	for _, tt := range []struct {
		name            string // kube's case
		par, comp       int32  // comp -1: no completions (a work queue)
		backoff         int32
		indexed         bool
		succeeded, fail int   // pods that ended before the run
		succIdx         []int // an Indexed Job's completed indexes
		active          []in
		created         []string // pods made at 0s
		deleted         int      // pods deleted at 0s
		want            string   // the Job at the end
	}{{
		name: "job start", par: 2, comp: 5, backoff: 6,
		created: []string{"j-0", "j-1"}, want: "j Complete 5/0 3h0m0s",
	}, {
		name: "WQ job start", par: 2, comp: -1, backoff: 6,
		created: []string{"j-0", "j-1"}, want: "j Complete 2/0 1h0m0s",
	}, {
		name: "correct # of pods", par: 2, comp: 5, backoff: 6, active: []in{{bound: true}, {bound: true}},
		want: "j Complete 5/0 3h0m0s",
	}, {
		name: "WQ job: correct # of pods", par: 2, comp: -1, backoff: 6, active: []in{{bound: true}, {bound: true}},
		want: "j Complete 2/0 1h0m0s",
	}, {
		name: "too few active pods", par: 2, comp: 5, backoff: 6, succeeded: 1, active: []in{{bound: true}},
		created: []string{"j-0"}, want: "j Complete 5/0 2h0m0s",
	}, {
		name: "too few active pods with a dynamic job", par: 2, comp: -1, backoff: 6, active: []in{{bound: true}},
		created: []string{"j-0"}, want: "j Complete 2/0 1h0m0s",
	}, {
		name: "too many active pods", par: 2, comp: 5, backoff: 6, active: []in{{bound: true}, {bound: true}, {bound: true}},
		deleted: 1, want: "j Complete 5/0 3h0m0s",
	}, {
		name: "more active pods than parallelism", par: 2, comp: 5, backoff: 6,
		active:  []in{{bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}, {bound: true}},
		deleted: 8, want: "j Complete 5/0 3h0m0s",
	}, {
		name: "more active pods than remaining completions", par: 3, comp: 4, backoff: 6, succeeded: 2,
		active: []in{{bound: true}, {bound: true}, {bound: true}}, deleted: 1, want: "j Complete 4/0 1h0m0s",
	}, {
		name: "status change", par: 2, comp: 5, backoff: 6, succeeded: 2, active: []in{{bound: true}, {bound: true}},
		want: "j Complete 5/0 2h0m0s",
	}, {
		name: "failed + succeed pods: reset backoff delay", par: 2, comp: 5, backoff: 6, succeeded: 1, fail: 1,
		active: []in{{bound: true}}, created: []string{"j-0"}, want: "j Complete 5/1 2h0m0s",
	}, {
		name: "new failed pod", par: 2, comp: 5, backoff: 6, fail: 1, active: []in{{bound: true}},
		created: []string{"j-0"}, want: "j Complete 5/1 3h0m0s",
	}, {
		name: "job finish", par: 2, comp: 5, backoff: 6, succeeded: 5, want: "j Complete 5/0 0s",
	}, {
		name: "WQ job finishing", par: 2, comp: -1, backoff: 6, succeeded: 1, active: []in{{bound: true}},
		want: "j Complete 2/0 1h0m0s",
	}, {
		name: "WQ job all finished", par: 2, comp: -1, backoff: 6, succeeded: 2, want: "j Complete 2/0 0s",
	}, {
		name: "WQ job all finished despite one failure", par: 2, comp: -1, backoff: 6, succeeded: 1, fail: 1,
		want: "j Complete 1/1 0s",
	}, {
		name: "too many job failures", par: 2, comp: 5, backoff: 0, fail: 1,
		want: "j Failed 0/1 BackoffLimitExceeded 0s",
	}, {
		name: "count ready pods when job fails", par: 2, comp: 3, backoff: 0, fail: 1,
		active: []in{{bound: true}, {bound: true}}, deleted: 2, want: "j Failed 0/3 BackoffLimitExceeded 0s",
	}, {
		name: "indexed job start", par: 2, comp: 5, backoff: 6, indexed: true,
		created: []string{"j-0-0", "j-1-0"}, want: "j Complete 5/0 3h0m0s",
	}, {
		name: "indexed job completed", par: 2, comp: 3, backoff: 6, indexed: true, succeeded: 3, fail: 1,
		succIdx: []int{0, 1, 2}, want: "j Complete 3/1 0s",
	}, {
		name: "indexed job failed", par: 2, comp: 3, backoff: 0, indexed: true, succeeded: 1, fail: 1,
		succIdx: []int{0}, active: []in{{index: "2", bound: true}}, deleted: 1,
		want: "j Failed 1/2 BackoffLimitExceeded 0s",
	}, {
		// the inputs give an Indexed Job's completed indexes once each
		name: "indexed job repeated completed index", par: 2, comp: 3, backoff: 6, indexed: true, succeeded: 2,
		succIdx: []int{0, 1}, created: []string{"j-2-0"}, want: "j Complete 3/0 1h0m0s",
	}, {
		name: "indexed job some running and completed pods", par: 8, comp: 20, backoff: 6, indexed: true, succeeded: 6,
		succIdx: []int{2, 4, 5, 7, 8, 9}, active: []in{{index: "0", bound: true}, {index: "3"}},
		created: []string{"j-1-0", "j-6-0", "j-10-0", "j-11-0", "j-12-0", "j-13-0"}, want: "j Complete 20/0 2h0m0s",
	}, {
		name: "indexed job some failed pods", par: 3, comp: 4, backoff: 6, indexed: true, fail: 2,
		active: []in{{index: "1"}}, created: []string{"j-0-0", "j-2-0"}, want: "j Complete 4/2 2h0m0s",
	}, {
		// kube deletes the pods of no index, or of one past completions,
		// and does not count them as failed
		name: "indexed job some pods without index", par: 2, comp: 5, backoff: 6, indexed: true, succeeded: 1,
		succIdx: []int{0}, active: []in{{index: "invalid", bound: true}, {index: "invalid"}, {index: "1", bound: true}, {index: "2", bound: true}},
		deleted: 2, want: "j Complete 5/0 2h0m0s",
	}, {
		name: "indexed job repeated indexes", par: 5, comp: 5, backoff: 6, indexed: true, succeeded: 1,
		succIdx: []int{0}, active: []in{{index: "invalid", bound: true}, {index: "1", bound: true}, {index: "2", bound: true}, {index: "2"}},
		deleted: 2, created: []string{"j-3-0", "j-4-0"}, want: "j Complete 5/0 1h0m0s",
	}, {
		name: "indexed job with indexes outside of range", par: 2, comp: 5, backoff: 6, indexed: true, succeeded: 1,
		succIdx: []int{0}, active: []in{{index: "5", bound: true}, {index: "7"}},
		deleted: 2, created: []string{"j-1-0", "j-2-0"}, want: "j Complete 5/0 2h0m0s",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			rules := controllers.Job{Parallelism: tt.par, BackoffLimit: tt.backoff, Indexed: tt.indexed,
				Succeeded: tt.succeeded, Failed: tt.fail, SucceededIndexes: tt.succIdx}
			if tt.comp >= 0 {
				rules.Completions = int32p(tt.comp)
			}
			w := job("j", time.Hour, rules)
			var pods []given
			inputs := map[string]bool{}
			for i, a := range tt.active {
				b := gt.MakePod(fmt.Sprintf("in-%d", i)).CPU("1").Label("job-name", "j")
				if a.index != "" {
					b = b.Label(controllers.JobCompletionIndexLabel, a.index)
				}
				if a.bound {
					b = b.NodeName("n1")
				}
				pods = append(pods, given{pod: b.Obj(), d: time.Hour, owner: 0})
				inputs[fmt.Sprintf("in-%d", i)] = true
			}
			r := runCase(t, []cluster.Node{gt.MakeNode("n1").CPU("32").Obj()}, 0, pods, []controllers.Workload{w})
			require.NoError(t, r.err)
			var created []string
			deleted := 0
			for _, e := range r.events {
				f := strings.Fields(e)
				if f[0] != "0s" {
					continue
				}
				switch {
				case f[1] == gangsim.EventPodArrived.String() && !inputs[f[2]]:
					created = append(created, f[2])
				case f[1] == gangsim.EventPodDeleted.String():
					deleted++
				}
			}
			require.Equal(t, tt.created, created, "pods made by the first sync")
			require.Equal(t, tt.deleted, deleted, "pods deleted by the first sync")
			require.Equal(t, []string{tt.want}, r.jobs())
		})
	}
}
