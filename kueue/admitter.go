package kueue

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Admitter is Kueue's admission in simulated time: its cache (the
// ClusterQueues and Cohorts with the quota their admitted workloads use),
// its queues (each ClusterQueue's pending workloads, with the inadmissible
// ones parked) and its scheduler, which runs admission cycles. It knows
// no pod, node or scheduler: the caller (a job integration) adds
// workloads, runs a cycle when NextCycle says, acts on the events the
// cycle reports (admission: unsuspend the job; eviction: suspend it), and
// tells the Admitter when an evicted workload's pods are gone (Released)
// and when a workload finishes (Finish).
type Admitter struct {
	cfg     Config
	frIndex map[fr]int
	frs     []fr
	flavors map[string]*ResourceFlavor
	cqs     map[string]*clusterQueue
	queues  []*clusterQueue // in name order
	cohorts map[string]*node
	lqs     map[string]*LocalQueue // by namespace/name
	wpcs    map[string]int32
	ns      map[string]map[string]string // namespace labels

	workloads map[string]*info
	seq       int64 // workloads added: the tie-break of equal times

	now     time.Duration
	cycle   int64
	next    time.Duration // the next cycle, when due
	due     bool          // a cycle is due at next
	backoff time.Duration // the scheduler's pause after a cycle that admitted nothing
	// cycleIdle: the last cycle changed nothing, and the scheduler sleeps
	// until something happens (wake)
	cycleIdle bool
	requeues  []requeue // inadmissible workloads to move back, by time
	events    []Event
	// the API client's rate limiter (writes.go); the events whose writes
	// land later, in time order; when the scheduler's last synchronous
	// write lands
	lim      *limiter
	later    []Event
	syncDone time.Duration
	// timers: PodsReady timeouts and back-offs (podsready.go)
	timers   []timer
	timerSeq int64
	// TAS (tas.go): the Topologies' levels by name, the nodes' source,
	// the admitted workloads' usage by flavor and leaf, and this cycle's
	// snapshots and nodes
	topologies map[string][]string
	nodes      func() []TASNode
	tasUsed    map[string]map[string]cluster.ResourceList
	tasSnap    map[string]*tasSnapshot
	tasCycle   int64
	tasNodes   []TASNode
	// candBuf is fair-sharing preemption's buffer of candidates
	candBuf []candidate
	// memo are the preemption searches of a head's flavor assignment,
	// which getTargets takes again while memoOn (cycle.go, nominate)
	memo   []memoEntry
	memoOn bool
	// savedUsage is tournamentShares' buffer
	savedUsage [][]int64
	// afs is admission fair sharing's state of the LocalQueues of
	// usage-based ClusterQueues, by namespace/name (afs.go); nil when off
	afs map[string]*lqUsage
}

// Config is how the Admitter runs: Kueue's configuration and switches,
// and the simulated time its own work takes.
type Config struct {
	// CycleTime is how long one admission cycle takes; the next starts
	// right after a cycle that admitted or preempted, else after Kueue's
	// back-off (1 ms doubling to 10 ms).
	CycleTime time.Duration
	// RequeueBatch is how long after a quota event (a workload finished
	// or evicted, a queue changed) Kueue moves the inadmissible workloads
	// back to their queues: 1 s.
	RequeueBatch time.Duration
	// PartialAdmission lets a workload with a minCount be admitted with
	// fewer pods (Kueue's PartialAdmission gate, on by default).
	PartialAdmission bool
	// QPS and Burst are Kueue's API client's rate limit (Configuration's
	// clientConnection): its writes wait for it (writes.go). QPS 0 is no
	// limit.
	QPS   float64
	Burst int
	// PodsReady is waitForPodsReady (podsready.go).
	PodsReady PodsReadyConfig
	// FairSharing is Kueue's fair sharing (fairshare.go), nil when off.
	FairSharing *FairSharingConfig
	// AdmissionFairSharing is Kueue's admission fair sharing (afs.go), nil
	// when off (no admissionFairSharing in the Configuration, or its gate
	// off); it applies to the ClusterQueues with the usage-based mode.
	AdmissionFairSharing *AdmissionFairSharing
}

