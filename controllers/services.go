package controllers

import (
	"strconv"

	"github.com/gangsim/gangsim"
)

// The controllers of services: a ReplicaSet keeps replicas pods, making a
// new one (the next name) for each that ends or is deleted; a StatefulSet
// keeps one pod per ordinal, making the same name again; a DaemonSet keeps
// one pod on each node it had one on, making a new one (<set>-<node>-<k>)
// for each that ends or is deleted while its node is there, and lets the
// pod of a removed node go, as Kubernetes' pod garbage collector deletes
// it. A pod evicted by preemption, or whose node is drained, goes back to
// the queue (docs/semantics.md §7): that pod is its own replacement, as
// the new pod a controller would make in its place is the same pod.

// serviceChange acts on an event of a service's pod.
func (m *Manager) serviceChange(ch podChange) error {
	cp, c := ch.pod, ch.pod.ctl
	if cp.state != podActive {
		return nil
	}
	if ch.kind != gangsim.EventPodRejected {
		c.refused = false
	}
	switch ch.kind {
	case gangsim.EventPodRejected:
		m.end(cp, podEnded)
		c.refused = true
		return nil
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
		m.end(cp, podEnded)
		if cp.node != "" {
			c.vacant = append(c.vacant, cp.node)
		}
	case gangsim.EventPodTerminated: // a DaemonSet's pod whose node was removed
		return m.remove(cp, podEnded)
	}
	m.markDirty(c)
	return nil
}

// syncService makes the pods a service lacks.
func (m *Manager) syncService(c *controller) error {
	if c.refused {
		return nil
	}
	w, ns := c.w, c.w.Namespace
	switch w.Kind {
	case KindReplicaSet:
		for c.active < w.Replicas {
			if err := m.make(c, m.freeName(ns, &c.next, suffixed(w.Name)), -1, "", 0); err != nil {
				return err
			}
		}
	case KindStatefulSet:
		for ord := w.OrdinalStart; ord < w.OrdinalStart+w.Replicas; ord++ {
			if c.activeAt[ord] == 0 {
				if err := m.make(c, w.Name+"-"+strconv.Itoa(ord), ord, "", c.madeAt[ord]); err != nil {
					return err
				}
			}
		}
	case KindDaemonSet:
		vacant := c.vacant
		c.vacant = nil
		for _, node := range vacant {
			if _, there := m.s.Node(node); !there || c.onNode[node] > 0 {
				continue
			}
			k := max(c.madeOn[node], 1)
			name := m.freeName(ns, &k, suffixed(w.Name+"-"+node))
			if err := m.make(c, name, -1, node, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// suffixed names pods prefix-<k>.
func suffixed(prefix string) func(int) string {
	return func(k int) string { return prefix + "-" + strconv.Itoa(k) }
}
