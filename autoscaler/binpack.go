package autoscaler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// optionFor packs a unit's pods onto new template nodes of g, as the
// cluster autoscaler's binpacking estimator does: pods in decreasing order
// of their share of the template (cpu + memory), each onto the last new
// node if it fits, else onto an earlier new one, else onto one more new
// node within the limit. For a gang every pod must find room, in one new
// topology domain when the gang has a topology key. A hierarchy's option
// is checked with the scheduler's own placement (hierarchyOption). A
// reason says why there is no option.
func (a *Autoscaler) optionFor(g *groupState, u unit, now time.Duration) (option, string) {
	limit, why := a.limit(g, now)
	if limit == 0 {
		return option{}, why
	}
	saved := g.save()
	defer g.restore(saved)
	mark := a.sb.Mark()
	defer a.sb.Revert(mark)
	if u.root.Composite {
		return a.hierarchyOption(g, u, limit, why, saved, mark)
	}
	return a.pack(g, u.pods, u.gang, limit, why, false)
}

// hierarchyOption is the option for the pods of a CompositePodGroup's
// hierarchy: packed as regular pods are (in a new rack when g has
// racks), then the new nodes alone are kept and the scheduler's placement
// of the whole hierarchy runs on the copy with them. Only what that
// placement puts on new nodes counts in the expander's figures; the
// unit's pods it puts on nodes there or on the way wait for the request
// too. The scheduler places a hierarchy as one unit, so nodes its
// placement cannot use would stand idle, be removed and be added again
// at every scan.
func (a *Autoscaler) hierarchyOption(g *groupState, u unit, limit int, why string, saved counters, mark cluster.Checkpoint) (option, string) {
	ownRack := g.RackSize > 0
	pods, incomplete := a.completeGangs(u.pods)
	packed, reason := a.pack(g, pods, nil, limit, why, ownRack)
	if reason != "" {
		return option{}, strings.Join(append(incomplete, reason), "; ")
	}
	a.sb.Revert(mark)
	g.restore(saved)
	fresh := map[int]int{} // sandbox index -> position among the new nodes
	for k := range packed.nodes {
		node := g.makeNode(ownRack && k == 0)
		i, err := a.sb.AddNode(node, a.slicesFor(g, node.Name))
		if err != nil {
			return option{}, err.Error()
		}
		fresh[i] = k
	}
	for _, as := range u.placed { // the placement places them again
		if err := a.sb.RemovePod(as.Pod.Key(), as.Node); err != nil {
			return option{}, err.Error()
		}
	}
	placed, failed := a.sb.PlaceGroup(u.root)
	if failed != "" {
		reason = fmt.Sprintf("composite pod group %s cannot be placed with %d new node(s): %s", u.root.Key, packed.nodes, failed)
		return option{}, strings.Join(append(incomplete, reason), "; ")
	}
	o := option{g: g}
	for _, as := range placed {
		k, ok := fresh[as.Node]
		switch {
		case !ok && slices.Contains(u.pods, as.Pod):
			// on a node there or on the way, with the others: it waits
			// for the new nodes too
			o.pods = append(o.pods, as.Pod)
			continue
		case !ok:
			continue // provided for already (notOnUpcoming)
		}
		o.add(as.Pod)
		o.nodes = max(o.nodes, k+1) // the first new nodes: their names and racks as packed
	}
	if o.nodes == 0 {
		return option{}, fmt.Sprintf("composite pod group %s needs no new node: it fits the nodes there and on the way", u.root.Key)
	}
	slices.SortStableFunc(o.pods, func(x, y *cluster.PodInfo) int { return cmp.Compare(x.Key(), y.Key()) })
	return o, ""
}

// completeGangs leaves out the pods of gangs with fewer pods (pending
// and scheduled) than their minCount, which no node lets the scheduler
// place, and says which gangs those are.
func (a *Autoscaler) completeGangs(pods []*cluster.PodInfo) ([]*cluster.PodInfo, []string) {
	pending := map[string]int{}
	for _, pi := range pods {
		pending[podgroup.Key(pi.Pod().Namespace, pi.Pod().PodGroup)]++
	}
	short := map[string]bool{}
	var why []string
	for _, key := range slices.Sorted(mapKeys(pending)) {
		st, ok := a.s.PodGroup(key)
		if ok && st.Group.Policy == podgroup.Gang && pending[key]+st.Scheduled < int(st.Group.MinCount) {
			short[key] = true
			why = append(why, fmt.Sprintf("gang %s has %d of the %d pods its minCount needs", key, pending[key]+st.Scheduled, st.Group.MinCount))
		}
	}
	if len(short) == 0 {
		return pods, nil
	}
	return slices.DeleteFunc(slices.Clone(pods), func(pi *cluster.PodInfo) bool {
		return short[podgroup.Key(pi.Pod().Namespace, pi.Pod().PodGroup)]
	}), why
}

