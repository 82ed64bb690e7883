package controllers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// A success resets a Job's backoff, as kube's job controller counts the
// failures since the last success (issue 48 pins it): three failures wait
// 40s; once a pod succeeds, a new failure waits 10s again.
func TestJobSuccessResetsTheBackoff(t *testing.T) {
	m := &Manager{failed: map[cluster.PodKey]bool{}}
	c := &controller{w: &Workload{Kind: KindJob, Name: "j"}, activeAt: map[int]int{}, madeAt: map[int]int{},
		onNode: map[string]int{}, madeOn: map[string]int{}}
	c.job = &jobRun{rules: &Job{Parallelism: 1, BackoffLimit: 100}}
	pod := func(name string) *ownedPod {
		cp := &ownedPod{ctl: c, key: cluster.MakePodKey("", name), index: -1}
		c.pods = append(c.pods, cp)
		c.active++
		return cp
	}
	for i, at := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		m.fail(pod(string(rune('a'+i))), at)
	}
	require.Equal(t, 40*time.Second, c.job.backoffLeft(3*time.Minute))
	require.NoError(t, m.jobChange(podChange{kind: gangsim.EventPodSucceeded, pod: pod("ok"), at: 4 * time.Minute}))
	require.Zero(t, c.job.backoffLeft(4*time.Minute), "a success ends the backoff")
	m.fail(pod("later"), 5*time.Minute)
	require.Equal(t, 10*time.Second, c.job.backoffLeft(5*time.Minute), "and it starts again at 10s")
}
