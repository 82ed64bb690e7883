package htmlreport

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/metrics"
)

// preemptMatrix is the preemptions between ClusterQueues: a row per
// preemptor's queue, a column per victim's (only queues with some), each
// cell the victims.
type preemptMatrix struct {
	Victims []string
	Rows    []matrixRow
	// Preempted sums each column, All every cell
	Preempted []string
	All       string
	Note      string // the queues folded into "other", in words
}

type matrixRow struct {
	Preemptor string
	Cells     []string // "" for none
	Total     string
}

// noQueue labels the preemptor of victims whose preemptor the report
// did not place in a queue.
const noQueue = "(in no queue)"

// preemptions lays out Kueue's preemptions between ClusterQueues, nil
// when there were none. The queues are those in a preemption, in the
// objects' order; above metrics.MaxKueueQueues of them, those in the
// most preemptions (as preemptor and victim), the others summed in a
// row and a column named for their count.
func preemptions(k *metrics.KueueSummary) *preemptMatrix {
	if len(k.Preemptions) == 0 {
		return nil
	}
	heads, folded, note := matrixQueues(k)
	at := func(name string) int {
		if i := slices.Index(heads, name); i >= 0 && (!folded || i < len(heads)-1) {
			return i
		}
		return len(heads) - 1 // the folded queues' row and column
	}
	counts := make([][]int, len(heads))
	for i := range counts {
		counts[i] = make([]int, len(heads))
	}
	for _, p := range k.Preemptions {
		counts[at(cmp.Or(p.Preemptor, noQueue))][at(p.Victim)] += p.Count
	}
	m := fill(counts, heads)
	m.Note = note
	return m
}

// matrixQueues returns the heads of the matrix's rows and columns: the
// queues in a preemption in the objects' order (noQueue last), or the
// metrics.MaxKueueQueues in the most and a last head for the others
// (folded), said in a note.
func matrixQueues(k *metrics.KueueSummary) (heads []string, folded bool, note string) {
	involved := map[string]int{}
	for _, p := range k.Preemptions {
		involved[cmp.Or(p.Preemptor, noQueue)] += p.Count
		involved[p.Victim] += p.Count
	}
	order := map[string]int{}
	for i, q := range k.ClusterQueues {
		order[q.Name] = i
	}
	rank := func(name string) int {
		if i, ok := order[name]; ok {
			return i
		}
		return len(order) // a name not among the objects' (noQueue) last
	}
	names := slices.SortedFunc(maps.Keys(involved), func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
	if len(names) <= metrics.MaxKueueQueues {
		return names, false, ""
	}
	busiest := slices.Clone(names)
	slices.SortStableFunc(busiest, func(a, b string) int { return cmp.Compare(involved[b], involved[a]) })
	keep := busiest[:metrics.MaxKueueQueues]
	shown := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !slices.Contains(keep, n) })
	other := fmt.Sprintf("%d others", len(names)-len(shown))
	note = fmt.Sprintf("The %d ClusterQueues in the most preemptions of %d in any; the others are summed as %q.", len(shown), len(names), other)
	return append(shown, other), true, note
}

// fill renders the counts: a column per victims' queue with some, a row
// per preemptors' queue with some, and the sums.
func fill(counts [][]int, heads []string) *preemptMatrix {
	m := &preemptMatrix{}
	var cols []int
	all := 0
	for j := range heads {
		sum := 0
		for i := range counts {
			sum += counts[i][j]
		}
		if sum == 0 {
			continue // a queue never preempted from: no column
		}
		cols = append(cols, j)
		m.Victims = append(m.Victims, heads[j])
		m.Preempted = append(m.Preempted, fmt.Sprint(sum))
		all += sum
	}
	m.All = fmt.Sprint(all)
	for i, row := range counts {
		r := matrixRow{Preemptor: heads[i]}
		total := 0
		for _, j := range cols {
			r.Cells = append(r.Cells, cell(row[j]))
			total += row[j]
		}
		if total == 0 {
			continue // a queue whose workloads preempted none: no row
		}
		r.Total = fmt.Sprint(total)
		m.Rows = append(m.Rows, r)
	}
	return m
}

// cell renders a count, "" for none, so that the counts stand out.
func cell(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}
