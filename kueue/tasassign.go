package kueue

import "github.com/gangsim/gangsim/cluster"

// TAS in the flavor assignment and the cycle, as Kueue's flavor assigner
// and scheduler run it: once a workload's quota fits, each pod set asking
// for TAS (with a count) gets its domains on its TAS flavor's snapshot,
// the pod sets of one flavor taken in order, each counting those before
// it. A pod set that does not fit takes Kueue's reason and makes the
// workload's mode Preempt; the search is then made again as if no TAS
// workload were admitted, and a pod set that still does not fit makes it
// NoFit. A workload whose quota needs preemption is only given that
// second search. In the cycle, an admission is counted in the snapshot,
// and a later head whose domains no longer fit is skipped ("Workload no
// longer fits after processing another workload").
//
// Not modelled: the topology in the choice of victims. A workload whose
// topology has no room is in mode Preempt, and its victims are chosen by
// quota alone (the lowest priority first), where Kueue also checks that
// they free the nodes it needs; and a preempting workload holds its quota
// for the rest of the cycle but not its nodes (kueue/testdata/ported.md,
// the two TAS cases that fail).

// placeTAS gives the assignment's TAS pod sets their domains.
func (fa *flavorAssigner) placeTAS(as *assignment) {
	mode := as.mode()
	if mode == NoFit {
		return
	}
	reqs := fa.tasPodSets(as)
	if len(reqs) == 0 {
		return
	}
	if mode == Fit {
		failed, reason := fa.findTAS(as, reqs, false)
		if failed < 0 {
			return
		}
		ps := &as.podSets[failed]
		ps.reasons = append(ps.reasons, reason)
		capMode(ps, Preempt)
	}
	if as.mode() != Preempt {
		return
	}
	failed, _ := fa.findTAS(as, reqs, true)
	for _, i := range reqs {
		as.podSets[i].topology = nil
	}
	if failed >= 0 {
		capMode(&as.podSets[failed], NoFit)
		return
	}
	for _, i := range reqs {
		capMode(&as.podSets[i], Preempt)
	}
}

func capMode(ps *podSetAssignment, m Mode) {
	if ps.capped == nil || m < *ps.capped {
		ps.capped = &m
	}
	for _, f := range ps.flavors {
		f.mode = min(f.mode, m)
	}
}

// tasPodSets are the pod sets of the assignment asking for TAS, with
// pods, their TAS flavor set.
func (fa *flavorAssigner) tasPodSets(as *assignment) []int {
	var out []int
	for i := range as.podSets {
		psa := &as.podSets[i]
		ps := &fa.wi.w.PodSets[i]
		requested, _ := fa.a.tasRequested(fa.q, ps)
		if !requested || psa.count == 0 || len(psa.flavors) == 0 {
			continue
		}
		flavors := map[cluster.ResourceName]string{}
		for r, f := range psa.flavors {
			flavors[r] = f.name
		}
		if psa.tasFlavor = fa.a.tasFlavor(flavors); psa.tasFlavor != "" {
			out = append(out, i)
		}
	}
	return out
}

// findTAS searches the pod sets' domains, each flavor's pod sets in
// order; it returns the first that does not fit and Kueue's reason (-1
// when all fit, their assignments set).
func (fa *flavorAssigner) findTAS(as *assignment, reqs []int, empty bool) (int, string) {
	assumed := map[string]map[string]cluster.ResourceList{}
	for _, i := range reqs {
		psa := &as.podSets[i]
		ps := &fa.wi.w.PodSets[i]
		_, implied := fa.a.tasRequested(fa.q, ps)
		s := fa.a.snapshot(psa.tasFlavor)
		if assumed[psa.tasFlavor] == nil {
			assumed[psa.tasFlavor] = map[string]cluster.ResourceList{}
		}
		ta, reason := s.find(ps, psa.count, implied, assumed[psa.tasFlavor], empty)
		if reason != "" {
			return i, reason
		}
		psa.topology = ta
		req := podRequests(ps)
		for _, d := range ta.Domains {
			id := domainID(d.Values)
			u := assumed[psa.tasFlavor][id]
			if u == nil {
				u = cluster.ResourceList{}
				assumed[psa.tasFlavor][id] = u
			}
			for r, v := range req {
				u[r] += v * int64(d.Count)
			}
		}
	}
	return -1, ""
}

// tasFits reports whether the entry's domains still fit the cycle's
// snapshots, after the admissions before it in the cycle.
func (a *Admitter) tasFits(e *entry) bool {
	for i := range e.as.podSets {
		psa := &e.as.podSets[i]
		if psa.topology == nil {
			continue
		}
		ps := &e.wi.w.PodSets[i]
		if !a.snapshot(psa.tasFlavor).fits(psa.topology, podRequests(ps)) {
			return false
		}
	}
	return true
}

// recomputeTAS is Kueue's TASRecomputeAssignmentWithinSchedulingCycle
// (beta, on by default in v0.19): a head whose quota still fits but whose
// domains no longer do, after the admissions before it in the cycle, is
// given its flavors and domains again on the cycle's state; it reports
// whether the new assignment fits, which then replaces the old.
func (a *Admitter) recomputeTAS(e *entry, preempted map[*info]bool) bool {
	counts := make([]int32, len(e.as.podSets))
	for i := range e.as.podSets {
		counts[i] = e.as.podSets[i].count
	}
	e.wi.last = nil
	fa := &flavorAssigner{a: a, wi: e.wi, q: e.q}
	as := fa.assign(counts)
	e.wi.last = &as.last
	if as.mode() != Fit {
		return false
	}
	old, oldUsage := e.as, e.usage
	e.as, e.usage = as, as.usageList()
	if a.fitsAfterPreemptions(e, preempted) && a.tasFits(e) {
		e.message = as.message()
		return true
	}
	e.as, e.usage = old, oldUsage
	return false
}

// tasAdmit counts the entry's domains in the cycle's snapshots, at once
// (its quota is counted when the cycle ends: tasUsage then skips them).
func (a *Admitter) tasAdmit(e *entry) {
	for i := range e.as.podSets {
		psa := &e.as.podSets[i]
		if psa.topology != nil {
			a.snapshot(psa.tasFlavor).addUsage(psa.topology, podRequests(&e.wi.w.PodSets[i]), 1)
			e.wi.tasInSnap = true
		}
	}
}
