package queue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

// kube-scheduler's calculateBackoffDuration (as kube-scheduler computes it): Initial <<
// (count-1), capped at Max*sqrt(size) for a group of more than one pod.
func TestBackoffDuration(t *testing.T) {
	b := queue.Backoff{Initial: time.Second, Max: 10 * time.Second}
	// 10s * sqrt(2) = 14142135623.730951ns, truncated by Duration(float64).
	const sqrt2Max = 14*time.Second + 142135623*time.Nanosecond
	tests := []struct {
		name        string
		count, size int
		want        time.Duration
	}{
		{"no failure, no backoff", 0, 1, 0},
		{"negative count", -1, 1, 0},
		{"first failure: initial", 1, 1, time.Second},
		{"second doubles", 2, 1, 2 * time.Second},
		{"third", 3, 1, 4 * time.Second},
		{"fourth", 4, 1, 8 * time.Second},
		{"fifth capped: 1s > 10s>>4 = 625ms", 5, 1, 10 * time.Second},
		{"tenth stays at max", 10, 1, 10 * time.Second},
		{"huge count does not overflow", 1000, 1, 10 * time.Second},
		{"size 0 is not scaled", 10, 0, 10 * time.Second},
		{"size 4, first failure unchanged", 1, 4, time.Second},
		{"size 4, fifth: 16s below max 20s", 5, 4, 16 * time.Second},
		{"size 4, sixth: 1s > 20s>>5 = 625ms, so 10s*sqrt(4)", 6, 4, 20 * time.Second},
		{"size 4, tenth", 10, 4, 20 * time.Second},
		{"size 2, fourth: 8s below 14.14s", 4, 2, 8 * time.Second},
		{"size 2, fifth: 1s > 14.14s>>4, float truncated", 5, 2, sqrt2Max},
		{"size 2, tenth", 10, 2, sqrt2Max},
		{"size 9, tenth: 10s*3", 10, 9, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, b.Duration(tt.count, tt.size))
		})
	}
}

func TestBackoffDurationZeroMax(t *testing.T) {
	// kube-scheduler: podMaxBackoff == 0 means no backoff at all.
	b := queue.Backoff{Initial: time.Second}
	require.Zero(t, b.Duration(3, 1))
	require.Equal(t, time.Second, b.Expiry(1500*time.Millisecond, 3, 1), "expiry is the truncated timestamp")
}

func TestBackoffExpiry(t *testing.T) {
	b := queue.Backoff{Initial: time.Second, Max: 10 * time.Second}
	tests := []struct {
		name        string
		timestamp   time.Duration
		count, size int
		want        time.Duration
	}{
		{"whole seconds stay", 3 * time.Second, 1, 1, 4 * time.Second},
		{"0.5s + 1s truncates to 1s", 500 * time.Millisecond, 1, 1, time.Second},
		{"2.999s + 2s truncates to 4s", 2999 * time.Millisecond, 2, 1, 4 * time.Second},
		{"no failure: timestamp truncated", 1700 * time.Millisecond, 0, 1, time.Second},
		{"size 2 max 14.142s truncates to 14s", 0, 5, 2, 14 * time.Second},
		{"size 2 max from 0.9s: 15.04s truncates to 15s", 900 * time.Millisecond, 5, 2, 15 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, b.Expiry(tt.timestamp, tt.count, tt.size))
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	q := queue.New[int](queue.Config{})
	require.Equal(t, queue.Backoff{Initial: time.Second, Max: 10 * time.Second}, q.Backoff())

	custom := queue.Backoff{Initial: 2 * time.Second, Max: time.Minute}
	require.Equal(t, custom, queue.New[int](queue.Config{Backoff: custom}).Backoff())
}

// A huge maximum for a huge group stays a valid duration.
func TestBackoffOfHugeGroupsStaysInRange(t *testing.T) {
	b := queue.Backoff{Initial: time.Second, Max: 100 * 365 * 24 * time.Hour}
	d := b.Duration(100, 1_000_000)
	require.Greater(t, d, time.Duration(0))
	require.LessOrEqual(t, d, time.Duration(1<<62))
	require.Greater(t, b.Expiry(100*365*24*time.Hour, 100, 1_000_000), time.Duration(0))
}
