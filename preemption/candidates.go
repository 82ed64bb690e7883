package preemption

import (
	"math"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Defaults of DefaultPreemption's candidate search (kube-scheduler's
// minCandidateNodesPercentage and minCandidateNodesAbsolute).
const (
	DefaultMinCandidateNodesPercentage = 10
	DefaultMinCandidateNodesAbsolute   = 100
)

// NumCandidates is how many candidate nodes the dry run looks for among
// potential nodes: percentage of them, at least absolute, at most all.
func NumCandidates(potential, percentage, absolute int) int {
	n := max(potential*percentage/100, absolute)
	return min(n, potential)
}

// Request is one pod preemption decision.
type Request struct {
	PreemptorPriority int32
	// Potential are the nodes where the preemptor failed for a reason
	// eviction may cure, in the order to try them.
	Potential []int
	// Units returns the victim units with pods on a node.
	Units func(node int) []*Unit
	// Sim returns a fresh what-if world for trying victims on a node.
	Sim     func(node int) Sim
	Budgets []cluster.BudgetStatus
	// Memo, when set, remembers earlier dry runs (see DryRunMemo).
	Memo DryRunMemo
}

// FindCandidates is the dry run: it evaluates potential nodes in order
// until it has NumCandidates candidates with at least one that breaks no
// budget (or runs out), and returns them, budget-respecting ones first,
// each group in node order of evaluation.
func FindCandidates(req Request) []Candidate {
	want := NumCandidates(len(req.Potential), DefaultMinCandidateNodesPercentage, DefaultMinCandidateNodesAbsolute)
	var clean, violating []Candidate
	nodes, memo := req.Potential, req.Memo
	if memo != nil {
		// the other nodes were no candidate and are still none
		if changed, ok := memo.Changed(nodes); ok {
			nodes = changed
		}
	}
	for _, node := range nodes {
		if memo != nil && memo.KnownNoCandidate(node) {
			continue
		}
		c, ok := Candidate{}, false
		if memo != nil {
			c, ok = memo.KnownCandidate(node)
		}
		if !ok {
			c, ok = SelectVictimsOnNode(req.Sim(node), node, req.PreemptorPriority, req.Units(node), req.Budgets)
			if memo != nil {
				memo.Tried(node, c, ok)
			}
		}
		if !ok {
			continue
		}
		if c.PDBViolations == 0 {
			clean = append(clean, c)
		} else {
			violating = append(violating, c)
		}
		if len(clean) > 0 && len(clean)+len(violating) >= want {
			break
		}
	}
	if len(clean)+len(violating) == 0 && memo != nil {
		memo.NoneFound(req.Potential)
	}
	return append(clean, violating...)
}

// PickOne returns the index of the best candidate, by kube-scheduler's
// pickOneNodeForPreemption criteria, each keeping only the best:
//
//  1. a candidate with no victims at all wins at once;
//  2. fewest pod disruption budget violations;
//  3. lowest priority of the most important victim;
//  4. lowest sum of victim priorities;
//  5. fewest victim pods;
//  6. latest "earliest start time" among the victims of the highest
//     priority (every pod in the model has a start time: it is bound);
//  7. the first remaining candidate, in the order given (deterministic;
//     kube-scheduler's order here comes from a map).
//
// It returns -1 for no candidates.
func PickOne(cands []Candidate) int {
	if len(cands) == 0 {
		return -1
	}
	for i := range cands {
		if len(cands[i].Victims) == 0 {
			return i
		}
	}
	keep := make([]int, len(cands))
	for i := range keep {
		keep[i] = i
	}
	criteria := []func(c *Candidate) int64{
		func(c *Candidate) int64 { return int64(c.PDBViolations) },
		func(c *Candidate) int64 { return int64(c.Victims[0].Priority) },
		func(c *Candidate) int64 {
			var sum int64
			for _, u := range c.Victims {
				for range u.Pods {
					sum += int64(u.Priority) + math.MaxInt32 + 1
				}
			}
			return sum
		},
		func(c *Candidate) int64 { return int64(len(c.VictimPods())) },
		func(c *Candidate) int64 { return -int64(earliestTopStart(c)) },
	}
	for _, lower := range criteria {
		keep = keepMin(cands, keep, lower)
		if len(keep) == 1 {
			break
		}
	}
	return keep[0]
}

func keepMin(cands []Candidate, keep []int, value func(*Candidate) int64) []int {
	best := int64(math.MaxInt64)
	var out []int
	for _, i := range keep {
		v := value(&cands[i])
		switch {
		case v < best:
			best, out = v, []int{i}
		case v == best:
			out = append(out, i)
		}
	}
	return out
}

// earliestTopStart is the earliest start time among the candidate's
// victims of the highest priority.
func earliestTopStart(c *Candidate) time.Duration {
	top := c.Victims[0].Priority
	first := true
	var t time.Duration
	for _, u := range c.Victims {
		if u.Priority != top {
			continue
		}
		if s := u.EarliestStart(); first || s < t {
			t, first = s, false
		}
	}
	return t
}
