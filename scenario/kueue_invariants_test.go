package scenario

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// The Kueue invariants the random scenarios check over a run's history
// (Result.Kueue: Kueue's objects and every event of its Admitter, in
// order). Each is computed from scratch from the events, apart from the
// engine's own bookkeeping, so that a mistake there shows:
//
//   - quota: at every moment, every node of every cohort tree stays
//     within its quota (checkKueueQuota);
//   - counts: every admission admits, of each workload, between its
//     minCount and its count of pods (checkKueueCounts);
//   - no ping-pong under fair sharing (checkKueueFlipFlop);
//   - and the holding of quota follows Kueue's life cycle: a workload is
//     admitted only while it holds none, released only once evicted
//     (checked with the quota).

// checkKueueHistory checks a run's Kueue history: bounds are the
// generator's, by the owner the result names ("Job a", "Pod p").
func checkKueueHistory(res *Result, bounds map[string]countBounds, fair bool) error {
	rec := res.Kueue
	if err := checkKueueQuota(rec.Objects, rec.Events); err != nil {
		return err
	}
	byKey := map[string]countBounds{}
	for _, w := range res.Workloads {
		if w.Kind != "Workload" {
			continue
		}
		b, ok := bounds[w.Owner]
		if !ok {
			return fmt.Errorf("workload %s of %q: not one the generator made", w.Name, w.Owner)
		}
		byKey[workloadKey(w.Name)] = b
	}
	if err := checkKueueCounts(rec.Events, byKey); err != nil {
		return err
	}
	if fair {
		partial := map[string]bool{}
		for k, b := range byKey {
			partial[k] = b.min < b.max
		}
		return checkKueueFlipFlop(rec.Events, partial)
	}
	return nil
}

// workloadKey is the namespace/name of a workload the result names
// ("name" in default, "ns/name" elsewhere).
func workloadKey(display string) string {
	if strings.Contains(display, "/") {
		return display
	}
	return cluster.DefaultNamespace + "/" + display
}

// kfr is a flavor and a resource.
type kfr struct {
	flavor   string
	resource cluster.ResourceName
}

// holding is one admission's hold on quota: of which ClusterQueue, how
// much of each flavor and resource, from when (the cycle that reserved
// it) until when (its release; -1 while still held at the end).
type holding struct {
	workload string
	cq       string
	usage    map[kfr]int64
	from, to time.Duration
}

// holdings reads the events into the admissions' holds, checking the
// life cycle: QuotaReserved only while the workload holds no quota,
// Evicted only while it is admitted, QuotaReleased only once evicted;
// Finished ends a hold if there is one.
func holdings(events []kueue.Event) ([]holding, error) {
	var out []holding
	held := map[string]int{} // workload -> index in out
	evicted := map[string]bool{}
	for _, e := range events {
		i, holds := held[e.Workload]
		switch e.Kind {
		case kueue.QuotaReserved:
			if holds {
				return nil, fmt.Errorf("%v: %s admitted by %s while it holds quota of %s since %v", e.At, e.Workload, e.ClusterQueue, out[i].cq, out[i].from)
			}
			if e.Admission == nil {
				return nil, fmt.Errorf("%v: %s admitted without an admission", e.At, e.Workload)
			}
			h := holding{workload: e.Workload, cq: e.Admission.ClusterQueue, usage: map[kfr]int64{}, from: min(e.Reserved, e.At), to: -1}
			for _, ps := range e.Admission.PodSets {
				for r, v := range ps.Usage {
					f, ok := ps.Flavors[r]
					if !ok {
						return nil, fmt.Errorf("%v: %s admitted with %v of %s and no flavor for it", e.At, e.Workload, v, r)
					}
					h.usage[kfr{f, r}] += v
				}
			}
			held[e.Workload] = len(out)
			evicted[e.Workload] = false
			out = append(out, h)
		case kueue.Evicted:
			if !holds || evicted[e.Workload] {
				return nil, fmt.Errorf("%v: %s evicted while not admitted", e.At, e.Workload)
			}
			evicted[e.Workload] = true
		case kueue.QuotaReleased:
			if !holds || !evicted[e.Workload] {
				return nil, fmt.Errorf("%v: %s released while not evicted", e.At, e.Workload)
			}
			out[i].to = e.At
			delete(held, e.Workload)
		case kueue.Finished:
			if holds {
				out[i].to = e.At
				delete(held, e.Workload)
			}
		}
	}
	return out, nil
}

// quotaNode is a ClusterQueue or a Cohort in the checker's tree.
type quotaNode struct {
	name     string
	cohort   bool
	parent   *quotaNode
	children []*quotaNode
	quota    map[kfr]kueue.ResourceQuota
}

