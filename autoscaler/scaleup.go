package autoscaler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// unit is what scales up as one: a pod, or a gang's pending pods
// (atomically, as a ProvisioningRequest of class best-effort-atomic).
type unit struct {
	pods []*cluster.PodInfo
	gang *podgroup.PodGroup // nil for regular pods
	// root is the CompositePodGroup at the top of the pods' hierarchy:
	// all its pending pods are one unit, as the scheduler places them
	// (zero when they are in no hierarchy)
	root podgroup.Ref
	// placed are the hierarchy's pods found room for on upcoming or freed
	// nodes (notOnUpcoming), placed there in the sandbox
	placed []gangsim.Placed
	first  time.Duration // earliest arrival, for order
	// marked is when the scheduler last found no room for the unit's
	// (first) pod: nodes with room freed since may take it
	marked time.Duration
	key    string
}

// option is what one group would add for some pods.
type option struct {
	g      *groupState
	nodes  int
	pods   []*cluster.PodInfo
	reqCPU int64
	reqMem int64
	reqGPU int64
}

// scaleUp is the scan's scale-up: the unschedulable pods not covered by
// upcoming nodes are packed onto template nodes of each group; the
// expander picks one option for one gang, then one for the regular pods.
// Gangs are taken in order, one request a scan as the cluster autoscaler
// takes ProvisioningRequests; a gang no group can help is told so
// (NoScaleUp) and the next one is tried, so it holds no other back.
func (a *Autoscaler) scaleUp(now time.Duration) error {
	units := a.pendingUnits()
	if len(units) == 0 {
		return nil
	}
	idx, err := a.upcomingIn()
	if err != nil {
		return err
	}
	if units = a.notOnUpcoming(units, idx); len(units) == 0 {
		return nil
	}
	var regular []*cluster.PodInfo
	var gangs []unit
	for _, u := range units {
		if u.gang != nil || u.root.Composite {
			gangs = append(gangs, u)
		} else {
			regular = append(regular, u.pods...)
		}
	}
	for _, g := range gangs {
		if a.scaleUpFor(now, g) {
			break
		}
	}
	if len(regular) > 0 {
		a.scaleUpFor(now, unit{pods: regular})
	}
	return nil
}

// pendingUnits are the pods the scheduler marked unschedulable, as units,
// in arrival order.
func (a *Autoscaler) pendingUnits() []unit {
	byGang := map[string]int{}
	var units []unit
	for _, key := range slices.Sorted(mapKeys(a.pending)) {
		st, ok := a.s.Pod(key)
		if !ok || !st.Unschedulable {
			delete(a.pending, key)
			continue
		}
		pi, ok := a.sb.Pod(key)
		if !ok {
			continue
		}
		p := pi.Pod()
		if p.PodGroup != "" {
			gkey := podgroup.Key(p.Namespace, p.PodGroup)
			if root := a.s.GroupRoot(podgroup.Ref{Key: gkey}); root.Composite {
				if i, seen := byGang[root.Key]; seen {
					units[i].add(pi, st.ArrivedAt, a.pending[key])
					continue
				}
				byGang[root.Key] = len(units)
				units = append(units, unit{pods: []*cluster.PodInfo{pi}, root: root, first: st.ArrivedAt, marked: a.pending[key], key: root.Key})
				continue
			}
			if gs, ok := a.s.PodGroup(gkey); ok && gs.Group.Policy == podgroup.Gang {
				if i, seen := byGang[gkey]; seen {
					units[i].add(pi, st.ArrivedAt, a.pending[key])
					continue
				}
				g := gs.Group
				byGang[gkey] = len(units)
				units = append(units, unit{pods: []*cluster.PodInfo{pi}, gang: &g, first: st.ArrivedAt, marked: a.pending[key], key: gkey})
				continue
			}
		}
		units = append(units, unit{pods: []*cluster.PodInfo{pi}, first: st.ArrivedAt, marked: a.pending[key], key: string(key)})
	}
	slices.SortStableFunc(units, func(x, y unit) int {
		return cmp.Or(cmp.Compare(y.pods[0].Priority(), x.pods[0].Priority()), cmp.Compare(x.first, y.first), cmp.Compare(x.key, y.key))
	})
	return units
}

