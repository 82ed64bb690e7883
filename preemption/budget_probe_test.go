package preemption

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// plainBudgetViolations is budgetViolations without the label probes:
// every pod against every budget's whole selector.
func plainBudgetViolations(units []*Unit, budgets []cluster.BudgetStatus) (violating []*Unit, violators [][]cluster.PodKey, rest []*Unit) {
	allowed := make([]int, len(budgets))
	for i, b := range budgets {
		allowed[i] = b.Allowed
	}
	for _, u := range units {
		var bad []cluster.PodKey
		for _, p := range u.Pods {
			if p.State() == cluster.PodTerminating {
				continue
			}
			for i, b := range budgets {
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

// The label probes turn budgets away only where their selectors would:
// on random budgets (matchLabels of zero to three labels, expressions,
// namespaces, empty and nil selectors) and random pods, the split is the
// plain one.
func TestBudgetProbesKeepTheSplit(t *testing.T) {
	keys, vals := []string{"app", "tier", "team"}, []string{"a", "b", "c"}
	labels := func(r *rand.Rand, n int) map[string]string {
		if n == 0 {
			return nil
		}
		m := map[string]string{}
		for range n {
			m[keys[r.IntN(len(keys))]] = vals[r.IntN(len(vals))]
		}
		return m
	}
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 1))
		var budgets []cluster.BudgetStatus
		for i := range r.IntN(6) {
			b := &cluster.PodDisruptionBudget{Name: fmt.Sprint("b", i), Namespace: []string{"", "default", "x"}[r.IntN(3)]}
			switch r.IntN(5) {
			case 0: // nil selector
			case 1:
				b.Selector = &cluster.LabelSelector{}
			case 2:
				b.Selector = &cluster.LabelSelector{MatchLabels: labels(r, 1+r.IntN(3)),
					MatchExpressions: []cluster.LabelRequirement{{Key: keys[r.IntN(3)], Operator: cluster.LabelIn, Values: vals[:1+r.IntN(3)]}}}
			default:
				b.Selector = &cluster.LabelSelector{MatchLabels: labels(r, 1+r.IntN(3))}
			}
			budgets = append(budgets, cluster.NewBudgetStatus(b, r.IntN(3)))
		}
		var units []*Unit
		for i := range 1 + r.IntN(6) {
			var pods []*cluster.PodInfo
			for j := range 1 + r.IntN(3) {
				pods = append(pods, cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("p%d-%d", i, j),
					Namespace: []string{"", "default", "x"}[r.IntN(3)], Labels: labels(r, r.IntN(4))}))
			}
			units = append(units, NewUnit(fmt.Sprint("u", i), KindPodGroup, 0, pods))
		}
		v1, p1, r1 := budgetViolations(units, budgets)
		v2, p2, r2 := plainBudgetViolations(units, budgets)
		require.Equal(t, v2, v1, "seed %d", seed)
		require.Equal(t, p2, p1, "seed %d", seed)
		require.Equal(t, r2, r1, "seed %d", seed)
	}
}
