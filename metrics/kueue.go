package metrics

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// KueueWorkload is what the report reads of one of Kueue's workloads
// beyond its events: the LocalQueue it names and its wait for nodes.
type KueueWorkload struct {
	// Workload is the workload's namespace/name, as the events name it.
	Workload string
	// LocalQueue is the LocalQueue it names, in its namespace.
	LocalQueue string
	// WaitForNodes is from its first admission until its admitted pods
	// were all bound; negative when they never were.
	WaitForNodes time.Duration
}

// KueueSummary is what Kueue did over a run, per ClusterQueue and per
// LocalQueue, each in the order of the objects.
type KueueSummary struct {
	ClusterQueues []KueueQueueSummary
	LocalQueues   []KueueQueueSummary
	// Workloads counts the workloads made; Admitted those admitted at
	// least once; PendingAtEnd those waiting at the end; NoQueue those
	// whose LocalQueue (or its ClusterQueue) does not exist, in no
	// queue's numbers; Evictions every eviction.
	Workloads, Admitted, PendingAtEnd, NoQueue, Evictions int
	// TimeToAdmission, WaitForQuota and WaitForNodes are over every
	// workload, as KueueQueueSummary has them per queue.
	TimeToAdmission, WaitForQuota, WaitForNodes Durations
	// Preemptions counts the victims of preemption between each pair of
	// ClusterQueues: the preemptor's (the queue its LocalQueue points
	// to) and the victim's (the queue it held quota in), a pair once,
	// in the objects' order of the preemptors, then of the victims.
	Preemptions []KueuePreemptions
}

// KueuePreemptions is how many workloads of ClusterQueue Victim were
// preempted for workloads of ClusterQueue Preemptor ("" when the
// preemptor is in no queue's numbers); Preemptor equals Victim for a
// preemption within a queue.
type KueuePreemptions struct {
	Preemptor, Victim string
	Count             int
}

// KueueQueueSummary is one ClusterQueue or LocalQueue over a run.
type KueueQueueSummary struct {
	// Name is the ClusterQueue's name, or the LocalQueue's
	// namespace/name.
	Name string
	// ClusterQueue is, for a LocalQueue, the ClusterQueue it points to;
	// Cohort is a ClusterQueue's cohort ("" when none).
	ClusterQueue, Cohort string
	// Workloads counts the workloads made in the queue, Admitted those
	// admitted at least once.
	Workloads, Admitted int
	// Pending and Holding are time averages of the workloads waiting
	// and of those holding quota; the peaks and the counts at the end.
	Pending, Holding                float64
	PendingPeak, HoldingPeak        int
	PendingAtEnd, InadmissibleAtEnd int
	HoldingAtEnd                    int
	// TimeToAdmission is from a workload's creation to its first
	// admission, over those admitted. WaitForQuota is the same over
	// every workload, those never admitted counted to the end;
	// WaitForNodes is from the first admission until the admitted pods
	// were all bound, over the workloads whose pods were.
	TimeToAdmission, WaitForQuota, WaitForNodes Durations
	// Evictions counts the evictions by reason: the preemption's
	// (InClusterQueue, InCohortReclamation,
	// InCohortReclaimWhileBorrowing, InCohortFairSharing), else Kueue's
	// reason.
	Evictions []ReasonCount
	// Preempted counts the queue's workloads evicted by preemption (as
	// victims); Preempting the workloads its own workloads preempted, in
	// any queue (as preemptors).
	Preempted, Preempting int
	// AdmissionTimes are the times to admission TimeToAdmission sums up,
	// shortest first, for a distribution; not in the JSON report.
	AdmissionTimes []time.Duration
	// Quota is a ClusterQueue's quota and usage per flavor and resource,
	// in the order of its resource groups (then any other usage); for a
	// LocalQueue, its usage alone (Nominal 0).
	Quota []KueueQuotaSummary
}