// quotaTree is the ClusterQueues and Cohorts of the objects (a Cohort
// named only by a queue has no quota), by name; cohorts and queues apart.
func quotaTree(objs *kueue.Objects) (queues, cohorts map[string]*quotaNode, frs []kfr) {
	queues, cohorts = map[string]*quotaNode{}, map[string]*quotaNode{}
	seen := map[kfr]bool{}
	quotas := func(rgs []kueue.ResourceGroup) map[kfr]kueue.ResourceQuota {
		m := map[kfr]kueue.ResourceQuota{}
		for _, rg := range rgs {
			for _, f := range rg.Flavors {
				for _, r := range f.Resources {
					k := kfr{f.Name, r.Name}
					m[k] = r
					if !seen[k] {
						seen[k] = true
						frs = append(frs, k)
					}
				}
			}
		}
		return m
	}
	cohort := func(name string) *quotaNode {
		if cohorts[name] == nil {
			cohorts[name] = &quotaNode{name: name, cohort: true, quota: map[kfr]kueue.ResourceQuota{}}
		}
		return cohorts[name]
	}
	for _, c := range objs.Cohorts {
		n := cohort(c.Name)
		n.quota = quotas(c.ResourceGroups)
		if c.ParentName != "" {
			n.parent = cohort(c.ParentName)
			n.parent.children = append(n.parent.children, n)
		}
	}
	for _, q := range objs.ClusterQueues {
		n := &quotaNode{name: q.Name, quota: quotas(q.ResourceGroups)}
		queues[q.Name] = n
		if q.CohortName != "" {
			n.parent = cohort(q.CohortName)
			n.parent.children = append(n.parent.children, n)
		}
	}
	return queues, cohorts, frs
}

// subtree is the node's subtree quota of one flavor-resource: its own
// nominal quota and what each child can lend it (the child's subtree
// quota less what its lending limit keeps local).
func (n *quotaNode) subtree(k kfr) int64 {
	s := n.quota[k].NominalQuota
	for _, c := range n.children {
		s += c.subtree(k) - c.local(k)
	}
	return s
}

// local is what the node's lending limit keeps from its parent: its
// subtree quota beyond the limit (none without a limit).
func (n *quotaNode) local(k kfr) int64 {
	if l := n.quota[k].LendingLimit; l != nil {
		return max(0, n.subtree(k)-*l)
	}
	return 0
}

// usage is what the node uses of one flavor-resource: a queue's
// admitted workloads; a cohort's, what its children use beyond their
// local quota.
func (n *quotaNode) usage(k kfr, used map[string]map[kfr]int64) int64 {
	if !n.cohort {
		return used[n.name][k]
	}
	var u int64
	for _, c := range n.children {
		u += max(0, c.usage(k, used)-c.local(k))
	}
	return u
}