// DefaultConfig is Kueue v0.19's defaults (a client of 300 queries a
// second, bursts of 500), and a cycle time of 1 ms.
func DefaultConfig() Config {
	return Config{CycleTime: time.Millisecond, RequeueBatch: time.Second, PartialAdmission: true, QPS: 300, Burst: 500, PodsReady: DefaultPodsReady()}
}

// requeue is a batch of inadmissible workloads to move back to the
// queues of a cohort tree (root) or of a ClusterQueue without cohort.
type requeue struct {
	at   time.Duration
	root *node
	cq   *clusterQueue
}

// state is where a workload is in Kueue.
type state uint8

const (
	statePending  state = iota // in its queue, or in no queue (its LocalQueue missing)
	stateAdmitted              // holding quota
	stateEvicted               // holding quota, its job being stopped (Evicted)
	stateFinished              // done or deleted
)

// info is a workload as the Admitter follows it.
type info struct {
	w     *Workload
	key   string
	seq   int64
	shape string
	cq    *clusterQueue // its LocalQueue's ClusterQueue; nil while that is missing
	afs   *lqUsage      // its LocalQueue's admission fair sharing; nil when off
	state state

	// while holding quota
	admission  *Admission
	usage      []frAmount
	reservedAt time.Duration
	evictedAt  time.Duration

	// while pending
	last        *lastAssignment
	inadmissReq bool   // in its queue's inadmissible set
	reason      string // the QuotaReserved reason of the last attempt
	message     string // and its message
	preemptor   bool

	// waitForPodsReady: its admissions (the timeout is about the last),
	// whether its pods are ready, its evictions for them, the end of its
	// back-off, and whether it was deactivated
	admissions       int64
	ready            bool
	requeues         int32
	backoffUntil     time.Duration
	podsReadyEvicted bool
	deactivated      bool
	// reclaimed are, by pod set, the pods of the admission that finished
	// for good, whose quota was released (SetReclaimable)
	reclaimed map[string]int32
	// tasInSnap: its admission's TAS usage is in the snapshots already
	tasInSnap bool
}

// lastAssignment is how far the flavor scan of a workload went: for each
// pod set and resource, the flavor last tried (-1: start over).
type lastAssignment struct {
	tried      []map[cluster.ResourceName]int
	generation int64
	cycle      int64
}

// New returns the Admitter of validated Kueue objects. Namespace labels
// (for the ClusterQueues' namespaceSelector) are given with SetNamespace.
func New(objs *Objects, cfg Config) (*Admitter, error) {
	if kind, name, err := objs.Validate(); err != nil {
		return nil, fmt.Errorf("%s %q: %w", kind, name, err)
	}
	a := &Admitter{cfg: cfg, frIndex: map[fr]int{}, flavors: map[string]*ResourceFlavor{}, cqs: map[string]*clusterQueue{},
		cohorts: map[string]*node{}, lqs: map[string]*LocalQueue{}, wpcs: map[string]int32{}, ns: map[string]map[string]string{},
		workloads: map[string]*info{}, lim: newLimiter(cfg.QPS, cfg.Burst),
		topologies: map[string][]string{}, tasUsed: map[string]map[string]cluster.ResourceList{}}
	for _, t := range objs.Topologies {
		a.topologies[t.Name] = t.Levels
	}
	for i := range objs.ResourceFlavors {
		a.flavors[objs.ResourceFlavors[i].Name] = &objs.ResourceFlavors[i]
	}
	for _, c := range objs.WorkloadPriorityClasses {
		a.wpcs[c.Name] = c.Value
	}
	// number every flavor-resource a queue or cohort names
	groups := func(rgs []ResourceGroup) {
		for _, rg := range rgs {
			for _, f := range rg.Flavors {
				for _, r := range f.Resources {
					a.index(fr{f.Name, r.Name})
				}
			}
		}
	}
	for _, cq := range objs.ClusterQueues {
		groups(cq.ResourceGroups)
	}
	for _, c := range objs.Cohorts {
		groups(c.ResourceGroups)
	}
	for i := range objs.Cohorts {
		c := &objs.Cohorts[i]
		n := a.cohort(c.Name)
		n.explicit = true
		n.weight = weightOf(c.FairSharing)
		a.setQuotas(n, c.ResourceGroups)
		if c.ParentName != "" {
			a.link(a.cohort(c.ParentName), n)
		}
	}
	for i := range objs.ClusterQueues {
		spec := objs.ClusterQueues[i]
		q := newClusterQueue(a, spec)
		a.cqs[spec.Name] = q
		if spec.CohortName != "" {
			a.link(a.cohort(spec.CohortName), q.node)
		}
	}
	a.queues = slices.SortedFunc(maps.Values(a.cqs), func(x, y *clusterQueue) int { return cmp.Compare(x.spec.Name, y.spec.Name) })
	for _, k := range sortedKeys(a.cohorts) {
		if c := a.cohorts[k]; c.cycle() {
			return nil, fmt.Errorf("Cohort %q: its parents form a cycle", c.name)
		}
	}
	for _, c := range a.cohorts {
		slices.SortFunc(c.cohorts, func(x, y *node) int { return cmp.Compare(x.name, y.name) })
		slices.SortFunc(c.queues, func(x, y *node) int { return cmp.Compare(x.name, y.name) })
	}
	for _, c := range a.cohorts {
		if c.parent == nil {
			c.update()
		}
	}
	for _, q := range a.queues {
		if q.node.parent == nil {
			q.node.update()
		}
	}
	for i := range objs.LocalQueues {
		lq := &objs.LocalQueues[i]
		a.lqs[lq.Namespace+"/"+lq.Name] = lq
	}
	a.initAFS()
	return a, nil
}

