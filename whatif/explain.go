package whatif

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario"
)

// An answer explains itself. When no count up to the limit places every
// pod, the search checks each pod still pending against an empty copy of
// what it adds (one node like the template, or one rack like the
// template rack) with the scheduler's own filters: a scheduler holding
// only those nodes, forked for each pod, which is added alone. The pods
// that are not placed there fit no node of that kind, whatever the count,
// and NoFit names them with the reason kube-scheduler gives. Each pod is
// tried on its own, out of its gang, and without its inter-pod affinity
// and spread constraints (on nodes that hold nothing they say nothing
// about the kind of node); its resources, node selector and affinity,
// taints and tolerations, devices, profile and gates all count.
//
// An answer that was found says what it was judged by (Criterion), and
// Cautions say where it may mislead: waits of more than a day in the
// answer's run (LongWait), or a removal asked without a wait bound.

// LongWait is the wait beyond which an answer's run earns a caution: its
// pods are all placed by the end, but some only after more than a day.
const LongWait = 24 * time.Hour

// NoFit is pending pods that fit no empty node of the kind a search
// adds, for one reason.
type NoFit struct {
	// Reason is why, as kube-scheduler says it for the filters that
	// rejected the pod ("Insufficient cpu", "node(s) didn't match Pod's
	// node affinity/selector"; several joined by "; "), or the pod's
	// reason when no filter ran (a scheduler name no profile has).
	Reason string `json:"reason"`
	// Pods counts them; First names the first few, in name order.
	Pods  int      `json:"pods"`
	First []string `json:"first"`
}

// noFitFirst is how many pods a NoFit names.
const noFitFirst = 5

// unfitPods checks the pending pods of base (by their display names)
// against the nodes one count of change adds, empty.
func unfitPods(base *scenario.Scenario, change Change, pending []string) ([]NoFit, error) {
	probe, err := probeScheduler(base, change)
	if err != nil {
		return nil, err
	}
	claims, err := base.ResourceClaims() // the claims of pods naming templates
	if err != nil {
		return nil, err
	}
	byName := map[string]*cluster.Pod{}
	for i := range base.Pods {
		byName[base.Pods[i].Pod.Key().Display()] = &base.Pods[i].Pod
	}
	groups := map[string]*NoFit{}
	for _, name := range pending {
		p, ok := byName[name]
		if !ok {
			continue // not an input pod: nothing to try
		}
		reason, fits, err := tryAlone(probe, claims, *p)
		if err != nil {
			return nil, err
		}
		if fits {
			continue
		}
		g := groups[reason]
		if g == nil {
			g = &NoFit{Reason: reason}
			groups[reason] = g
		}
		g.Pods++
		if len(g.First) < noFitFirst {
			g.First = append(g.First, name)
		}
	}
	out := make([]NoFit, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b NoFit) int { return cmp.Or(cmp.Compare(b.Pods, a.Pods), cmp.Compare(a.Reason, b.Reason)) })
	return out, nil
}

// probeScheduler returns a scheduler with the scenario's configuration,
// classes, namespaces and devices and, as its only nodes, those one count
// of change adds.
func probeScheduler(base *scenario.Scenario, change Change) (*gangsim.Scheduler, error) {
	grown, err := Variant{Name: change.String(), Changes: []Change{change}}.Apply(base)
	if err != nil {
		return nil, err
	}
	probe := *grown
	probe.Nodes = grown.Nodes[len(base.Nodes):] // the change appends its nodes
	probe.Pods, probe.Events, probe.Budgets = nil, nil, nil
	probe.PodGroups, probe.CompositePodGroups, probe.Explain = nil, nil, nil
	return probe.NewScheduler()
}

// tryAlone adds the pod, on its own, to a fork of the probe and runs it
// (its claims from templates made first, when claims is not nil): it
// fits when it is bound; else reason is why not.
func tryAlone(probe *gangsim.Scheduler, claims *controllers.ResourceClaims, p cluster.Pod) (reason string, fits bool, err error) {
	s, err := probe.Fork()
	if err != nil {
		return "", false, err
	}
	if claims != nil {
		if err := claims.Start(s); err != nil {
			return "", false, err
		}
		if err := claims.Prepare(&p); err != nil {
			return "", false, err
		}
	}
	p.PodGroup, p.NodeName, p.TopologySpreadConstraints = "", "", nil
	if p.Affinity != nil {
		p.Affinity = &cluster.Affinity{NodeAffinity: p.Affinity.NodeAffinity}
	}
	if err := s.AddPod(p, 0); err != nil {
		return "", false, err
	}
	if err := s.Run(); err != nil {
		return "", false, err
	}
	st, _ := s.Pod(p.Key())
	if st.Phase != gangsim.PhasePending {
		return "", true, nil
	}
	var reasons []string
	for _, pr := range s.Diagnosis(p.Key()) {
		for _, r := range pr.Reasons {
			if !slices.Contains(reasons, r.Reason) {
				reasons = append(reasons, r.Reason)
			}
		}
	}
	if len(reasons) == 0 {
		return st.Reason, false, nil
	}
	slices.Sort(reasons)
	return strings.Join(reasons, "; "), false, nil
}

// noFitClause sums the pods that fit no node of the kind up for an
// answer's reason.
func noFitClause(noFit []NoFit, pending int, what string) string {
	n := 0
	for _, g := range noFit {
		n += g.Pods
	}
	switch {
	case n == 0:
		return fmt.Sprintf("; each of them fits an empty %s on its own", what)
	case n == pending:
		return fmt.Sprintf("; none of them fits an empty %s", what)
	case n == 1:
		return fmt.Sprintf("; 1 of them fits no empty %s", what)
	}
	return fmt.Sprintf("; %d of them fit no empty %s", n, what)
}

// criterion says in words what a search judged runs by.
func criterion(c Criteria) string {
	if c.MaxWait > 0 && (c.Quantile > 0 && c.Quantile < 1 || c.Workload != "") {
		return fmt.Sprintf("every pod placed by the end of the run, and %s at most %v", c.waitWords(), c.MaxWait)
	}
	if c.MaxWait > 0 {
		return fmt.Sprintf("every pod placed by the end of the run, and no pod waiting more than %v", c.MaxWait)
	}
	return "every pod placed by the end of the run; waits not bounded"
}

// cautions says where a found answer may mislead: waits of more than a
// day in its run when waits were not bounded (a bound is the user's own
// word on them), and a removal judged without a wait bound.
func cautions(s Summary, c Criteria, removal bool) []string {
	var out []string
	maxWait, p99 := secondsOf(s.Wait.Max), secondsOf(s.Wait.P99)
	if removal && c.MaxWait <= 0 {
		out = append(out, fmt.Sprintf("waits were not bounded: the answer only asks that every pod is placed by the end of the run, "+
			"however long it waited (in the answer's run up to %v); ask with a wait bound for an answer that keeps waits short", maxWait))
	}
	if c.MaxWait <= 0 && (maxWait > LongWait || p99 > LongWait) { // a bound is the user's own word on waits
		out = append(out, fmt.Sprintf("in the answer's run pods waited up to %v (p99 %v), more than a day: every pod is placed by the end, but not soon",
			maxWait, p99))
	}
	return out
}

// secondsOf turns seconds back into a duration, to the second.
func secondsOf(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Second)
}
