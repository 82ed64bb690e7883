package htmlreport

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/metrics"
)

func queues(names ...string) []metrics.KueueQueueSummary {
	var out []metrics.KueueQueueSummary
	for _, n := range names {
		out = append(out, metrics.KueueQueueSummary{Name: n})
	}
	return out
}

// The matrix of preemptions, by hand: b preempted 2 of a and 1 of
// itself, c 3 of a, and an unknown preemptor 1 of c. Rows are the
// preemptors in the objects' order (the unknown last), columns the
// victims' queues (a, b, c: a queue never preempted from has none).
func TestPreemptionMatrix(t *testing.T) {
	assert.Nil(t, preemptions(&metrics.KueueSummary{ClusterQueues: queues("a")}), "none: no matrix")
	k := &metrics.KueueSummary{ClusterQueues: queues("a", "b", "c", "d"), Preemptions: []metrics.KueuePreemptions{
		{Preemptor: "b", Victim: "a", Count: 2}, {Preemptor: "b", Victim: "b", Count: 1}, {Preemptor: "c", Victim: "a", Count: 3},
		{Preemptor: "", Victim: "c", Count: 1}}}
	m := preemptions(k)
	require.NotNil(t, m)
	assert.Equal(t, []string{"a", "b", "c"}, m.Victims)
	assert.Equal(t, []matrixRow{
		{Preemptor: "b", Cells: []string{"2", "1", ""}, Total: "3"},
		{Preemptor: "c", Cells: []string{"3", "", ""}, Total: "3"},
		{Preemptor: noQueue, Cells: []string{"", "", "1"}, Total: "1"},
	}, m.Rows)
	assert.Equal(t, []string{"5", "1", "1"}, m.Preempted, "a lost 2 + 3")
	assert.Equal(t, "7", m.All)
	assert.Empty(t, m.Note)
}

// Above 30 queues in preemptions, the 30 in the most are shown and the
// rest summed: q-00..q-34 each preempt 1 of the next queue, q-34 6 of
// q-00: q-00 and q-34 are in 7 preemptions each and lead, then
// q-01..q-33 (2 each), of which the first 28 in the objects' order are
// kept: q-29..q-33 are summed, and preempted 5 (one each).
func TestPreemptionMatrixMany(t *testing.T) {
	var names []string
	for i := range 35 {
		names = append(names, fmt.Sprintf("q-%02d", i))
	}
	k := &metrics.KueueSummary{ClusterQueues: queues(names...)}
	for i := range 35 {
		k.Preemptions = append(k.Preemptions, metrics.KueuePreemptions{Preemptor: names[i], Victim: names[(i+1)%35], Count: 1})
	}
	k.Preemptions[34].Count = 6 // q-34 -> q-00
	m := preemptions(k)
	require.NotNil(t, m)
	assert.Equal(t, `The 30 ClusterQueues in the most preemptions of 35 in any; the others are summed as "5 others".`, m.Note)
	require.Len(t, m.Rows, 31)
	assert.Equal(t, "q-00", m.Rows[0].Preemptor)
	assert.Equal(t, "q-34", m.Rows[29].Preemptor, "kept: in 7 preemptions")
	assert.Equal(t, "q-28", m.Rows[28].Preemptor)
	assert.Equal(t, "5 others", m.Rows[30].Preemptor)
	assert.Equal(t, "5", m.Rows[30].Total, "q-29..q-33 preempted one each")
	assert.Equal(t, "5 others", m.Victims[len(m.Victims)-1])
}
