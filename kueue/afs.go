package kueue

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Admission fair sharing, as Kueue v0.19 runs it (the Configuration's
// admissionFairSharing, the AdmissionFairSharing gate, on by default, and
// a ClusterQueue whose admissionScope.admissionMode is
// UsageBasedAdmissionFairSharing): within such a queue, the workloads of
// the LocalQueue that used least lately go first.
//
// Each of the queue's LocalQueues keeps its consumed resources, a decayed
// average of what its admitted workloads hold. Kueue's LocalQueue
// controller samples it every usageSamplingInterval:
//
//	consumed = consumed × (1 − α) + admitted × α,  α = 1 − 0.5^(elapsed / usageHalfLifeTime)
//
// (a half-life of 0 resets it to nothing at each sample). When a workload
// is admitted, its LocalQueue is charged at once an entry penalty, its
// requests × α(usageSamplingInterval), so that the next head of the queue
// sees it before the next sample; the workload controller then folds the
// penalty into consumed with one more decay step, and the next sample
// comes a full interval after that. A LocalQueue's usage is
//
//	Σ over resources of resourceWeights[r] (1 when not given) × consumed[r],
//	divided by the LocalQueue's fairSharing.weight (1 when not given;
//	a weight of 0 makes it +Inf: last)
//
// in Kubernetes units (cores for cpu). The queue orders its heap by that
// usage first, then as it always does (the waiting preemptor, priority,
// creation); and among candidates for preemption of one ClusterQueue,
// those of the LocalQueue that used more go first (when their queue names
// differ, as Kueue compares them).
//
// The model differs from Kueue in three small ways, none of which moves a
// sample: the samples are computed when the usage is read (at a cycle and
// before the LocalQueue's admitted usage changes), not by a timer; the
// penalty is folded in when the workload is admitted, not when the status
// write lands (the decay step is the same, a few milliseconds earlier);
// and the amounts are float64, where Kueue keeps decimal quantities rounded
// down to nano units. Kueue also rebuilds a queue's heap only at a sample
// or when a penalty is pending; the model keeps it in order all the time.

// lqUsage is a LocalQueue's admission fair sharing state.
type lqUsage struct {
	a        *Admitter
	key      string // namespace/name
	queue    string // name
	cq       *clusterQueue
	weight   float64
	consumed map[cluster.ResourceName]float64 // Kubernetes units
	last     time.Duration                    // the last sample or settlement
	value    float64                          // the usage the heap is ordered by
}

// afsAlpha is Kueue's decay rate for elapsed over the half-life.
func afsAlpha(elapsed, halfLife time.Duration) float64 {
	if halfLife == 0 {
		return 0
	}
	return 1 - math.Pow(0.5, elapsed.Seconds()/halfLife.Seconds())
}

// kubeAmount is an amount in Kubernetes units: cores for cpu.
func kubeAmount(r cluster.ResourceName, v int64) float64 {
	if r == cluster.ResourceCPU {
		return float64(v) / 1000
	}
	return float64(v)
}

// initAFS gives every LocalQueue of a usage-based ClusterQueue its state
// at time 0: the consumed resources of its status when a dump gives
// them, else nothing (a LocalQueue new to Kueue has no history).
func (a *Admitter) initAFS() {
	if a.cfg.AdmissionFairSharing == nil {
		return
	}
	a.afs = map[string]*lqUsage{}
	for _, k := range sortedKeys(a.lqs) {
		lq := a.lqs[k]
		q := a.cqs[lq.ClusterQueue]
		if q == nil || q.spec.AdmissionMode != UsageBasedAdmissionFairSharing {
			continue
		}
		w := 1.0
		if lq.FairSharing != nil && lq.FairSharing.Weight != nil {
			w = float64(*lq.FairSharing.Weight) / 1e9
		}
		l := &lqUsage{a: a, key: k, queue: lq.Name, cq: q, weight: w, consumed: map[cluster.ResourceName]float64{}, last: a.now}
		for r, v := range lq.ConsumedResources { // a dump's: the usage so far
			l.consumed[r] = kubeAmount(r, v)
		}
		l.value = l.usage()
		a.afs[k] = l
		q.afsLQs = append(q.afsLQs, l)
	}
}

// usage is the LocalQueue's weighted usage.
func (l *lqUsage) usage() float64 {
	if l.weight <= 0 {
		return math.Inf(1)
	}
	weights := l.a.cfg.AdmissionFairSharing.ResourceWeights
	var u float64
	for _, r := range slices.Sorted(maps.Keys(l.consumed)) {
		w, ok := weights[r]
		if !ok {
			w = 1
		}
		u += float64(w * l.consumed[r])
	}
	return u / l.weight
}

// admitted is what the LocalQueue's workloads holding quota use, by
// resource over all flavors.
func (l *lqUsage) admitted() map[cluster.ResourceName]float64 {
	sum := map[cluster.ResourceName]int64{}
	for _, k := range sortedKeys(l.cq.admitted) {
		wi := l.cq.admitted[k]
		if wi.afs != l {
			continue
		}
		for _, u := range wi.usage {
			r := l.a.frs[u.fr].resource
			sum[r] = addAmount(sum[r], u.v)
		}
	}
	out := make(map[cluster.ResourceName]float64, len(sum))
	for r, v := range sum {
		out[r] = kubeAmount(r, v)
	}
	return out
}

// decay folds usage into consumed over elapsed.
func (l *lqUsage) decay(usage map[cluster.ResourceName]float64, elapsed time.Duration) {
	alpha := afsAlpha(elapsed, time.Duration(l.a.cfg.AdmissionFairSharing.UsageHalfLifeTime))
	for _, r := range slices.Sorted(maps.Keys(usage)) {
		if _, ok := l.consumed[r]; !ok {
			l.consumed[r] = 0
		}
	}
	for _, r := range slices.Sorted(maps.Keys(l.consumed)) {
		l.consumed[r] = float64(l.consumed[r]*(1-alpha)) + float64(usage[r]*alpha)
	}
}

// catchUp takes the samples due by now, each a sampling interval after
// the last; the admitted usage did not change since the last (the caller
// catches up before it changes).
func (l *lqUsage) catchUp() {
	cfg := l.a.cfg.AdmissionFairSharing
	interval := time.Duration(cfg.UsageSamplingInterval)
	if l.a.now-l.last < interval {
		return
	}
	usage := l.admitted()
	for l.a.now-l.last >= interval {
		if cfg.UsageHalfLifeTime == 0 {
			clear(l.consumed)
		} else {
			l.decay(usage, interval)
		}
		l.last += interval
	}
	l.refresh()
}

// refresh recomputes the usage and puts the queue's heap back in order
// when it changed.
func (l *lqUsage) refresh() {
	v := l.usage()
	if v == l.value {
		return
	}
	l.value = v
	q := l.cq
	q.orderOK = false
	slices.SortFunc(q.heap, func(x, y *info) int {
		if q.before(x, y) {
			return -1
		}
		return 1
	})
}

// settle charges the LocalQueue of a workload just admitted: its entry
// penalty, folded into consumed with one decay step to now.
func (l *lqUsage) settle(wi *info) {
	cfg := l.a.cfg.AdmissionFairSharing
	l.decay(l.admitted(), l.a.now-l.last)
	alpha := afsAlpha(time.Duration(cfg.UsageSamplingInterval), time.Duration(cfg.UsageHalfLifeTime))
	req := map[cluster.ResourceName]int64{}
	for _, p := range wi.admission.PodSets {
		for i := range wi.w.PodSets {
			ps := &wi.w.PodSets[i]
			if ps.Name != p.Name {
				continue
			}
			for r, v := range ps.Requests {
				req[r] = addAmount(req[r], mulAmount(v, int64(p.Count)))
			}
		}
	}
	for _, r := range slices.Sorted(maps.Keys(req)) {
		l.consumed[r] += float64(kubeAmount(r, req[r]) * alpha)
	}
	l.last = l.a.now
	l.refresh()
}

// afsCatchUp takes every LocalQueue's samples due by now.
func (a *Admitter) afsCatchUp() {
	for _, q := range a.queues {
		for _, l := range q.afsLQs {
			l.catchUp()
		}
	}
}
