package preemption

import (
	"cmp"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Kind is what a victim unit is; it ranks units of equal priority.
type Kind uint8

// The unit kinds, least important first (kube-scheduler ranks pod 1,
// podgroup 2, compositepodgroup 3).
const (
	KindPod Kind = iota + 1
	KindPodGroup
	KindCompositePodGroup
)

// Unit is what preemption evicts as one: a single pod, or every scheduled
// pod under the highest ancestor group whose disruption mode is All.
// Priority is the unit's root group's priority (a lone pod's own).
type Unit struct {
	Key      string // unique among units: the pod or group key
	Kind     Kind
	Priority int32
	Pods     []*cluster.PodInfo
	start    time.Duration // earliest start among Pods
}

// NewUnit returns a unit of the given pods.
func NewUnit(key string, kind Kind, priority int32, pods []*cluster.PodInfo) *Unit {
	u := &Unit{Key: key, Kind: kind, Priority: priority, Pods: pods}
	for i, p := range pods {
		if s := p.StartTime(); i == 0 || s < u.start {
			u.start = s
		}
	}
	return u
}

// NewPodUnit returns the unit of a single pod with its own priority.
func NewPodUnit(pi *cluster.PodInfo) *Unit {
	return NewUnit(string(pi.Key()), KindPod, pi.Priority(), []*cluster.PodInfo{pi})
}

// EarliestStart is the earliest start time among the unit's pods.
func (u *Unit) EarliestStart() time.Duration { return u.start }

// Compare orders units by importance, most important first (it is
// evicted last and reprieved first), as kube-scheduler's
// MoreImportantVictim does, made total:
//
//  1. higher priority;
//  2. higher kind: CompositePodGroup, then PodGroup, then a pod;
//  3. more pods;
//  4. earlier start (the unit that has run longer);
//  5. key, ascending (unique: the final tie-break).
func Compare(a, b *Unit) int {
	return cmp.Or(
		cmp.Compare(b.Priority, a.Priority),
		cmp.Compare(b.Kind, a.Kind),
		cmp.Compare(len(b.Pods), len(a.Pods)),
		cmp.Compare(a.EarliestStart(), b.EarliestStart()),
		cmp.Compare(a.Key, b.Key),
	)
}

// labelProbe is a label a budget's pods must carry (key "" for none; see
// cluster.BudgetStatus.LabelProbe).
type labelProbe struct{ key, val string }

// budgetViolations splits units, given in importance order, into those
// whose eviction would break a pod disruption budget and the rest, as
// kube-scheduler's FilterVictimsWithPDBViolation does: each budget's
// allowance is spent by the matching pods in the order given, and a unit
// violates when one of its pods finds its budget spent. It returns the
// violating units with the violating pods of each.
func budgetViolations(units []*Unit, budgets []cluster.BudgetStatus) (violating []*Unit, violators [][]cluster.PodKey, rest []*Unit) {
	allowed := make([]int, len(budgets))
	probes := make([]labelProbe, len(budgets))
	for i, b := range budgets {
		allowed[i] = b.Allowed
		probes[i].key, probes[i].val, _ = b.LabelProbe()
	}
	for _, u := range units {
		var bad []cluster.PodKey
		for _, p := range u.Pods {
			if p.State() == cluster.PodTerminating {
				continue // already being disrupted
			}
			var seen labelProbe // the label last looked up, with the pod's value in val
			var has bool
			for i, b := range budgets {
				if pr := probes[i]; pr.key != "" {
					if pr.key != seen.key {
						seen.key = pr.key
						seen.val, has = p.Pod().Labels[pr.key]
					}
					if !has || seen.val != pr.val {
						continue
					}
				}
				if !b.Budget.Matches(p.Pod()) {
					continue
				}
				allowed[i]--
				if allowed[i] < 0 {
					bad = append(bad, p.Key())
					break
				}
			}
		}
		if len(bad) > 0 {
			violating, violators = append(violating, u), append(violators, bad)
		} else {
			rest = append(rest, u)
		}
	}
	return violating, violators, rest
}
