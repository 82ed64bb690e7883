package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// LabelOperator is a label selector requirement's operator.
type LabelOperator string

// The operators of label selectors (metav1.LabelSelectorOperator).
const (
	LabelIn           LabelOperator = "In"
	LabelNotIn        LabelOperator = "NotIn"
	LabelExists       LabelOperator = "Exists"
	LabelDoesNotExist LabelOperator = "DoesNotExist"
)

// LabelRequirement is one condition on a label.
type LabelRequirement struct {
	Key      string
	Operator LabelOperator
	Values   []string
}

// LabelSelector selects objects by their labels, as Kubernetes'
// metav1.LabelSelector does: every MatchLabels pair and every
// MatchExpressions requirement must hold. A selector with neither matches
// every label set; a nil *LabelSelector matches nothing (see Matches).
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []LabelRequirement
}

// Matches reports whether labels are selected. A nil selector matches
// nothing, an empty one everything, as LabelSelectorAsSelector reads them.
func (s *LabelSelector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for i := range s.MatchExpressions {
		if !s.MatchExpressions[i].matches(labels) {
			return false
		}
	}
	return true
}

// IsEmpty reports whether a non-nil selector has no requirement (it
// matches everything).
func (s *LabelSelector) IsEmpty() bool {
	return s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

func (r *LabelRequirement) matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case LabelIn:
		return ok && slices.Contains(r.Values, v)
	case LabelNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case LabelExists:
		return ok
	case LabelDoesNotExist:
		return !ok
	}
	return false
}

// Clone returns a deep copy (nil stays nil).
func (s *LabelSelector) Clone() *LabelSelector {
	if s == nil {
		return nil
	}
	cp := &LabelSelector{MatchLabels: maps.Clone(s.MatchLabels)}
	for _, r := range s.MatchExpressions {
		r.Values = slices.Clone(r.Values)
		cp.MatchExpressions = append(cp.MatchExpressions, r)
	}
	return cp
}

// With returns a copy of s with one more requirement ANDed in; a nil
// selector stays nil (it matches nothing either way).
func (s *LabelSelector) With(r LabelRequirement) *LabelSelector {
	if s == nil {
		return nil
	}
	cp := s.Clone()
	cp.MatchExpressions = append(cp.MatchExpressions, r)
	return cp
}

// validate returns the field at fault and what is wrong, or "" and "".
func (s *LabelSelector) validate() (field, detail string) {
	if s == nil {
		return "", ""
	}
	for i, r := range s.MatchExpressions {
		f := fmt.Sprintf("matchExpressions[%d]", i)
		if r.Key == "" {
			return f + ".key", "must not be empty"
		}
		switch r.Operator {
		case LabelIn, LabelNotIn:
			if len(r.Values) == 0 {
				return f + ".values", fmt.Sprintf("operator %s needs values", r.Operator)
			}
		case LabelExists, LabelDoesNotExist:
			if len(r.Values) != 0 {
				return f + ".values", fmt.Sprintf("operator %s takes no values", r.Operator)
			}
		default:
			return f + ".operator", fmt.Sprintf("%q is not In, NotIn, Exists or DoesNotExist", r.Operator)
		}
	}
	return "", ""
}

// String renders the selector deterministically ("a=b,c in (x,y)"), for
// signatures and messages.
func (s *LabelSelector) String() string {
	if s == nil {
		return "<none>"
	}
	var b []byte
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, s.MatchLabels[k]...)
	}
	for _, r := range s.MatchExpressions {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, r.Key...)
		b = append(b, ' ')
		b = append(b, r.Operator...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, fmt.Sprint(r.Values))
	}
	return string(b)
}

// Namespace is a namespace with its labels, which namespace selectors of
// pod affinity terms read. A namespace the scheduler was not told about has
// no labels.
type Namespace struct {
	Name   string
	Labels map[string]string
}
