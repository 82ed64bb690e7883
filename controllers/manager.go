package controllers

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Manager runs the controllers of a set of workloads beside one
// Scheduler, as kube-controller-manager runs Kubernetes' controllers
// beside the API server: their state, the pods they made, and what the
// event stream told them since they last acted. It follows the stream
// through the Scheduler's pause hook (Attach), which asks for a pause
// whenever a controller has something to do; the caller then calls React
// at that simulated time, and the controllers act through the Scheduler's
// public API (AddPod, DeletePod), as Kubernetes' controllers act
// through the API server. Run is the loop for a caller with nothing else
// to do; a caller with actions of its own to interleave (a scenario's
// timeline, an autoscaler) writes its loop from Busy, React, NextWakeup,
// Wake, InProgress and Paused.
type Manager struct {
	s       *gangsim.Scheduler
	ctls    []*controller
	pods    map[cluster.PodKey]*ownedPod
	todo    []podChange // what the stream told, in order
	dirty   []int       // controllers to sync, by index
	wakeups wakeups
	paused  bool // see asked for a pause since Resume

	reserved func(cluster.PodKey) bool // names the controllers' new pods must not take
	claims   *ResourceClaims           // makes the claims of new pods (WithResourceClaims)
	hook     func(*cluster.Pod) error  // sees each new pod before it is added (WithPodHook)
	limit    int                       // the most pods made while running (WithPodLimit)
	makes    int                       // pods made while running
	made     []cluster.PodKey          // pods made while running, in order, each once
	listed   map[cluster.PodKey]bool   // the keys of made
	failed   map[cluster.PodKey]bool   // Job pods counted as failed

	// suspension (suspend.go): the workloads by reference, which to hold
	// from the start (WithSuspended), whom to tell of a change
	// (WithWorkloadChange), the changes to tell, in order, and the
	// suspended workloads whose pods are not all gone yet
	byRef    map[WorkloadRef]*controller
	hold     func(WorkloadRef) bool
	onChange func(WorkloadRef)
	changes  []*controller
	draining []*controller

	// the end of the run: finite are the pods with a run time that no
	// service controller made; running those bound now; terminating the
	// evicted pods in their graceful termination
	finite, running, terminating map[cluster.PodKey]bool
}

// Option configures a Manager.
type Option func(*Manager)

// WithReservedNames keeps the controllers' new pods off the names for
// which reserved returns true: those of the pods the caller adds later,
// or added and gone. A name a pod of the Scheduler has is never taken.
func WithReservedNames(reserved func(cluster.PodKey) bool) Option {
	return func(m *Manager) { m.reserved = reserved }
}

// WithResourceClaims gives the Manager the resourceclaim controller that
// makes the claims of the pods it makes from templates (Prepare, before
// each AddPod), and that it lets act at each React (Sync).
func WithResourceClaims(c *ResourceClaims) Option {
	return func(m *Manager) { m.claims = c }
}

// WithPodHook gives the Manager a hook it calls on each pod it makes
// while running, before AddPod (after WithResourceClaims' Prepare), as an
// admission webhook sees a pod as it is created: Kueue's gives a pod of a
// workload it manages its scheduling gate. The pod's maps and slices are
// the controller's: the hook replaces one before changing it. An error
// fails the pod's making, as Prepare's does.
func WithPodHook(hook func(*cluster.Pod) error) Option {
	return func(m *Manager) { m.hook = hook }
}

// WithPodLimit bounds the pods the controllers make while running: the
// n+1-th fails React with ErrPodLimit (a Job of a billion completions is
// a mistake to report, not a run to wait for). Without it there is no
// bound.
func WithPodLimit(n int) Option {
	return func(m *Manager) { m.limit = n }
}

// podChange is an event about a controller's pod, for it to act on.
type podChange struct {
	kind gangsim.EventKind
	pod  *ownedPod
	at   time.Duration
}

// controller is one workload's controller in a run: its state and its
// pods.
type controller struct {
	w      *Workload
	index  int
	pods   []*ownedPod // every pod it had or made, in that order
	active int         // its pods not ended
	next   int         // where to look for the next name (ReplicaSets, NonIndexed Jobs)
	// by index (a Job's completion index, a StatefulSet's ordinal): its
	// active pods, and how many it made
	activeAt, madeAt map[int]int
	// by node (DaemonSets): its active pods, how many it made, and the
	// nodes whose pod ended, to be given a new one
	onNode, madeOn map[string]int
	vacant         []string
	// refused: admission refused one of its pods; it makes none until
	// one of its pods changes (trying at once would meet the same refusal)
	refused    bool
	job        *jobRun
	par        *parentRun // a parent's (owners.go)
	kid        *kidRun    // a parent's child's
	set        *setRun    // a PodSet's (podset.go)
	links                 // its links to other workloads (links.go)
	suspension            // its suspension (suspend.go)
	// going counts its pods out of active that have not ended: a Job's
	// evicted pods in their graceful termination
	going int
	wake  time.Duration // its pending wakeup; -1 for none
	dirty bool
}

