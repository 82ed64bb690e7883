package autoscaler

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// LabelZone is the zone label new nodes of a group with a Zone carry.
const LabelZone = "topology.kubernetes.io/zone"

// newNodes names and labels n new nodes of g requested at now, arriving
// at arrives; a new rack takes them all when ownRack is set (a gang's
// scale-up), else they fill the last rack first.
func (a *Autoscaler) newNodes(g *groupState, n int, ownRack bool, now, arrives time.Duration) []*nodeState {
	out := make([]*nodeState, 0, n)
	for i := range n {
		node := g.makeNode(ownRack && i == 0)
		ns := &nodeState{name: node.Name, group: g, node: node, requested: now, arrives: arrives}
		a.nodes[node.Name] = ns
		a.names = nil
		out = append(out, ns)
		g.live++
		g.maxNodes = max(g.maxNodes, g.live)
	}
	return out
}

// makeNode names and labels g's next node; newRack opens a rack for it.
func (g *groupState) makeNode(newRack bool) cluster.Node {
	g.created++
	node := g.Template
	node.Name = g.Name + "-" + strconv.Itoa(g.created)
	node.Labels = maps.Clone(g.Template.Labels)
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	if g.RackSize > 0 {
		if newRack || g.racks == 0 || g.rackFill >= g.RackSize {
			g.racks, g.rackFill = g.racks+1, 0
		}
		g.rackFill++
		node.Labels[g.RackLabel] = g.Name + "-rack-" + strconv.Itoa(g.racks)
	}
	if g.Zone != "" {
		node.Labels[LabelZone] = g.Zone
	}
	node.Labels[gangsim.LabelHostname] = node.Name
	return node
}

// counters are what makeNode changes, for a preview to restore.
type counters struct{ created, racks, rackFill int }

func (g *groupState) save() counters { return counters{g.created, g.racks, g.rackFill} }
func (g *groupState) restore(c counters) {
	g.created, g.racks, g.rackFill = c.created, c.racks, c.rackFill
}

// join adds a node that arrived to the scheduler, with its ResourceSlices.
func (a *Autoscaler) join(n *nodeState) error {
	if err := a.s.AddNode(n.node); err != nil {
		return fmt.Errorf("autoscaler: node group %q: %w", n.group.Name, err)
	}
	for i, rs := range a.slicesFor(n.group, n.name) {
		if err := a.s.AddResourceSlice(*rs); err != nil {
			return fmt.Errorf("autoscaler: node group %q: devices[%d]: %w", n.group.Name, i, err)
		}
	}
	n.ready = true
	return nil
}

// drawDelay is g's provisioning delay for one scale-up.
func (a *Autoscaler) drawDelay(g *groupState) time.Duration {
	if g.ProvisioningDelay.Dist != nil {
		return max(g.ProvisioningDelay.Dist(a.rng), 0)
	}
	return g.ProvisioningDelay.Fixed
}

// tickAtOrAfter is the first scan time at or after t.
func (a *Autoscaler) tickAtOrAfter(t time.Duration) time.Duration {
	if t <= a.origin {
		return a.origin
	}
	k := (t - a.origin + a.cfg.ScanInterval - 1) / a.cfg.ScanInterval
	return a.origin + k*a.cfg.ScanInterval
}

// nextScan is when the next scan may change something, or false.
func (a *Autoscaler) nextScan() (time.Duration, bool) {
	if !a.scanned {
		return a.tickAtOrAfter(a.origin), true
	}
	after := a.lastScan + a.cfg.ScanInterval
	if a.arrived {
		// nodes joined at arrivedAt: the scheduler places pods on them
		// at that instant, after the autoscaler's step, so the scan
		// that sees them is the next one
		after = max(after, a.tickAtOrAfter(a.arrivedAt+1))
	}
	switch {
	case a.dirty:
		return max(after, a.tickAtOrAfter(a.lastChange)), true
	case a.hasWake:
		return max(after, a.tickAtOrAfter(a.wake)), true
	}
	return 0, false
}

// NextTime is when the autoscaler next has something to do (a node
// arriving or timing out, a scan that may change something); false when
// no scan can change anything until the cluster changes.
func (a *Autoscaler) NextTime() (time.Duration, bool) {
	if !a.started {
		return 0, false
	}
	t, ok := a.nextScan()
	for _, n := range a.upcoming {
		due := min(n.arrives, n.requested+a.cfg.MaxNodeProvisionTime)
		if !ok || due < t {
			t, ok = due, true
		}
	}
	if ok {
		// the scheduler may change the cluster before t (a pod bound on
		// a node counted unneeded): the next tick looks, as the cluster
		// autoscaler's loop does
		t = min(t, a.tickAtOrAfter(a.lastStep+1))
	}
	return t, ok
}

// Step does what is due at now (s.Now() must be now): nodes arriving,
// then a scan (scale-up, then scale-down) when one is due.
func (a *Autoscaler) Step(s *gangsim.Scheduler, now time.Duration) error {
	if !a.started {
		if err := a.Start(s); err != nil {
			return err
		}
	}
	if s != a.s {
		return fmt.Errorf("autoscaler: Step with another scheduler than Start's")
	}
	if s.Now() != now {
		return fmt.Errorf("autoscaler: Step at %v while the scheduler is at %v", now, s.Now())
	}
	a.lastStep = max(a.lastStep, now)
	if err := a.arrivals(now); err != nil {
		return err
	}
	if t, ok := a.nextScan(); !ok || t > now {
		return nil
	}
	if err := a.scan(now); err != nil {
		return err
	}
	// nodes of a group without provisioning delay join at once, so that
	// the next time is always after this step
	return a.arrivals(now)
}