// ReasonCount is a count for one reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// KueueQuotaSummary is one flavor and resource of a queue, in the
// resource's Unit: the nominal quota, the usage (the requests of the
// workloads holding quota) and the part of it above the nominal quota
// (borrowed from the cohort), as time averages and peaks. Utilization is
// the usage integral over the nominal quota's (0 without quota).
type KueueQuotaSummary struct {
	Flavor                 string
	Resource               cluster.ResourceName
	Unit                   string
	Nominal                float64
	Used, UsedPeak         float64
	Borrowed, BorrowedPeak float64
	Utilization            float64
}

// The metrics of the series AddKueue adds, per queue (domain
// "clusterqueue=NAME" or "localqueue=NAMESPACE/NAME"; the quota series
// add " flavor=FLAVOR" to the domain and have a Resource).
const (
	SeriesKueuePendingActive       = "pending active"       // waiting, not yet found not to fit
	SeriesKueuePendingInadmissible = "pending inadmissible" // waiting, Kueue said why it could not admit it
	SeriesKueueHolding             = "admitted"             // holding quota
	SeriesKueueNominal             = "nominal quota"
	SeriesKueueUsed                = "quota used"
	SeriesKueueBorrowed            = "quota borrowed"
)

// The domains' prefixes of Kueue's series.
const (
	KueueClusterQueueDomain = "clusterqueue="
	KueueLocalQueueDomain   = "localqueue="
)

// flavorResource is one flavor's resource.
type flavorResource struct {
	flavor   string
	resource cluster.ResourceName
}

// kqueue is one queue's tracks while the events are read.
type kqueue struct {
	sum                           KueueQueueSummary
	domain                        string
	active, inadmissible, holding track
	frs                           []flavorResource
	used, nominal                 map[flavorResource]int64
	usedT, borrowedT              map[flavorResource]*track
	evictions                     map[string]int
	toAdmission, forQuota, nodes  []time.Duration
	touched                       bool // by the instant's events
}

func newKqueue(sum KueueQueueSummary, domain string) *kqueue {
	return &kqueue{sum: sum, domain: domain, used: map[flavorResource]int64{}, nominal: map[flavorResource]int64{},
		usedT: map[flavorResource]*track{}, borrowedT: map[flavorResource]*track{}, evictions: map[string]int{}}
}

// fr adds the tracks of a flavor's resource when new.
func (q *kqueue) fr(k flavorResource) {
	if _, ok := q.usedT[k]; ok {
		return
	}
	q.frs = append(q.frs, k)
	q.usedT[k], q.borrowedT[k] = &track{}, &track{}
}

func (q *kqueue) use(k flavorResource, v int64) {
	q.fr(k)
	q.used[k] += v
	q.usedT[k].cur = q.used[k]
	q.borrowedT[k].cur = max(0, q.used[k]-q.nominal[k])
}

func (q *kqueue) flush(at time.Duration) {
	q.active.set(at)
	q.inadmissible.set(at)
	q.holding.set(at)
	for _, k := range q.frs {
		q.usedT[k].set(at)
		q.borrowedT[k].set(at)
	}
}

// set records the track's value at at, replacing a point already there
// (the zeros every track starts with at the report's start).
func (t *track) set(at time.Duration) {
	n := len(t.pts)
	if n == 0 || t.pts[n-1].at != at {
		t.flush(at)
		return
	}
	t.pts[n-1].v = t.cur
	if n > 1 && t.pts[n-2].v == t.cur {
		t.pts = t.pts[:n-1]
	}
}

// workloadPhase is where a workload stands in Kueue.
type workloadPhase uint8

const (
	wlNone workloadPhase = iota
	wlPending
	wlHolding
	wlReleased // quota released, not requeued (yet)
	wlDone
)

// kworkload is one workload while the events are read.
type kworkload struct {
	lq, cq        *kqueue // its LocalQueue and that queue's ClusterQueue (nil when none)
	held          *kqueue // the ClusterQueue it holds quota in
	phase         workloadPhase
	said          bool // Kueue said why it could not admit it
	created       time.Duration
	firstAdmitted time.Duration
	admitted      bool
	usage         []kueueUse
}

