package gangsim

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/google/btree"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// Errors of the Scheduler's API, wrapped with the object concerned.
var (
	ErrUnknownPod = errors.New("gangsim: unknown pod")
	ErrDuplicate  = errors.New("gangsim: duplicate object")
	ErrPastTime   = errors.New("gangsim: time is in the past")
)

// Phase is where a pod is from the user's point of view.
type Phase string

// The phases a pod goes through.
const (
	PhasePending     Phase = "Pending"     // waiting to be placed (or evicted and waiting again)
	PhaseBound       Phase = "Bound"       // running on a node
	PhaseTerminating Phase = "Terminating" // evicted, still holding its node during graceful termination
	PhaseSucceeded   Phase = "Succeeded"   // ran its duration and finished
	PhaseDeleted     Phase = "Deleted"     // deleted by the user; never requeued
)

// PodStatus is what the scheduler knows of one pod.
type PodStatus struct {
	Key    cluster.PodKey
	Node   string
	Phase  Phase
	Reason string // why it is pending, from its last failed attempt
}

// Binding is a pod placed on a node by a cycle.
type Binding struct {
	Pod  cluster.PodKey
	Node string
}

// Eviction is a pod taken off its node to make room for a preemptor.
type Eviction struct {
	Pod  cluster.PodKey
	Node string
	By   string // the preemptor: a pod key, or a group name
	At   time.Duration
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
}

// Stats counts what happened over a run.
type Stats struct {
	Scheduled     int // bindings made
	Evictions     int // preemption victims evicted
	PDBViolations int // victims whose eviction broke a pod disruption budget
	Cycles        int
}

// podRecord is the scheduler's record of a pod from arrival to deletion.
type podRecord struct {
	info      *cluster.PodInfo // the pod as admitted, in its pending form
	phase     Phase
	node      string
	reason    string
	duration  time.Duration // run time once bound; 0 runs forever
	firstSeen time.Duration
	runs      int          // bindings so far; tells a stale completion timer apart
	attempts  int          // group cycles this pod took part in (orders group members)
	group     *groupRecord // nil for a pod outside any group
	nominated string       // node preemption nominated it to; "" for none
}

// entry is what the queue holds: a pod, a root PodGroup, or a root
// CompositePodGroup.
type entry struct {
	pod       *podRecord
	group     *groupRecord
	composite *compositeRecord
}

// Scheduler simulates kube-scheduler over a cluster in simulated time. It
// owns the cache, the queue and a manual clock; every method runs to
// completion with no goroutines, and the same calls give the same results.
// A Scheduler is not safe for concurrent use.
type Scheduler struct {
	cfg         Config
	cache       *cluster.Cache
	snap        *cluster.Snapshot
	queue       *queue.Queue[entry]
	pods        map[cluster.PodKey]*podRecord
	groups      map[string]*groupRecord // by "namespace/name"
	composites  map[string]*compositeRecord
	forest      podgroup.Forest
	orphans     map[string][]*podRecord // members whose group is not defined yet
	groupAlgo   *placement.GroupScheduler
	nominations *nominator
	classes     cluster.PriorityClasses
	podAlgo     *placement.PodScheduler
	now         time.Duration
	version     int64 // bumped by every cluster change that may help pending pods
	timers      *btree.BTreeG[timer]
	timerSeq    uint64
	evictions   []Eviction
	stats       Stats
}

// Option wires a Scheduler at construction.
type Option func(*Scheduler)

// WithStartTime starts the simulated clock at t instead of 0.
func WithStartTime(t time.Duration) Option { return func(s *Scheduler) { s.now = t } }

// New returns a Scheduler with an empty cluster.
func New(cfg Config, opts ...Option) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	s := &Scheduler{
		cfg:   cfg,
		cache: cluster.NewCache(),
		queue: queue.New[entry](queue.Config{
			Backoff:          queue.Backoff{Initial: cfg.PodInitialBackoff, Max: cfg.PodMaxBackoff},
			MaxUnschedulable: cfg.MaxUnschedulable,
		}),
		pods:       map[cluster.PodKey]*podRecord{},
		groups:     map[string]*groupRecord{},
		composites: map[string]*compositeRecord{},
		orphans:    map[string][]*podRecord{},
		podAlgo:    cfg.podScheduler(),
		timers:     btree.NewG(8, timerLess),
	}
	s.groupAlgo = cfg.groupScheduler(s.podAlgo)
	for _, o := range opts {
		o(s)
	}
	s.snap = s.cache.Snapshot()
	s.nominations = newNominator(s.snap)
	s.podAlgo.Nominations = s.nominations
	return s, nil
}