// ownedPod is a pod a controller owns: one of its workload's Pods, or
// one it made.
type ownedPod struct {
	ctl   *controller
	key   cluster.PodKey
	index int    // its completion index or ordinal; -1 for none
	node  string // a DaemonSet's: the node it is pinned to
	// domain is, for a PodSet's member that follows another, the value of
	// the node label it is pinned to
	domain string
	state  podState
	byUs   bool // its controller deleted it: the deletion's event is its own
	// patch is the change to its template it was made with (Unsuspend);
	// nil for none
	patch func(role string, p *cluster.Pod)
}

// podState is where an owned pod is in its controller's accounts.
type podState uint8

const (
	podActive  podState = iota // pending, bound, or terminating and back in the queue
	podFailing                 // a Job's pod evicted and counted failed, terminating: deleted once it has
	podLeaving                 // a Job's pod evicted under podReplacementPolicy Failed: counted once terminated
	podEnded                   // succeeded, deleted or failed
)

// going reports whether a pod in the state is out of its controller's
// active pods but not ended: terminating.
func (s podState) going() bool { return s == podFailing || s == podLeaving }

// NewManager returns the controllers of workloads, each owning its Pods
// and with a first sync due at time 0. The workloads are read, never
// changed, and must outlive the Manager; their order is the order in
// which controllers due at the same time act, and in which Jobs lists
// them.
func NewManager(workloads []Workload, opts ...Option) *Manager {
	m := &Manager{pods: map[cluster.PodKey]*ownedPod{}, listed: map[cluster.PodKey]bool{}, failed: map[cluster.PodKey]bool{},
		finite: map[cluster.PodKey]bool{}, running: map[cluster.PodKey]bool{}, terminating: map[cluster.PodKey]bool{},
		limit: math.MaxInt, reserved: func(cluster.PodKey) bool { return false }}
	for _, o := range opts {
		o(m)
	}
	for i := range workloads {
		c := &controller{w: &workloads[i], index: i, activeAt: map[int]int{}, madeAt: map[int]int{},
			onNode: map[string]int{}, madeOn: map[string]int{}, wake: -1}
		if c.w.Job != nil {
			c.job = newJobRun(c.w)
		}
		for _, p := range c.w.Pods {
			m.adopt(c, p.Key(), c.w.podIndex(p), daemonNode(p))
		}
		if c.w.Set != nil {
			c.set = newSetRun(c)
		}
		m.ctls = append(m.ctls, c)
		m.wakeAt(c, 0)
	}
	m.link()
	m.linkWorkloads()
	m.indexRefs()
	return m
}

// Attach returns the Option that gives the Manager the Scheduler's pause
// hook (gangsim.WithPause), for New.
func (m *Manager) Attach() gangsim.Option { return gangsim.WithPause(m.see) }

// Start gives the Manager the Scheduler it acts on, made with Attach.
func (m *Manager) Start(s *gangsim.Scheduler) { m.s = s }

// WaitFor counts the pod key, which the caller adds with a run time, as
// work in progress while it runs or terminates (InProgress). The pods of
// services are never counted: they end and are replaced for ever.
func (m *Manager) WaitFor(key cluster.PodKey) {
	if cp := m.pods[key]; cp == nil || !cp.ctl.w.service() {
		m.finite[key] = true
	}
}

// see follows the event stream (the Scheduler's pause hook): it keeps the
// accounts of what is left to happen, and notes what the controllers must
// act on, asking for a pause so that they act at this time.
func (m *Manager) see(e gangsim.Event) bool {
	key := e.PodKey()
	if key == "" {
		return false
	}
	pause := m.track(e, key)
	cp := m.pods[key]
	if cp == nil || !cp.ctl.cares(e, cp) {
		if pause {
			m.paused = true
		}
		return pause
	}
	m.todo = append(m.todo, podChange{kind: e.Kind, pod: cp, at: e.At})
	m.paused = true
	return true
}

// cares reports whether the controller acts on an event of its pod: one
// ending or refused by admission (a Job's pods also when evicted, or
// terminated as their node is removed or drained; a DaemonSet's when its
// node is removed).
func (c *controller) cares(e gangsim.Event, cp *ownedPod) bool {
	switch e.Kind {
	case gangsim.EventPodSucceeded, gangsim.EventPodRejected:
		return true
	case gangsim.EventPodDeleted:
		return !cp.byUs
	case gangsim.EventPodEvicted:
		return c.job != nil || c.set != nil
	case gangsim.EventPodTerminated:
		return c.job != nil || c.set != nil || c.w.Kind == KindDaemonSet && e.Reason == gangsim.TerminatedNodeRemoved
	case gangsim.EventPodBound:
		return c.kid != nil || c.set != nil && c.waitedOn(cp)
	}
	return false
}

