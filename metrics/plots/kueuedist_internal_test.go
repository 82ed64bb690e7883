package plots

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// spreadOf's quantiles are the empirical ones (the smallest value whose
// share of the sample reaches p), as metrics.Summarize's: of 1s..10s,
// p10 is the 1st value, p25 the 3rd (ceil(2.5)), p50 the 5th, p75 the
// 8th (ceil(7.5)), p90 the 9th; under a second counts as a second.
func TestSpreadOf(t *testing.T) {
	var times []time.Duration
	for i := 1; i <= 10; i++ {
		times = append(times, time.Duration(i)*time.Second)
	}
	assert.Equal(t, spread{p10: 1, p25: 3, p50: 5, p75: 8, p90: 9, max: 10}, spreadOf(times))
	assert.Equal(t, spread{p10: 1, p25: 1, p50: 1, p75: 1, p90: 1, max: 1}, spreadOf([]time.Duration{0}), "0s drawn at 1s")
	assert.Equal(t, spread{p10: 1, p25: 1, p50: 1, p75: 60, p90: 60, max: 60}, spreadOf([]time.Duration{0, 500 * time.Millisecond, time.Minute, time.Minute}))
}

func TestJoinNames(t *testing.T) {
	assert.Equal(t, "a", joinNames([]string{"a"}))
	assert.Equal(t, "a and b", joinNames([]string{"a", "b"}))
	assert.Equal(t, "a, b and c", joinNames([]string{"a", "b", "c"}))
}

func TestAxisEnd(t *testing.T) {
	for _, tt := range []struct{ longest, want float64 }{{0, 60}, {57, 60}, {58, 600}, {300, 600}, {3000, 3600}, {7200, 21600}, {1e7, 1.05e7}} {
		assert.Equal(t, tt.want, axisEnd(tt.longest), "%v", tt.longest)
	}
}