// add puts one more pending pod, arrived and marked at the times given, in u.
func (u *unit) add(pi *cluster.PodInfo, arrived, marked time.Duration) {
	u.pods = append(u.pods, pi)
	u.first = min(u.first, arrived)
	u.marked = min(u.marked, marked)
}

// notOnUpcoming drops the units that fit on upcoming nodes, or on nodes
// where room appeared since the scheduler last tried them (placing them
// there, so that they count against later units), as the cluster
// autoscaler's filter of schedulable pods does. The other nodes had no
// room for them at their last attempt.
//
// A pod alone that finds no room rules out, for the rest of the pass, the
// pods of its shape (shapeOf) on the same candidates, and the pods asking
// more cpu or memory than any candidate has free, as the cluster
// autoscaler's filter skips pods like one it could not place: nodes only
// fill up during the pass, so that keeps the answers and makes the pass
// linear in the pods rather than in pods times nodes.
func (a *Autoscaler) notOnUpcoming(units []unit, upcoming []int) []unit {
	freed := a.freedNodes(units)
	out := units[:0]
	var cands []int
	cur := -1 // the freed nodes cands holds, counted
	type shapeOn struct {
		shape podShape
		cands int
	}
	from := map[shapeOn]int{}     // the candidates before it had no room for the shape
	rooms := map[int]*roomBound{} // by len(cands)
	for _, u := range units {
		n := 0
		for _, f := range freed {
			if f.at >= u.marked {
				n++
			}
		}
		if n != cur {
			cands, cur = slices.Clone(upcoming), n
			for _, f := range freed {
				if f.at >= u.marked {
					cands = append(cands, f.index)
				}
			}
		}
		alone := len(u.pods) == 1 && u.gang == nil && !u.root.Composite
		var key shapeOn
		if alone {
			key = shapeOn{shapeOf(u.pods[0]), len(cands)}
			room := rooms[len(cands)]
			if room == nil {
				room = &roomBound{}
				rooms[len(cands)] = room
			}
			if !room.mayFit(u.pods[0]) {
				out = append(out, u)
				continue
			}
		}
		switch {
		case len(cands) == 0:
		case u.root.Composite:
			if a.placeHierarchy(&u, cands, upcoming) {
				continue
			}
		case alone:
			k, ok := a.placeOne(u.pods[0], cands, from[key], upcoming)
			if key.shape != (podShape{}) {
				from[key] = k
			}
			if ok {
				continue
			}
			if room := rooms[len(cands)]; !room.valid {
				room.measure(a.sb, cands)
			}
		case a.placeAll(u.pods, cands, upcoming):
			continue
		}
		out = append(out, u)
	}
	return out
}

// placeHierarchy is placeAll for a hierarchy: the scheduler's placement of
// it on the sandbox. When the placement puts pods on candidates, the
// pods it places are placed there and taken out of u; it reports whether
// none is left.
func (a *Autoscaler) placeHierarchy(u *unit, cands, upcoming []int) bool {
	placed, why := a.sb.PlaceGroup(u.root)
	if why != "" || !slices.ContainsFunc(placed, func(as gangsim.Placed) bool { return slices.Contains(cands, as.Node) }) {
		return false
	}
	for _, as := range placed {
		a.sb.Place(as.Pod, as.Node)
		if j := slices.Index(upcoming, as.Node); j >= 0 {
			a.waitFor(as.Pod.Key(), a.upcoming[j].req)
		}
	}
	u.placed = placed
	u.pods = slices.DeleteFunc(u.pods, func(pi *cluster.PodInfo) bool {
		return slices.ContainsFunc(placed, func(as gangsim.Placed) bool { return as.Pod == pi })
	})
	return len(u.pods) == 0
}

// placeAll places every pod on some candidate, or none. A pod placed on
// an upcoming node waits for that node's request (PodWaits).
func (a *Autoscaler) placeAll(pods []*cluster.PodInfo, cands, upcoming []int) bool {
	m := a.sb.Mark()
	at := make([]int, len(pods))
	for k, pi := range pods {
		i, ok := a.sb.FindNode(pi, cands)
		if !ok {
			a.sb.Revert(m)
			return false
		}
		a.sb.Place(pi, i)
		at[k] = i
	}
	for k, pi := range pods {
		if j := slices.Index(upcoming, at[k]); j >= 0 {
			a.waitFor(pi.Key(), a.upcoming[j].req)
		}
	}
	return true
}