// track keeps the accounts of the finite work in progress; it asks for a
// pause when the last of it ends, for the caller to see whether anything
// but the services' pods is left to happen.
func (m *Manager) track(e gangsim.Event, key cluster.PodKey) bool {
	before := len(m.running) + len(m.terminating)
	switch e.Kind {
	case gangsim.EventPodArrived:
		if e.Node != "" && m.finite[key] {
			m.running[key] = true
		}
	case gangsim.EventPodBound:
		if m.finite[key] {
			m.running[key] = true
		}
	case gangsim.EventPodEvicted:
		delete(m.running, key)
		m.terminating[key] = true
	case gangsim.EventPodSucceeded, gangsim.EventPodTerminated, gangsim.EventPodDeleted:
		delete(m.running, key)
		delete(m.terminating, key)
	default:
		return false
	}
	return before > 0 && len(m.running)+len(m.terminating) == 0
}

// InProgress reports whether something besides the services' pods ending
// and being replaced is in progress: a pod with a run time (a Job's, or
// one given to WaitFor) bound, or a victim terminating. When it is not,
// only the services' churn is left, which would go on for ever: a caller
// settles what can happen before the next pod ends and stops.
func (m *Manager) InProgress() bool { return len(m.running)+len(m.terminating) > 0 }

// Busy reports whether the controllers have something to act on now: the
// caller calls React before it runs the Scheduler again.
func (m *Manager) Busy() bool { return len(m.todo) > 0 || len(m.dirty) > 0 || len(m.changes) > 0 }

// Paused reports whether the Manager asked the Scheduler for a pause
// since Resume: a Scheduler method that runs returned early, and the
// caller lets the controllers act (Busy, React) before going on.
func (m *Manager) Paused() bool { return m.paused }

// Resume forgets the pauses asked so far, before the caller runs the
// Scheduler again.
func (m *Manager) Resume() { m.paused = false }

// React lets the controllers act on what the stream told them, and sync
// those it concerns (in workload order), until nothing is left to act on.
// An error is a *PodError.
func (m *Manager) React() error {
	if m.claims != nil {
		if err := m.claims.Sync(); err != nil {
			return err
		}
	}
	for m.Busy() {
		todo := m.todo
		m.todo = nil
		for _, ch := range todo {
			if err := m.change(ch); err != nil {
				return err
			}
		}
		dirty := m.dirty
		m.dirty = nil
		slices.Sort(dirty)
		for _, i := range dirty {
			c := m.ctls[i]
			c.dirty = false
			if err := m.sync(c); err != nil {
				return err
			}
		}
		m.drained()
		m.tell()
	}
	return nil
}

// change passes an event of a pod to its controller.
func (m *Manager) change(ch podChange) error {
	switch c := ch.pod.ctl; {
	case ch.kind == gangsim.EventPodBound && c.kid != nil:
		m.kidBound(ch)
		return nil
	case c.job != nil:
		return m.jobChange(ch)
	case c.kid != nil:
		return m.replicaChange(ch)
	case c.set != nil:
		return m.setChange(ch)
	}
	return m.serviceChange(ch)
}

// sync runs a controller's sync: it makes or deletes pods to reach what
// its workload wants.
func (m *Manager) sync(c *controller) error {
	if c.purge {
		if err := m.halt(c); err != nil {
			return err
		}
	}
	if held := m.held(c); held || c.kid != nil && c.kid.par.ctl.suspended {
		return nil
	}
	var err error
	switch {
	case c.par != nil:
		err = m.syncParent(c)
	case c.kid != nil && !c.kid.live(): // not made yet, or its parent finished
	case c.job != nil:
		err = m.syncJob(c)
		if err == nil && c.job.finished() {
			err = m.finishedLinks(c)
		}
	case c.kid != nil:
		err = m.syncReplicas(c)
	case c.set != nil:
		err = m.syncSet(c)
	default:
		err = m.syncService(c)
	}
	if c.kid != nil {
		m.markDirty(c.kid.par.ctl) // the parent follows its children
	}
	if errors.Is(err, errRefused) {
		return nil
	}
	return err
}

// markDirty asks for the controller's sync.
func (m *Manager) markDirty(c *controller) {
	if !c.dirty {
		c.dirty = true
		m.dirty = append(m.dirty, c.index)
	}
}