type kueueUse struct {
	k flavorResource
	v int64
}

// pendingTrack is the track a pending workload counts in.
func (w *kworkload) pendingTrack(q *kqueue) *track {
	if w.said {
		return &q.inadmissible
	}
	return &q.active
}

// AddKueue adds Kueue's record of the run to the report: the summary
// (Kueue) and, per ClusterQueue and per LocalQueue, the series of its
// pending workloads (active and inadmissible), of those holding quota,
// and of its quota used per flavor and resource, with, for a
// ClusterQueue, its nominal quota and the part used above it
// (borrowed). events are Kueue's in order; workloads name each
// workload's LocalQueue and give its wait for nodes. Nothing is added
// without Kueue's objects.
func (rep *Report) AddKueue(objs *kueue.Objects, events []kueue.Event, workloads []KueueWorkload) {
	if objs.Empty() {
		return
	}
	var cqs, lqs []*kqueue
	cqByName, lqByName := map[string]*kqueue{}, map[string]*kqueue{}
	for _, c := range objs.ClusterQueues {
		q := newKqueue(KueueQueueSummary{Name: c.Name, Cohort: c.CohortName}, KueueClusterQueueDomain+c.Name)
		for _, g := range c.ResourceGroups {
			for _, f := range g.Flavors {
				for _, r := range f.Resources {
					k := flavorResource{f.Name, r.Name}
					q.fr(k)
					q.nominal[k] = r.NominalQuota
				}
			}
		}
		cqs = append(cqs, q)
		cqByName[c.Name] = q
	}
	for _, l := range objs.LocalQueues {
		name := l.Namespace + "/" + l.Name
		q := newKqueue(KueueQueueSummary{Name: name, ClusterQueue: l.ClusterQueue}, KueueLocalQueueDomain+name)
		lqs = append(lqs, q)
		lqByName[name] = q
	}
	lqOf := map[string]string{}
	nodeWait := map[string]time.Duration{}
	for _, w := range workloads {
		ns, _ := splitKey(w.Workload)
		lqOf[w.Workload] = ns + "/" + w.LocalQueue
		nodeWait[w.Workload] = w.WaitForNodes
	}
	for _, q := range slices.Concat(cqs, lqs) {
		q.flush(rep.Start)
	}
	// the queues an instant's events touched, flushed at its end
	var touched []*kqueue
	touch := func(qs ...*kqueue) {
		for _, q := range qs {
			if q != nil && !q.touched {
				q.touched = true
				touched = append(touched, q)
			}
		}
	}
	sum := &KueueSummary{}
	preempted := &preemptionCounts{}
	wls := map[string]*kworkload{}
	var order []string
	both := func(w *kworkload, f func(q *kqueue)) {
		for _, q := range []*kqueue{w.lq, w.cq} {
			if q != nil {
				f(q)
			}
		}
	}
	for i, e := range events {
		at := max(e.At, rep.Start)
		w := wls[e.Workload]
		if w == nil {
			w = &kworkload{created: at, firstAdmitted: -1}
			if lq := lqByName[lqOf[e.Workload]]; lq != nil {
				w.lq, w.cq = lq, cqByName[lq.sum.ClusterQueue]
			}
			if w.cq == nil {
				w.lq = nil // a queue that cannot admit anything: in no queue's numbers
				sum.NoQueue++
			}
			wls[e.Workload] = w
			order = append(order, e.Workload)
			both(w, func(q *kqueue) { q.sum.Workloads++ })
		}
		touch(w.lq, w.cq, w.held) // before a new admission moves it
		switch e.Kind {
		case kueue.Created:
			w.created = at
			if w.phase == wlNone {
				w.phase = wlPending
				both(w, func(q *kqueue) { w.pendingTrack(q).cur++ })
			}
		case kueue.Pending:
			if w.phase == wlPending && !w.said {
				both(w, func(q *kqueue) { q.active.cur--; q.inadmissible.cur++ })
			}
			w.said = true
		case kueue.QuotaReserved:
			if w.phase == wlPending {
				both(w, func(q *kqueue) { w.pendingTrack(q).cur-- })
			}
			w.release()
			w.phase, w.held = wlHolding, cqByName[e.ClusterQueue]
			if !w.admitted {
				w.admitted, w.firstAdmitted = true, at
				both(w, func(q *kqueue) { q.sum.Admitted++ })
			}
			w.usage = w.usage[:0]
			if e.Admission != nil {
				for _, ps := range e.Admission.PodSets {
					for _, r := range slices.Sorted(maps.Keys(ps.Usage)) {
						if f := ps.Flavors[r]; f != "" {
							w.usage = append(w.usage, kueueUse{flavorResource{f, r}, ps.Usage[r]})
						}
					}
				}
			}
			w.hold(+1)
		case kueue.Evicted:
			reason := cmp.Or(e.Preemption, e.Reason, "Unknown")
			sum.Evictions++
			victim := cqByName[e.ClusterQueue]
			for _, q := range []*kqueue{w.lq, victim} {
				if q != nil {
					q.evictions[reason]++
				}
			}
			if e.Preemption != "" || e.By != "" {
				preempted.add(w, victim, wls[e.By], e.ClusterQueue)
			}
		case kueue.QuotaReleased:
			if w.phase == wlHolding {
				w.release()
				w.phase = wlReleased
			}
		case kueue.Requeued:
			if w.phase == wlReleased || w.phase == wlNone {
				w.phase = wlPending
				both(w, func(q *kqueue) { w.pendingTrack(q).cur++ })
			}
		case kueue.Finished:
			switch w.phase {
			case wlPending:
				both(w, func(q *kqueue) { w.pendingTrack(q).cur-- })
			case wlHolding:
				w.release()
			}
			w.phase = wlDone
		}
		touch(w.held)
		if i+1 == len(events) || max(events[i+1].At, rep.Start) != at {
			for _, q := range touched {
				q.flush(at)
				q.touched = false
			}
			touched = touched[:0]
		}
	}
	var toAdmission, forQuota, nodes []time.Duration
	for _, key := range order {
		w := wls[key]
		sum.Workloads++
		quota := rep.End - w.created
		if w.admitted {
			sum.Admitted++
			quota = w.firstAdmitted - w.created
			toAdmission = append(toAdmission, quota)
			both(w, func(q *kqueue) { q.toAdmission = append(q.toAdmission, quota) })
		}
		if w.phase == wlPending || w.phase == wlReleased {
			sum.PendingAtEnd++
		}
		forQuota = append(forQuota, quota)
		both(w, func(q *kqueue) { q.forQuota = append(q.forQuota, quota) })
		if d, ok := nodeWait[key]; ok && d >= 0 && w.admitted {
			nodes = append(nodes, d)
			both(w, func(q *kqueue) { q.nodes = append(q.nodes, d) })
		}
	}
	sum.TimeToAdmission, sum.WaitForQuota, sum.WaitForNodes = Summarize(toAdmission), Summarize(forQuota), Summarize(nodes)
	sum.Preemptions = preempted.sorted(objs)
	for _, q := range cqs {
		sum.ClusterQueues = append(sum.ClusterQueues, q.summary(rep, true))
	}
	for _, q := range lqs {
		sum.LocalQueues = append(sum.LocalQueues, q.summary(rep, false))
	}
	rep.Kueue = sum
}

