package controllers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// The Job controller's backoff, as kube's own tests of it pin it, in the
// simulator's constants (a first delay of 10s, doubling, capped at 6
// minutes; kube's tests use 5s and 700s, which change the figures and not
// the rule).

// TestPortedJobBackoffRemaining: the delay left after the last failure,
// given the failures since the last success.
func TestPortedJobBackoffRemaining(t *testing.T) {
	for _, tt := range []struct {
		name     string
		failures int
		elapsed  time.Duration // since the last failure
		want     time.Duration
	}{
		{name: "no failures", failures: 0, want: 0},                                               // kube: "no failures"
		{name: "one failure, now", failures: 1, want: 10 * time.Second},                           // kube: "one failure; current time and failure time are same"
		{name: "one failure, 1s later", failures: 1, elapsed: time.Second, want: 9 * time.Second}, // kube: "one failure; current time == 1 second + failure time"
		{name: "one failure, at the delay", failures: 1, elapsed: 10 * time.Second, want: 0},      // kube: "one failure; current time == expected backoff time"
		{name: "one failure, past the delay", failures: 1, elapsed: 11 * time.Second, want: 0},    // kube: "one failure; current time == expected backoff time + 1 Second"
		{name: "three failures", failures: 3, want: 40 * time.Second},                             // kube: "three failures; current time and failure time are same"
		{name: "six failures, below the cap", failures: 6, want: 320 * time.Second},               // kube: "eight failures; ... backoff not exceeding maxBackoff"
		{name: "seven failures, capped", failures: 7, want: 6 * time.Minute},                      // kube: "nine failures; ... backoff exceeding maxBackoff"
		{name: "a hundred failures, capped", failures: 100, elapsed: time.Minute, want: 5 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at := time.Hour
			j := &jobRun{sinceSuccess: tt.failures, lastFailure: at}
			require.Equal(t, tt.want, j.backoffLeft(at+tt.elapsed))
		})
	}
}

// TestPortedJobBackoffRecord: which failures count for the backoff, from
// a run of pod endings (kube's newBackoffRecord): those after the last
// success; a failure at the same time as a success does not count, in
// whichever order the two are seen.
func TestPortedJobBackoffRecord(t *testing.T) {
	type end struct {
		at time.Duration
		ok bool // succeeded; else failed
	}
	ms := time.Millisecond
	for _, tt := range []struct {
		name  string
		ends  []end // in the order the controller sees them
		start int   // failures since the last success before them
		want  int   // failures that count
		last  time.Duration
	}{
		{name: "one failure", ends: []end{{10 * ms, false}}, want: 1, last: 10 * ms},                                   // kube: "Empty backoff store and one new failure"
		{name: "two failures", ends: []end{{9 * ms, false}, {10 * ms, false}}, want: 2, last: 10 * ms},                 // kube: "Empty backoff store and two new failures"
		{name: "two failures then a success", ends: []end{{8 * ms, false}, {9 * ms, false}, {10 * ms, true}}, want: 0}, // kube: "Empty backoff store, two failures followed by success"
		{name: "two failures, a success, two failures", // kube: "Empty backoff store, two failures, one success and two more failures"
			ends: []end{{6 * ms, false}, {7 * ms, false}, {8 * ms, true}, {9 * ms, false}, {10 * ms, false}}, want: 2, last: 10 * ms},
		{name: "two before, one more", start: 2, ends: []end{{10 * ms, false}}, want: 3, last: 10 * ms},                   // kube: "Backoff store having failure count 2 and one new failure"
		{name: "a success and a failure at once, success first", ends: []end{{10 * ms, true}, {10 * ms, false}}, want: 0}, // kube: "Empty backoff store with success and failure at same timestamp"
		{name: "a success and a failure at once, failure first", ends: []end{{10 * ms, false}, {10 * ms, true}}, want: 0},
		{name: "nothing", want: 0},                                   // kube: "Empty backoff store with no success/failure"
		{name: "one success", ends: []end{{10 * ms, true}}, want: 0}, // kube: "Empty backoff store with one success"
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &Manager{failed: map[cluster.PodKey]bool{}}
			c := &controller{w: &Workload{Kind: KindJob, Name: "j"}, activeAt: map[int]int{}, madeAt: map[int]int{},
				onNode: map[string]int{}, madeOn: map[string]int{}}
			c.job = &jobRun{rules: &Job{Parallelism: 1, BackoffLimit: 100}, sinceSuccess: tt.start}
			for i, e := range tt.ends {
				cp := &ownedPod{ctl: c, key: cluster.MakePodKey("", string(rune('a'+i))), index: -1}
				c.pods = append(c.pods, cp)
				c.active++
				if e.ok {
					require.NoError(t, m.jobChange(podChange{kind: gangsim.EventPodSucceeded, pod: cp, at: e.at}))
				} else {
					require.NoError(t, m.jobChange(podChange{kind: gangsim.EventPodDeleted, pod: cp, at: e.at}))
				}
			}
			require.Equal(t, tt.want, c.job.sinceSuccess)
			if tt.want > 0 {
				require.Equal(t, tt.last, c.job.lastFailure)
			}
		})
	}
}
