package whatif

import (
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// Criteria say when a run is good enough, and how far a search goes.
type Criteria struct {
	// MaxWait, when positive, bounds every scheduled pod's wait (from
	// arrival to first binding); 0 asks only that every pod is placed.
	MaxWait time.Duration
	// Limit is the largest count a search tries; 0 takes a default: for
	// nodes to add, as many as the scenario has (at least 64); for domains
	// to add, four times as many as it has of that key (at least 32); for
	// nodes to remove, every candidate.
	Limit int
	// Quantile, when set (0.5, 0.9 or 0.99), makes MaxWait bound that
	// quantile of the scheduled pods' waits instead of the longest.
	Quantile float64
	// Workload, when set, makes MaxWait bound the waits of that
	// workload's pods alone (metrics.Workload names them: "train",
	// "Job/etl"); the others must still all be placed.
	Workload string
}

// OK reports whether a run meets the criteria: no pod is pending at its
// end (so every pod, and every gang, was placed), and no wait (or the
// Quantile of the waits) exceeds MaxWait.
func (c Criteria) OK(rep *metrics.Report) bool {
	return rep.Pods.PendingAtEnd == 0 && (c.MaxWait <= 0 || c.wait(c.waits(rep)) <= c.MaxWait)
}

// waits are the waits MaxWait bounds: every scheduled pod's, or the
// Workload's.
func (c Criteria) waits(rep *metrics.Report) metrics.Durations {
	if c.Workload == "" {
		return rep.Pods.Wait
	}
	for _, w := range rep.Pods.WaitByWorkload {
		if w.Workload == c.Workload {
			return w.Wait
		}
	}
	return metrics.Durations{}
}

// wait is the wait MaxWait bounds: the Quantile's, else the longest.
func (c Criteria) wait(d metrics.Durations) time.Duration {
	switch c.Quantile {
	case 0.5:
		return d.P50
	case 0.9:
		return d.P90
	case 0.99:
		return d.P99
	}
	return d.Max
}

// checkQuantile refuses a quantile the reports do not have, and a limit
// out of 0..MaxLimit.
func (c Criteria) checkQuantile() error {
	if c.Limit < 0 || c.Limit > MaxLimit {
		return c.limitError()
	}
	switch c.Quantile {
	case 0, 1, 0.5, 0.9, 0.99:
		return nil
	}
	return fmt.Errorf("%w: wait quantile %v is not 0.5, 0.9, 0.99 or 1 (the longest)", ErrChange, c.Quantile)
}

// limitError says the limit is out of range, as the user gave it.
func (c Criteria) limitError() error {
	if c.Limit < 0 {
		return fmt.Errorf("%w: the limit %d is negative", ErrChange, c.Limit)
	}
	return fmt.Errorf("%w: the limit %d is above %d, the largest count a search tries", ErrChange, c.Limit, MaxLimit)
}

// checkWorkload refuses Workload when the run has no such workload: its
// waits would be empty, and any MaxWait would hold.
func (c Criteria) checkWorkload(rep *metrics.Report) error {
	if c.Workload == "" {
		return nil
	}
	names := make([]string, 0, len(rep.Pods.WaitByWorkload))
	for _, w := range rep.Pods.WaitByWorkload {
		if w.Workload == c.Workload {
			return nil
		}
		names = append(names, w.Workload)
	}
	const shown = 10
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(", and %d more", len(names)-shown)
	}
	return fmt.Errorf("%w: workload %q is none of the run's (its workloads: %s)", ErrChange, c.Workload, list)
}

// Answer is the result of a search: the count, and the runs the search
// took to find it, in the order it took them.
type Answer struct {
	// Question says what was asked, in words.
	Question string
	// CountKey names the count in JSON: nodesToAdd, nodesToRemove, or
	// for domains the key's last word: racksToAdd, zonesToAdd
	// (domainsToAdd when the key has none).
	CountKey string
	// Found is false when no count up to Limit met the criteria (to add),
	// or the scenario does not meet them as it is (to remove); Count is
	// then -1 and Reason says why.
	Found  bool
	Count  int
	Limit  int
	Reason string
	// Runs are the simulations the search's decisions rest on, in order.
	// With several workers a search also runs, in parallel, counts its
	// next steps may need; those it did not need are not listed.
	Runs []SearchRun
	// NoFit, when no count was found to add, groups the pods still
	// pending that fit no empty node of the kind added, by reason.
	NoFit []NoFit
	// Criterion says in words what the runs were judged by, and Cautions
	// where a found answer may mislead (waits over LongWait in its run,
	// a removal without a wait bound).
	Criterion string
	Cautions  []string
	// Summary summarises the answer's run (zero when not Found).
	Summary Summary
	// Variant is the change that gives the answer.
	Variant Variant
}