// Config returns the configuration with defaults applied.
func (s *Scheduler) Config() Config { return s.cfg }

// Now returns the simulated time.
func (s *Scheduler) Now() time.Duration { return s.now }

// Stats returns the counts so far.
func (s *Scheduler) Stats() Stats { return s.stats }

// Node returns the named node as the cache holds it now.
func (s *Scheduler) Node(name string) (*cluster.NodeInfo, bool) { return s.cache.Node(name) }

// Nodes yields the nodes in name order.
func (s *Scheduler) Nodes() iter.Seq[*cluster.NodeInfo] { return s.cache.Nodes() }

// Pod returns the status of a pod.
func (s *Scheduler) Pod(key cluster.PodKey) (PodStatus, bool) {
	r, ok := s.pods[key]
	if !ok {
		return PodStatus{}, false
	}
	return r.status(), true
}

func (r *podRecord) status() PodStatus {
	return PodStatus{Key: r.info.Key(), Node: r.node, Phase: r.phase, Reason: r.reason}
}

// Pods yields the status of every pod the scheduler knows, in key order.
func (s *Scheduler) Pods() iter.Seq[PodStatus] {
	return func(yield func(PodStatus) bool) {
		keys := make([]cluster.PodKey, 0, len(s.pods))
		for k := range s.pods {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(s.pods[k].status()) {
				return
			}
		}
	}
}

// Evictions returns the evictions so far, in the order they happened.
func (s *Scheduler) Evictions() []Eviction { return slices.Clone(s.evictions) }

// AddPriorityClass registers a priority class for pods to name.
func (s *Scheduler) AddPriorityClass(pc cluster.PriorityClass) error { return s.classes.Add(pc) }

// PriorityClasses returns the registered classes (read-only use).
func (s *Scheduler) PriorityClasses() *cluster.PriorityClasses { return &s.classes }

// AddPodDisruptionBudget adds a budget.
func (s *Scheduler) AddPodDisruptionBudget(b cluster.PodDisruptionBudget) error {
	return s.cache.AddBudget(b)
}

// AddPod admits a pod. A pod with PriorityClassName gets the class's value
// and, unless it sets its own, the class's preemption policy; a pod
// without a class keeps its Priority as given (apply the global default
// with PriorityClasses().Resolve("") when modelling admission fully). A pod
// with NodeName is running there from now on; any other pod is queued.
// duration is how long the pod runs once bound before it succeeds (0: it
// runs until deleted or evicted).
func (s *Scheduler) AddPod(p cluster.Pod, duration time.Duration) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if duration < 0 {
		return fmt.Errorf("%w %s: duration %v is negative", cluster.ErrInvalidPod, p.Key(), duration)
	}
	if _, ok := s.pods[p.Key()]; ok {
		return fmt.Errorf("%w: pod %s", ErrDuplicate, p.Key())
	}
	if err := s.admitClass("pod "+string(p.Key()), p.PriorityClassName, &p.Priority, &p.PreemptionPolicy); err != nil {
		return err
	}
	node := p.NodeName
	p.NodeName = ""
	r := &podRecord{info: cluster.NewPodInfo(p), phase: PhasePending, duration: duration, firstSeen: s.now}
	if node != "" {
		if err := s.fitsNow(r.info, node); err != nil {
			return err
		}
		bound := r.info.Pod().Clone()
		bound.NodeName, bound.StartTime = node, s.now
		if err := s.cache.AddPod(bound); err != nil {
			return err
		}
	}
	s.pods[p.Key()] = r
	if p.PodGroup != "" {
		s.attach(r)
	}
	if node != "" {
		s.markBound(r, node)
		return nil
	}
	return s.setPending(r)
}

// setPending makes a pod wait for placement: a group member through its
// group, any other pod as its own queue item.
func (s *Scheduler) setPending(r *podRecord) error {
	r.phase, r.node = PhasePending, ""
	if r.info.Pod().PodGroup != "" {
		if r.group != nil {
			r.group.members.Set(r.info.Key(), podgroup.Unscheduled)
			return s.offerGroup(r.group)
		}
		r.reason = fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", r.info.Pod().PodGroup)
		return nil
	}
	if name := r.info.Pod().EffectiveSchedulerName(); name != s.cfg.SchedulerName {
		r.reason = fmt.Sprintf("pod names scheduler %q, not %q", name, s.cfg.SchedulerName)
		return nil
	}
	return s.enqueue(r)
}

