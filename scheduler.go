package gangsim

import (
	"errors"
	"iter"
	"slices"
	"time"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/dra"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/queue"
)

// Errors of the Scheduler's API, wrapped with the object concerned.
var (
	ErrUnknownPod = errors.New("gangsim: unknown pod")
	ErrDuplicate  = errors.New("gangsim: duplicate object")
	ErrPastTime   = errors.New("gangsim: time is in the past")
)

// Binding is a pod placed on a node by a cycle.
type Binding struct {
	Pod  cluster.PodKey
	Node string
}

// CycleResult is what one scheduling cycle did.
type CycleResult struct {
	At     time.Duration
	Item   string  // the queue key of the pod or group scheduled
	Status *Status // nil on success
	Bound  []Binding
	// Evicted lists the preemption victims of this cycle; the preemptor is
	// nominated to their node and retried once they are gone.
	Evicted []Eviction
	// Nominated lists the nodes preemption nominated pods to.
	Nominated []Binding

	// failed is the pod whose failed cycle's Status is still to be made
	// from its rejections (see finishStatus): a retry nobody watches
	// formats no message
	failed *podRecord
}

// failedUnschedulable ends res as the cycle of r that found no node: its
// Status, Unschedulable with r's reason, is made when it is read.
func (res *CycleResult) failedUnschedulable(r *podRecord) { res.failed = r }

// finishStatus makes the Status failedUnschedulable left to be made.
func (res *CycleResult) finishStatus() {
	if res.failed != nil {
		res.Status, res.failed = NewStatus(Unschedulable, res.failed.reasonText()), nil
	}
}

// Scheduler simulates kube-scheduler over a cluster in simulated time. It
// owns the cache, the queue and a manual clock; every method runs to
// completion with no goroutines, and the same calls give the same results.
// Every change it makes is an Event, delivered to the observers given at
// construction.
//
// A Scheduler is single-threaded: it is not safe for concurrent use, and
// one Scheduler must be driven from one goroutine at a time (observers are
// called on that goroutine). Separate Schedulers share nothing and may run
// in parallel. What it hands out (statuses, evictions, explanations, the
// configuration, nodes) is a copy, or a read-only view where it says so.
type Scheduler struct {
	cfg           Config
	cache         *cluster.Cache
	snap          *cluster.Snapshot
	queue         *queue.Queue[entry]
	tracker       tracker // the records of pods and groups
	invariants    invariantState
	unitCache     unitCache     // the VictimUnits shortcut
	dryRuns       dryRuns       // nodes known to be no preemption candidate, per pod
	knownFailures knownFailures // the last fruitless cycle per pod shape
	profiles      profiles
	nominations   *nominator
	classes       cluster.PriorityClasses
	now           time.Duration
	clusterEvents clusterEvents // the cluster events so far (requeue.go)
	timers        timers
	cycle         int // cycles run so far
	inCycle       int // the cycle running; 0 between cycles
	// retry is what retryKnownFailures's cycles share
	retry struct {
		now    knownNow
		pod    *cluster.PodInfo // the pod of the cycle running
		reason string           // its event's reason
	}
	// selectors evaluates CEL device selectors outside cycles (pods
	// arriving running)
	selectors *dra.CELSelectors
	// limitRanger and quotas are the API server's admission of pods into
	// their namespaces: the LimitRanges, and the ResourceQuotas with their
	// usage (package admission)
	limitRanger admission.LimitRanger
	quotas      admission.Quotas

	observers []observer
	wanted    kindSet // the kinds some observer reads
	// pause is WithPause's; paused is set when it asked for a pause, and
	// ends the run in progress after its step
	pause     func(Event) bool
	paused    bool
	evictions []Eviction
	stats     Stats

	userRegistry fw.Registry
	explainer    explainer

	sharedPods    bool     // see WithSharedPods
	expectedPods  int      // see WithExpectedPods
	shortcutsOff  Shortcut // see WithoutShortcuts
	shortcutStats ShortcutStats
	owners        placementOwners // FutileRetries' (futile.go)
}

// Option wires a Scheduler at construction.
type Option func(*Scheduler)

// WithStartTime starts the simulated clock at t instead of 0; New refuses
// a t outside 0..MaxSimulatedTime, as RunUntil does.
func WithStartTime(t time.Duration) Option { return func(s *Scheduler) { s.now = t } }

