package gangsim

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// AddNode adds a node; pending pods are retried. A node without the
// kubernetes.io/hostname label gets it, set to its name, as the kubelet
// sets it.
func (s *Scheduler) AddNode(n cluster.Node) error {
	if err := s.usable(); err != nil {
		return err
	}
	n = withHostname(n)
	if err := s.cache.AddNode(n); err != nil {
		return err
	}
	s.emit(nodeEvent(EventNodeAdded, n.Name, nodeObject(s.cache, n.Name)))
	s.clusterChanged(fw.NodeAdded)
	return nil
}

// nodeObject returns a copy of a node as the cache holds it, for an event.
func nodeObject(cache *cluster.Cache, name string) *cluster.Node {
	ni, _ := cache.Node(name)
	n := ni.Node().Clone()
	return &n
}

// UpdateNode replaces a node's labels, allocatable, taints and
// unschedulable flag; its pods stay. Pending pods are retried. An
// allocatable less than what the node's pods request (terminating ones
// included) is refused and changes nothing: take pods off first.
func (s *Scheduler) UpdateNode(n cluster.Node) error {
	if err := s.usable(); err != nil {
		return err
	}
	if ni, ok := s.cache.Node(n.Name); ok && !ni.Requested().Fits(n.Allocatable) {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidNode, Object: strconv.Quote(n.Name), Field: "allocatable",
			Detail: fmt.Sprintf("%v is less than its pods request, %v", n.Allocatable, ni.Requested())}
	}
	return s.updateNode(n, EventNodeUpdated)
}

func (s *Scheduler) updateNode(n cluster.Node, kind EventKind) error {
	n = withHostname(n)
	if err := s.cache.UpdateNode(n); err != nil {
		return err
	}
	s.emit(nodeEvent(kind, n.Name, nodeObject(s.cache, n.Name)))
	s.clusterChanged(fw.NodeChanged)
	return nil
}

// CordonNode marks a node unschedulable; its pods keep running.
func (s *Scheduler) CordonNode(name string) error { return s.setUnschedulable(name, true) }

// UncordonNode makes a cordoned node schedulable again.
func (s *Scheduler) UncordonNode(name string) error { return s.setUnschedulable(name, false) }

func (s *Scheduler) setUnschedulable(name string, v bool) error {
	if err := s.usable(); err != nil {
		return err
	}
	ni, ok := s.cache.Node(name)
	if !ok {
		return fmt.Errorf("%w: node %q", cluster.ErrNodeNotFound, name)
	}
	n := ni.Node().Clone()
	n.Unschedulable = v
	kind := EventNodeUncordoned
	if v {
		kind = EventNodeCordoned
	}
	return s.updateNode(n, kind)
}

// RemoveNode deletes a node, as when a machine is lost: its pods are
// terminated at once and go back to the queue as pending pods.
func (s *Scheduler) RemoveNode(name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	var claims []string
	if ni, ok := s.cache.Node(name); ok {
		for key := range ni.Claims() {
			claims = append(claims, key)
		}
	}
	pods, err := s.cache.RemoveNode(name)
	if err != nil {
		return err
	}
	if err := s.terminate(pods, name, TerminatedNodeRemoved); err != nil {
		return err
	}
	for _, key := range claims {
		s.emit(claimEvent(EventClaimReleased, key, name, nil)) // its devices went with the node
	}
	s.emit(nodeEvent(EventNodeRemoved, name, nil))
	s.clusterChanged(fw.NodeDeleted | fw.AssignedPodDeleted)
	return nil
}

// DrainNode cordons a node and evicts its pods back to the queue, as
// `kubectl drain` does, while their pod disruption budgets allow: a pod
// whose eviction a budget forbids stays on the node, and the drain leaves
// it there (a budget counts the drain's own earlier evictions).
func (s *Scheduler) DrainNode(name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.CordonNode(name); err != nil {
		return err
	}
	ni, _ := s.cache.Node(name)
	var evict []*cluster.PodInfo
	for _, pi := range slices.Collect(ni.Pods()) {
		if !budgetsAllow(s.cache, pi) {
			continue
		}
		if err := s.removeFromNode(pi.Key()); err != nil {
			return err
		}
		evict = append(evict, pi)
	}
	if err := s.terminate(evict, name, TerminatedNodeDrained); err != nil {
		return err
	}
	s.emit(nodeEvent(EventNodeDrained, name, nil))
	s.clusterChanged(fw.AssignedPodDeleted)
	return nil
}

// budgetsAllow reports whether every budget covering pi allows one more
// disruption now.
func budgetsAllow(cache *cluster.Cache, pi *cluster.PodInfo) bool {
	for b := range cache.Budgets() {
		if b.Budget.Matches(pi.Pod()) && b.Allowed < 1 {
			return false
		}
	}
	return true
}

// LabelHostname is the label every node carries with its name.
const LabelHostname = "kubernetes.io/hostname"

// withHostname returns n with the hostname label set when it has none.
func withHostname(n cluster.Node) cluster.Node {
	if _, ok := n.Labels[LabelHostname]; ok || n.Name == "" {
		return n
	}
	labels := make(map[string]string, len(n.Labels)+1)
	for k, v := range n.Labels {
		labels[k] = v
	}
	labels[LabelHostname] = n.Name
	n.Labels = labels
	return n
}

// SetNamespace records a namespace's labels, which namespace selectors of
// pod affinity terms match. A namespace never set has no labels.
func (s *Scheduler) SetNamespace(ns cluster.Namespace) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.cache.SetNamespace(ns)
}
