package podgroup

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Policy says how many of a group's pods must be placed together.
type Policy uint8

// The scheduling policies.
const (
	// Basic places pods independently, but evaluates them in one group cycle.
	Basic Policy = iota
	// Gang places at least MinCount pods together or none.
	Gang
)

// String returns the policy's name.
func (p Policy) String() string {
	if p == Gang {
		return "Gang"
	}
	return "Basic"
}

// DisruptionMode says how a group's pods are preempted.
type DisruptionMode string

// The disruption modes. The empty mode means Single.
const (
	DisruptSingle DisruptionMode = "Single" // each pod is its own victim
	DisruptAll    DisruptionMode = "All"    // all scheduled pods are evicted together or not at all
)

// PodGroup is a set of pods scheduled as one unit: a gang (at least
// MinCount placed together, or none) or a basic group. Pods name their
// group in cluster.Pod.PodGroup; a group has no scheduler name of its own.
type PodGroup struct {
	Namespace string
	Name      string
	Policy    Policy
	MinCount  int32 // gang only; at least 1
	// Priority is the priority as given (nil: not given); admission (the
	// Scheduler's AddPodGroup) resolves it from PriorityClassName, the
	// parent or the global default. EffectivePriority reads it.
	Priority          *int32
	PriorityClassName string
	PreemptionPolicy  cluster.PreemptionPolicy // "" means PreemptLowerPriority
	DisruptionMode    DisruptionMode           // "" means Single
	TopologyKey       string                   // "": no topology constraint
	Parent            string                   // a CompositePodGroup's name; "": a root
	CreationTime      time.Duration            // orders siblings, then Name
	// ResourceClaims are the group's spec.resourceClaims (Kubernetes
	// v1.37's DRAWorkloadResourceClaims): claims its pods share, each
	// named, or made from a template once for the group by the
	// resourceclaim controller. A pod uses one by an entry of its own
	// spec.resourceClaims equal to the group's in every field.
	ResourceClaims []cluster.PodResourceClaim
}

// MaxResourceClaims is the most entries a PodGroup's ResourceClaims may
// have, as the API server allows.
const MaxResourceClaims = 4

// ErrInvalid is wrapped by every Validate error.
var ErrInvalid = errors.New("podgroup: invalid")

// Key returns the group's "namespace/name".
func (g *PodGroup) Key() string { return Key(g.Namespace, g.Name) }

// Key joins a namespace ("" means default) and a name.
func Key(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

// EffectivePriority returns the priority, 0 when none is set (as
// kube-scheduler's PodGroupPriority reads a nil priority).
func (g *PodGroup) EffectivePriority() int32 { return derefPriority(g.Priority) }

func derefPriority(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// EffectivePreemptionPolicy returns the policy with its default applied.
func (g *PodGroup) EffectivePreemptionPolicy() cluster.PreemptionPolicy {
	if g.PreemptionPolicy == "" {
		return cluster.PreemptLowerPriority
	}
	return g.PreemptionPolicy
}

// EffectiveDisruptionMode returns the mode with its default applied.
func (g *PodGroup) EffectiveDisruptionMode() DisruptionMode {
	if g.DisruptionMode == "" {
		return DisruptSingle
	}
	return g.DisruptionMode
}

// Quorum is how many pods must be placed for the policy to be met: MinCount
// for a gang, 1 for a basic group (kube-scheduler's getMinCount).
func (g *PodGroup) Quorum() int {
	if g.Policy == Gang {
		return int(g.MinCount)
	}
	return 1
}

// Validate reports the first problem with g, naming the group and field.
func (g *PodGroup) Validate() error {
	if field, detail := cluster.NamespacedNameProblem(g.Name, g.Namespace); detail != "" {
		return invalid("pod group", "", field, "%s", detail)
	}
	obj := g.Key()
	switch {
	case g.Policy == Gang && g.MinCount < 1:
		return invalid("pod group", obj, "minCount", "%d must be at least 1", g.MinCount)
	case g.Policy == Basic && g.MinCount != 0:
		return invalid("pod group", obj, "minCount", "is set on a basic group")
	case g.Policy != Gang && g.Policy != Basic:
		return invalid("pod group", obj, "policy", "%d is unknown", g.Policy)
	}
	if field, detail := checkModes(g.PreemptionPolicy, g.DisruptionMode); detail != "" {
		return invalid("pod group", obj, field, "%s", detail)
	}
	if len(g.ResourceClaims) > MaxResourceClaims {
		return invalid("pod group", obj, "resourceClaims", "%d entries, at most %d are allowed", len(g.ResourceClaims), MaxResourceClaims)
	}
	if field, detail := cluster.ValidatePodClaims(g.ResourceClaims); detail != "" {
		return invalid("pod group", obj, field, "%s", detail)
	}
	return nil
}

// ClaimEntry returns the index of the group's entry equal to a pod's
// entry in every field, by which the pod uses the group's claim; -1 when
// none is.
func (g *PodGroup) ClaimEntry(e cluster.PodResourceClaim) int {
	for i := range g.ResourceClaims {
		if g.ResourceClaims[i] == e {
			return i
		}
	}
	return -1
}

// invalid returns a validation error for the group kind what ("pod group"
// or "composite pod group"), key and field.
func invalid(what, key, field, format string, args ...any) error {
	obj := what
	if key != "" {
		obj += " " + key
	}
	return &cluster.FieldError{Sentinel: ErrInvalid, Object: obj, Field: field, Detail: fmt.Sprintf(format, args...)}
}

// checkModes validates the preemption policy and disruption mode every
// group kind has; it returns the field at fault and the problem, or "".
func checkModes(policy cluster.PreemptionPolicy, mode DisruptionMode) (field, detail string) {
	switch policy {
	case "", cluster.PreemptLowerPriority, cluster.PreemptNever:
	default:
		return "preemptionPolicy", fmt.Sprintf("%q is not PreemptLowerPriority or Never", policy)
	}
	switch mode {
	case "", DisruptSingle, DisruptAll:
	default:
		return "disruptionMode", fmt.Sprintf("%q is not Single or All", mode)
	}
	return "", ""
}

// Progress is how far a placement attempt got: pods still to try and pods
// scheduled (already bound or assumed members plus those placed so far).
type Progress struct {
	Remaining int
	Scheduled int
}

// Feasibility is PlacementFeasible's answer.
type Feasibility uint8

// The answers, as kube-scheduler's GangScheduling plugin gives them.
const (
	Feasible   Feasibility = iota // the policy is met
	Wait                          // not yet met; more pods may meet it
	Infeasible                    // cannot be met even if every remaining pod is placed
)

// CheckQuorum is the gang policy as PlacementFeasible: Infeasible when even
// all remaining pods would not reach the quorum, Wait until it is reached,
// then Feasible. The message says why, in kube-scheduler's words.
func (g *PodGroup) CheckQuorum(p Progress) (Feasibility, string) { return checkQuorum(g.Quorum(), p) }