// SearchRun is one simulation of a search. A run that failed the wait
// bound is stopped there, and one that did not converge fails too; Note
// then says why, and the counts are those of the moment it stopped.
type SearchRun struct {
	Count          int
	OK             bool
	PendingAtEnd   int
	GroupsUnplaced int
	MaxWait        time.Duration // the longest wait (of the pod that stopped it, for a stopped run)
	Note           string
	// Cost and NodeHours are the node groups' (0 without node groups).
	Cost, NodeHours float64
	// Wait is the wait the criteria bound (Criteria.Quantile and
	// Workload), when they bound one.
	Wait time.Duration
	// WorkloadsPending counts, for a search on a ClusterQueue's quota,
	// its workloads still waiting for admission at the end.
	WorkloadsPending int
}

// FewestNodesToAdd finds the fewest nodes like the scenario's node node
// to add (AddNodesLike) so that the run meets the criteria.
func FewestNodesToAdd(sc *scenario.Scenario, node string, c Criteria, opts Options) (*Answer, error) {
	if _, ok := findNode(sc, node); !ok {
		return nil, changeError("node %q is not one of the scenario's nodes", node)
	}
	if err := c.checkQuantile(); err != nil {
		return nil, err
	}
	limit := min(orDefault(c.Limit, max(64, len(sc.Nodes))), MaxLimit)
	q := fmt.Sprintf("fewest nodes like %s to add so that every pod is placed%s", node, waitClause(c))
	return addSearch(sc, q, "nodesToAdd", "node like "+node, limit, c, opts, func(k int) Change { return AddNodesLike{Node: node, Count: k} })
}

// FewestDomainsToAdd finds the fewest topology domains like key=value
// (racks, zones; AddDomainsLike) to add so that the run meets the
// criteria.
func FewestDomainsToAdd(sc *scenario.Scenario, key, value string, c Criteria, opts Options) (*Answer, error) {
	domains := map[string]bool{}
	for _, n := range sc.Nodes {
		if v, ok := n.Labels[key]; ok {
			domains[v] = true
		}
	}
	if !domains[value] {
		return nil, changeError("no node of the scenario has the label %s=%s", key, value)
	}
	if err := c.checkQuantile(); err != nil {
		return nil, err
	}
	limit := min(orDefault(c.Limit, max(32, 4*len(domains))), MaxLimit)
	word := domainWord(key)
	q := fmt.Sprintf("fewest %ss like %s (%s=%s) to add so that every pod is placed%s", word, value, key, value, waitClause(c))
	return addSearch(sc, q, word+"sToAdd", fmt.Sprintf("node of a %s like %s", word, value), limit, c, opts,
		func(k int) Change { return AddDomainsLike{Key: key, Value: value, Count: k} })
}

// MostNodesToRemove finds the most nodes of the kind of node (see
// RemoveNodesLike) that can be removed with the run still meeting the
// criteria.
func MostNodesToRemove(sc *scenario.Scenario, node string, c Criteria, opts Options) (*Answer, error) {
	cands, err := RemovalCandidates(sc, node)
	if err != nil {
		return nil, err
	}
	if err := c.checkQuantile(); err != nil {
		return nil, err
	}
	limit := min(len(cands), MaxLimit)
	if c.Limit > 0 {
		limit = min(c.Limit, limit)
	}
	s := newSearch(sc, limit, c, opts, func(k int) Change { return RemoveNodesLike{Node: node, Count: k} })
	s.answer.Question = fmt.Sprintf("most nodes like %s to remove with every pod still placed%s", node, waitClause(c))
	s.answer.CountKey = "nodesToRemove"
	s.removal = true
	// the first count that fails, minus one
	first, found, err := s.first(func(r SearchRun) bool { return !r.OK })
	switch {
	case err != nil:
		return nil, err
	case found && first == 0:
		return s.notFound("the scenario does not meet the criteria even as it is" + s.shortfall(0))
	case found:
		return s.found(first - 1)
	}
	return s.found(limit)
}

