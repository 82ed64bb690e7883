package kueue

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// Flavor assignment, as Kueue's flavor assigner does it: for each pod
// set, and each resource group of the resources it asks for, the
// group's flavors in list order (resuming after the last one tried);
// a flavor whose node labels or taints exclude the pod set is skipped;
// the others are judged by the quota left: Fit, Preempt (preemption or
// reclaim could make room) or NoFit, with how far up the cohort tree the
// quota comes from (the borrowing level). The search stops at the first
// flavor that fits without borrowing or preemption, or, by the queue's
// flavorFungibility, at one that needs borrowing (whenCanBorrow
// MayStopSearch) or preemption (whenCanPreempt MayStopSearch); else it
// keeps the best flavor seen.

// Mode is how a workload can be admitted with an assignment.
type Mode uint8

// The modes, from worst to best, as Kueue orders them.
const (
	NoFit       Mode = iota // not enough quota, and preemption cannot help
	Preempt                 // admissible once workloads are preempted (or reclaimed)
	DeferredFit             // fits once preemptions issued this cycle finish
	Fit                     // fits in the quota left, perhaps borrowing
)

func (m Mode) String() string { return [...]string{"NoFit", "Preempt", "DeferredFit", "Fit"}[m] }

// preemptionMode is the flavor assigner's finer mode of one resource.
type preemptionMode uint8

const (
	pmNoFit preemptionMode = iota
	pmNoCandidates
	pmPreempt
	pmReclaim
	pmFit
)

func (m preemptionMode) mode() Mode {
	switch m {
	case pmNoFit:
		return NoFit
	case pmFit:
		return Fit
	}
	return Preempt
}

// granularMode is a flavor's mode with its borrowing level.
type granularMode struct {
	pm     preemptionMode
	borrow int
}

var worstMode = granularMode{pmNoFit, math.MaxInt}

// preferred reports whether mode x is better than y under the queue's
// fungibility.
func preferred(x, y granularMode, f FlavorFungibility) bool {
	if x.pm == pmNoFit {
		return false
	}
	if y.pm == pmNoFit {
		return true
	}
	if xn, yn := x.pm == pmNoCandidates, y.pm == pmNoCandidates; xn != yn {
		return !xn
	}
	if f.Preference == "PreemptionOverBorrowing" {
		if x.borrow != y.borrow {
			return x.borrow < y.borrow
		}
		return x.pm > y.pm
	}
	if x.pm != y.pm {
		return x.pm > y.pm
	}
	return x.borrow < y.borrow
}

// tryNext reports whether the search goes on past a flavor of this mode.
func tryNext(m granularMode, f FlavorFungibility) bool {
	if m.pm == pmNoFit || m.pm == pmNoCandidates {
		return true
	}
	if (m.pm == pmPreempt || m.pm == pmReclaim) && f.WhenCanPreempt != MayStopSearch {
		return true
	}
	return m.borrow != 0 && f.WhenCanBorrow == TryNextFlavor
}

// flavorAssignment is the flavor of one resource of a pod set.
type flavorAssignment struct {
	name   string
	mode   Mode
	tried  int
	borrow int
}

// podSetAssignment is a pod set's flavors and the reasons it is not a
// plain fit.
type podSetAssignment struct {
	name     string
	count    int32
	requests cluster.ResourceList // the pod set's total
	flavors  map[cluster.ResourceName]*flavorAssignment
	reasons  []string
	// TAS (tasassign.go): the mode TAS caps it at (nil: none), its
	// assignment and its flavor
	capped    *Mode
	topology  *TopologyAssignment
	tasFlavor string
}

func (p *podSetAssignment) fit() bool { return len(p.reasons) == 0 }

func (p *podSetAssignment) mode() Mode {
	if p.capped != nil && len(p.flavors) > 0 {
		return min(*p.capped, p.quotaMode())
	}
	return p.quotaMode()
}

// quotaMode is the pod set's mode by quota alone.
func (p *podSetAssignment) quotaMode() Mode {
	if p.fit() {
		return Fit
	}
	if len(p.flavors) == 0 {
		return NoFit
	}
	m := Fit
	for _, f := range p.flavors {
		m = min(m, f.mode)
	}
	return m
}