// arrivals adds the nodes due by now and gives up on those not ready
// after MaxNodeProvisionTime.
func (a *Autoscaler) arrivals(now time.Duration) error {
	var ready, late []*nodeState
	keep := a.upcoming[:0]
	for _, n := range a.upcoming {
		deadline := n.requested + a.cfg.MaxNodeProvisionTime
		switch {
		case n.arrives <= now && n.arrives <= deadline:
			ready = append(ready, n)
		case deadline <= now && n.arrives > deadline:
			late = append(late, n)
		default:
			keep = append(keep, n)
		}
	}
	a.upcoming = keep
	for _, batch := range byGroup(ready) {
		for _, n := range batch {
			if err := a.join(n); err != nil {
				return err
			}
		}
		batch[0].group.nodeArrived()
		a.emit(Event{At: now, Kind: EventNodeReady, Group: batch[0].group.Name, Nodes: names(batch)})
		a.arrived, a.arrivedAt = true, now
	}
	for _, batch := range byGroup(late) {
		g := batch[0].group
		for _, n := range batch {
			a.dropNode(n, now)
			n.req.end = min(n.req.end, now)
		}
		g.backOff(now)
		a.lastFailure, a.failed = now, true
		a.emit(Event{At: now, Kind: EventScaleUpTimeout, Group: g.Name, Nodes: names(batch),
			Reason: fmt.Sprintf("not ready after max-node-provision-time %v; group backed off for %v", a.cfg.MaxNodeProvisionTime, g.backoff)})
		a.dirty, a.lastChange = true, now
	}
	return nil
}

// nextBackoff is how long a timeout at now backs g off, as the cluster
// autoscaler's exponential back-off decides: NodeGroupBackoff after the
// first; after a further one, twice the one before (at most
// MaxNodeGroupBackoff) when the back-off before had ended, or the same
// again when the group is still backed off (a scale-up made before it
// timing out: concurrent failures do not make it grow); starting over
// once NodeGroupBackoffReset has passed since the last timeout.
func (g *groupState) nextBackoff(now time.Duration) time.Duration {
	if g.failures == 0 || now-g.lastFailure > NodeGroupBackoffReset {
		return NodeGroupBackoff
	}
	if now <= g.backoffTil {
		return g.backoff
	}
	return min(2*g.backoff, MaxNodeGroupBackoff)
}

// nodeArrived ends the growth of g's back-off: a node of the group
// arrived (the cluster autoscaler removes its back-off data when a
// scale-up of the group succeeds), so the next timeout backs it off for
// NodeGroupBackoff again.
func (g *groupState) nodeArrived() { g.failures = 0 }

// backOff backs g off after a timeout at now.
func (g *groupState) backOff(now time.Duration) {
	g.backoff = g.nextBackoff(now)
	g.failures++
	g.lastFailure = now
	g.backoffTil = now + g.backoff
}

// dropNode ends a node's life (removed, or given up on) at now.
func (a *Autoscaler) dropNode(n *nodeState, now time.Duration) {
	n.gone, n.goneAt = true, now
	a.names = nil
	g := n.group
	g.live--
	g.closedHrs += (now - n.requested).Hours()
	delete(a.unneeded, n.name)
}

// byGroup splits nodes into runs of one group, in group order then name.
func byGroup(nodes []*nodeState) [][]*nodeState {
	slices.SortStableFunc(nodes, func(x, y *nodeState) int {
		return cmp.Or(cmp.Compare(x.group.index, y.group.index), cmp.Compare(x.group.created, y.group.created), cmpName(x.name, y.name))
	})
	var out [][]*nodeState
	for i, n := range nodes {
		if i == 0 || n.group != nodes[i-1].group {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], n)
	}
	return out
}

// cmpName orders node names of one group by their number (gpu-2 before
// gpu-10), then as strings.
func cmpName(x, y string) int { return cmp.Or(cmp.Compare(len(x), len(y)), cmp.Compare(x, y)) }

// scan is one pass of the autoscaler's loop at now.
func (a *Autoscaler) scan(now time.Duration) error {
	a.dirty, a.hasWake = false, false
	a.scanned, a.lastScan = true, now
	if err := a.sb.Sync(); err != nil {
		return err
	}
	if err := a.scaleUp(now); err != nil {
		return err
	}
	if a.cfg.ScaleDownDisabled {
		return nil
	}
	if err := a.sb.Sync(); err != nil {
		return err
	}
	return a.scaleDown(now)
}

// wakeAt notes that a scan at t may change something on its own.
func (a *Autoscaler) wakeAt(t time.Duration) {
	if !a.hasWake || t < a.wake {
		a.wake, a.hasWake = t, true
	}
}

// upcomingIn adds the upcoming nodes to the sandbox, returning their
// indexes there.
func (a *Autoscaler) upcomingIn() ([]int, error) {
	idx := make([]int, 0, len(a.upcoming))
	for _, n := range a.upcoming {
		i, err := a.sb.AddNode(n.node, a.slicesFor(n.group, n.name))
		if err != nil {
			return nil, err
		}
		idx = append(idx, i)
	}
	return idx, nil
}

// slicesFor is g's devices as published for the named node.
func (a *Autoscaler) slicesFor(g *groupState, name string) []*cluster.ResourceSlice {
	if len(g.Devices) == 0 {
		return nil
	}
	out := make([]*cluster.ResourceSlice, len(g.Devices))
	for i, rs := range g.Devices {
		rs.NodeName, rs.Name = name, name+"-"+strconv.Itoa(i)
		if rs.Pool.Name == "" {
			rs.Pool.Name = name
		}
		out[i] = &rs
	}
	return out
}