// hold adds (+1) or takes (-1) the workload's usage and count to its
// ClusterQueue and LocalQueue.
func (w *kworkload) hold(sign int64) {
	for _, q := range []*kqueue{w.held, w.lq} {
		if q == nil {
			continue
		}
		q.holding.cur += sign
		for _, u := range w.usage {
			q.use(u.k, sign*u.v)
		}
	}
}

// release gives the quota back when the workload holds some.
func (w *kworkload) release() {
	if w.phase == wlHolding {
		w.hold(-1)
	}
}

// summary sums a queue up and adds its series to the report.
func (q *kqueue) summary(rep *Report, isCQ bool) KueueQueueSummary {
	s := q.sum
	pend, inad, hold := q.active.stats(rep.Start, rep.End), q.inadmissible.stats(rep.Start, rep.End), q.holding.stats(rep.Start, rep.End)
	s.Pending, s.Holding = pend.mean+inad.mean, hold.mean
	s.PendingPeak = int(peakOfSum(&q.active, &q.inadmissible))
	s.HoldingPeak = int(hold.peak)
	s.InadmissibleAtEnd = int(q.inadmissible.cur)
	s.PendingAtEnd = int(q.active.cur) + s.InadmissibleAtEnd
	s.HoldingAtEnd = int(q.holding.cur)
	s.TimeToAdmission, s.WaitForQuota, s.WaitForNodes = Summarize(q.toAdmission), Summarize(q.forQuota), Summarize(q.nodes)
	s.AdmissionTimes = slices.Sorted(slices.Values(q.toAdmission))
	for _, r := range slices.Sorted(maps.Keys(q.evictions)) {
		s.Evictions = append(s.Evictions, ReasonCount{r, q.evictions[r]})
	}
	counts := func(metric string, t *track) Series {
		return Series{Name: q.domain + " " + metric, Metric: metric, Domain: q.domain, Unit: "workloads", Points: points(t, 1)}
	}
	rep.Series = append(rep.Series, counts(SeriesKueuePendingActive, &q.active), counts(SeriesKueuePendingInadmissible, &q.inadmissible),
		counts(SeriesKueueHolding, &q.holding))
	frs := q.frs
	if !isCQ { // a LocalQueue's resources in a stable order: as seen is event order, so sort
		frs = slices.SortedFunc(slices.Values(frs), func(a, b flavorResource) int {
			return cmp.Or(cmp.Compare(a.flavor, b.flavor), cmp.Compare(a.resource, b.resource))
		})
	}
	for _, k := range frs {
		unit, scale := Unit(k.resource)
		used, borrowed := q.usedT[k].stats(rep.Start, rep.End), q.borrowedT[k].stats(rep.Start, rep.End)
		nominal := q.nominal[k]
		qs := KueueQuotaSummary{Flavor: k.flavor, Resource: k.resource, Unit: unit, Nominal: float64(nominal) / scale,
			Used: used.mean / scale, UsedPeak: float64(used.peak) / scale}
		domain := q.domain + " flavor=" + k.flavor
		if isCQ {
			qs.Borrowed, qs.BorrowedPeak = borrowed.mean/scale, float64(borrowed.peak)/scale
			qs.Utilization = ratio(used.mean, float64(nominal))
			nom := &track{cur: nominal}
			nom.flush(rep.Start)
			rep.Series = append(rep.Series, series(SeriesKueueNominal, domain, k.resource, nom))
		}
		rep.Series = append(rep.Series, series(SeriesKueueUsed, domain, k.resource, q.usedT[k]))
		if isCQ {
			rep.Series = append(rep.Series, series(SeriesKueueBorrowed, domain, k.resource, q.borrowedT[k]))
		}
		s.Quota = append(s.Quota, qs)
	}
	return s
}