// New returns a Scheduler with an empty cluster.
func New(cfg Config, opts ...Option) (*Scheduler, error) {
	s := &Scheduler{
		cache:     cluster.NewCache(),
		tracker:   newTracker(),
		timers:    newTimers(),
		selectors: dra.NewCELSelectors(),
	}
	for _, o := range opts {
		if o != nil { // a nil option is no option
			o(s)
		}
	}
	if s.now < 0 || s.now > MaxSimulatedTime {
		return nil, configError("WithStartTime", "%v is not in 0..%v", s.now, MaxSimulatedTime)
	}
	reg, err := registry(s.userRegistry)
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(reg); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults().clone() // the caller's pointers stay the caller's
	s.cfg = cfg
	s.queue = queue.New[entry](queue.Config{
		Backoff:          queue.Backoff{Initial: cfg.PodInitialBackoff, Max: cfg.PodMaxBackoff},
		MaxUnschedulable: cfg.MaxUnschedulable,
	})
	if n := s.expectedPods; n > 0 {
		s.cache.Grow(n) // the queue keeps no index of pods (Queue.Put)
		s.tracker.pods = make(map[cluster.PodKey]podID, n)
	}
	s.snap = s.cache.Snapshot()
	s.nominations = newNominator(s.snap, &s.tracker.records)
	// a pod that failed for the room a nomination held may fit once it
	// goes: Run retries it at its periodic retry, as kube-scheduler's
	// flush of unschedulable pods does
	s.nominations.dropped = s.clusterEvents.nominationDropped
	for i := range cfg.Profiles {
		if err := s.addProfile(&cfg.Profiles[i], reg, i); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Config returns a copy of the configuration with defaults applied; the
// plugin arguments in its profiles are shared, read-only.
func (s *Scheduler) Config() Config {
	if s == nil {
		return Config{}
	}
	return s.cfg.clone()
}

// Now returns the simulated time.
func (s *Scheduler) Now() time.Duration {
	if s == nil {
		return 0
	}
	return s.now
}

// Stats returns the counts so far.
func (s *Scheduler) Stats() Stats {
	if s == nil {
		return Stats{}
	}
	return s.stats
}

// Evictions returns the evictions so far, in the order they happened.
func (s *Scheduler) Evictions() []Eviction {
	if s == nil {
		return nil
	}
	return slices.Clone(s.evictions)
}

// Node returns a copy of the named node as the cache holds it now:
// changing it changes nothing in the scheduler (use UpdateNode). Its pods
// are shared, read-only.
func (s *Scheduler) Node(name string) (*cluster.NodeInfo, bool) {
	if s.usable() != nil {
		return nil, false
	}
	ni, ok := s.cache.Node(name)
	if !ok {
		return nil, false
	}
	return ni.Clone(), true
}

// Nodes yields copies of the nodes (as Node) in name order, as they were
// when the iteration started: adding or removing nodes inside the loop is
// safe.
func (s *Scheduler) Nodes() iter.Seq[*cluster.NodeInfo] {
	return func(yield func(*cluster.NodeInfo) bool) {
		if s.usable() != nil {
			return
		}
		infos := slices.Collect(s.cache.Nodes())
		for _, ni := range infos {
			if !yield(ni.Clone()) {
				return
			}
		}
	}
}

// ErrNotInitialized is returned by a Scheduler that New did not make.
var ErrNotInitialized = errors.New("gangsim: the Scheduler was not made by gangsim.New")

// usable reports whether s was made by New.
func (s *Scheduler) usable() error {
	if s == nil || s.cache == nil {
		return ErrNotInitialized
	}
	return nil
}

// AddPriorityClass registers a priority class for pods and groups to name.
func (s *Scheduler) AddPriorityClass(pc cluster.PriorityClass) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.classes.Add(pc)
}

// PriorityClasses returns the registered classes (read-only use).
func (s *Scheduler) PriorityClasses() *cluster.PriorityClasses {
	if s == nil {
		return &cluster.PriorityClasses{}
	}
	return &s.classes
}

// AddPodDisruptionBudget adds a budget.
func (s *Scheduler) AddPodDisruptionBudget(b cluster.PodDisruptionBudget) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.cache.AddBudget(b)
}