// assignment is a workload's flavors, pod set by pod set.
type assignment struct {
	podSets   []podSetAssignment
	borrowing int
	usage     map[int]int64 // by flavor-resource
	last      lastAssignment
	forced    *Mode      // the mode set by the cycle (DeferredFit)
	ul        []frAmount // usageList, once the assignment is made
}

// mode is the worst mode of the pod sets.
func (as *assignment) mode() Mode {
	if as.forced != nil {
		return *as.forced
	}
	if len(as.podSets) == 0 {
		return NoFit
	}
	m := Fit
	for i := range as.podSets {
		m = min(m, as.podSets[i].mode())
	}
	return m
}

// message is Kueue's: each pod set that does not simply fit, with its
// reasons.
func (as *assignment) message() string {
	var b strings.Builder
	for i := range as.podSets {
		ps := &as.podSets[i]
		if ps.fit() {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		reasons := slices.Clone(ps.reasons)
		slices.Sort(reasons)
		fmt.Fprintf(&b, "couldn't assign flavors to pod set %s: %s", ps.name, strings.Join(reasons, ", "))
	}
	return b.String()
}

// usageList is the assignment's usage in flavor-resource order, made
// once (the assignment does not change once made); callers only read it.
func (as *assignment) usageList() []frAmount {
	if as.ul != nil || len(as.usage) == 0 {
		return as.ul
	}
	out := make([]frAmount, 0, len(as.usage))
	for _, i := range slices.Sorted(maps.Keys(as.usage)) {
		out = append(out, frAmount{i, as.usage[i]})
	}
	as.ul = out
	return out
}

// frsNeedingPreemption are the flavor-resources assigned in Preempt mode.
func (as *assignment) frsNeedingPreemption(a *Admitter) []int {
	var out []int
	for i := range as.podSets {
		for r, f := range as.podSets[i].flavors {
			if f.mode == Preempt {
				k := a.frIndex[fr{f.name, r}]
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// admission is the API form of the assignment.
func (as *assignment) admission(cq string) *Admission {
	ad := &Admission{ClusterQueue: cq}
	for i := range as.podSets {
		ps := &as.podSets[i]
		p := PodSetAssignment{Name: ps.name, Count: ps.count, Flavors: map[cluster.ResourceName]string{}, Usage: cluster.ResourceList{}, TopologyAssignment: ps.topology}
		for r, f := range ps.flavors {
			p.Flavors[r] = f.name
			p.Usage[r] = ps.requests[r]
		}
		ad.PodSets = append(ad.PodSets, p)
	}
	return ad
}

// flavorAssigner assigns flavors to one workload in one ClusterQueue.
type flavorAssigner struct {
	a  *Admitter
	wi *info
	q  *clusterQueue
	// simulate, when set, stands for the preemption simulation (Kueue's
	// oracle): unit tests give the outcome a case assumes.
	simulate func(k int, v int64) (preemptionMode, int)
}

// assign finds flavors for the workload with counts pods per pod set
// (nil: the full counts).
func (fa *flavorAssigner) assign(counts []int32) *assignment {
	a, q, w := fa.a, fa.q, fa.wi.w
	as := &assignment{usage: map[int]int64{}, last: lastAssignment{generation: q.generation, cycle: a.cycle}}
	for i := range w.PodSets {
		ps := &w.PodSets[i]
		count := ps.Count
		if counts != nil {
			count = counts[i]
		}
		req := cluster.ResourceList{}
		for r, v := range ps.Requests {
			req[r] = mulAmount(v, int64(count))
		}
		if q.rgByResource(cluster.ResourcePods) != nil {
			req[cluster.ResourcePods] = int64(count)
		}
		psa := podSetAssignment{name: ps.Name, count: count, requests: req, flavors: map[cluster.ResourceName]*flavorAssignment{}}
		group := map[cluster.ResourceName]*flavorAssignment{}
		var reasons []string
		failed := false
		for _, r := range slices.Sorted(maps.Keys(req)) {
			if q.rgByResource(r) == nil && req[r] == 0 {
				continue
			}
			if _, done := group[r]; done {
				continue
			}
			flavors, rs := fa.findFlavor(i, req, r, as.usage)
			reasons = append(reasons, rs...)
			if len(flavors) == 0 {
				group, reasons, failed = nil, rs, true
				break
			}
			maps.Copy(group, flavors)
		}
		for r, f := range group {
			if _, asked := req[r]; asked {
				psa.flavors[r] = f
			}
		}
		psa.reasons = reasons
		tried := map[cluster.ResourceName]int{}
		for r, f := range psa.flavors {
			as.borrowing = max(as.borrowing, f.borrow)
			k := a.frIndex[fr{f.name, r}]
			as.usage[k] = addAmount(as.usage[k], req[r])
			tried[r] = f.tried
		}
		as.podSets = append(as.podSets, psa)
		as.last.tried = append(as.last.tried, tried)
		if failed {
			return as
		}
	}
	fa.placeTAS(as)
	return as
}

func mulAmount(v, n int64) int64 {
	if v == 0 || n == 0 {
		return 0
	}
	if v > unlimited/n {
		return unlimited
	}
	return v * n
}

// findFlavor finds the flavor of the resource group of resource r for
// pod set i, whose total requests are req, given the usage of the pod
// sets before it. It returns the flavors of the group's resources (none
// when none can be assigned) and the reasons the flavor is not a plain
// fit.
func (fa *flavorAssigner) findFlavor(i int, req cluster.ResourceList, r cluster.ResourceName, usage map[int]int64) (map[cluster.ResourceName]*flavorAssignment, []string) {
	a, q := fa.a, fa.q
	rg := q.rgByResource(r)
	if rg == nil {
		return nil, []string{fmt.Sprintf("resource %s unavailable in ClusterQueue", r)}
	}
	var reasons []string
	var best map[cluster.ResourceName]*flavorAssignment
	bestMode := worstMode
	attempted := -1
	start := 0
	if l := fa.wi.last; l != nil && i < len(l.tried) {
		if t, ok := l.tried[i][r]; ok {
			start = t + 1
		}
	}
	for idx := start; idx < len(rg.flavors); idx++ {
		attempted = idx
		name := rg.flavors[idx]
		if why := fa.a.checkTASFlavor(q, &fa.wi.w.PodSets[i], name); why != "" {
			reasons = append(reasons, why)
			continue
		}
		if why := fa.checkFlavor(name, &fa.wi.w.PodSets[i]); why != "" {
			reasons = append(reasons, why)
			continue
		}
		assigned := map[cluster.ResourceName]*flavorAssignment{}
		mode := granularMode{pmFit, 0}
		for _, res := range rg.covered {
			v, asked := req[res]
			if !asked {
				continue
			}
			k, known := a.frIndex[fr{name, res}]
			if !known { // the flavor gives no quota of it
				k = -1
			}
			pm, borrow, why := fa.fitsQuota(k, name, res, usage[k], v)
			reasons = append(reasons, why...)
			m := granularMode{pm, borrow}
			if preferred(mode, m, q.spec.FlavorFungibility) {
				mode = m
			}
			if mode.pm == pmNoFit {
				break
			}
			assigned[res] = &flavorAssignment{name: name, mode: pm.mode(), borrow: borrow}
		}
		if !tryNext(mode, q.spec.FlavorFungibility) {
			best, bestMode = assigned, mode
			break
		}
		if preferred(mode, bestMode, q.spec.FlavorFungibility) {
			best, bestMode = assigned, mode
		}
	}
	for _, f := range best {
		f.tried = attempted
		if attempted == len(rg.flavors)-1 {
			f.tried = -1
		}
	}
	if bestMode.pm == pmFit {
		return best, nil
	}
	return best, reasons
}

// checkFlavor is why a flavor cannot take the pod set ("" when it can):
// a taint of the flavor the pods do not tolerate, or node labels their
// node selector or required affinity exclude (only the flavor's own label
// keys are compared).
func (fa *flavorAssigner) checkFlavor(name string, ps *PodSet) string {
	f := fa.a.flavors[name]
	if f == nil {
		return fmt.Sprintf("flavor %s not found", name)
	}
	for _, t := range f.NodeTaints {
		if t.Effect != cluster.TaintNoSchedule && t.Effect != cluster.TaintNoExecute {
			continue
		}
		tolerated := false
		for _, tol := range ps.Tolerations {
			if tol.Tolerates(&t) {
				tolerated = true
				break
			}
		}
		for _, tol := range f.Tolerations {
			if tol.Toleration.Tolerates(&t) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return fmt.Sprintf("untolerated taint %s in flavor %s", taintString(t), name)
		}
	}
	if !selectorMatches(ps, f.NodeLabels) {
		return fmt.Sprintf("flavor %s doesn't match node affinity", name)
	}
	return ""
}

// taintString renders a taint as Kueue's message does: the Go form of
// Kubernetes' Taint value, "{key value effect <nil>}" (the last field is
// the unset timeAdded).
func taintString(t cluster.Taint) string {
	return fmt.Sprintf("{%s %s %s <nil>}", t.Key, t.Value, t.Effect)
}

// selectorMatches reports whether the pod set's node selector and
// required node affinity, restricted to the keys of the flavor's labels,
// admit a node with those labels. A term left without requirements makes
// the affinity match any flavor, as Kueue reads it.
func selectorMatches(ps *PodSet, labels map[string]string) bool {
	for k, v := range ps.NodeSelector {
		if got, ok := labels[k]; ok && got != v {
			return false
		}
		if _, ok := labels[k]; !ok {
			continue
		}
	}
	if ps.Affinity == nil || ps.Affinity.Required == nil {
		return true
	}
	var terms []cluster.SelectorTerm
	for _, t := range ps.Affinity.Required {
		var kept []cluster.SelectorRequirement
		for _, e := range t.MatchExpressions {
			if _, ok := labels[e.Key]; ok {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			return true
		}
		terms = append(terms, cluster.SelectorTerm{MatchExpressions: kept})
	}
	na := cluster.NodeAffinity{Required: terms}
	return na.Matches(labels)
}

// fitsQuota judges v more of flavor-resource k (assumed of it already by
// earlier pod sets) against the queue's quota: the preemption mode, the
// borrowing level, and the reasons when it is not a plain fit.
func (fa *flavorAssigner) fitsQuota(k int, flavor string, r cluster.ResourceName, assumed, v int64) (preemptionMode, int, []string) {
	q := fa.q
	val := addAmount(assumed, v)
	var avail, maxCap, nominal int64
	if k >= 0 {
		avail, maxCap = max(0, q.node.available(k)), q.node.potentialAvailable(k)
		nominal = q.node.quotas[k].nominal
	}
	if val > maxCap {
		return pmNoFit, 0, []string{fmt.Sprintf("insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)",
			r, flavor, formatAmount(r, assumed), formatAmount(r, v), formatAmount(r, maxCap))}
	}
	borrow, mayReclaim := q.node.lowestSubtreeThatFits(k, val)
	if val <= avail {
		return pmFit, borrow, nil
	}
	why := []string{fmt.Sprintf("insufficient unused quota for %s in flavor %s, %s more needed", r, flavor, formatAmount(r, subAmount(val, avail)))}
	if nominal >= val || mayReclaim || fa.canPreemptWhileBorrowing() {
		if fa.simulate != nil {
			pm, borrowAfter := fa.simulate(k, val)
			return pm, borrowAfter, why
		}
		pm, borrowAfter := fa.a.simulatePreemption(fa.wi, q, k, val)
		return pm, borrowAfter, why
	}
	return pmNoFit, borrow, why
}

func (fa *flavorAssigner) canPreemptWhileBorrowing() bool {
	p := fa.q.spec.Preemption
	if fa.a.cfg.FairSharing != nil && p.ReclaimWithinCohort != "" && p.ReclaimWithinCohort != PreemptNever {
		return true
	}
	return p.BorrowWithinCohort != "" && p.BorrowWithinCohort != PreemptNever
}

// formatAmount renders an amount as Kueue prints it, a Kubernetes
// quantity in canonical form: cpu from millicores and the other decimal
// resources from units, with the largest SI suffix that keeps the number
// whole (1000 cpu is "1k", 1500 cpu "1500", 500 millicores "500m");
// memory, ephemeral storage and hugepages in binary form.
func formatAmount(r cluster.ResourceName, v int64) string {
	if v == unlimited {
		return "unlimited"
	}
	base := cluster.BaseResource(r)
	if base == cluster.ResourceMemory || base == "ephemeral-storage" || strings.HasPrefix(string(base), "hugepages-") {
		return cluster.FormatAmount(r, v)
	}
	if base == cluster.ResourceCPU {
		if v%1000 != 0 {
			return fmt.Sprintf("%dm", v)
		}
		v /= 1000
	}
	suffix := 0
	for v != 0 && v%1000 == 0 && suffix < 6 {
		v /= 1000
		suffix++
	}
	return fmt.Sprintf("%d%s", v, [...]string{"", "k", "M", "G", "T", "P", "E"}[suffix])
}
