package cluster

import (
	"errors"
	"fmt"
	"math"
)

// IntOrPercent is a count ("2") or a percentage ("50%") of matching pods.
type IntOrPercent struct {
	Value   int32
	Percent bool
}

// String renders the amount as written in a manifest.
func (v IntOrPercent) String() string {
	if v.Percent {
		return fmt.Sprintf("%d%%", v.Value)
	}
	return fmt.Sprintf("%d", v.Value)
}

// PodDisruptionBudget limits how many pods matching Selector may be evicted
// at once: at least MinAvailable must stay up, or at most MaxUnavailable may
// be down. Exactly one of the two is set.
type PodDisruptionBudget struct {
	Namespace      string
	Name           string
	Selector       *LabelSelector // must not be empty
	MinAvailable   *IntOrPercent
	MaxUnavailable *IntOrPercent
}

// ErrInvalidBudget is wrapped by every PodDisruptionBudget.Validate error.
var ErrInvalidBudget = errors.New("cluster: invalid pod disruption budget")

// Key returns the budget's "namespace/name".
func (b *PodDisruptionBudget) Key() string { return string(MakePodKey(b.Namespace, b.Name)) }

// Validate reports the first problem with b, naming it and the field.
func (b *PodDisruptionBudget) Validate() error {
	if field, detail := namespacedNameProblem(b.Name, b.Namespace); detail != "" {
		return fieldError(ErrInvalidBudget, "", field, "%s", detail)
	}
	obj := b.Key()
	if b.Selector == nil || b.Selector.IsEmpty() {
		return fieldError(ErrInvalidBudget, obj, "selector", "must not be empty")
	}
	if field, detail := b.Selector.validate(); detail != "" {
		return fieldError(ErrInvalidBudget, obj, JoinField("selector", field), "%s", detail)
	}
	if (b.MinAvailable == nil) == (b.MaxUnavailable == nil) {
		return fieldError(ErrInvalidBudget, obj, "", "exactly one of minAvailable and maxUnavailable must be set")
	}
	field, v := "minAvailable", b.MinAvailable
	if v == nil {
		field, v = "maxUnavailable", b.MaxUnavailable
	}
	if v.Value < 0 || v.Percent && v.Value > 100 {
		return fieldError(ErrInvalidBudget, obj, field, "%v is out of range", v)
	}
	return nil
}

// Matches reports whether the budget covers p: same namespace, non-empty
// labels, and the selector matches (kube-scheduler's rule).
func (b *PodDisruptionBudget) Matches(p *Pod) bool {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	bns := b.Namespace
	if bns == "" {
		bns = "default"
	}
	return ns == bns && len(p.Labels) > 0 && !b.Selector.IsEmpty() && b.Selector.Matches(p.Labels)
}

// DisruptionsAllowed computes what the disruption controller would publish
// as status.disruptionsAllowed: healthy pods minus the desired healthy
// count, never below 0. healthy counts matching running pods (bound, not
// terminating); expected counts every matching pod the cache holds that is
// not terminating (the model has no controllers whose scale could say more).
// Percentages round up, as Kubernetes rounds them.
func (b *PodDisruptionBudget) DisruptionsAllowed(healthy, expected int) int {
	var desired int
	switch {
	case b.MinAvailable != nil:
		desired = b.MinAvailable.of(expected)
	case b.MaxUnavailable != nil:
		desired = max(0, expected-b.MaxUnavailable.of(expected)) // clamped as the controller does
	}
	return max(0, healthy-desired)
}

func (v IntOrPercent) of(total int) int {
	if !v.Percent {
		return int(v.Value)
	}
	return int(math.Ceil(float64(v.Value) * float64(total) / 100))
}

// BudgetStatus is a budget with the disruptions it allows right now.
type BudgetStatus struct {
	Budget  *PodDisruptionBudget
	Allowed int
	// probeKey and probeVal are LabelProbe's, made once with the budget
	probeKey, probeVal string
}

// NewBudgetStatus returns the status of budget b allowing allowed
// disruptions, its LabelProbe made.
func NewBudgetStatus(b *PodDisruptionBudget, allowed int) BudgetStatus {
	st := BudgetStatus{Budget: b, Allowed: allowed}
	st.probeKey, st.probeVal = labelProbe(b.Selector)
	return st
}

// LabelProbe returns a label every pod the budget selects carries: of its
// selector's matchLabels, the one with the least key. ok is false when the
// selector has none, or when the status was not made by NewBudgetStatus
// or a Cache. Most
// budgets select few pods: one lookup of this label turns the others away
// before the whole selector is read.
func (b BudgetStatus) LabelProbe() (key, val string, ok bool) {
	return b.probeKey, b.probeVal, b.probeKey != ""
}

// labelProbe is LabelProbe's label for a selector ("" for none).
func labelProbe(s *LabelSelector) (key, val string) {
	if s == nil {
		return "", ""
	}
	for k, v := range s.MatchLabels {
		if key == "" || k < key {
			key, val = k, v
		}
	}
	return key, val
}