// index numbers a flavor-resource, growing every node's slices.
func (a *Admitter) index(k fr) int {
	if i, ok := a.frIndex[k]; ok {
		return i
	}
	i := len(a.frs)
	a.frIndex[k] = i
	a.frs = append(a.frs, k)
	return i
}

// newNode returns a node sized for every flavor-resource.
func (a *Admitter) newNode(name string) *node {
	n := len(a.frs)
	return &node{name: name, weight: defaultWeight, quotas: make([]quota, n), subtree: make([]int64, n), usage: make([]int64, n), saved: make([]int64, n)}
}

func (a *Admitter) cohort(name string) *node {
	if c, ok := a.cohorts[name]; ok {
		return c
	}
	c := a.newNode(name)
	a.cohorts[name] = c
	return c
}

func (a *Admitter) link(parent, child *node) {
	child.parent = parent
	if child.cq != nil {
		parent.queues = append(parent.queues, child)
	} else {
		parent.cohorts = append(parent.cohorts, child)
	}
}

// cycle reports whether the Cohort is in a cycle of parents.
func (n *node) cycle() bool {
	slow, fast := n, n
	for fast != nil && fast.parent != nil {
		slow, fast = slow.parent, fast.parent.parent
		if slow == fast {
			return true
		}
	}
	return false
}

func (a *Admitter) setQuotas(n *node, rgs []ResourceGroup) {
	for _, rg := range rgs {
		for _, f := range rg.Flavors {
			for _, r := range f.Resources {
				n.quotas[a.frIndex[fr{f.Name, r.Name}]] = quota{set: true, nominal: r.NominalQuota, borrowingLimit: r.BorrowingLimit, lendingLimit: r.LendingLimit}
			}
		}
	}
}

// SetNamespace gives a namespace's labels, which the ClusterQueues'
// namespaceSelector is matched against (a namespace never given has
// none).
func (a *Admitter) SetNamespace(name string, labels map[string]string) { a.ns[name] = labels }

// ErrUnknownWorkload is returned for a workload the Admitter does not have.
var ErrUnknownWorkload = errors.New("no such workload")

// Priority is the priority Kueue gives a workload: the value of the
// WorkloadPriorityClass named, else podPriority (its pods' class's).
func (a *Admitter) Priority(workloadPriorityClass string, podPriority int32) (int32, bool) {
	if workloadPriorityClass == "" {
		return podPriority, true
	}
	v, ok := a.wpcs[workloadPriorityClass]
	return v, ok
}

