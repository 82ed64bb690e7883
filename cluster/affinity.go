package cluster

import (
	"fmt"
	"slices"
	"strconv"
)

// TolerationOperator is how a toleration compares values.
type TolerationOperator string

// The toleration operators. The empty operator means Equal.
const (
	TolerationEqual  TolerationOperator = "Equal"
	TolerationExists TolerationOperator = "Exists"
)

// Toleration lets a pod run on a node despite a matching taint. An empty
// Key with Exists matches every taint; an empty Effect matches every effect.
type Toleration struct {
	Key      string
	Operator TolerationOperator
	Value    string
	Effect   TaintEffect
}

// Tolerates reports whether t tolerates taint, by Kubernetes' rules.
func (t *Toleration) Tolerates(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case TolerationExists:
		return true
	default:
		return t.Value == taint.Value
	}
}

// validate returns the field at fault and what is wrong, or "" and "".
func (t *Toleration) validate() (field, detail string) {
	switch t.Operator {
	case "", TolerationEqual:
		if t.Key == "" {
			return "key", "must not be empty, which only operator Exists allows"
		}
	case TolerationExists:
		if t.Value != "" {
			return "value", "must be empty with operator Exists"
		}
	default:
		return "operator", fmt.Sprintf("%q is not Equal or Exists", t.Operator)
	}
	switch t.Effect {
	case "", TaintNoSchedule, TaintPreferNoSchedule, TaintNoExecute:
		return "", ""
	}
	return "effect", fmt.Sprintf("%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
}

// TolerationsTolerate reports whether some toleration tolerates taint.
func TolerationsTolerate(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].Tolerates(taint) {
			return true
		}
	}
	return false
}

// SelectorOperator is a node selector requirement's operator.
type SelectorOperator string

// The operators of required node affinity.
const (
	SelectorIn           SelectorOperator = "In"
	SelectorNotIn        SelectorOperator = "NotIn"
	SelectorExists       SelectorOperator = "Exists"
	SelectorDoesNotExist SelectorOperator = "DoesNotExist"
	SelectorGt           SelectorOperator = "Gt"
	SelectorLt           SelectorOperator = "Lt"
)

// SelectorRequirement is one condition on a node label.
type SelectorRequirement struct {
	Key      string
	Operator SelectorOperator
	Values   []string
}

// SelectorTerm holds requirements that must all match (AND).
type SelectorTerm struct {
	MatchExpressions []SelectorRequirement
}

// NodeAffinity is required node affinity: a node matches when any term
// matches (OR). A term with no requirements matches no node, as in
// Kubernetes.
type NodeAffinity struct {
	Required []SelectorTerm
}

// Matches reports whether labels satisfy some term.
func (a *NodeAffinity) Matches(labels map[string]string) bool {
	for i := range a.Required {
		if a.Required[i].matches(labels) {
			return true
		}
	}
	return false
}

func (t *SelectorTerm) matches(labels map[string]string) bool {
	if len(t.MatchExpressions) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		if !t.MatchExpressions[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Matches reports whether labels satisfy r.
func (r *SelectorRequirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case SelectorIn:
		return ok && slices.Contains(r.Values, v)
	case SelectorNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case SelectorExists:
		return ok
	case SelectorDoesNotExist:
		return !ok
	case SelectorGt, SelectorLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == SelectorGt {
			return have > want
		}
		return have < want
	}
	return false
}

// validate returns the field at fault and what is wrong, or "" and "".
func (a *NodeAffinity) validate() (field, detail string) {
	if len(a.Required) == 0 {
		return "required", "must have at least one term"
	}
	for i, t := range a.Required {
		if len(t.MatchExpressions) == 0 {
			return fmt.Sprintf("required[%d].matchExpressions", i), "must not be empty"
		}
		for j, r := range t.MatchExpressions {
			if field, detail := r.validate(); detail != "" {
				return JoinField(fmt.Sprintf("required[%d].matchExpressions[%d]", i, j), field), detail
			}
		}
	}
	return "", ""
}

// validate returns the field at fault and what is wrong, or "" and "".
func (r *SelectorRequirement) validate() (field, detail string) {
	if r.Key == "" {
		return "key", "must not be empty"
	}
	switch r.Operator {
	case SelectorIn, SelectorNotIn:
		if len(r.Values) == 0 {
			return "values", fmt.Sprintf("operator %s needs values", r.Operator)
		}
	case SelectorExists, SelectorDoesNotExist:
		if len(r.Values) != 0 {
			return "values", fmt.Sprintf("operator %s takes no values", r.Operator)
		}
	case SelectorGt, SelectorLt:
		if len(r.Values) != 1 {
			return "values", fmt.Sprintf("operator %s needs exactly one value", r.Operator)
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return "values", fmt.Sprintf("operator %s needs an integer value, got %q", r.Operator, r.Values[0])
		}
	default:
		return "operator", fmt.Sprintf("%q is not In, NotIn, Exists, DoesNotExist, Gt or Lt", r.Operator)
	}
	return "", ""
}

func (a NodeAffinity) clone() NodeAffinity {
	terms := make([]SelectorTerm, len(a.Required))
	for i, t := range a.Required {
		reqs := make([]SelectorRequirement, len(t.MatchExpressions))
		for j, r := range t.MatchExpressions {
			r.Values = slices.Clone(r.Values)
			reqs[j] = r
		}
		terms[i] = SelectorTerm{MatchExpressions: reqs}
	}
	return NodeAffinity{Required: terms}
}

// MatchesSelector reports whether labels contain every key/value of
// selector (a nodeSelector or a matchLabels selector). An empty selector
// matches everything.
func MatchesSelector(selector, labels map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