// add counts pi in o.
func (o *option) add(pi *cluster.PodInfo) {
	o.pods = append(o.pods, pi)
	o.reqCPU += pi.Request().MilliCPU
	o.reqMem += pi.Request().Memory
	o.reqGPU += pi.Request().Get(ResourceGPU)
}

// pack is optionFor's packing of pods (a gang's when gang is set) onto at
// most limit new nodes of g; ownRack puts the first new node in a new
// rack. It leaves its nodes and pods in the copy.
func (a *Autoscaler) pack(g *groupState, pods []*cluster.PodInfo, gang *podgroup.PodGroup, limit int, why string, ownRack bool) (option, string) {
	if gang != nil {
		// a gang with fewer pods than its minCount cannot be scheduled
		// whatever is added: a node for it would stand idle, be removed,
		// and be added again at the next scan
		scheduled := 0
		if st, ok := a.s.PodGroup(gang.Key()); ok {
			scheduled = st.Scheduled
		}
		if n := len(pods) + scheduled; n < int(gang.MinCount) {
			return option{}, fmt.Sprintf("gang %s has %d of the %d pods its minCount needs", gang.Key(), n, gang.MinCount)
		}
	}
	domain := ""
	if gang != nil && gang.TopologyKey != "" {
		before := limit
		var err string
		if limit, ownRack, err = domainLimit(g, gang.TopologyKey, limit); err != "" {
			return option{}, err
		}
		if limit < before {
			domain = fmt.Sprintf("one new %s domain holds", gang.TopologyKey)
		}
	}
	order := sortedForTemplate(pods, g.resources)
	o := option{g: g}
	est := estimate{a: a, budget: int64(a.cfg.MaxBinpackingChecks), full: map[podShape]int{}}
	failedShape := map[podShape]shapeFailure{}
	for _, pi := range order {
		shape := shapeOf(pi)
		if f, failed := failedShape[shape]; failed && shape != (podShape{}) {
			if gang != nil {
				return option{}, f.reason
			}
			continue
		}
		if est.spent() {
			if gang != nil {
				return option{}, fmt.Sprintf("gang %s: the estimate stopped after %d checks (max-binpacking-checks)", gang.Key(), est.used)
			}
			break // as the estimator stops at its time limit: with the nodes so far
		}
		i, ok := est.fitOnNew(pi, shape)
		if !ok && gang == nil {
			i, ok = est.fitBesideSpread(pi)
		}
		if !ok && len(est.fresh) < limit {
			var reason string
			i, ok, reason = a.tryNewNode(g, pi, ownRack && len(est.fresh) == 0)
			est.count(1)
			if ok {
				est.add(i)
			} else {
				failedShape[shape] = shapeFailure{name: shapeName(pi), reason: "pod " + pi.Key().Display() + " does not fit the template: " + reason}
			}
		}
		if !ok {
			if gang != nil {
				if r := failedShape[shape].reason; r != "" {
					return option{}, r
				}
				return option{}, fmt.Sprintf("gang %s needs more than the %d node(s) %s", gang.Key(), limit, limitWhy(why, limit, g, domain))
			}
			continue
		}
		a.sb.Place(pi, i)
		o.add(pi)
	}
	if len(o.pods) == 0 {
		for _, f := range failedShape {
			if f.reason != "" {
				return option{}, firstReason(failedShape)
			}
		}
		return option{}, fmt.Sprintf("no pod fits within %s", why)
	}
	// as the estimator counts them: the nodes with pods, new or not (a
	// node there that took pods by fitBesideSpread is one more node to
	// ask for), then capped by the limits, as the scale-up caps its count
	o.nodes = min(len(est.fresh)+len(est.besides), limit)
	slices.SortStableFunc(o.pods, func(x, y *cluster.PodInfo) int { return cmp.Compare(x.Key(), y.Key()) })
	return o, ""
}

func limitWhy(why string, limit int, g *groupState, domain string) string {
	if domain != "" {
		return domain
	}
	if limit == g.Max-g.live {
		return fmt.Sprintf("max %d allows", g.Max)
	}
	return "the limits allow (" + why + ")"
}

// shapeFailure is why a shape fits no fresh template node; name is the
// shape's name (shapeName), which orders the failures.
type shapeFailure struct{ name, reason string }