// checkKueueQuota checks that at every moment of the run (every
// simulated time at which a hold starts or ends, after all the changes
// of that time), every node of the cohort trees is within its quota, for
// every flavor and resource:
//
//   - a root (a Cohort without parent, a ClusterQueue without cohort)
//     uses no more than its subtree quota;
//   - a node with a parent and a borrowing limit uses no more than its
//     subtree quota plus that limit;
//   - a node with a parent and a lending limit lends no more than that:
//     its subtree quota beyond the limit is its own, and its parent
//     counts only its usage beyond that (so the parent's own check
//     bounds what it lends);
//
// where a ClusterQueue's usage is what its admitted (and evicted, not
// yet released) workloads hold, a Cohort's what its children use beyond
// their local quota, and a subtree quota a node's nominal quota plus what
// its children can lend. Usage of a flavor-resource the queue has no
// quota for is a violation too.
func checkKueueQuota(objs *kueue.Objects, events []kueue.Event) error {
	hs, err := holdings(events)
	if err != nil {
		return err
	}
	queues, cohorts, frs := quotaTree(objs)
	var times []time.Duration
	for _, h := range hs {
		times = append(times, h.from)
		if h.to >= 0 {
			times = append(times, h.to)
		}
		q := queues[h.cq]
		if q == nil {
			return fmt.Errorf("%v: %s admitted by ClusterQueue %s, which does not exist", h.from, h.workload, h.cq)
		}
		for k := range h.usage {
			if _, ok := q.quota[k]; !ok {
				return fmt.Errorf("%v: %s admitted with %s of flavor %s, which ClusterQueue %s has no quota of", h.from, h.workload, k.resource, k.flavor, h.cq)
			}
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var nodes []*quotaNode
	for _, k := range slices.Sorted(maps.Keys(cohorts)) {
		nodes = append(nodes, cohorts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(queues)) {
		nodes = append(nodes, queues[k])
	}
	for _, t := range times {
		used := map[string]map[kfr]int64{}
		var who []string
		for _, h := range hs {
			if h.from <= t && (h.to < 0 || t < h.to) {
				if used[h.cq] == nil {
					used[h.cq] = map[kfr]int64{}
				}
				for k, v := range h.usage {
					used[h.cq][k] += v
				}
				who = append(who, h.workload+"@"+h.cq)
			}
		}
		for _, n := range nodes {
			for _, k := range frs {
				u, s := n.usage(k, used), n.subtree(k)
				limit, what := s, "its subtree quota"
				if n.parent != nil {
					b := n.quota[k].BorrowingLimit
					if b == nil {
						continue // its parent's check bounds it
					}
					limit, what = s+*b, fmt.Sprintf("its subtree quota %d plus its borrowing limit %d", s, *b)
				}
				if u > limit {
					kind := "ClusterQueue"
					if n.cohort {
						kind = "Cohort"
					}
					return fmt.Errorf("%v: %s %s uses %d of %s in flavor %s, more than %s (%d); holding: %s",
						t, kind, n.name, u, k.resource, k.flavor, what, limit, strings.Join(who, ", "))
				}
			}
		}
	}
	return nil
}

// checkKueueCounts checks that every admission admits, of each of a
// workload's pod sets, between the bounds given for the workload (by
// namespace/name: its minCount, or its count when it has none, and its
// count), and that a workload of a single pod set is admitted within
// them in total.
func checkKueueCounts(events []kueue.Event, bounds map[string]countBounds) error {
	for _, e := range events {
		if e.Kind != kueue.QuotaReserved || e.Admission == nil {
			continue
		}
		b, ok := bounds[e.Workload]
		if !ok {
			return fmt.Errorf("%v: %s admitted, a workload of unknown bounds", e.At, e.Workload)
		}
		var n int32
		for _, ps := range e.Admission.PodSets {
			n += ps.Count
		}
		if n < b.min || n > b.max {
			return fmt.Errorf("%v: %s admitted with %d pods, outside its minCount %d and count %d", e.At, e.Workload, n, b.min, b.max)
		}
	}
	return nil
}

// checkKueueFlipFlop checks that, under fair sharing, no two workloads
// preempt each other back and forth. Precisely: for each pair of
// workloads A and B, take the preemptions between them in order (an
// Evicted event of one whose preemptor, By, is the other); two
// consecutive ones of opposite directions, A evicting B and then B
// evicting A, are a flip-flop when the quota held by every other
// workload (the set of workloads holding quota, and where) is the same
// at both: nothing but A and B changed, so the second preemption undoes
// the first on the same grounds. A reversal after the rest of the
// cluster changed (a workload finished, another admitted) may be fair
// and is not counted. Nor is a reversal by a workload that may be
// admitted partially (partial, by namespace/name): Kueue finds its
// victims for a smaller count, within its queue's nominal quota
// (reclamation), and admits it, once they are gone, whole if it then
// fits (borrowing): the preemption's grounds differ from the admission's
// (seed 1261 of TestRandomKueueScenarios, as Kueue does).
func checkKueueFlipFlop(events []kueue.Event, partial map[string]bool) error {
	held := map[string]string{} // workload -> its ClusterQueue, while it holds quota
	type preemption struct {
		at         time.Duration
		victim, by string
		others     string // the other holders, when it happened
	}
	last := map[[2]string]preemption{}
	for _, e := range events {
		switch e.Kind {
		case kueue.QuotaReserved:
			if e.Admission != nil {
				held[e.Workload] = e.Admission.ClusterQueue
			}
		case kueue.QuotaReleased:
			delete(held, e.Workload)
		case kueue.Finished:
			delete(held, e.Workload)
		case kueue.Evicted:
			if e.By == "" {
				continue
			}
			pair := [2]string{e.Workload, e.By}
			slices.SortFunc(pair[:], cmp.Compare)
			var others []string
			for _, w := range slices.Sorted(maps.Keys(held)) {
				if w != e.Workload && w != e.By {
					others = append(others, w+"@"+held[w])
				}
			}
			p := preemption{at: e.At, victim: e.Workload, by: e.By, others: strings.Join(others, ",")}
			if prev, ok := last[pair]; ok && prev.victim == e.By && prev.others == p.others && !partial[e.By] {
				return fmt.Errorf("flip-flop: %s preempted %s at %v, and %s preempted it back at %v, the other workloads holding the same quota (%s)",
					prev.by, prev.victim, prev.at, e.By, e.At, p.others)
			}
			last[pair] = p
		}
	}
	return nil
}