// placeOne places pod on the first of cands[from:] it fits, and returns
// that candidate's position (len(cands) when none): a node without the
// cpu or memory free is passed over without running the filters. A pod
// placed on an upcoming node waits for that node's request.
func (a *Autoscaler) placeOne(pi *cluster.PodInfo, cands []int, from int, upcoming []int) (int, bool) {
	req := pi.Request()
	for k := from; k < len(cands); k++ {
		i := cands[k]
		if cpu, mem := free(a.sb.Node(i)); req.MilliCPU > cpu || req.Memory > mem {
			continue
		}
		if a.sb.Fits(pi, i) {
			a.sb.Place(pi, i)
			if j := slices.Index(upcoming, i); j >= 0 {
				a.waitFor(pi.Key(), a.upcoming[j].req)
			}
			return k, true
		}
	}
	return len(cands), false
}

// waitFor counts req among the scale-ups pod waits for.
func (a *Autoscaler) waitFor(pod cluster.PodKey, req *request) {
	if w := a.waits[pod]; w != nil && req != nil && !slices.Contains(w.reqs, req) {
		w.reqs = append(w.reqs, req)
	}
}

type freedNode struct {
	at    time.Duration
	index int
}

// freedNodes lists the nodes with room freed since the earliest mark of
// units, in sandbox order, forgetting the older ones.
func (a *Autoscaler) freedNodes(units []unit) []freedNode {
	oldest := units[0].marked
	for _, u := range units {
		oldest = min(oldest, u.marked)
	}
	var out []freedNode
	for name, at := range a.freed {
		i, ok := a.sb.Index(name)
		if at < oldest || !ok {
			delete(a.freed, name)
			continue
		}
		out = append(out, freedNode{at: at, index: i})
	}
	slices.SortFunc(out, func(x, y freedNode) int { return cmp.Compare(x.index, y.index) })
	return out
}

// scaleUpFor finds each group's option for the unit's pods, lets the
// expander choose, and requests the nodes; it reports whether it
// requested any.
func (a *Autoscaler) scaleUpFor(now time.Duration, u unit) bool {
	pods := u.pods
	var opts []option
	var why []string
	for _, g := range a.groups {
		o, reason := a.optionFor(g, u, now)
		if reason != "" {
			why = append(why, g.Name+": "+reason)
			continue
		}
		opts = append(opts, o)
	}
	if len(opts) == 0 {
		if len(a.groups) == 0 {
			why = append(why, "no node groups")
		}
		a.emit(Event{At: now, Kind: EventNoScaleUp, Pods: keys(pods), Reason: strings.Join(why, "; ")})
		return false
	}
	best := a.expand(opts)
	atomic := u.gang != nil || u.root.Composite
	a.request(now, best, atomic)
	if len(best.pods) < len(pods) { // regular pods, or a hierarchy's children it does without
		a.noScaleUpRest(now, pods, opts)
	}
	return true
}