// Phase is where a pod is from the user's point of view.
type Phase string

// The phases a pod goes through.
const (
	PhasePending     Phase = "Pending"     // waiting to be placed (or evicted and waiting again)
	PhaseBound       Phase = "Bound"       // running on a node
	PhaseTerminating Phase = "Terminating" // evicted, still holding its node during graceful termination
	PhaseSucceeded   Phase = "Succeeded"   // ran its duration and finished
	PhaseDeleted     Phase = "Deleted"     // deleted by the user; never requeued
	// PhaseRejected is no PodStatus's phase: the API server refused to
	// create the pod (EventPodRejected), so the scheduler never held it.
	// Results use it for such a pod.
	PhaseRejected Phase = "Rejected"
)

// PodStatus is what the scheduler knows of one pod.
type PodStatus struct {
	Key    cluster.PodKey
	Node   string
	Phase  Phase
	Reason string // why it is pending, from its last failed attempt
	// Unschedulable is kube's PodScheduled=False with reason
	// Unschedulable: the pod is pending because the scheduler tried it
	// and found no node (filters, a group's placement), not because it
	// is gated, waits for its group's quorum, names no profile, hit a
	// scheduler error or was not tried since it returned to the queue.
	// A cluster autoscaler scales up for these pods alone.
	Unschedulable bool
	// Priority and PreemptionPolicy are as admission resolved them.
	Priority         int32
	PreemptionPolicy cluster.PreemptionPolicy
	// ArrivedAt is when the pod was added. BoundAt is when it was last
	// bound (valid when Binds > 0); EndedAt when it succeeded or was
	// deleted (valid in those phases).
	ArrivedAt time.Duration
	BoundAt   time.Duration
	EndedAt   time.Duration
	Binds     int // how many times it was bound (more than once after evictions)
	// SchedulingGates are the gates the pod has left: while there is one,
	// it is held pending and never tried (Reason says so).
	SchedulingGates []string
	// ResourceClaimStatuses are the pod's status.resourceClaimStatuses:
	// the claims the resourceclaim controller made for its entries that
	// name a template (SetResourceClaimStatuses).
	ResourceClaimStatuses []cluster.PodResourceClaimStatus
}

// podStatus is r's status with its reason as it stands now.
func (t *tracker) podStatus(r *podRecord) PodStatus {
	st := r.status()
	st.Reason = t.gatedReason(r)
	return st
}

// Pod returns the status of a pod.
func (s *Scheduler) Pod(key cluster.PodKey) (PodStatus, bool) {
	if s == nil {
		return PodStatus{}, false
	}
	r := s.tracker.record(key)
	if r == nil {
		return PodStatus{}, false
	}
	return s.tracker.podStatus(r), true
}

// SharedPod is Pod(p.Key()) for a pod the caller added with
// AddSharedPod. Asked for its pods in the order it added them, as the
// scenario runner's result asks for a million, the scheduler finds each
// by its place, not by its key.
func (s *Scheduler) SharedPod(p *cluster.Pod) (PodStatus, bool) {
	if s == nil || p == nil {
		return PodStatus{}, false
	}
	r := s.tracker.sharedRecord(p)
	if r == nil {
		return PodStatus{}, false
	}
	return s.tracker.podStatus(r), true
}

// Pods yields the status of every pod the scheduler knows, in key order.
func (s *Scheduler) Pods() iter.Seq[PodStatus] {
	return func(yield func(PodStatus) bool) {
		if s == nil {
			return
		}
		for _, k := range slices.Sorted(mapKeys(s.tracker.pods)) {
			if !yield(s.tracker.podStatus(s.tracker.record(k))) {
				return
			}
		}
	}
}

func mapKeys[K ~string, V any](m map[K]V) iter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Status is the outcome of a cycle or a plugin (framework.Status); nil
// means Success.
type Status = fw.Status

// Code is a Status's code (framework.Code).
type Code = fw.Code

// The codes, as in package framework.
const (
	Success                      = fw.Success
	Error                        = fw.Error
	Unschedulable                = fw.Unschedulable
	UnschedulableAndUnresolvable = fw.UnschedulableAndUnresolvable
	Wait                         = fw.Wait
	Skip                         = fw.Skip
)

// NewStatus returns a status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status { return fw.NewStatus(code, reasons...) }