// enqueue puts a pending pod in activeQ, keeping its first-seen time.
func (s *Scheduler) enqueue(r *podRecord) error {
	return s.queue.Add(&queue.Item[entry]{
		Key: podItemKey(r.info.Key()), Kind: queue.KindPod, Priority: r.info.Priority(),
		FirstSeen: r.firstSeen, Timestamp: s.now, Size: 1, Value: entry{pod: r},
	})
}

func podItemKey(k cluster.PodKey) string { return "pod/" + string(k) }

// markBound records a binding and arms the pod's completion timer.
func (s *Scheduler) markBound(r *podRecord, node string) {
	r.phase, r.node, r.reason = PhaseBound, node, ""
	r.runs++
	s.nominations.clear(r)
	if r.group != nil {
		r.group.members.Set(r.info.Key(), podgroup.Bound)
	}
	if r.duration > 0 {
		s.addTimer(timer{at: s.now + r.duration, kind: timerPodDone, pod: r.info.Key(), token: r.runs})
	}
}

// DeletePod deletes a pod for good, wherever it is.
func (s *Scheduler) DeletePod(key cluster.PodKey) error {
	r, ok := s.pods[key]
	if !ok || r.phase == PhaseDeleted {
		return fmt.Errorf("%w: %s", ErrUnknownPod, key)
	}
	wasBound := r.phase == PhaseBound || r.phase == PhaseTerminating
	if wasBound {
		if _, err := s.cache.RemovePod(key); err != nil {
			return err
		}
	}
	if err := s.markGone(r, PhaseDeleted); err != nil {
		return err
	}
	if wasBound {
		s.clusterChanged()
	}
	return nil
}

// markGone ends a pod's life (deleted or succeeded): it leaves the queue
// and its group. The caller has taken it out of the cache.
func (s *Scheduler) markGone(r *podRecord, phase Phase) error {
	pending := r.phase == PhasePending
	r.phase, r.reason = phase, ""
	s.nominations.clear(r)
	if phase == PhaseDeleted {
		r.node = ""
	}
	switch {
	case r.group != nil:
		r.group.members.Remove(r.info.Key())
		delete(r.group.pods, r.info.Key())
		if pending {
			return s.offerGroup(r.group)
		}
	case r.info.Pod().PodGroup != "":
		s.dropOrphan(r)
	case pending:
		_, _ = s.queue.Delete(podItemKey(r.info.Key())) // absent when it names another scheduler
	}
	return nil
}

// clusterChanged notes a change that may let pending pods fit: every
// unschedulable item is retried.
func (s *Scheduler) clusterChanged() {
	s.version++
	s.queue.MoveAll(s.now)
}

// requeue returns pods taken off a node (node lost, drained) to the queue.
func (s *Scheduler) requeue(pods []*cluster.PodInfo) error {
	for _, pi := range pods {
		if err := s.setPending(s.pods[pi.Key()]); err != nil {
			return err
		}
	}
	return nil
}

// fitsNow checks that a pod arriving with nodeName fits its node, as the
// kubelet's admission does; a pod that does not fit is refused, not
// silently overcommitted.
func (s *Scheduler) fitsNow(pi *cluster.PodInfo, node string) error {
	ni, ok := s.cache.Node(node)
	if !ok {
		return fmt.Errorf("%w: node %q for pod %s (nodeName)", cluster.ErrNodeNotFound, node, pi.Key())
	}
	if rej := placement.Fits(pi, ni); rej != nil {
		return fmt.Errorf("%w %s: nodeName: node %q has no room: %s", cluster.ErrInvalidPod, pi.Key(), node, strings.Join(rej.Reasons, ", "))
	}
	return nil
}

// admitClass does what priority admission does for an object naming a
// PriorityClass: its priority becomes the class's value and, unless it
// sets its own, its preemption policy the class's. what names the object
// in errors.
func (s *Scheduler) admitClass(what, className string, priority *int32, policy *cluster.PreemptionPolicy) error {
	if className == "" {
		return nil
	}
	prio, classPolicy, err := s.classes.Resolve(className)
	if err != nil {
		return fmt.Errorf("%s: priorityClassName: %w", what, err)
	}
	*priority = prio
	if *policy == "" {
		*policy = classPolicy
	}
	return nil
}
