package kueue

import "time"

// EventKind is what happened to a workload in Kueue.
type EventKind string

// The events of a workload, as Kueue's conditions and events name them.
const (
	Created       EventKind = "Created"
	Pending       EventKind = "Pending"       // an attempt failed: QuotaReserved false, with Kueue's reason and message
	QuotaReserved EventKind = "QuotaReserved" // admitted: quota reserved (and, without admission checks, Admitted)
	Evicted       EventKind = "Evicted"       // preempted (or stopped): its job must stop, its quota is held until Released
	QuotaReleased EventKind = "QuotaReleased"
	Requeued      EventKind = "Requeued"
	Finished      EventKind = "Finished"
)

// Event is one thing that happened to a workload, at a simulated time.
type Event struct {
	At       time.Duration
	Kind     EventKind
	Workload string // namespace/name
	// ClusterQueue is the queue that admitted it (QuotaReserved), or
	// holds it (Evicted, QuotaReleased).
	ClusterQueue string
	// Admission is what was admitted (QuotaReserved), and Reserved when
	// Kueue's cache counted its quota: the cycle that admitted it, before
	// its status write landed (At).
	Admission *Admission
	Reserved  time.Duration
	// Reason and Message are Kueue's: a Pending condition's
	// ("Pending", "couldn't assign flavors to pod set main: ..."), an
	// eviction's ("Preempted", the preemption message), a preemption
	// reason in Preemption (InClusterQueue, InCohortReclamation,
	// InCohortReclaimWhileBorrowing).
	Reason, Message string
	Preemption      string
	// By is the preemptor (Evicted by preemption).
	By string
}
