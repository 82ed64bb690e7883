package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
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
	if n.Name == "" {
		return fmt.Errorf("%w: name is empty", ErrInvalidNode)
	}
	if n.Allocatable.IsNegative() {
		return fmt.Errorf("%w %q: allocatable %v is negative", ErrInvalidNode, n.Name, n.Allocatable)
	}
	for i, t := range n.Taints {
		if t.Key == "" {
			return fmt.Errorf("%w %q: taints[%d].key is empty", ErrInvalidNode, n.Name, i)
		}
		switch t.Effect {
		case TaintNoSchedule, TaintPreferNoSchedule, TaintNoExecute:
		default:
			return fmt.Errorf("%w %q: taints[%d].effect %q is not NoSchedule, PreferNoSchedule or NoExecute", ErrInvalidNode, n.Name, i, t.Effect)
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
