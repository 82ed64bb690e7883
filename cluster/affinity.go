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
	return tolerates(t.Key, t.Operator, t.Value, t.Effect == "" || t.Effect == taint.Effect, taint.Key, taint.Value)
}

// tolerates is the rule node and device tolerations share: the effect
// matches (an empty one matches every effect), the key matches (an empty
// one matches every key), and then Exists tolerates any value, Equal (the
// default) an equal one.
func tolerates(key string, op TolerationOperator, value string, effectMatches bool, taintKey, taintValue string) bool {
	if !effectMatches || key != "" && key != taintKey {
		return false
	}
	if op == TolerationExists {
		return true
	}
	return value == taintValue
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

// SelectorTerm holds requirements that must all match (AND): on the
// node's labels, and on its fields (only metadata.name, with In or NotIn
// and one value, as Kubernetes allows).
type SelectorTerm struct {
	MatchExpressions []SelectorRequirement
	MatchFields      []SelectorRequirement
}

// NodeNameField is the only node field a selector term may name.
const NodeNameField = "metadata.name"

// PreferredSchedulingTerm is a weighted preference for nodes matching a
// term (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).
type PreferredSchedulingTerm struct {
	Weight     int32
	Preference SelectorTerm
}

// NodeAffinity is a pod's node affinity. Required nodes match some term
// (OR); a term with no requirements matches no node, as in Kubernetes.
// Required nil means no requirement. Preferred terms add their weights to
// the score of the nodes they match.
type NodeAffinity struct {
	Required  []SelectorTerm
	Preferred []PreferredSchedulingTerm
}

// Matches reports whether a node with these labels (and no name to match
// fields against) satisfies the requirement.
func (a *NodeAffinity) Matches(labels map[string]string) bool {
	return a.MatchesNode(&Node{Labels: labels})
}

// MatchesNode reports whether node satisfies the requirement.
func (a *NodeAffinity) MatchesNode(node *Node) bool {
	if a == nil || a.Required == nil {
		return true
	}
	for i := range a.Required {
		if a.Required[i].MatchesNode(node) {
			return true
		}
	}
	return false
}

// MatchesNode reports whether every requirement of the term holds on node;
// an empty term matches no node.
func (t *SelectorTerm) MatchesNode(node *Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		if !t.MatchExpressions[i].Matches(node.Labels) {
			return false
		}
	}
	for i := range t.MatchFields {
		if !t.MatchFields[i].Matches(map[string]string{NodeNameField: node.Name}) {
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
	if a.Required != nil && len(a.Required) == 0 {
		return "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", "must have at least one term"
	}
	for i, t := range a.Required {
		if field, detail := t.validate(); detail != "" {
			return JoinField(fmt.Sprintf("requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i), field), detail
		}
	}
	for i, p := range a.Preferred {
		where, field, detail := preferredWeight(i, p.Weight)
		if detail != "" {
			return field, detail
		}
		if field, detail := p.Preference.validate(); detail != "" {
			return JoinField(where+".preference", field), detail
		}
	}
	return "", ""
}

// preferredWeight names the preferred term at i and checks its weight,
// for node and pod affinity alike.
func preferredWeight(i int, weight int32) (where, field, detail string) {
	where = fmt.Sprintf("preferredDuringSchedulingIgnoredDuringExecution[%d]", i)
	if weight < 1 || weight > 100 {
		return where, where + ".weight", fmt.Sprintf("%d is not in 1..100", weight)
	}
	return where, "", ""
}

// validate checks a term's requirements.
func (t *SelectorTerm) validate() (field, detail string) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return "matchExpressions", "must not be empty"
	}
	for j, r := range t.MatchExpressions {
		if field, detail := r.validate(); detail != "" {
			return JoinField(fmt.Sprintf("matchExpressions[%d]", j), field), detail
		}
	}
	for j, r := range t.MatchFields {
		where := fmt.Sprintf("matchFields[%d]", j)
		switch {
		case r.Key != NodeNameField:
			return where + ".key", fmt.Sprintf("%q is not %s, the only field nodes can be selected by", r.Key, NodeNameField)
		case r.Operator != SelectorIn && r.Operator != SelectorNotIn:
			return where + ".operator", fmt.Sprintf("%q is not In or NotIn", r.Operator)
		case len(r.Values) != 1:
			return where + ".values", "must hold exactly one node name"
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

func cloneRequirements(rs []SelectorRequirement) []SelectorRequirement {
	if rs == nil {
		return nil
	}
	out := make([]SelectorRequirement, len(rs))
	for j, r := range rs {
		r.Values = slices.Clone(r.Values)
		out[j] = r
	}
	return out
}

func (t SelectorTerm) clone() SelectorTerm {
	return SelectorTerm{MatchExpressions: cloneRequirements(t.MatchExpressions), MatchFields: cloneRequirements(t.MatchFields)}
}

func (a *NodeAffinity) clone() *NodeAffinity {
	if a == nil {
		return nil
	}
	cp := &NodeAffinity{}
	if a.Required != nil {
		cp.Required = make([]SelectorTerm, len(a.Required))
		for i, t := range a.Required {
			cp.Required[i] = t.clone()
		}
	}
	for _, p := range a.Preferred {
		cp.Preferred = append(cp.Preferred, PreferredSchedulingTerm{Weight: p.Weight, Preference: p.Preference.clone()})
	}
	return cp
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
