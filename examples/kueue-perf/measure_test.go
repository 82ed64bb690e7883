package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMeasure works Kueue's two measures out by hand.
//
// Usage of class cq (queues q1 and q2, 2 cpu each, 4,000 millicores in
// all): q1 holds 1,000m from 0 to 2 s (2,000,000 millicore-ms) and 500m
// from 2.5 s to 4 s (750,000); q2 holds 3,000m, borrowed in part, from
// 1 s to 3 s (6,000,000): 8,750,000 over 4,000m × 4,000 ms (the class's
// last release) is 54.6875 %. Class other (q3, 1 cpu): 1,000m from 0 to
// 500 ms over 1,000m × 500 ms is 100 %.
//
// Time to admission of class small: 250 ms, 1,000 ms (1,000.9 truncated,
// as Kueue truncates each Workload's to whole milliseconds) and 0 for the
// one never admitted: 1,250 / 3 = 416 (integer division). Class large:
// 1,999.5 ms truncated to 1,999.
func TestMeasure(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	m := measure(
		[]queueRecord{{"q1", "cq", 2000}, {"q2", "cq", 2000}, {"q3", "other", 1000}},
		[]holding{
			{"q1", 1000, 0, ms(2000)},
			{"q2", 3000, ms(1000), ms(3000)},
			{"q1", 500, ms(2500), ms(4000)},
			{"q3", 1000, 0, ms(500)},
		},
		[]workloadRecord{
			{"small", ms(100), ms(350), true},
			{"small", ms(200), ms(1200.9), true},
			{"small", ms(300), 0, false},
			{"large", 0, ms(1999.5), true},
		})
	require.Equal(t, 4*time.Second, m.wall)
	require.InDelta(t, 54.6875, m.usage["cq"], 1e-9)
	require.InDelta(t, 100, m.usage["other"], 1e-9)
	require.Equal(t, map[string]int64{"small": 416, "large": 1999}, m.tta)

	var out bytes.Buffer
	require.NoError(t, writeCompare(&out, "baseline", &m))
	require.Contains(t, out.String(), "| wall time of the run | 351.1 s | at most 425.0 s | 4.0 s |\n")
	require.Contains(t, out.String(), "| ClusterQueue usage, class cq | 55.9 % | at least 50.0 % | 54.7 % |\n")
	require.Contains(t, out.String(), "| mean time to admission, small | 215.5 s | at most 260.0 s | 0.4 s |\n")
	require.Contains(t, out.String(), "| mean time to admission, medium | 76.8 s | at most 90.0 s |  |\n")
}

// TestMeasureNoData: a class without quota or without any holding is left
// out, as Kueue's checker refuses such data rather than divide by zero.
func TestMeasureNoData(t *testing.T) {
	m := measure([]queueRecord{{"q1", "cq", 0}, {"q2", "idle", 1000}}, []holding{{"q1", 1000, 0, time.Second}}, nil)
	require.Empty(t, m.usage)
	require.Empty(t, m.tta)
}