// noScaleUpRest tells of the pods no option helps.
func (a *Autoscaler) noScaleUpRest(now time.Duration, pods []*cluster.PodInfo, opts []option) {
	helped := map[cluster.PodKey]bool{}
	for _, o := range opts {
		for _, p := range o.pods {
			helped[p.Key()] = true
		}
	}
	var rest []*cluster.PodInfo
	for _, p := range pods {
		if !helped[p.Key()] {
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		a.emit(Event{At: now, Kind: EventNoScaleUp, Pods: keys(rest), Reason: "no group can take them now (limits reached, or no template node fits them)"})
	}
}

// request asks for o's nodes at now.
func (a *Autoscaler) request(now time.Duration, o option, gang bool) {
	g := o.g
	delay := a.drawDelay(g)
	req := &request{at: now, end: now + delay}
	nodes := a.newNodes(g, o.nodes, gang && g.RackSize > 0, now, now+delay)
	for _, n := range nodes {
		n.req = req
	}
	a.upcoming = append(a.upcoming, nodes...)
	slices.SortStableFunc(a.upcoming, func(x, y *nodeState) int {
		return cmp.Or(cmp.Compare(x.arrives, y.arrives), cmp.Compare(x.group.index, y.group.index), cmpName(x.name, y.name))
	})
	g.added += o.nodes
	a.lastScaleUp, a.scaledUp = now, true
	a.dirty, a.lastChange = true, now // the next scan sees what is still not covered
	for _, p := range o.pods {
		a.waitFor(p.Key(), req)
	}
	reason := fmt.Sprintf("expander %s: %d node(s) for %d pod(s), ready in %v", a.cfg.Expander, o.nodes, len(o.pods), delay)
	a.emit(Event{At: now, Kind: EventScaleUp, Group: g.Name, Nodes: names(nodes), Pods: keys(o.pods), Reason: reason})
}

func keys(pods []*cluster.PodInfo) []cluster.PodKey {
	out := make([]cluster.PodKey, len(pods))
	for i, p := range pods {
		out[i] = p.Key()
	}
	return out
}

// limit is how many nodes g may add now: its max, the cluster's node,
// core and memory limits; why says which bound is 0.
func (a *Autoscaler) limit(g *groupState, now time.Duration) (n int, why string) {
	if now < g.backoffTil {
		if g.backoff < MaxNodeGroupBackoff {
			// the pods may get this group then. A back-off at its most
			// is not waited for: a group whose nodes never come in time
			// would keep the run going for ever; the scan after its end
			// that something else causes tries the group again.
			a.wakeAt(g.backoffTil)
		}
		return 0, fmt.Sprintf("backed off until %v after a timeout", g.backoffTil)
	}
	n = min(g.Max-g.live, a.cfg.MaxNodesPerScaleUp)
	why = fmt.Sprintf("max %d reached", g.Max) // MaxNodesPerScaleUp is at least 1: never the bound at 0
	nodes, cpu, mem := a.clusterTotals()
	bound := func(left int64, per int64, what string) {
		if per <= 0 {
			return
		}
		if k := int(max(left, 0) / per); k < n {
			n, why = k, what
		}
	}
	if a.cfg.MaxNodesTotal > 0 {
		bound(int64(a.cfg.MaxNodesTotal-nodes), 1, fmt.Sprintf("max-nodes-total %d reached", a.cfg.MaxNodesTotal))
	}
	if a.cfg.MaxCoresTotal > 0 {
		bound(satAdd(satMul(a.cfg.MaxCoresTotal, 1000), -cpu), g.resources.MilliCPU, fmt.Sprintf("cores-total max %d reached", a.cfg.MaxCoresTotal))
	}
	if a.cfg.MaxMemoryTotal > 0 {
		bound(satAdd(a.cfg.MaxMemoryTotal, -mem), g.resources.Memory, fmt.Sprintf("memory-total max %d reached", a.cfg.MaxMemoryTotal))
	}
	return max(n, 0), why
}

// clusterTotals counts the nodes, cores (milli) and memory of the cluster
// and of the nodes on the way.
func (a *Autoscaler) clusterTotals() (nodes int, cpu, mem int64) {
	for i := range a.sb.Len() {
		ni := a.sb.Node(i)
		if _, up := a.upcomingNode(ni.Name()); up {
			continue // counted below
		}
		nodes++
		cpu = satAdd(cpu, ni.Allocatable().MilliCPU)
		mem = satAdd(mem, ni.Allocatable().Memory)
	}
	for _, n := range a.upcoming {
		nodes++
		cpu = satAdd(cpu, n.node.Allocatable.MilliCPU)
		mem = satAdd(mem, n.node.Allocatable.Memory)
	}
	return nodes, cpu, mem
}

func (a *Autoscaler) upcomingNode(name string) (*nodeState, bool) {
	n, ok := a.nodes[name]
	return n, ok && !n.ready && !n.gone
}

// satAdd is x+y, saturated at the int64 range: totals near it (a cores
// limit of 10^16, a million nodes of huge memory) must not wrap around.
func satAdd(x, y int64) int64 {
	s := x + y
	switch {
	case x > 0 && y > 0 && s < 0:
		return math.MaxInt64
	case x < 0 && y < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// satMul is x*y for x, y >= 0, saturated at math.MaxInt64.
func satMul(x, y int64) int64 {
	if x != 0 && y > math.MaxInt64/x {
		return math.MaxInt64
	}
	return x * y
}