// Add queues a new workload at the current time. A workload whose
// LocalQueue does not exist waits for it, as in Kueue (QuotaReserved
// false, "LocalQueue ... doesn't exist").
func (a *Admitter) Add(w *Workload) error {
	key := w.Key()
	if _, ok := a.workloads[key]; ok {
		return fmt.Errorf("workload %s: added twice", key)
	}
	for i := range w.PodSets {
		if w.PodSets[i].Count < 0 {
			return fmt.Errorf("workload %s: pod set %s: count %d is negative", key, w.PodSets[i].Name, w.PodSets[i].Count)
		}
	}
	a.seq++
	wi := &info{w: w, key: key, seq: a.seq, shape: w.shape()}
	a.workloads[key] = wi
	a.emit(Event{Kind: Created, Workload: key})
	lq := a.lqs[w.Namespace+"/"+w.Queue]
	switch {
	case lq == nil:
		wi.reason, wi.message = "Inadmissible", fmt.Sprintf("LocalQueue %s doesn't exist", w.Queue)
		a.emit(Event{Kind: Pending, Workload: key, Reason: wi.reason, Message: wi.message})
		return nil
	case a.cqs[lq.ClusterQueue] == nil:
		wi.reason, wi.message = "Inadmissible", fmt.Sprintf("ClusterQueue %s doesn't exist", lq.ClusterQueue)
		a.emit(Event{Kind: Pending, Workload: key, Reason: wi.reason, Message: wi.message})
		return nil
	}
	wi.cq = a.cqs[lq.ClusterQueue]
	wi.afs = a.afs[w.Namespace+"/"+w.Queue]
	wi.cq.pushOrUpdate(wi)
	a.wake()
	return nil
}

// AddAdmitted adds a workload that already holds quota (a dump's
// admitted Workload): ad names its ClusterQueue, and each pod set's count
// (0: its full count), flavors and, in a TAS flavor, topology
// assignment. Its usage is counted at once, the TAS usage of its
// assignments too.
func (a *Admitter) AddAdmitted(w *Workload, ad Admission) error {
	key := w.Key()
	if _, ok := a.workloads[key]; ok {
		return fmt.Errorf("workload %s: added twice", key)
	}
	q := a.cqs[ad.ClusterQueue]
	if q == nil {
		return fmt.Errorf("workload %s: admitted by ClusterQueue %q, which does not exist", key, ad.ClusterQueue)
	}
	adm := &Admission{ClusterQueue: ad.ClusterQueue}
	usage := map[int]int64{}
	for i := range w.PodSets {
		ps := &w.PodSets[i]
		var given *PodSetAssignment
		for k := range ad.PodSets {
			if ad.PodSets[k].Name == ps.Name {
				given = &ad.PodSets[k]
			}
		}
		if given == nil {
			return fmt.Errorf("workload %s: pod set %s has no flavors in its admission", key, ps.Name)
		}
		count := cmpOr(given.Count, ps.Count)
		p := PodSetAssignment{Name: ps.Name, Count: count, Flavors: maps.Clone(given.Flavors), Usage: cluster.ResourceList{},
			TopologyAssignment: given.TopologyAssignment.clone()}
		for r, v := range ps.Requests {
			f, ok := given.Flavors[r]
			if !ok {
				if q.rgByResource(r) == nil {
					continue
				}
				return fmt.Errorf("workload %s: pod set %s: no flavor for %s in its admission", key, ps.Name, r)
			}
			k, ok := a.frIndex[fr{f, r}]
			if !ok {
				return fmt.Errorf("workload %s: pod set %s: flavor %q of %s is not a flavor of ClusterQueue %s", key, ps.Name, f, r, q.spec.Name)
			}
			p.Usage[r] = mulAmount(v, int64(count))
			usage[k] = addAmount(usage[k], p.Usage[r])
		}
		adm.PodSets = append(adm.PodSets, p)
	}
	a.seq++
	wi := &info{w: w, key: key, seq: a.seq, shape: w.shape(), cq: q, state: stateAdmitted, admission: adm, reservedAt: a.now}
	if l := a.afs[w.Namespace+"/"+w.Queue]; l != nil && l.cq == q {
		wi.afs = l
	}
	for _, k := range slices.Sorted(maps.Keys(usage)) {
		wi.usage = append(wi.usage, frAmount{k, usage[k]})
	}
	a.workloads[key] = wi
	q.assume(wi)
	a.emit(Event{Kind: QuotaReserved, Workload: key, ClusterQueue: q.spec.Name, Admission: adm})
	return nil
}

