package metrics

import (
	"cmp"
	"slices"

	"github.com/gangsim/gangsim/kueue"
)

// preemptionCounts counts Kueue's victims of preemption while the
// events are read: per queue as victims and as preemptors, and per pair
// of ClusterQueues.
type preemptionCounts struct {
	pairs map[[2]string]int // preemptor's ClusterQueue, victim's
}

// add counts one victim: victim held quota in victimCQ (named cqName);
// preemptor is the workload it was preempted for (nil when unknown).
func (p *preemptionCounts) add(victim *kworkload, victimCQ *kqueue, preemptor *kworkload, cqName string) {
	for _, q := range []*kqueue{victim.lq, victimCQ} {
		if q != nil {
			q.sum.Preempted++
		}
	}
	from := ""
	if preemptor != nil {
		for _, q := range []*kqueue{preemptor.lq, preemptor.cq} {
			if q != nil {
				q.sum.Preempting++
			}
		}
		if preemptor.cq != nil {
			from = preemptor.cq.sum.Name
		}
	}
	if p.pairs == nil {
		p.pairs = map[[2]string]int{}
	}
	p.pairs[[2]string{from, cqName}]++
}

// sorted returns the pairs in the objects' order of the preemptors' and
// then the victims' ClusterQueues (names not among them last, by name).
func (p *preemptionCounts) sorted(objs *kueue.Objects) []KueuePreemptions {
	index := make(map[string]int, len(objs.ClusterQueues))
	for i, q := range objs.ClusterQueues {
		if _, dup := index[q.Name]; !dup {
			index[q.Name] = i
		}
	}
	rank := func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		return len(objs.ClusterQueues)
	}
	var out []KueuePreemptions
	for k, n := range p.pairs {
		out = append(out, KueuePreemptions{Preemptor: k[0], Victim: k[1], Count: n})
	}
	slices.SortFunc(out, func(a, b KueuePreemptions) int {
		return cmp.Or(cmp.Compare(rank(a.Preemptor), rank(b.Preemptor)), cmp.Compare(a.Preemptor, b.Preemptor),
			cmp.Compare(rank(a.Victim), rank(b.Victim)), cmp.Compare(a.Victim, b.Victim))
	})
	return out
}

// PreemptionsBetween returns the count of workloads of ClusterQueue
// victim preempted for workloads of ClusterQueue preemptor.
func (k *KueueSummary) PreemptionsBetween(preemptor, victim string) int {
	for _, p := range k.Preemptions {
		if p.Preemptor == preemptor && p.Victim == victim {
			return p.Count
		}
	}
	return 0
}