// firstReason is the reason of the first shape in name order.
func firstReason(m map[podShape]shapeFailure) string {
	ks := slices.SortedFunc(mapKeys(m), func(x, y podShape) int { return cmp.Compare(m[x].name, m[y].name) })
	return m[ks[0]].reason
}

// domainLimit bounds a gang's new nodes to one domain of key: a new rack
// of RackSize nodes, one node for the hostname, any number when every
// node of the group has the same value of key.
func domainLimit(g *groupState, key string, limit int) (int, bool, string) {
	switch {
	case key == g.RackLabel && g.RackSize > 0:
		return min(limit, g.RackSize), true, ""
	case key == gangsim.LabelHostname:
		return min(limit, 1), false, ""
	case key == LabelZone && g.Zone != "":
		return limit, false, ""
	}
	if _, ok := g.Template.Labels[key]; ok {
		return limit, false, ""
	}
	return 0, false, fmt.Sprintf("the group's nodes have no topology label %q", key)
}

// estimate is one group's packing in one scan: the new nodes, and the
// work it did, counted in pod-on-node checks.
type estimate struct {
	a      *Autoscaler
	fresh  []int // new nodes, in creation order
	budget int64 // checks allowed (0: none)
	used   int64
	// full is, by shape, how many of the first new nodes a pod of that
	// shape found no room on: later pods of the shape skip them, as the
	// estimator sends an equivalence group's pods past the nodes one of
	// them did not fit (nodes only fill up while it packs)
	full map[podShape]int
	// room bounds the cpu and memory free on the new nodes but the last
	// (valid while measured): a pod asking more fits none of them
	room roomBound
	// besides are the nodes, not new, that fitBesideSpread put pods on
	besides map[int]bool
}

func (e *estimate) spent() bool { return e.budget > 0 && e.used >= e.budget }

func (e *estimate) count(n int) {
	e.used += int64(n)
	e.a.checks += int64(n)
}

// add makes node i the last new node; the one before joins the others.
func (e *estimate) add(i int) {
	if n := len(e.fresh); n > 0 {
		e.room.widen(e.a.sb.Node(e.fresh[n-1]))
	}
	e.fresh = append(e.fresh, i)
}

// fitOnNew finds pod room on the new nodes: the last one first, then the
// earlier ones its shape was not found too big for.
func (e *estimate) fitOnNew(pi *cluster.PodInfo, shape podShape) (int, bool) {
	if len(e.fresh) == 0 {
		return 0, false
	}
	last := e.fresh[len(e.fresh)-1]
	e.count(1)
	if e.a.sb.Fits(pi, last) {
		return last, true
	}
	from := 0
	if shape != (podShape{}) {
		from = e.full[shape]
	}
	earlier := e.fresh[min(from, len(e.fresh)-1) : len(e.fresh)-1]
	if len(earlier) == 0 || !e.room.mayFit(pi) {
		e.noteFull(shape)
		return 0, false
	}
	i, ok := e.a.sb.FindNode(pi, earlier)
	if ok {
		e.count(slices.Index(earlier, i) + 1)
		return i, true
	}
	e.count(len(earlier))
	e.noteFull(shape)
	if !e.room.valid { // measured once; widened as nodes join
		e.room.measure(e.a.sb, e.fresh[:len(e.fresh)-1])
	}
	return 0, false
}

// fitBesideSpread finds room for a pod the last new node rejects for a
// skew of a hostname spread constraint on any other node, new or not, in
// the copy's order, as the estimator does: as new nodes take pods, the
// smallest domain count rises and nodes the pod skewed before take it
// (a large scale-up of maxSkew 1 fills the nodes evenly instead of asking
// a node a pod).
func (e *estimate) fitBesideSpread(pi *cluster.PodInfo) (int, bool) {
	if len(e.fresh) == 0 || !spreadsOnHostname(pi.Pod()) {
		return 0, false
	}
	last := e.fresh[len(e.fresh)-1]
	if !e.a.sb.SpreadSkewed(pi, last) {
		return 0, false
	}
	others := make([]int, 0, e.a.sb.Len()-1)
	for i := range e.a.sb.Len() {
		if i != last {
			others = append(others, i)
		}
	}
	i, ok := e.a.sb.FindNode(pi, others)
	if !ok {
		e.count(len(others))
		return 0, false
	}
	e.count(slices.Index(others, i) + 1)
	if !slices.Contains(e.fresh, i) {
		if e.besides == nil {
			e.besides = map[int]bool{}
		}
		e.besides[i] = true
	}
	return i, true
}

