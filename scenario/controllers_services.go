package scenario

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
func (f *fleet) serviceChange(ch podChange) error {
	cp, c := ch.pod, ch.pod.ctl
	if cp.state != podActive {
		return nil
	}
	if ch.kind != gangsim.EventPodRejected {
		c.refused = false
	}
	switch ch.kind {
	case gangsim.EventPodRejected:
		f.end(cp, podEnded)
		c.refused = true
		return nil
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
		f.end(cp, podEnded)
		if cp.node != "" {
			c.vacant = append(c.vacant, cp.node)
		}
	case gangsim.EventPodTerminated: // a DaemonSet's pod whose node was removed
		return f.remove(cp, podEnded)
	}
	f.markDirty(c)
	return nil
}

// syncService makes the pods a service lacks.
func (f *fleet) syncService(c *ctlRun) error {
	if c.refused {
		return nil
	}
	def, ns := &c.c.def, c.c.Namespace
	switch c.c.Kind {
	case "ReplicaSet":
		for c.active < def.Replicas {
			if err := f.make(c, f.freeName(ns, &c.next, suffixed(c.c.Name)), -1, "", 0); err != nil {
				return err
			}
		}
	case "StatefulSet":
		for ord := def.OrdinalStart; ord < def.OrdinalStart+def.Replicas; ord++ {
			if c.activeAt[ord] == 0 {
				if err := f.make(c, c.c.Name+"-"+strconv.Itoa(ord), ord, "", c.madeAt[ord]); err != nil {
					return err
				}
			}
		}
	case "DaemonSet":
		vacant := c.vacant
		c.vacant = nil
		for _, node := range vacant {
			if _, there := f.s.Node(node); !there || c.onNode[node] > 0 {
				continue
			}
			k := max(c.madeOn[node], 1)
			name := f.freeName(ns, &k, suffixed(c.c.Name+"-"+node))
			if err := f.make(c, name, -1, node, 0); err != nil {
				return err
			}
		}
	}
	return nil
}