func cmpOr(x, y int32) int32 {
	if x != 0 {
		return x
	}
	return y
}

// wake makes a cycle due now, unless one is due sooner: the scheduler
// waits for heads and starts as soon as there is one.
func (a *Admitter) wake() {
	a.cycleIdle = false
	if !a.due {
		a.next, a.due = max(a.next, a.now), true
	}
}

// Finish tells that a workload is done (its job completed, or was
// deleted): the quota it holds is released and the inadmissible workloads
// of its cohort are moved back to their queues after the requeue batch.
func (a *Admitter) Finish(key string) error {
	wi := a.workloads[key]
	if wi == nil {
		return fmt.Errorf("workload %s: %w", key, ErrUnknownWorkload)
	}
	if wi.state == stateFinished {
		return nil
	}
	held := wi.state == stateAdmitted || wi.state == stateEvicted
	if wi.cq != nil && !held {
		wi.cq.remove(wi)
	}
	if held {
		wi.cq.release(wi)
	}
	wi.state = stateFinished
	a.emit(Event{Kind: Finished, Workload: key})
	if wi.cq != nil {
		a.notify(wi.cq)
		a.wake()
	}
	return nil
}

// Released tells that an evicted workload's job has stopped (its pods are
// gone): its quota is released and it is queued again, first in its class
// as its creation time says.
func (a *Admitter) Released(key string) error {
	wi := a.workloads[key]
	if wi == nil {
		return fmt.Errorf("workload %s: %w", key, ErrUnknownWorkload)
	}
	if wi.state != stateEvicted {
		return fmt.Errorf("workload %s: released while not evicted", key)
	}
	wi.cq.release(wi)
	wi.last = nil
	a.emit(Event{Kind: QuotaReleased, Workload: key, ClusterQueue: wi.cq.spec.Name})
	a.notify(wi.cq)
	a.wake()
	if wi.deactivated {
		wi.state = stateFinished
		a.emit(Event{Kind: Finished, Workload: key, Reason: "Deactivated"})
		return nil
	}
	wi.state = statePending
	if wi.backoffUntil > a.now {
		a.write(Event{Kind: Requeued, Workload: key, Reason: "PodsReadyTimeout", Message: "Requeued after its back-off"}, false)
		a.addTimer(timer{at: wi.backoffUntil, wi: wi})
		return nil
	}
	a.write(Event{Kind: Requeued, Workload: key, Reason: "Preempted", Message: "Requeued after eviction"}, false)
	wi.cq.pushOrUpdate(wi)
	return nil
}

// notify schedules the move of the inadmissible workloads of the queue's
// cohort tree (or of the queue alone) back to their queues.
func (a *Admitter) notify(q *clusterQueue) {
	r := requeue{at: a.now + a.cfg.RequeueBatch}
	if q.node.parent != nil {
		r.root = q.node.root()
	} else {
		r.cq = q
	}
	for _, x := range a.requeues {
		if x.root == r.root && x.cq == r.cq {
			return // a batch is due already
		}
	}
	a.requeues = append(a.requeues, r)
}

// NextTime is when the Admitter next acts: a cycle, a batch of requeues,
// or a write that lands. False when it waits for a workload or an event.
func (a *Admitter) NextTime() (time.Duration, bool) {
	t, ok := a.next, a.due
	if len(a.later) > 0 && (!ok || a.later[0].At < t) {
		t, ok = a.later[0].At, true
	}
	if len(a.timers) > 0 && (!ok || a.timers[0].at < t) {
		t, ok = a.timers[0].at, true
	}
	for _, r := range a.requeues {
		if !ok || r.at < t {
			t, ok = r.at, true
		}
	}
	return t, ok
}

// AdvanceTo moves the Admitter's clock to t, which must not be before its
// last time; the caller runs Step at each NextTime.
func (a *Admitter) AdvanceTo(t time.Duration) error {
	if t < a.now {
		return fmt.Errorf("kueue: time %v is before %v", t, a.now)
	}
	a.now = t
	return nil
}

// Now is the Admitter's clock.
func (a *Admitter) Now() time.Duration { return a.now }