// addSearch finds the fewest of change to add; what names one node of
// the kind added ("node like n-0"), for the explanation of no answer.
func addSearch(sc *scenario.Scenario, question, key, what string, limit int, c Criteria, opts Options, change func(int) Change) (*Answer, error) {
	s := newSearch(sc, limit, c, opts, change)
	s.answer.Question, s.answer.CountKey = question, key
	first, found, err := s.first(func(r SearchRun) bool { return r.OK })
	switch {
	case err != nil:
		return nil, err
	case !found:
		last := s.memo[limit]
		if last.run.PendingAtEnd > 0 {
			noFit, err := unfitPods(sc, change(1), last.pendingPods)
			if err != nil {
				return nil, err
			}
			s.answer.NoFit = noFit
			return s.notFound(fmt.Sprintf("with %d added, %s still pending (%s)%s", limit, podsAre(last.run.PendingAtEnd),
				firstFew(last.pendingPods), noFitClause(noFit, len(last.pendingPods), what)))
		}
		return s.notFound(fmt.Sprintf("with %d added, the longest wait is still %v, over %v", limit, metrics.Round(last.run.MaxWait), c.MaxWait))
	}
	return s.found(first)
}

// search finds the first count in 0..limit where a monotone predicate of
// the run holds: galloping (1, 2, 4, ...) to bracket it, then bisection.
// Runs are memoised; with W workers each round runs the next counts the
// walk may need (W of the gallop; the midpoints of the next
// floor(log2(W+1)) bisection levels) at once, and the walk then takes
// them in order, so the path, the answer and Runs are the same for any W.
type search struct {
	base   *scenario.Scenario
	limit  int
	crit   Criteria
	opts   Options
	change func(int) Change
	memo   map[int]probed
	count  counter
	answer Answer
	// removal marks a search for nodes to remove, whose answers without
	// a wait bound earn a caution.
	removal bool
	// judgeRun, when set, judges a run instead of crit (a search on
	// Kueue's quota: its OK, Wait, MaxWait and WorkloadsPending).
	judgeRun func(run *SearchRun, rep *metrics.Report)
}

// probed is a finished run of a search; the summary is kept, the series
// are dropped.
type probed struct {
	run         SearchRun
	summary     Summary
	pendingPods []string // the pods pending at the end, in name order
}

func newSearch(sc *scenario.Scenario, limit int, c Criteria, opts Options, change func(int) Change) *search {
	return &search{base: sc, limit: limit, crit: c, opts: opts, change: change, memo: map[int]probed{}, answer: Answer{Limit: limit}}
}

// first returns the first count in 0..limit where pred holds.
func (s *search) first(pred func(SearchRun) bool) (int, bool, error) {
	r, err := s.at(0)
	if err != nil || pred(r) {
		return 0, err == nil, err
	}
	lo, hi := 0, -1 // pred fails at lo, holds at hi
	steps := gallop(s.limit)
	for i := 0; i < len(steps) && hi < 0; i += s.opts.workers() {
		batch := steps[i:min(len(steps), i+s.opts.workers())]
		if err := s.eval(batch); err != nil {
			return 0, false, err
		}
		for _, k := range batch {
			if r, _ := s.at(k); pred(r) {
				hi = k
				break
			}
			lo = k
		}
	}
	if hi < 0 {
		return 0, false, nil
	}
	for hi-lo > 1 {
		if err := s.eval(midpoints(lo, hi, levels(s.opts.workers()))); err != nil {
			return 0, false, err
		}
		for range levels(s.opts.workers()) {
			if hi-lo <= 1 {
				break
			}
			mid := lo + (hi-lo)/2
			if r, _ := s.at(mid); pred(r) {
				hi = mid
			} else {
				lo = mid
			}
		}
	}
	return hi, true, nil
}

// gallop returns 1, 2, 4, ... below limit, then limit.
func gallop(limit int) []int {
	if limit < 1 {
		return nil
	}
	var out []int
	for k := 1; k < limit; k *= 2 {
		out = append(out, k)
	}
	return append(out, limit)
}

// levels is how many bisection levels w workers run at once.
func levels(w int) int { return max(1, bits.Len(uint(w+1))-1) }

// midpoints returns the midpoints bisection may visit in its next depth
// levels between lo and hi.
func midpoints(lo, hi, depth int) []int {
	if depth == 0 || hi-lo <= 1 {
		return nil
	}
	mid := lo + (hi-lo)/2
	return append(append([]int{mid}, midpoints(lo, mid, depth-1)...), midpoints(mid, hi, depth-1)...)
}

// at returns the run of count k (running it if needed) and adds it to
// the answer's runs.
func (s *search) at(k int) (SearchRun, error) {
	if err := s.eval([]int{k}); err != nil {
		return SearchRun{}, err
	}
	p := s.memo[k]
	s.answer.Runs = append(s.answer.Runs, p.run)
	return p.run, nil
}

