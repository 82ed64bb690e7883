package controllers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/controllers"
)

// A Volcano Job with minSuccess completes as soon as that many of its
// pods have succeeded, not one more: here the two pods of the first task
// succeed at 10m, which is minSuccess 2, and the job completes then,
// deleting the other task's pod that would run until 30m.
func TestPodSetMinSuccessCompletesAtTheMinimum(t *testing.T) {
	set := tasks("vj", []int{2, 1}, []time.Duration{10 * time.Minute, 30 * time.Minute}, 3)
	set.Set.MinSuccess = 2
	r := runCase(t, node8, 0, nil, []controllers.Workload{set})
	require.NoError(t, r.err)
	require.Equal(t, []string{"10m0s PodSucceeded vj-t0-0", "10m0s PodSucceeded vj-t0-1", "10m0s PodDeleted vj-t1-0"},
		r.of(gangsim.EventPodSucceeded, gangsim.EventPodDeleted))
	require.Equal(t, []string{"vj Completed 0 0"}, r.sets())
}
