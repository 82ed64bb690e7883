package whatif

import (
	"fmt"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// QuotaQuestion names the quota SmallestNominalQuota searches: one
// flavor's resource of a ClusterQueue, and the nominal quotas to try, in
// whole units of the resource (metrics.Unit: cores, GiB, GPUs, items).
// Min is the smallest tried (and at least the quota's lending limit,
// which Kueue keeps under the nominal quota); Max the largest, 0 for
// twice the current nominal quota (at least Min+1).
type QuotaQuestion struct {
	ClusterQueue, Flavor string
	Resource             cluster.ResourceName
	Min, Max             int
}

// nominalQuotaKey names the count of SmallestNominalQuota in JSON.
const nominalQuotaKey = "nominalQuota"

// SmallestNominalQuota finds the smallest nominal quota of one flavor's
// resource of a ClusterQueue, in whole units, with which every workload
// of that ClusterQueue is admitted by the end of the run and the
// criteria's quantile (Criteria.Quantile: 0.5, 0.9, 0.99; 0 or 1 the
// longest) of their times to admission is at most Criteria.MaxWait (no
// bound when 0). Other queues' workloads and pods are not judged. The
// search gallops from Min then bisects, as the other searches do, and
// lists its runs: it assumes that more quota never lengthens the
// queue's admissions, which holds for the quota alone but not always
// for a run (workloads admitted earlier may take nodes or quota others
// needed, and preempt); a run that contradicts it earns a caution.
func SmallestNominalQuota(sc *scenario.Scenario, q QuotaQuestion, c Criteria, opts Options) (*Answer, error) {
	if err := c.checkQuantile(); err != nil {
		return nil, err
	}
	if c.Workload != "" {
		return nil, changeError("the quota search bounds the ClusterQueue's times to admission, not a workload's waits (%q)", c.Workload)
	}
	rq, err := clusterQueueQuota(sc, q)
	if err != nil {
		return nil, err
	}
	unit, scale := metrics.Unit(q.Resource)
	whole := func(v int64) int { return int((v + int64(scale) - 1) / int64(scale)) }
	lo := q.Min
	if rq.LendingLimit != nil {
		lo = max(lo, whole(*rq.LendingLimit))
	}
	hi := q.Max
	if hi == 0 {
		hi = max(2*whole(rq.NominalQuota), lo+1)
	}
	switch {
	case q.Min < 0 || q.Max < 0 || hi > maxCount:
		return nil, changeError("the quota bounds %d..%d are not in 0..%d", q.Min, q.Max, maxCount)
	case hi < lo:
		return nil, changeError("ClusterQueue %s: the largest nominal quota to try, %d, is under the smallest, %d (its lending limit, or Min)", q.ClusterQueue, hi, lo)
	}
	suffix := ""
	if unit == "GiB" {
		suffix = "Gi"
	}
	change := func(k int) Change {
		return KueueQuota{Name: q.ClusterQueue, Flavor: q.Flavor, Resource: q.Resource, Field: FieldNominalQuota, Value: strconv.Itoa(lo+k) + suffix}
	}
	s := newSearch(sc, hi-lo, Criteria{}, opts, change)
	s.answer.Question = fmt.Sprintf("smallest nominal quota of %s (%s) in flavor %s of ClusterQueue %s so that its workloads are all admitted%s",
		q.Resource, unit, q.Flavor, q.ClusterQueue, admissionClause(c))
	s.answer.CountKey = nominalQuotaKey
	s.judgeRun = func(run *SearchRun, rep *metrics.Report) {
		run.OK, run.WorkloadsPending = false, -1
		if rep.Kueue == nil {
			return
		}
		for _, qs := range rep.Kueue.ClusterQueues {
			if qs.Name == q.ClusterQueue {
				run.WorkloadsPending, run.Wait = qs.PendingAtEnd, c.wait(qs.WaitForQuota)
				run.OK = qs.PendingAtEnd == 0 && (c.MaxWait <= 0 || run.Wait <= c.MaxWait)
			}
		}
	}
	first, found, err := s.first(func(r SearchRun) bool { return r.OK })
	var a *Answer
	switch {
	case err != nil:
		return nil, err
	case found:
		a, err = s.found(first)
	default:
		p := s.memo[hi-lo].run
		reason := fmt.Sprintf("with %d, %d of its workloads still wait at the end", hi, p.WorkloadsPending)
		if p.WorkloadsPending == 0 {
			reason = fmt.Sprintf("with %d, %s is still %v, over %v", hi, admissionWords(c), metrics.Round(p.Wait), c.MaxWait)
		}
		if p.Note != "" {
			reason = fmt.Sprintf("with %d, %s", hi, p.Note)
		}
		a, err = s.notFound(reason)
	}
	if err != nil {
		return nil, err
	}
	a.Limit = hi
	a.Criterion = fmt.Sprintf("every workload of ClusterQueue %s admitted by the end of the run", q.ClusterQueue)
	if c.MaxWait > 0 {
		a.Criterion += fmt.Sprintf(", and %s at most %v", admissionWords(c), c.MaxWait)
	}
	if a.Found {
		a.Count += lo
		for _, r := range a.Runs {
			if !r.OK && r.Count > first {
				a.Cautions = append(a.Cautions, fmt.Sprintf("a nominal quota of %d fell short though %d did not: more quota was assumed never to lengthen admissions, and here it did",
					r.Count+lo, a.Count))
				break
			}
		}
	}
	for j := range a.Runs {
		a.Runs[j].Count += lo
	}
	return a, nil
}

// clusterQueueQuota finds the quota a QuotaQuestion names.
func clusterQueueQuota(sc *scenario.Scenario, q QuotaQuestion) (*kueue.ResourceQuota, error) {
	if sc.Kueue.Empty() {
		return nil, changeError("the scenario has no Kueue objects")
	}
	for i := range sc.Kueue.ClusterQueues {
		if cq := &sc.Kueue.ClusterQueues[i]; cq.Name == q.ClusterQueue {
			return findQuota(cq.ResourceGroups, "ClusterQueue", cq.Name, q.Flavor, q.Resource)
		}
	}
	return nil, changeError("ClusterQueue %q is not one of the scenario's", q.ClusterQueue)
}

// admissionWords names the time to admission the criteria bound.
func admissionWords(c Criteria) string {
	if c.Quantile > 0 && c.Quantile < 1 {
		return fmt.Sprintf("the p%v time to admission", 100*c.Quantile)
	}
	return "the longest time to admission"
}

func admissionClause(c Criteria) string {
	if c.MaxWait <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %s is at most %v", admissionWords(c), c.MaxWait)
}

// kueueQuota reports whether the answer is a quota search's.
func (a *Answer) kueueQuota() bool { return a.CountKey == nominalQuotaKey }
