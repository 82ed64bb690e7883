package cluster

import (
	"errors"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// PriorityClass maps a name to a priority value, as scheduling.k8s.io/v1
// does. At most one class is the global default.
type PriorityClass struct {
	Name             string
	Value            int32
	GlobalDefault    bool
	PreemptionPolicy PreemptionPolicy // "" means PreemptLowerPriority
}

// ErrPriorityClass is wrapped by every error about priority classes.
var ErrPriorityClass = errors.New("cluster: priority class")

// MaxUserPriority is the highest value a user-defined class may have.
const MaxUserPriority = 1_000_000_000

// SystemPriorityClassPrefix starts the names reserved for Kubernetes' own
// classes: only the two built-in system classes may use it, and only they
// may go above MaxUserPriority.
const SystemPriorityClassPrefix = "system-"

// The built-in system classes every Kubernetes cluster has.
const (
	SystemClusterCritical      = "system-cluster-critical"
	SystemNodeCritical         = "system-node-critical"
	SystemClusterCriticalValue = 2_000_000_000
	SystemNodeCriticalValue    = 2_000_001_000
)

// SystemPriorityClasses returns the built-in system classes, as the API
// server creates them in every cluster.
func SystemPriorityClasses() []PriorityClass {
	return []PriorityClass{
		{Name: SystemClusterCritical, Value: SystemClusterCriticalValue},
		{Name: SystemNodeCritical, Value: SystemNodeCriticalValue},
	}
}

// IsSystemPriorityClass reports whether pc is one of the built-in system
// classes, exactly as Kubernetes defines it.
func IsSystemPriorityClass(pc PriorityClass) bool {
	for _, sys := range SystemPriorityClasses() {
		if pc.Name == sys.Name && pc.Value == sys.Value && !pc.GlobalDefault &&
			(pc.PreemptionPolicy == "" || pc.PreemptionPolicy == PreemptLowerPriority) {
			return true
		}
	}
	return false
}

// PriorityClasses is a set of priority classes with the admission-time
// lookups Kubernetes performs. The zero value is an empty, usable set.
type PriorityClasses struct {
	byName        map[string]PriorityClass
	globalDefault string
}

// Add registers a class. A duplicate name, a second global default, a value
// above MaxUserPriority (allowed only to the built-in system classes), a
// name with the reserved "system-" prefix that is not a built-in class, or
// an unknown preemption policy is an error naming the class and the field.
func (pcs *PriorityClasses) Add(pc PriorityClass) error {
	obj := strconv.Quote(pc.Name)
	system := strings.HasPrefix(pc.Name, SystemPriorityClassPrefix)
	switch {
	case NameProblem(pc.Name, false) != "":
		return fieldError(ErrPriorityClass, "", "name", "%s", NameProblem(pc.Name, false))
	case system && !IsSystemPriorityClass(pc):
		return fieldError(ErrPriorityClass, obj, "name", "the prefix %q is reserved for the built-in classes %s (%d) and %s (%d)",
			SystemPriorityClassPrefix, SystemClusterCritical, SystemClusterCriticalValue, SystemNodeCritical, SystemNodeCriticalValue)
	case pcs.byName[pc.Name].Name != "":
		return fieldError(ErrPriorityClass, obj, "name", "already defined")
	case pc.Value > MaxUserPriority && !system:
		return fieldError(ErrPriorityClass, obj, "value", "%d is above %d", pc.Value, MaxUserPriority)
	case pc.GlobalDefault && pcs.globalDefault != "":
		return fieldError(ErrPriorityClass, obj, "globalDefault", "%q is already the global default", pcs.globalDefault)
	}
	switch pc.PreemptionPolicy {
	case "", PreemptLowerPriority, PreemptNever:
	default:
		return fieldError(ErrPriorityClass, obj, "preemptionPolicy", "%q is not PreemptLowerPriority or Never", pc.PreemptionPolicy)
	}
	if pcs.byName == nil {
		pcs.byName = map[string]PriorityClass{}
	}
	pcs.byName[pc.Name] = pc
	if pc.GlobalDefault {
		pcs.globalDefault = pc.Name
	}
	return nil
}

// Get returns the class with the given name.
func (pcs *PriorityClasses) Get(name string) (PriorityClass, bool) {
	pc, ok := pcs.byName[name]
	return pc, ok
}

// All yields the classes in name order.
func (pcs *PriorityClasses) All() iter.Seq[PriorityClass] {
	return func(yield func(PriorityClass) bool) {
		for _, name := range slices.Sorted(maps.Keys(pcs.byName)) {
			if !yield(pcs.byName[name]) {
				return
			}
		}
	}
}

// GlobalDefault returns the global default class, if one is defined.
func (pcs *PriorityClasses) GlobalDefault() (PriorityClass, bool) {
	if pcs.globalDefault == "" {
		return PriorityClass{}, false
	}
	return pcs.byName[pcs.globalDefault], true
}

// Resolve returns the priority and preemption policy admission gives to an
// object naming className: the class's value and policy; for "" the global
// default's, or 0 and PreemptLowerPriority when there is none. An unknown
// class is an error.
func (pcs *PriorityClasses) Resolve(className string) (int32, PreemptionPolicy, error) {
	if className == "" {
		pc, ok := pcs.GlobalDefault()
		if !ok {
			return 0, PreemptLowerPriority, nil
		}
		className = pc.Name
	}
	pc, ok := pcs.byName[className]
	if !ok {
		return 0, "", fieldError(ErrPriorityClass, strconv.Quote(className), "", "not found")
	}
	policy := pc.PreemptionPolicy
	if policy == "" {
		policy = PreemptLowerPriority
	}
	return pc.Value, policy, nil
}