// spreadsOnHostname reports whether p has a topology spread constraint of
// key kubernetes.io/hostname.
func spreadsOnHostname(p *cluster.Pod) bool {
	for _, c := range p.TopologySpreadConstraints {
		if c.TopologyKey == gangsim.LabelHostname {
			return true
		}
	}
	return false
}

// noteFull notes that a pod of shape fits none of the new nodes so far.
func (e *estimate) noteFull(shape podShape) {
	if shape != (podShape{}) {
		e.full[shape] = len(e.fresh)
	}
}

// roomBound is an upper bound of the cpu and memory free on a set of
// nodes: a pod asking more of either fits none. Nodes only fill up while
// an estimate packs, so a bound measured once stays an upper bound.
type roomBound struct {
	cpu, mem int64
	valid    bool
}

func free(ni *cluster.NodeInfo) (cpu, mem int64) {
	alloc, req := ni.Allocatable(), ni.Requested()
	return alloc.MilliCPU - req.MilliCPU, alloc.Memory - req.Memory
}

// measure sets the bound to the most free on nodes.
func (r *roomBound) measure(sb *gangsim.Sandbox, nodes []int) {
	*r = roomBound{valid: true}
	for _, i := range nodes {
		r.widen(sb.Node(i))
	}
}

// widen takes one more node into a measured bound.
func (r *roomBound) widen(ni *cluster.NodeInfo) {
	if r.valid {
		cpu, mem := free(ni)
		r.cpu, r.mem = max(r.cpu, cpu), max(r.mem, mem)
	}
}

// mayFit is false when pi asks more cpu or memory than the bound.
func (r *roomBound) mayFit(pi *cluster.PodInfo) bool {
	req := pi.Request()
	return !r.valid || req.MilliCPU <= r.cpu && req.Memory <= r.mem
}

// tryNewNode adds one template node of g and checks pi fits it; it takes
// the node back when it does not.
func (a *Autoscaler) tryNewNode(g *groupState, pi *cluster.PodInfo, newRack bool) (int, bool, string) {
	m := a.sb.Mark()
	saved := g.save()
	node := g.makeNode(newRack)
	i, err := a.sb.AddNode(node, a.slicesFor(g, node.Name))
	if err != nil {
		g.restore(saved)
		return 0, false, err.Error()
	}
	if reason := a.sb.Why(pi, i); reason != "" {
		a.sb.Revert(m)
		g.restore(saved)
		return 0, false, reason
	}
	return i, true, ""
}

// sortedForTemplate orders pods by decreasing share of the template's cpu
// plus memory (the estimator's decreasing pod orderer), then by key.
func sortedForTemplate(pods []*cluster.PodInfo, t cluster.Resources) []*cluster.PodInfo {
	score := func(p *cluster.PodInfo) float64 {
		var s float64
		if t.MilliCPU > 0 {
			s += float64(p.Request().MilliCPU) / float64(t.MilliCPU)
		}
		if t.Memory > 0 {
			s += float64(p.Request().Memory) / float64(t.Memory)
		}
		return s
	}
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(x, y *cluster.PodInfo) int {
		return cmp.Or(cmp.Compare(score(y), score(x)), cmp.Compare(x.Key(), y.Key()))
	})
	return out
}

// shapeOf names pods that fit alike (one owner, same requests and
// scheduler): once one of them fits no fresh template node, the others
// are not tried (the estimator's pod equivalence groups). Pods without
// an owner have no shape (the zero podShape). A comparable value, not a
// string: the estimate asks for every pending pod's at every scan.
func shapeOf(pi *cluster.PodInfo) podShape {
	p := pi.Pod()
	if p.Owner == nil {
		return podShape{}
	}
	r := pi.Request()
	s := podShape{namespace: p.Namespace, kind: p.Owner.Kind, owner: p.Owner.Name, scheduler: p.EffectiveSchedulerName(),
		cpu: r.MilliCPU, memory: r.Memory, pods: r.Pods}
	if r.HasScalars() {
		s.extended = r.String() // rare: only pods with extended resources pay for it
	}
	return s
}

// podShape is what shapeOf tells pods apart by: comparable, so that
// naming it costs nothing.
type podShape struct {
	namespace, kind, owner, scheduler string
	cpu, memory, pods                 int64
	extended                          string
}

// shapeName names a pod's shape: namespace/kind/owner/scheduler/requests
// ("" without an owner).
func shapeName(pi *cluster.PodInfo) string {
	p := pi.Pod()
	if p.Owner == nil {
		return ""
	}
	return p.Namespace + "/" + p.Owner.Kind + "/" + p.Owner.Name + "/" + p.EffectiveSchedulerName() + "/" + pi.Request().String()
}
