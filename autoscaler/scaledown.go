package autoscaler

import (
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// SystemNamespace is the namespace whose pods block scale-down unless a
// disruption budget covers them (--skip-nodes-with-system-pods).
const SystemNamespace = "kube-system"

// candidate is a node the scan examines for removal.
type candidate struct {
	n     *nodeState
	index int // in the sandbox
	util  float64
	empty bool
}

// scaleDown is the scan's scale-down: it finds the unneeded nodes (under
// the utilisation threshold, every pod able to move elsewhere), tells
// when one becomes or stops being unneeded, and removes those unneeded
// for ScaleDownUnneededTime once no cooldown holds.
func (a *Autoscaler) scaleDown(now time.Duration) error {
	cands, notes := a.candidates()
	unneeded := a.simulateRemovals(cands, notes)
	a.updateUnneeded(now, unneeded, notes)
	if len(a.unneeded) == 0 {
		return nil
	}
	if until, cool := a.cooldown(); cool && now < until {
		a.wakeAt(until)
		a.wakeDue(now)
		return nil
	}
	return a.removeDue(now)
}

// cooldown is when scale-down may delete again: after the delay after a
// scale-up, after a deletion and after a failure.
func (a *Autoscaler) cooldown() (time.Duration, bool) {
	var until time.Duration
	cool := false
	note := func(did bool, at, d time.Duration) {
		if did && at+d > until {
			until, cool = at+d, true
		}
	}
	note(a.scaledUp, a.lastScaleUp, a.cfg.ScaleDownDelayAfterAdd)
	note(a.deleted, a.lastDelete, a.cfg.ScaleDownDelayAfterDelete)
	note(a.failed, a.lastFailure, a.cfg.ScaleDownDelayAfterFailure)
	return until, cool
}

// candidates are the group nodes that are ready, under their threshold
// and above their group's min (counting the others already chosen),
// those unneeded already first, then by name; notes says why the others
// are needed, for those unneeded before.
func (a *Autoscaler) candidates() ([]candidate, map[string]string) {
	notes := map[string]string{}
	var out []candidate
	spare := map[*groupState]int{}
	for _, g := range a.groups {
		spare[g] = g.live - g.Min
	}
	for _, name := range a.nodeNames() {
		n := a.nodes[name]
		if !n.ready || n.gone {
			continue
		}
		i, ok := a.sb.Index(name)
		if !ok {
			continue
		}
		ni := a.sb.Node(i)
		util, threshold := a.utilization(n.group, ni)
		_, wasUnneeded := a.unneeded[name] // only their notes are read (NodeNeeded)
		if util >= threshold {
			if wasUnneeded {
				notes[name] = fmt.Sprintf("utilisation %.2f is not under %.2f", util, threshold)
			}
			continue
		}
		if spare[n.group] <= 0 {
			if wasUnneeded {
				notes[name] = fmt.Sprintf("group %s at its min %d", n.group.Name, n.group.Min)
			}
			continue
		}
		spare[n.group]--
		out = append(out, candidate{n: n, index: i, util: util, empty: ni.PodCount() == 0})
	}
	slices.SortStableFunc(out, func(x, y candidate) int {
		_, xu := a.unneeded[x.n.name]
		_, yu := a.unneeded[y.n.name]
		if xu != yu {
			if xu {
				return -1
			}
			return 1
		}
		return 0
	})
	return out, notes
}

// nodeNames lists the autoscaler's nodes not gone: group order, then
// creation. The list is kept until a node is made or goes (read-only).
func (a *Autoscaler) nodeNames() []string {
	if a.names != nil {
		return a.names
	}
	all := make([]*nodeState, 0, len(a.nodes))
	for _, n := range a.nodes {
		if !n.gone {
			all = append(all, n)
		}
	}
	a.names = []string{}
	for _, batch := range byGroup(all) {
		a.names = append(a.names, names(batch)...)
	}
	return a.names
}

// utilization is the node's use as the cluster autoscaler measures it:
// the larger of its cpu and memory requests over allocatable, or, on a
// GPU node, its GPUs requested over allocatable, with the threshold that
// applies.
func (a *Autoscaler) utilization(g *groupState, ni *cluster.NodeInfo) (float64, float64) {
	req, alloc := ni.Requested(), ni.Allocatable()
	if g.gpu {
		if gpus := alloc.Get(ResourceGPU); gpus > 0 {
			return float64(req.Get(ResourceGPU)) / float64(gpus), a.cfg.ScaleDownGPUUtilizationThreshold
		}
	}
	var u float64
	if alloc.MilliCPU > 0 {
		u = float64(req.MilliCPU) / float64(alloc.MilliCPU)
	}
	if alloc.Memory > 0 {
		u = max(u, float64(req.Memory)/float64(alloc.Memory))
	}
	return u, a.cfg.ScaleDownUtilizationThreshold
}

// simulateRemovals takes the candidates off the sandbox one by one, each
// one's pods moved to the other nodes (not to the candidates taken off
// before it, nor to upcoming nodes); a candidate whose pod cannot move,
// or may not be evicted, stays (notes says why). At most
// NonEmptyCandidates non-empty nodes are examined in one scan.
func (a *Autoscaler) simulateRemovals(cands []candidate, notes map[string]string) []candidate {
	removed := map[int]bool{}
	budgets := map[string]int{}
	var budgetList []cluster.BudgetStatus
	for b := range a.sb.Budgets() {
		budgetList = append(budgetList, b)
		budgets[b.Budget.Key()] = b.Allowed
	}
	var out []candidate
	nonEmpty, hint := 0, -1
	for _, c := range cands {
		if !c.empty {
			if nonEmpty >= NonEmptyCandidates {
				notes[c.n.name] = "not examined in this scan"
				continue
			}
			nonEmpty++
		}
		m := a.sb.Mark()
		taken := mapsClone(budgets)
		removed[c.index] = true
		if why, h := a.moveAll(c, removed, budgetList, taken, hint); why != "" {
			a.sb.Revert(m)
			delete(removed, c.index)
			notes[c.n.name] = why
			continue
		} else {
			hint = h
		}
		budgets = taken
		out = append(out, c)
	}
	return out
}

// moveAll moves every pod of c's node elsewhere in the sandbox, or says
// why one cannot go; hint is the node tried first (the last destination).
func (a *Autoscaler) moveAll(c candidate, removed map[int]bool, budgetList []cluster.BudgetStatus, budgets map[string]int, hint int) (string, int) {
	ni := a.sb.Node(c.index)
	pods := slices.Clone(ni.PodList())
	for _, bound := range pods {
		p := bound.Pod()
		if p.Owner != nil && p.Owner.Kind == "DaemonSet" {
			continue // goes with its node
		}
		if why := a.blocks(bound, budgetList, budgets); why != "" {
			return why, hint
		}
		pi, ok := a.sb.Pod(bound.Key())
		if !ok {
			pi = bound.Pending()
		}
		if err := a.sb.RemovePod(bound.Key(), c.index); err != nil {
			return err.Error(), hint
		}
		dest, ok := a.destination(pi, removed, hint)
		if !ok {
			return "pod " + bound.Key().Display() + " has nowhere else to go", hint
		}
		a.sb.Place(pi, dest)
		hint = dest
	}
	return "", hint
}

// blocks says why a pod keeps its node (the drain rules): no controller,
// a disruption budget with no disruption left, a system pod without a
// budget. It takes one disruption from the pod's budgets.
func (a *Autoscaler) blocks(pi *cluster.PodInfo, budgetList []cluster.BudgetStatus, budgets map[string]int) string {
	p := pi.Pod()
	if p.Owner == nil {
		return "pod " + pi.Key().Display() + " has no controller"
	}
	covered := false
	for _, b := range budgetList {
		if !b.Budget.Matches(p) {
			continue
		}
		covered = true
		if budgets[b.Budget.Key()] < 1 {
			return "pod " + pi.Key().Display() + ": disruption budget " + b.Budget.Key() + " allows no more disruptions"
		}
		budgets[b.Budget.Key()]--
	}
	if !covered && p.Namespace == SystemNamespace {
		return "pod " + pi.Key().Display() + " is a kube-system pod without a disruption budget"
	}
	return ""
}

// destination finds a node for pi among the nodes not removed: the hint
// first, then in name order. The sandbox holds the real nodes alone here
// (no upcoming node). A node without the cpu or memory room the pod
// requests is passed over before its filters run.
func (a *Autoscaler) destination(pi *cluster.PodInfo, removed map[int]bool, hint int) (int, bool) {
	if hint >= 0 && !removed[hint] && a.roomFor(pi, hint) && a.sb.Fits(pi, hint) {
		return hint, true
	}
	for i := range a.sb.Len() {
		if i == hint || removed[i] || !a.roomFor(pi, i) {
			continue
		}
		if a.sb.Fits(pi, i) {
			return i, true
		}
	}
	return 0, false
}

// roomFor is NodeResourcesFit's cpu and memory check, inline:
// a necessary condition of the filters.
func (a *Autoscaler) roomFor(pi *cluster.PodInfo, i int) bool {
	ni := a.sb.Node(i)
	req, used, alloc := pi.Request(), ni.Requested(), ni.Allocatable()
	return req.MilliCPU+used.MilliCPU <= alloc.MilliCPU && req.Memory+used.Memory <= alloc.Memory
}

func mapsClone(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
