package autoscaler

import (
	"cmp"
	"slices"
	"time"
)

// podWait is what the autoscaler saw of one pod: its first arrival, its
// first binding, and the scale-ups that counted it.
type podWait struct {
	arrived time.Duration
	bound   bool
	boundAt time.Duration
	reqs    []*request
}

// PodWaits returns the wait split of every pod seen, up to end, in the
// order the pods arrived. ForNode is the part of the wait during which a
// scale-up that counted the pod was on its way (from its request to its
// nodes' arrival or timeout); ForRoom is the rest.
func (a *Autoscaler) PodWaits(end time.Duration) []PodWait {
	out := make([]PodWait, 0, len(a.waitOrder))
	for _, key := range a.waitOrder {
		w := a.waits[key]
		stop := end
		if w.bound {
			stop = w.boundAt
		}
		total := max(stop-w.arrived, 0)
		forNode := covered(w.reqs, w.arrived, stop)
		out = append(out, PodWait{Pod: key, ForNode: forNode, ForRoom: total - forNode, Bound: w.bound})
	}
	return out
}

// covered measures the union of the requests' spans within [from, to).
func covered(reqs []*request, from, to time.Duration) time.Duration {
	type span struct{ a, b time.Duration }
	var spans []span
	for _, r := range reqs {
		if a, b := max(r.at, from), min(r.end, to); a < b {
			spans = append(spans, span{a, b})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) })
	var total, reach time.Duration
	first := true
	for _, s := range spans {
		if first || s.a > reach {
			total += s.b - s.a
			reach, first = s.b, false
			continue
		}
		if s.b > reach {
			total += s.b - reach
			reach = s.b
		}
	}
	return total
}