// eval runs the counts not run yet, in parallel.
func (s *search) eval(ks []int) error {
	var todo []int
	var scs []*scenario.Scenario
	for _, k := range ks {
		if _, done := s.memo[k]; done || k < 0 || k > s.limit {
			continue
		}
		sc, err := Variant{Name: s.change(k).String(), Changes: []Change{s.change(k)}}.Apply(s.base)
		if err != nil {
			return err
		}
		todo, scs = append(todo, k), append(scs, sc)
	}
	s.count.total += len(scs)
	outs, err := runBatch(scs, s.opts, &s.count, func(sc *scenario.Scenario) (outcome, error) {
		watch, end := s.opts.watching()
		defer end()
		return judge(sc, s.opts.DomainKeys, s.crit, watch...)
	})
	if err != nil {
		return err
	}
	for i, o := range outs {
		rep := o.report
		if err := s.crit.checkWorkload(rep); err != nil {
			return err
		}
		run := SearchRun{Count: todo[i], OK: o.note == "" && s.crit.OK(rep), PendingAtEnd: rep.Pods.PendingAtEnd,
			GroupsUnplaced: rep.Groups.Unplaced, MaxWait: max(rep.Pods.Wait.Max, o.waited), Note: o.note, Wait: s.crit.wait(s.crit.waits(rep))}
		if a := rep.Autoscaling; a != nil {
			run.Cost, run.NodeHours = a.Cost, a.NodeHours
		}
		if s.judgeRun != nil {
			s.judgeRun(&run, rep)
			run.OK = run.OK && o.note == ""
		}
		s.memo[todo[i]] = probed{run: run, summary: Summarize(rep), pendingPods: rep.PendingPods}
	}
	return nil
}

// shortfall says how the run of count k fell short, for a reason.
func (s *search) shortfall(k int) string {
	p := s.memo[k]
	switch {
	case p.run.PendingAtEnd > 0:
		return fmt.Sprintf(": %s still pending (%s)", podsAre(p.run.PendingAtEnd), firstFew(p.pendingPods))
	case p.run.Note != "":
		return ": " + p.run.Note
	}
	if q := s.crit.Quantile; q > 0 && q < 1 || s.crit.Workload != "" {
		return fmt.Sprintf(": %s is %v, over %v", s.crit.waitWords(), metrics.Round(p.run.Wait), s.crit.MaxWait)
	}
	return fmt.Sprintf(": the longest wait is %v, over %v", metrics.Round(p.run.MaxWait), s.crit.MaxWait)
}

func (s *search) found(k int) (*Answer, error) {
	if _, done := s.memo[k]; !done {
		if _, err := s.at(k); err != nil {
			return nil, err
		}
	}
	a := s.answer
	a.Found, a.Count, a.Summary = true, k, s.memo[k].summary
	a.Variant = Variant{Name: s.change(k).String(), Changes: []Change{s.change(k)}}
	a.Criterion, a.Cautions = criterion(s.crit), append(cautions(a.Summary, s.crit, s.removal), skippedCautions(s.base)...)
	return &a, nil
}

func (s *search) notFound(reason string) (*Answer, error) {
	a := s.answer
	a.Count, a.Reason, a.Criterion = -1, reason, criterion(s.crit)
	a.Cautions = append(a.Cautions, skippedCautions(s.base)...)
	return &a, nil
}

// skippedCautions says, for inputs that held objects making pods the
// simulator does not read, that every run lacked their pods.
func skippedCautions(sc *scenario.Scenario) []string {
	note := scenario.SkippedNote(sc.Skipped)
	if note == "" {
		return nil
	}
	return []string{note + "; every run, and so the answer, leaves them out"}
}

// domainWord names a label key's domains by its last word: rack for
// "rack", zone for "topology.kubernetes.io/zone"; "domain" when that is
// not a plain lower-case word.
func domainWord(key string) string {
	word := key[strings.LastIndexAny(key, "/.")+1:]
	if word == "" || strings.Trim(word, "abcdefghijklmnopqrstuvwxyz") != "" {
		return "domain"
	}
	return word
}

func firstFew(names []string) string {
	const n = 5
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

// podsAre counts pods with the verb: "1 pod is", "3 pods are".
func podsAre(n int) string {
	if n == 1 {
		return "1 pod is"
	}
	return fmt.Sprintf("%d pods are", n)
}

func waitClause(c Criteria) string {
	if c.MaxWait > 0 {
		return fmt.Sprintf(" and no pod waits more than %v", c.MaxWait)
	}
	return ""
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