// peakOfSum is the peak of the sum of two tracks.
func peakOfSum(a, b *track) int64 {
	var peak, va, vb int64
	i, j := 0, 0
	for i < len(a.pts) || j < len(b.pts) {
		var at time.Duration
		switch {
		case j >= len(b.pts) || i < len(a.pts) && a.pts[i].at <= b.pts[j].at:
			at = a.pts[i].at
		default:
			at = b.pts[j].at
		}
		for i < len(a.pts) && a.pts[i].at == at {
			va = a.pts[i].v
			i++
		}
		for j < len(b.pts) && b.pts[j].at == at {
			vb = b.pts[j].v
			j++
		}
		peak = max(peak, va+vb)
	}
	return peak
}

// splitKey splits "namespace/name".
func splitKey(key string) (ns, name string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// KueueSeries returns the report's series of a Kueue metric whose domain
// is exactly the queue's (domain "clusterqueue=cq"), or, for the quota
// metrics, starts with it (" flavor=..."), in report order.
func (rep *Report) KueueSeries(domain, metric string) []*Series {
	var out []*Series
	for i := range rep.Series {
		s := &rep.Series[i]
		if s.Metric == metric && (s.Domain == domain || len(s.Domain) > len(domain) && s.Domain[:len(domain)+1] == domain+" ") {
			out = append(out, s)
		}
	}
	return out
}

// Busiest returns up to n of the queues, busiest first: by the time
// average of their workloads (pending and holding quota), then by
// workloads made, ties in the given order. n <= 0 returns them all.
func Busiest(queues []KueueQueueSummary, n int) []KueueQueueSummary {
	out := slices.Clone(queues)
	slices.SortStableFunc(out, func(a, b KueueQueueSummary) int {
		return cmp.Or(cmp.Compare(b.Pending+b.Holding, a.Pending+a.Holding), cmp.Compare(b.Workloads, a.Workloads))
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// MaxKueueQueues is how many queues of each kind the table, the plots
// and the HTML page show: above it, the busiest (Busiest); the JSON and
// the CSV have them all.
const MaxKueueQueues = 30

// ShownQueues returns the queues to show: all of them, in the objects'
// order, up to MaxKueueQueues; else the MaxKueueQueues busiest.
func ShownQueues(queues []KueueQueueSummary) []KueueQueueSummary {
	if len(queues) <= MaxKueueQueues {
		return queues
	}
	return Busiest(queues, MaxKueueQueues)
}

// EvictionsText renders a queue's evictions by reason:
// "2 InClusterQueue, 1 InCohortReclamation"; "0" when none.
func (s KueueQueueSummary) EvictionsText() string {
	if len(s.Evictions) == 0 {
		return "0"
	}
	out := ""
	for i, e := range s.Evictions {
		if i > 0 {
			out += ", "
		}
		out += strconv.Itoa(e.Count) + " " + e.Reason
	}
	return out
}

// The JSON form of Kueue's summary: durations in seconds.

type jsonKueue struct {
	Workloads       int              `json:"workloads"`
	Admitted        int              `json:"admitted"`
	PendingAtEnd    int              `json:"pendingAtEnd"`
	NoQueue         int              `json:"noQueue"`
	Evictions       int              `json:"evictions"`
	TimeToAdmission jsonDurations    `json:"timeToAdmission"`
	WaitForQuota    jsonDurations    `json:"waitForQuota"`
	WaitForNodes    jsonDurations    `json:"waitForNodes"`
	ClusterQueues   []jsonKueueQueue `json:"clusterQueues"`
	LocalQueues     []jsonKueueQueue `json:"localQueues"`
	// Preemptions are the victims between each pair of ClusterQueues
	Preemptions []jsonKueuePreemptions `json:"preemptions"`
}

type jsonKueuePreemptions struct {
	Preemptor string `json:"preemptor"`
	Victim    string `json:"victim"`
	Count     int    `json:"count"`
}

type jsonKueueQueue struct {
	Name              string           `json:"name"`
	ClusterQueue      string           `json:"clusterQueue,omitempty"`
	Cohort            string           `json:"cohort,omitempty"`
	Workloads         int              `json:"workloads"`
	Admitted          int              `json:"admitted"`
	Pending           float64          `json:"pending"`
	PendingPeak       int              `json:"pendingPeak"`
	PendingAtEnd      int              `json:"pendingAtEnd"`
	InadmissibleAtEnd int              `json:"inadmissibleAtEnd"`
	Holding           float64          `json:"holdingQuota"`
	HoldingPeak       int              `json:"holdingQuotaPeak"`
	HoldingAtEnd      int              `json:"holdingQuotaAtEnd"`
	TimeToAdmission   jsonDurations    `json:"timeToAdmission"`
	WaitForQuota      jsonDurations    `json:"waitForQuota"`
	WaitForNodes      jsonDurations    `json:"waitForNodes"`
	Evictions         []jsonReasonN    `json:"evictions"`
	Preempted         int              `json:"preempted"`
	Preempting        int              `json:"preempting"`
	Quota             []jsonKueueQuota `json:"quota"`
}

type jsonReasonN struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

type jsonKueueQuota struct {
	Flavor       string  `json:"flavor"`
	Resource     string  `json:"resource"`
	Unit         string  `json:"unit"`
	Nominal      float64 `json:"nominal"`
	Used         float64 `json:"used"`
	UsedPeak     float64 `json:"usedPeak"`
	Borrowed     float64 `json:"borrowed"`
	BorrowedPeak float64 `json:"borrowedPeak"`
	Utilization  float64 `json:"utilization"`
}

func (k *KueueSummary) json() *jsonKueue {
	if k == nil {
		return nil
	}
	j := &jsonKueue{Workloads: k.Workloads, Admitted: k.Admitted, PendingAtEnd: k.PendingAtEnd, NoQueue: k.NoQueue, Evictions: k.Evictions,
		TimeToAdmission: k.TimeToAdmission.json(), WaitForQuota: k.WaitForQuota.json(), WaitForNodes: k.WaitForNodes.json(),
		ClusterQueues: []jsonKueueQueue{}, LocalQueues: []jsonKueueQueue{}, Preemptions: []jsonKueuePreemptions{}}
	for _, p := range k.Preemptions {
		j.Preemptions = append(j.Preemptions, jsonKueuePreemptions(p))
	}
	for _, q := range k.ClusterQueues {
		j.ClusterQueues = append(j.ClusterQueues, q.json())
	}
	for _, q := range k.LocalQueues {
		j.LocalQueues = append(j.LocalQueues, q.json())
	}
	return j
}

func (s KueueQueueSummary) json() jsonKueueQueue {
	j := jsonKueueQueue{Name: s.Name, ClusterQueue: s.ClusterQueue, Cohort: s.Cohort, Workloads: s.Workloads, Admitted: s.Admitted,
		Pending: s.Pending, PendingPeak: s.PendingPeak, PendingAtEnd: s.PendingAtEnd, InadmissibleAtEnd: s.InadmissibleAtEnd,
		Holding: s.Holding, HoldingPeak: s.HoldingPeak, HoldingAtEnd: s.HoldingAtEnd, TimeToAdmission: s.TimeToAdmission.json(),
		WaitForQuota: s.WaitForQuota.json(), WaitForNodes: s.WaitForNodes.json(), Evictions: []jsonReasonN{}, Preempted: s.Preempted,
		Preempting: s.Preempting, Quota: []jsonKueueQuota{}}
	for _, e := range s.Evictions {
		j.Evictions = append(j.Evictions, jsonReasonN(e))
	}
	for _, q := range s.Quota {
		j.Quota = append(j.Quota, jsonKueueQuota{Flavor: q.Flavor, Resource: string(q.Resource), Unit: q.Unit, Nominal: q.Nominal,
			Used: q.Used, UsedPeak: q.UsedPeak, Borrowed: q.Borrowed, BorrowedPeak: q.BorrowedPeak, Utilization: q.Utilization})
	}
	return j
}

// kueueTable lists the ClusterQueues (workloads, pending, evictions),
// their quota, the time to admission and the waits' split, then the
// LocalQueues; nothing without Kueue.
func (rep *Report) kueueTable(p printer) {
	k := rep.Kueue
	if k == nil {
		return
	}
	p("KUEUE\t%d workloads, %d admitted, %d pending at the end, %d evictions", k.Workloads, k.Admitted, k.PendingAtEnd, k.Evictions)
	if k.NoQueue > 0 {
		p(", %d naming a LocalQueue or ClusterQueue that does not exist", k.NoQueue)
	}
	p("\n\n")
	cqs := ShownQueues(k.ClusterQueues)
	more := func(all []KueueQueueSummary, kind string) {
		if len(all) > MaxKueueQueues {
			p("(the %d busiest of %d %s; all in the JSON report)\n", MaxKueueQueues, len(all), kind)
		}
	}
	p("CLUSTERQUEUE\tCOHORT\tWORKLOADS\tADMITTED\tPENDING\tPEAK\tAT END\tHOLDING QUOTA\tPEAK\tEVICTIONS\n")
	for _, q := range cqs {
		p("%s\t%s\t%d\t%d\t%s\t%d\t%d (%d inadmissible)\t%s\t%d\t%s\n", q.Name, cmp.Or(q.Cohort, "-"), q.Workloads, q.Admitted,
			num(q.Pending), q.PendingPeak, q.PendingAtEnd, q.InadmissibleAtEnd, num(q.Holding), q.HoldingPeak, q.EvictionsText())
	}
	more(k.ClusterQueues, "ClusterQueues")
	p("(pending and holding quota: workloads, time averages; evictions by preemption reason)\n\n")
	p("QUOTA\tNOMINAL\tUSED\tPEAK\tBORROWED\tPEAK\tUSED/NOMINAL\n")
	for _, q := range cqs {
		for _, u := range q.Quota {
			p("%s %s %s (%s)\t%s\t%s\t%s\t%s\t%s\t%s\n", q.Name, u.Flavor, u.Resource, u.Unit, num(u.Nominal), num(u.Used), num(u.UsedPeak),
				num(u.Borrowed), num(u.BorrowedPeak), pct(u.Utilization))
		}
	}
	p("(per ClusterQueue, flavor and resource: the requests of the workloads holding quota, time averages; borrowed is the part above the nominal quota)\n\n")
	p("TIME TO ADMISSION\tCOUNT\tMEAN\tP50\tP90\tP99\tMAX\tWAIT FOR QUOTA MEAN\tMAX\tWAIT FOR NODES MEAN\tMAX\n")
	row := func(label string, ta, wq, wn Durations) {
		p("%s\t%d\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t%v\n", label, ta.Count, Round(ta.Mean), Round(ta.P50), Round(ta.P90), Round(ta.P99), Round(ta.Max),
			Round(wq.Mean), Round(wq.Max), Round(wn.Mean), Round(wn.Max))
	}
	row("all workloads", k.TimeToAdmission, k.WaitForQuota, k.WaitForNodes)
	for _, q := range cqs {
		row(q.Name, q.TimeToAdmission, q.WaitForQuota, q.WaitForNodes)
	}
	p("(time to admission: creation to first admission, over the workloads admitted; wait for quota: the same over every workload, to the end for those never admitted; wait for nodes: first admission to all admitted pods bound)\n\n")
	if len(k.LocalQueues) == 0 {
		return
	}
	p("LOCALQUEUE\tCLUSTERQUEUE\tWORKLOADS\tADMITTED\tPENDING AT END\tTO ADMISSION MEAN\tP90\tMAX\tWAIT FOR NODES MEAN\tEVICTIONS\n")
	for _, q := range ShownQueues(k.LocalQueues) {
		ta := q.TimeToAdmission
		p("%s\t%s\t%d\t%d\t%d\t%v\t%v\t%v\t%v\t%s\n", q.Name, q.ClusterQueue, q.Workloads, q.Admitted, q.PendingAtEnd,
			Round(ta.Mean), Round(ta.P90), Round(ta.Max), Round(q.WaitForNodes.Mean), q.EvictionsText())
	}
	more(k.LocalQueues, "LocalQueues")
	p("\n")
}