// Step does what is due at the current time: the requeue batches due, then
// an admission cycle if one is due. It returns the events since the last
// Step (or since the last call that emitted some).
func (a *Admitter) Step() []Event {
	a.deliver()
	a.fireTimers()
	var left []requeue
	for _, r := range a.requeues {
		if r.at > a.now {
			left = append(left, r)
			continue
		}
		moved := 0
		if r.cq != nil {
			moved += r.cq.queueInadmissible(a)
		} else {
			for _, q := range a.queues {
				if q.node.parent != nil && q.node.root() == r.root {
					moved += q.queueInadmissible(a)
				}
			}
		}
		if moved > 0 {
			a.wake()
		}
	}
	a.requeues = left
	if a.due && a.next <= a.now {
		a.due = false
		a.runCycle()
	}
	return a.Events()
}

// Events returns the events emitted since the last call, and forgets them.
func (a *Admitter) Events() []Event {
	e := a.events
	a.events = nil
	return e
}

func (a *Admitter) emit(e Event) {
	e.At = a.now
	a.events = append(a.events, e)
}

// Status is where a workload is in Kueue: its phase (Pending, Admitted,
// Evicted or Finished), and while it holds quota its ClusterQueue and the
// time it was admitted.
type Status struct {
	Phase        string
	Admitted     bool
	ClusterQueue string
	AdmittedAt   time.Duration
	// Admission is what the workload holds while admitted or evicted: its
	// pod sets' counts, flavors and topology assignments; nil otherwise.
	// Shared: read, never change it.
	Admission *Admission
}

// Status is the workload's status; the zero Status for one the Admitter
// does not have.
func (a *Admitter) Status(key string) Status {
	wi := a.workloads[key]
	if wi == nil {
		return Status{}
	}
	st := Status{Phase: [...]string{"Pending", "Admitted", "Evicted", "Finished"}[wi.state]}
	if wi.state == stateAdmitted || wi.state == stateEvicted {
		st.Admitted, st.ClusterQueue, st.AdmittedAt = wi.state == stateAdmitted, wi.cq.spec.Name, wi.reservedAt
		st.Admission = wi.admission
	}
	if wi.state == statePending && wi.cq != nil {
		st.ClusterQueue = ""
	}
	return st
}

// SetReclaimable tells that n pods of a pod set of an admitted workload
// have finished and will not be made again (Kueue's reclaimablePods: a
// Job whose completions left are fewer than its parallelism): their
// quota is released now, and the cohort's inadmissible workloads are
// moved back after the requeue batch. n counts from the admission; a
// smaller n than before changes nothing.
func (a *Admitter) SetReclaimable(key, podSet string, n int32) error {
	wi := a.workloads[key]
	if wi == nil {
		return fmt.Errorf("workload %s: %w", key, ErrUnknownWorkload)
	}
	if wi.state != stateAdmitted || wi.admission == nil {
		return nil
	}
	var ps *PodSet
	for i := range wi.w.PodSets {
		if wi.w.PodSets[i].Name == podSet {
			ps = &wi.w.PodSets[i]
		}
	}
	var adm *PodSetAssignment
	for i := range wi.admission.PodSets {
		if wi.admission.PodSets[i].Name == podSet {
			adm = &wi.admission.PodSets[i]
		}
	}
	if ps == nil || adm == nil {
		return fmt.Errorf("workload %s: no admitted pod set %s", key, podSet)
	}
	if wi.reclaimed == nil {
		wi.reclaimed = map[string]int32{}
	}
	n = min(n, adm.Count)
	more := n - wi.reclaimed[podSet]
	if more <= 0 {
		return nil
	}
	wi.reclaimed[podSet] = n
	if wi.afs != nil {
		wi.afs.catchUp()
	}
	for r, v := range ps.Requests {
		f, ok := adm.Flavors[r]
		if !ok {
			continue
		}
		k := a.frIndex[fr{f, r}]
		d := mulAmount(v, int64(more))
		wi.cq.node.removeUsage(k, d)
		for i := range wi.usage {
			if wi.usage[i].fr == k {
				wi.usage[i].v = subAmount(wi.usage[i].v, d)
			}
		}
	}
	wi.cq.generation++
	a.notify(wi.cq)
	a.wake()
	return nil
}
