// Package queue is the scheduling queue: activeQ, backoffQ, the
// unschedulable pool and the gated pool, in simulated time.
//
// An Item is a pod or a root group; both are ordered by the same total
// order (priority desc, first seen asc, insertion order), so group cycles
// and pod cycles interleave as in kube-scheduler v1.37, where one activeQ
// holds both. Backoff follows kube-scheduler: 1s doubling to 10s, with the
// maximum scaled by the square root of a group's size, expiry truncated to
// a whole second.
//
// Determinism: activeQ and the gated pool follow a total order ending in a
// unique insertion sequence number (activeQ as a few sorted runs of its
// items, the gated pool as a btree); the backoff queue and the
// unschedulable pool are lists whose items leave in bulk and whose inner
// order is never observed; nothing depends on map order or a clock.
// Concurrency: none; the owner serialises calls.
package queue
