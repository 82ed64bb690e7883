package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects Kubernetes defines.
const (
	TaintNoSchedule       TaintEffect = "NoSchedule"
	TaintPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods that do not tolerate it from a node.
type Taint struct {
	Key    string
	Value  string
	Effect TaintEffect
}

// Node is a machine pods run on. It is a plain value; the cache keeps its
// own deep copy, so a caller may reuse a Node after adding it.
type Node struct {
	Name          string
	Labels        map[string]string
	Allocatable   Resources
	Taints        []Taint
	Unschedulable bool
}

// ErrInvalidNode is wrapped by every Node.Validate error.
var ErrInvalidNode = errors.New("cluster: invalid node")

// Validate reports the first problem with n, naming the node and field.
func (n *Node) Validate() error {
	obj := strconv.Quote(n.Name)
	if p := NameProblem(n.Name, false); p != "" {
		return fieldError(ErrInvalidNode, "", "name", "%s", p)
	}
	if n.Allocatable.IsNegative() {
		return fieldError(ErrInvalidNode, obj, "allocatable", "%v is negative", n.Allocatable)
	}
	if field, detail := labelsProblem("labels", n.Labels); detail != "" {
		return fieldError(ErrInvalidNode, obj, field, "%s", detail)
	}
	for i, t := range n.Taints {
		if t.Key == "" {
			return fieldError(ErrInvalidNode, obj, fmt.Sprintf("taints[%d].key", i), "must not be empty")
		}
		switch t.Effect {
		case TaintNoSchedule, TaintPreferNoSchedule, TaintNoExecute:
		default:
			return fieldError(ErrInvalidNode, obj, fmt.Sprintf("taints[%d].effect", i), "%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
		if p := LabelKeyProblem(t.Key); p != "" {
			return fieldError(ErrInvalidNode, obj, fmt.Sprintf("taints[%d].key", i), "%s", p)
		}
		if p := LabelValueProblem(t.Value); p != "" {
			return fieldError(ErrInvalidNode, obj, fmt.Sprintf("taints[%d].value", i), "%s", p)
		}
		for j, u := range n.Taints[:i] {
			if u.Key == t.Key && u.Effect == t.Effect {
				return fieldError(ErrInvalidNode, obj, fmt.Sprintf("taints[%d]", i), "taint %s:%s is given twice (taints[%d])", t.Key, t.Effect, j)
			}
		}
	}
	return nil
}

// Clone returns a deep copy of n.
func (n Node) Clone() Node {
	n.Labels = maps.Clone(n.Labels)
	n.Taints = slices.Clone(n.Taints)
	n.Allocatable = n.Allocatable.clone()
	return n
}
