package gangsim

import (
	"fmt"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Kind is what kind of object a Ref names.
type Kind uint8

// The kinds of objects events and preemptors name.
const (
	KindPod Kind = iota + 1
	KindPodGroup
	KindCompositePodGroup
	KindNode
)

var kindNames = [...]string{"", "Pod", "PodGroup", "CompositePodGroup", "Node"}

// String returns the kind as Kubernetes spells it ("Pod", "PodGroup", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Ref names one object: its kind and its key ("namespace/name" for pods
// and groups, the name for a node). The zero Ref names nothing.
type Ref struct {
	Kind Kind
	Key  string
}

// IsZero reports whether r names nothing.
func (r Ref) IsZero() bool { return r.Kind == 0 }

// Display renders the key as results show it: the bare name in the default
// namespace, "namespace/name" elsewhere.
func (r Ref) Display() string { return cluster.PodKey(r.Key).Display() }

// String renders "Kind/key".
func (r Ref) String() string {
	if r.IsZero() {
		return "-"
	}
	return r.Kind.String() + "/" + r.Key
}

// PodRef returns the Ref of a pod.
func PodRef(key cluster.PodKey) Ref { return Ref{Kind: KindPod, Key: string(key)} }

// EventKind is what changed in the simulation.
type EventKind uint8

// The events, one per change of the simulation. Pod events set Pod (and
// Node where the pod is or was on one); group events set Group; node events
// set Node.
const (
	// EventPodArrived: the pod was admitted (pending, or running at once
	// when it named its node).
	EventPodArrived EventKind = iota + 1
	// EventPodBound: the pod was placed on Node and runs there.
	EventPodBound
	// EventPodNominated: preemption nominated the pod to Node; its room is
	// held while the victims terminate.
	EventPodNominated
	// EventPodUnschedulable: an attempt to place the pod failed; Reason
	// says why. It stays pending.
	EventPodUnschedulable
	// EventPodEvicted: preemption chose the pod as a victim; its graceful
	// termination starts and it holds Node until EventPodTerminated. By is
	// the preemptor; BudgetViolation says whether the eviction broke a
	// PodDisruptionBudget.
	EventPodEvicted
	// EventPodTerminated: the pod left Node and is pending again; Reason
	// says why (TerminatedPreempted, TerminatedNodeRemoved,
	// TerminatedNodeDrained), and is the pod's pending reason until its
	// next attempt.
	EventPodTerminated
	// EventPodSucceeded: the pod ran its duration and left Node for good.
	EventPodSucceeded
	// EventPodDeleted: the pod was deleted for good (leaving Node, if it
	// was on one).
	EventPodDeleted
	// EventGroupScheduled: a cycle bound pods of Group.
	EventGroupScheduled
	// EventGroupFailed: a cycle of Group bound none of its pods; Reason
	// says why.
	EventGroupFailed
	// EventNodeAdded: Node joined the cluster (NodeObject holds it).
	EventNodeAdded
	// EventNodeUpdated: Node's labels, allocatable, taints or
	// unschedulable flag changed (NodeObject holds the new node).
	EventNodeUpdated
	// EventNodeCordoned: Node became unschedulable; its pods stay.
	EventNodeCordoned
	// EventNodeUncordoned: Node became schedulable again.
	EventNodeUncordoned
	// EventNodeRemoved: Node left the cluster; its pods were terminated
	// just before (EventPodTerminated each).
	EventNodeRemoved
	// EventNodeDrained: Node was drained: cordoned, and its pods whose
	// budgets allowed it terminated just before.
	EventNodeDrained
	// EventCycle: one scheduling cycle ended, for the pod (Pod) or the
	// root group (Group) at the head of the queue; Reason is its status
	// ("" on success).
	EventCycle
	// EventClaimAllocated: Claim was allocated on Node (Allocation holds
	// its devices) for the pod bound just before, the first to use it.
	EventClaimAllocated
	// EventClaimReleased: the last pod using Claim left Node, and its
	// devices are free.
	EventClaimReleased
	// EventPodUngated: scheduling gates were removed from the pending pod
	// (UngatePod); Pod holds it with the gates left, and Reason says what
	// it waits for while some are left ("" when none is: it is queued).
	EventPodUngated
	// EventPodRejected: the API server's admission refused to create the
	// pod (a LimitRange's bounds, a ResourceQuota); Reason is its message
	// and Pod the pod as admission left it. The pod does not exist: no
	// other event names it.
	EventPodRejected
	// EventRunStopped: a run reached a safety cap (Config.MaxCycles) and
	// stopped before the simulation settled; Reason says which cap and
	// names the pods that kept evicting each other. The scheduler stays
	// as it was at that point: what it holds is the result so far.
	EventRunStopped
)

var eventNames = [...]string{"", "PodArrived", "PodBound", "PodNominated", "PodUnschedulable", "PodEvicted",
	"PodTerminated", "PodSucceeded", "PodDeleted", "GroupScheduled", "GroupFailed", "NodeAdded",
	"NodeUpdated", "NodeCordoned", "NodeUncordoned", "NodeRemoved", "NodeDrained", "Cycle", "ClaimAllocated",
	"ClaimReleased", "PodUngated", "PodRejected", "RunStopped"}

// String returns the event kind's name ("PodBound").
func (k EventKind) String() string {
	if int(k) < len(eventNames) && k > 0 {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// Reasons of EventPodTerminated.
const (
	TerminatedPreempted   = "evicted by preemption"
	TerminatedNodeRemoved = "its node was removed"
	TerminatedNodeDrained = "its node was drained"
)

// Event is one change of the simulation at simulated time At. Events are
// values: the pointers they hold (Pod, NodeObject) point to immutable data
// that the receiver must not modify.
type Event struct {
	At   time.Duration
	Kind EventKind
	// Pod is the pod of a pod event (and of EventCycle for a pod), as
	// admitted: its resolved priority, its requests. Events after a pod is
	// bound give its bound form (with its node and start time), the one
	// the cache holds; read-only, as every PodInfo.
	Pod *cluster.PodInfo
	// Group is the group of a group event (a leaf PodGroup, or a root
	// CompositePodGroup) and of EventCycle for a root group.
	Group Ref
	// Node is the node concerned.
	Node string
	// NodeObject is the node as added or updated (EventNodeAdded,
	// EventNodeUpdated).
	NodeObject *cluster.Node
	// Reason explains unschedulable pods, failed groups, terminations and
	// cycle statuses.
	Reason string
	// By is the preemptor of EventPodEvicted: a pod, a PodGroup or a
	// CompositePodGroup.
	By Ref
	// BudgetViolation is set on EventPodEvicted when the eviction broke a
	// PodDisruptionBudget.
	BudgetViolation bool
	// Claim is the key ("namespace/name") of the claim of a claim event,
	// and Allocation its devices (EventClaimAllocated); read-only.
	Claim      string
	Allocation *cluster.AllocationResult
	// Cycle numbers the cycle the event happened in (1 for the first);
	// 0 for changes made outside a cycle (arrivals, timers, node events).
	Cycle int
}

// PodKey returns the key of the event's pod, or "".
func (e *Event) PodKey() cluster.PodKey {
	if e.Pod == nil {
		return ""
	}
	return e.Pod.Key()
}

// String renders the event on one line, for transcripts and logs:
// "1m30s PodBound default/web node=n1". Only the fields the kind uses
// appear, always in the same order.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v", e.At, e.Kind)
	if e.Pod != nil {
		fmt.Fprintf(&b, " %s", e.Pod.Key())
	}
	if !e.Group.IsZero() {
		fmt.Fprintf(&b, " %v", e.Group)
	}
	if e.Claim != "" {
		fmt.Fprintf(&b, " claim=%s", e.Claim)
	}
	if e.Node != "" {
		fmt.Fprintf(&b, " node=%s", e.Node)
	}
	if e.Allocation != nil {
		b.WriteString(" devices=")
		for i, d := range e.Allocation.Devices {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(d.DeviceID().String())
		}
	}
	if !e.By.IsZero() {
		fmt.Fprintf(&b, " by=%v", e.By)
	}
	if e.BudgetViolation {
		b.WriteString(" budget-violation")
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", e.Reason)
	}
	return b.String()
}

// Observer receives every event as it happens, in order. It runs inside
// the Scheduler's call and must not call back into the Scheduler's
// mutating methods.
type Observer func(Event)

// WithObserver adds an observer of the event stream. Observers run in the
// order they were added; a nil observer is none.
func WithObserver(o Observer) Option { return withObserver(o, allKinds) }

// WithObserverOf adds an observer that reads only the events of the kinds
// given (none given: no event). The scheduler builds an event only for
// someone who reads it: a busy cluster's failed cycles make events whose
// reasons take longer to write than the cycle took, and an observer that
// needs none of them, as a tool reading evictions only, spares that. The
// scheduler's own accounts (Stats, Evictions) count every event either
// way.
func WithObserverOf(o Observer, kinds ...EventKind) Option {
	var set kindSet
	for _, k := range kinds {
		set |= kindBit(k)
	}
	return withObserver(o, set)
}

func withObserver(o Observer, kinds kindSet) Option {
	return func(s *Scheduler) {
		if o != nil { // no observer to add
			s.observers = append(s.observers, observer{o, kinds})
			s.wanted |= kinds
		}
	}
}

// observer is an Observer and the kinds of event it reads.
type observer struct {
	see   Observer
	kinds kindSet
}

// kindSet is a set of event kinds, one bit each.
type kindSet uint64

const allKinds = ^kindSet(0)

func kindBit(k EventKind) kindSet {
	if k <= 0 || k >= 64 {
		return 0
	}
	return 1 << k
}

// wants reports whether an event of the kind has a reader: an observer
// of the kind, or the pause hook (which sees every event). A busy
// cluster's cycles are mostly a pod failing as a pod of its shape just
// did, and the two events of such a cycle, built for no one, cost a
// tenth of it: its callers count them instead when no one reads them.
func (s *Scheduler) wants(kind EventKind) bool {
	return s.wanted&kindBit(kind) != 0 || s.pause != nil
}

// emit stamps an event with the time and cycle and hands it to the
// scheduler's own accounts (Stats, the eviction log) and to every observer.
func (s *Scheduler) emit(e Event) {
	e.At, e.Cycle = s.now, s.inCycle
	// counted from two fields, not through Observe's copy of the event: in
	// a busy cluster's cycles that copy stalled on the stores just made
	// to the event (a tenth of a failed cycle)
	s.stats.count(e.Kind, e.BudgetViolation)
	if e.Kind == EventPodEvicted {
		s.evictions = append(s.evictions, Eviction{Pod: e.Pod.Key(), Node: e.Node, By: e.By, At: e.At, BudgetViolation: e.BudgetViolation})
	}
	for _, o := range s.observers {
		if o.kinds&kindBit(e.Kind) != 0 {
			o.see(e)
		}
	}
	if s.pause != nil && s.pause(e) {
		s.paused = true
	}
}

// WithPause makes Run, RunUntil, Settle and AdvanceTo return early
// after an event for which pause returns true: once the step that made the
// event is complete (the timer that fired, the cycle that ran) and before
// anything else happens, with the clock at the event's time. The caller
// may then change the simulation at that time, as a controller reacting
// to the event would (adding or deleting pods), and call the method again,
// which goes on where it stopped: a run paused and resumed makes the same
// events as a run never paused, besides those of the caller's changes.
// pause sees every event, after the observers, and like them must not
// call the Scheduler's mutating methods. An event of a call made outside
// a run (AddPod, RemoveNode...) pauses nothing: the caller has control.
// Given several times, every hook sees every event, in the order given,
// and the run pauses when any of them asks (controllers beside one
// another: the workload controllers and Kueue).
func WithPause(pause func(Event) bool) Option {
	return func(s *Scheduler) {
		if prev := s.pause; prev != nil {
			s.pause = func(e Event) bool {
				p := prev(e)
				return pause(e) || p
			}
			return
		}
		s.pause = pause
	}
}

// The scheduler builds every event it emits here, one function per shape
// of event, so that this file shows which fields each kind sets; emit
// stamps it with the time and the cycle.

// podEvent is a pod's event: where it is or was, and why when the kind
// has a reason.
func podEvent(kind EventKind, pod *cluster.PodInfo, node, reason string) Event {
	return Event{Kind: kind, Pod: pod, Node: node, Reason: reason}
}

// evictionEvent is a preemption victim's eviction, for preemptor by.
func evictionEvent(pod *cluster.PodInfo, node string, by Ref, violation bool) Event {
	return Event{Kind: EventPodEvicted, Pod: pod, Node: node, By: by, BudgetViolation: violation}
}

// claimEvent is a claim's event: allocated with its devices, or released.
func claimEvent(kind EventKind, claim, node string, alloc *cluster.AllocationResult) Event {
	return Event{Kind: kind, Claim: claim, Node: node, Allocation: alloc}
}

// groupEvent is a group's event, with the reason of a failure.
func groupEvent(kind EventKind, group Ref, reason string) Event {
	return Event{Kind: kind, Group: group, Reason: reason}
}

// nodeEvent is a node's event, with the node as it is now when added or
// updated (object nil otherwise).
func nodeEvent(kind EventKind, node string, object *cluster.Node) Event {
	return Event{Kind: kind, Node: node, NodeObject: object}
}

// cycleEvent is the end of a cycle of a pod or of a group, with the
// reason its status gives.
func cycleEvent(pod *cluster.PodInfo, group Ref, reason string) Event {
	return Event{Kind: EventCycle, Pod: pod, Group: group, Reason: reason}
}

// Stats counts what happened over a run. It is built from the event
// stream; Observe adds one event, so a caller can keep the same counts
// over any stream.
type Stats struct {
	Scheduled     int // bindings made
	Evictions     int // preemption victims evicted
	PDBViolations int // victims whose eviction broke a pod disruption budget
	Cycles        int
	Rejected      int // pods admission refused to create
}

// Observe counts one event.
func (st *Stats) Observe(e Event) { st.count(e.Kind, e.BudgetViolation) }

// count counts an event of the kind (an eviction that broke a budget when
// violation).
func (st *Stats) count(kind EventKind, violation bool) {
	switch kind {
	case EventPodBound:
		st.Scheduled++
	case EventPodEvicted:
		st.Evictions++
		if violation {
			st.PDBViolations++
		}
	case EventCycle:
		st.Cycles++
	case EventPodRejected:
		st.Rejected++
	}
}

// Eviction is a pod taken off its node to make room for a preemptor.
type Eviction struct {
	Pod             cluster.PodKey
	Node            string
	By              Ref // the preemptor: a pod, a PodGroup or a CompositePodGroup
	At              time.Duration
	BudgetViolation bool
}
