package podgroup

import "time"

// Condition types and reasons the scheduler writes on a PodGroup.
const (
	ConditionInitiallyScheduled = "PodGroupInitiallyScheduled"
	ReasonScheduled             = "Scheduled"
	ReasonUnschedulable         = "Unschedulable"
	ReasonSchedulerError        = "SchedulerError"
)

// ConditionStatus is True or False.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue  ConditionStatus = "True"
	ConditionFalse ConditionStatus = "False"
)

// Condition is a status condition as Kubernetes records it.
type Condition struct {
	Type               string
	Status             ConditionStatus
	Reason             string
	Message            string
	LastTransitionTime time.Duration // changes only when Status changes
}

// Conditions is a group's condition list, one entry per type, in the
// order the types first appeared.
type Conditions []Condition

// Get returns the condition of the given type.
func (cs Conditions) Get(typ string) (Condition, bool) {
	for _, c := range cs {
		if c.Type == typ {
			return c, true
		}
	}
	return Condition{}, false
}

// Set records c, keeping LastTransitionTime when the status is unchanged.
// PodGroupInitiallyScheduled never goes back from True: once a group was
// scheduled, a later failed cycle leaves the condition as it is. Set
// reports whether anything changed.
func (cs *Conditions) Set(c Condition) bool {
	for i, old := range *cs {
		if old.Type != c.Type {
			continue
		}
		if c.Type == ConditionInitiallyScheduled && old.Status == ConditionTrue {
			return false
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		if old == c {
			return false
		}
		(*cs)[i] = c
		return true
	}
	*cs = append(*cs, c)
	return true
}
