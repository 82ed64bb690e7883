// Package podgroup holds the group objects the scheduler places as one
// unit: PodGroup (gang with minCount, or basic), CompositePodGroup, their
// hierarchy as a forest with bounded walks, and status conditions.
//
// It sits above cluster and below queue, placement and preemption, which
// all read groups but never each other.
package podgroup
