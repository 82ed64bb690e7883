package autoscaler

import (
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// updateUnneeded records the nodes unneeded from now on (NodeUnneeded)
// and those needed again (NodeNeeded, with why).
func (a *Autoscaler) updateUnneeded(now time.Duration, unneeded []candidate, notes map[string]string) {
	now2 := map[string]bool{}
	for _, c := range unneeded {
		now2[c.n.name] = true
		if _, was := a.unneeded[c.n.name]; was {
			continue
		}
		a.unneeded[c.n.name] = now
		reason := fmt.Sprintf("utilisation %.2f under %.2f; its pods can move", c.util, a.threshold(c.n.group))
		if c.empty {
			reason = "empty"
		}
		a.emit(Event{At: now, Kind: EventNodeUnneeded, Group: c.n.group.Name, Nodes: []string{c.n.name}, Reason: reason})
	}
	for _, name := range a.nodeNames() {
		if _, was := a.unneeded[name]; !was || now2[name] {
			continue
		}
		delete(a.unneeded, name)
		n := a.nodes[name]
		a.emit(Event{At: now, Kind: EventNodeNeeded, Group: n.group.Name, Nodes: []string{name}, Reason: notes[name]})
	}
	a.wakeDue(now)
}

func (a *Autoscaler) threshold(g *groupState) float64 {
	if g.gpu {
		return a.cfg.ScaleDownGPUUtilizationThreshold
	}
	return a.cfg.ScaleDownUtilizationThreshold
}

// wakeDue notes when the first unneeded node is due for removal.
func (a *Autoscaler) wakeDue(now time.Duration) {
	for _, since := range a.unneeded {
		if due := since + a.cfg.ScaleDownUnneededTime; due > now {
			a.wakeAt(due)
		} else {
			a.wakeAt(now + a.cfg.ScanInterval)
		}
	}
}

// removeDue removes the nodes unneeded for ScaleDownUnneededTime: up to
// MaxEmptyBulkDelete empty ones and MaxDrainParallelism others, never a
// group below its min.
func (a *Autoscaler) removeDue(now time.Duration) error {
	var empty, full []*nodeState
	for _, name := range a.nodeNames() {
		since, ok := a.unneeded[name]
		if !ok || since+a.cfg.ScaleDownUnneededTime > now {
			continue
		}
		n := a.nodes[name]
		if ni, ok := a.s.Node(name); ok && ni.PodCount() == 0 {
			empty = append(empty, n)
		} else {
			full = append(full, n)
		}
	}
	empty = empty[:min(len(empty), MaxEmptyBulkDelete)]
	full = full[:min(len(full), MaxDrainParallelism)]
	for _, n := range slices.Concat(empty, full) {
		if n.group.live <= n.group.Min {
			continue
		}
		if err := a.remove(n, now); err != nil {
			return err
		}
	}
	return nil
}

// remove drains a node as the cluster autoscaler does (cordon, evict its
// pods while their budgets allow) and deletes it; a pod a budget keeps
// fails the deletion: the node is uncordoned and stays.
func (a *Autoscaler) remove(n *nodeState, now time.Duration) error {
	ni, _ := a.s.Node(n.name)
	var pods []cluster.PodKey
	for pi := range ni.Pods() {
		pods = append(pods, pi.Key())
	}
	if len(pods) > 0 {
		if err := a.s.DrainNode(n.name); err != nil {
			return err
		}
		if left, _ := a.s.Node(n.name); left.PodCount() > 0 {
			if err := a.s.UncordonNode(n.name); err != nil {
				return err
			}
			delete(a.unneeded, n.name)
			a.lastFailure, a.failed = now, true
			a.emit(Event{At: now, Kind: EventNodeNeeded, Group: n.group.Name, Nodes: []string{n.name},
				Reason: "scale-down failed: a disruption budget kept a pod on the node"})
			return nil
		}
	}
	if err := a.s.RemoveNode(n.name); err != nil {
		return err
	}
	a.dropNode(n, now)
	n.group.removed++
	a.lastDelete, a.deleted = now, true
	a.emit(Event{At: now, Kind: EventScaleDown, Group: n.group.Name, Nodes: []string{n.name}, Pods: pods,
		Reason: fmt.Sprintf("unneeded for %v", a.cfg.ScaleDownUnneededTime)})
	return nil
}
