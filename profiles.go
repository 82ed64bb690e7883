package gangsim

import (
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/plugins"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/preemption"
	"github.com/gangsim/gangsim/queue"
)

// DefaultRegistry returns the built-in plugins' factories by name (a new
// map each call).
func DefaultRegistry() fw.Registry { return plugins.NewInTreeRegistry() }

// WithRegistry adds plugins to the scheduler's registry, for profiles to
// enable by name. A name the built-in registry has already is an error at
// New: replace a built-in by disabling it and enabling yours.
func WithRegistry(r fw.Registry) Option {
	return func(s *Scheduler) { s.userRegistry = r }
}

// registry merges the user's plugins into the defaults.
func registry(user fw.Registry) (fw.Registry, error) {
	reg := DefaultRegistry()
	for _, name := range user.Names() {
		if _, dup := reg[name]; dup {
			return nil, configError("registry", "plugin %q is built in; disable it and register yours under another name", name)
		}
		if user[name].New == nil {
			return nil, configError("registry", "plugin %q has no New function", name)
		}
		reg[name] = user[name]
	}
	return reg, nil
}

// profile is one profile instantiated for a scheduler: its per-pod
// pipeline, its group algorithm and its PostFilter plugins.
type profile struct {
	name            string
	pods            *placement.PodScheduler
	groups          *placement.GroupScheduler
	preEnqueue      []fw.PreEnqueuePlugin
	postFilter      []fw.PostFilterPlugin
	groupPostFilter []fw.PodGroupPostFilterPlugin
	handle          *handle
	// retryOn is, by plugin name, the kinds of change that may help a pod
	// the plugin rejected (PreFilter and Filter plugins).
	retryOn map[string]fw.ClusterEvent
	// pure: a cycle depends on the cluster and the pod alone (shortcuts.go)
	pure bool
	// changes is commit's buffer, reused from cycle to cycle
	changes []cluster.Change
}

// wakeOn returns the kinds of change that may help a pod that failed with
// fit: those of the plugins that rejected it, or any change when a
// rejection names no plugin this profile knows.
func (p *profile) wakeOn(fit *fw.FitError) uint64 {
	names := fit.Plugins()
	if len(names) == 0 {
		return queue.AnyChange
	}
	var kinds fw.ClusterEvent
	for _, name := range names {
		k, ok := p.retryOn[name]
		if !ok {
			return queue.AnyChange
		}
		kinds |= k
	}
	return uint64(kinds)
}

// addProfile instantiates one configured profile (the i-th) for s.
func (s *Scheduler) addProfile(cp *Profile, reg fw.Registry, i int) error {
	rp, err := resolveProfile(cp, reg, fmt.Sprintf("profiles[%d]", i))
	if err != nil {
		return err
	}
	pct := s.cfg.PercentageOfNodesToScore
	if cp.PercentageOfNodesToScore != nil {
		pct = *cp.PercentageOfNodesToScore
	}
	p := &profile{name: rp.name, groups: &placement.GroupScheduler{}}
	p.handle = &handle{s: s, p: p}
	if err := p.instantiate(rp, reg, pct, placementShortcuts(s.shortcutsOff)); err != nil {
		return err
	}
	p.pods.Nominations = s.nominations
	s.explainer.wire(p.pods)
	s.profiles.add(p)
	return nil
}

// instantiate makes the profile's plugins from reg, each once however
// many points it serves, and puts them at their extension points.
func (p *profile) instantiate(rp *resolvedProfile, reg fw.Registry, pct int32, shortcuts placement.Shortcuts) error {
	instances := map[string]fw.Plugin{}
	get := func(name string) (fw.Plugin, error) {
		if pl, ok := instances[name]; ok {
			return pl, nil
		}
		pl, err := reg[name].New(rp.args[name], p.handle)
		if err != nil {
			return nil, configError("profiles ("+rp.name+")", "plugin %q: %v", name, err)
		}
		instances[name] = pl
		return pl, nil
	}
	var pods placement.PodPlugins
	for _, point := range extensionPoints {
		for _, ref := range rp.points[point.name] {
			pl, err := get(ref.Name)
			if err != nil {
				return err
			}
			p.add(point.name, pl, int64(ref.Weight), &pods)
		}
	}
	p.pods = placement.NewPodScheduler(pods, pct, shortcuts)
	p.groups.Pods = p.pods
	p.retryOn = map[string]fw.ClusterEvent{}
	for _, pl := range pods.PreFilter {
		p.retryOn[pl.Name()] |= fw.RetryEvents(pl)
	}
	for _, pl := range pods.Filter {
		p.retryOn[pl.Name()] |= fw.RetryEvents(pl)
	}
	p.pure = p.isPure()
	return nil
}

// add puts an instance at one extension point.
func (p *profile) add(point string, pl fw.Plugin, weight int64, pods *placement.PodPlugins) {
	switch point {
	case "preEnqueue":
		p.preEnqueue = append(p.preEnqueue, pl.(fw.PreEnqueuePlugin))
	case "preFilter":
		pods.PreFilter = append(pods.PreFilter, pl.(fw.PreFilterPlugin))
	case "filter":
		pods.Filter = append(pods.Filter, pl.(fw.FilterPlugin))
	case "postFilter":
		p.postFilter = append(p.postFilter, pl.(fw.PostFilterPlugin))
	case "preScore":
		pods.PreScore = append(pods.PreScore, pl.(fw.PreScorePlugin))
	case "score":
		pods.Score = append(pods.Score, placement.WeightedScorer{Plugin: pl.(fw.ScorePlugin), Weight: weight})
	case "reserve":
		pods.Reserve = append(pods.Reserve, pl.(fw.ReservePlugin))
	case "placementGenerate":
		p.groups.Generator = pl.(fw.PlacementGeneratePlugin)
	case "placementFeasible":
		p.groups.Feasible = append(p.groups.Feasible, pl.(fw.PlacementFeasiblePlugin))
	case "placementScore":
		p.groups.Scorers = append(p.groups.Scorers, placement.WeightedPlacementScorer{Plugin: pl.(fw.PlacementScorePlugin), Weight: weight})
	case "podGroupPostFilter":
		p.groupPostFilter = append(p.groupPostFilter, pl.(fw.PodGroupPostFilterPlugin))
	}
}

// profiles are the scheduler's profiles, by scheduler name and in
// configuration order.
type profiles struct {
	byName map[string]*profile
	list   []*profile
}

// add adds a profile whose name is new.
func (ps *profiles) add(p *profile) {
	if ps.byName == nil {
		ps.byName = map[string]*profile{}
	}
	ps.byName[p.name] = p
	ps.list = append(ps.list, p)
}

// named returns the profile of a scheduler name, or nil.
func (ps *profiles) named(name string) *profile { return ps.byName[name] }

// forPod returns the profile a pod names, or nil.
func (ps *profiles) forPod(pod *cluster.PodInfo) *profile {
	return ps.byName[pod.Pod().EffectiveSchedulerName()]
}

// of is forPod(r.info), remembered in the record: a pod retried a
// thousand times reads its pod object once, not at every retry (in a busy
// cluster of 50,000 pods that read is a cache miss, a quarter of a
// fast-failed cycle). Profiles never change, and a fork has them in the
// same order.
func (ps *profiles) of(r *podRecord) *profile {
	if r.profile == 0 {
		p := ps.forPod(r.info)
		if p == nil {
			return nil
		}
		r.profile = int32(slices.Index(ps.list, p) + 1)
	}
	return ps.list[r.profile-1]
}

// handle is what a profile's plugins see of the scheduler: the cycle's
// snapshot, the profile's filters with nominated pods, and, for preemption,
// victim units and nominations. It implements preemption.Handle.
type handle struct {
	s *Scheduler
	p *profile
}

var _ preemption.Handle = (*handle)(nil)

func (h *handle) Snapshot() *cluster.Snapshot { return h.s.snap }
func (h *handle) Now() time.Duration          { return h.s.now }

// PreFilter runs the profile's PreFilter plugins for pod into a new state.
func (h *handle) PreFilter(pod *cluster.PodInfo) (*fw.CycleState, *fw.Status) {
	state := fw.NewCycleState()
	return state, h.p.pods.PreFilter(state, h.s.snap, pod)
}

// Filter filters pod on a node with nominated pods honoured; a nil state
// runs PreFilter first.
func (h *handle) Filter(state *fw.CycleState, pod *cluster.PodInfo, node int) *fw.Status {
	if state == nil {
		var st *fw.Status
		if state, st = h.PreFilter(pod); st != nil {
			return st
		}
	}
	return h.p.pods.FilterNode(state, h.s.snap, pod, node)
}

func (h *handle) AddPod(state *fw.CycleState, pod, other *cluster.PodInfo, node int) {
	h.p.pods.AddPod(state, h.s.snap, pod, other, node)
}

func (h *handle) RemovePod(state *fw.CycleState, pod, other *cluster.PodInfo, node int) error {
	return h.p.pods.RemovePod(state, h.s.snap, pod, other, node)
}

func (h *handle) Rollback(state *fw.CycleState, pod *cluster.PodInfo, cp cluster.Checkpoint) {
	h.p.pods.Rollback(state, h.s.snap, pod, cp)
}

// NominatedNode returns the snapshot index of the node pod is nominated
// to, or -1.
func (h *handle) NominatedNode(pod cluster.PodKey) int {
	if h.s.nominations.none() {
		return -1 // asked for every pending member of a group at its failures
	}
	r := h.s.tracker.record(pod)
	if r == nil {
		return -1
	}
	return h.s.nominations.index(r)
}

// NodeLocal reports whether every filter that runs for pod reads only its
// own node.
func (h *handle) NodeLocal(pod *cluster.PodInfo) bool {
	state, st := h.PreFilter(pod)
	return st == nil && h.p.pods.NodeLocalFor(state)
}

// Units returns the victim units with pods on a node: each pod alone,
// or, for a member of a group whose disruption mode is All, every scheduled
// pod of that group. A unit's priority is its group's.
func (h *handle) Units(node int) []*preemption.Unit {
	s := h.s
	if units, ok := s.unitCache.lone(s.snap, node); ok {
		return units
	}
	pods := s.snap.Node(node).PodList()
	loneOnly := true
	for _, p := range pods {
		if r := s.tracker.recordOf(p); r != nil && r.group != 0 {
			loneOnly = false
			break
		}
	}
	if loneOnly {
		return s.unitCache.keep(s.snap, node, pods, s.uses(VictimUnits))
	}
	var out, shared []*preemption.Unit
	// a group's pods share one unit when it is the group's (or a
	// composite's): built once, not once a pod (it lists all its pods).
	// A pod's own unit is keyed by the pod, one a pod on the node; a
	// group's or composite's key has a kind before it, so none is a pod's.
	var whole map[groupID]bool
	for _, p := range pods {
		r := s.tracker.recordOf(p)
		if r != nil && r.group != 0 && whole[r.group] {
			continue
		}
		u := s.tracker.unitOfRecord(p, r, s.cache)
		if u.Key == string(p.Key()) {
			out = append(out, u)
			continue
		}
		if whole == nil {
			whole = map[groupID]bool{}
		}
		whole[r.group] = true
		if !slices.ContainsFunc(shared, func(x *preemption.Unit) bool { return x.Key == u.Key }) {
			shared = append(shared, u)
			out = append(out, u)
		}
	}
	return out
}

// AllUnits returns every victim unit in the cluster, in node order and
// pod order on the node of their first pod.
func (h *handle) AllUnits() []*preemption.Unit {
	var out []*preemption.Unit
	seen := map[string]bool{}
	for i := range h.s.snap.Len() {
		for _, u := range h.Units(i) {
			if !seen[u.Key] {
				seen[u.Key] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// unitOf returns the victim unit of a pod: the pod alone, or every
// scheduled pod under the highest group above it (its PodGroup or a
// CompositePodGroup) whose disruption mode is All. A group member's unit
// has its root's priority; a member's own unit is typed PodGroup, as
// kube-scheduler types it.
func (t *tracker) unitOf(p *cluster.PodInfo, cache *cluster.Cache) *preemption.Unit {
	return t.unitOfRecord(p, t.recordOf(p), cache)
}

// unitOfRecord is unitOf with the pod's record (recordOf) at hand.
func (t *tracker) unitOfRecord(p *cluster.PodInfo, r *podRecord, cache *cluster.Cache) *preemption.Unit {
	if r == nil || r.group == 0 {
		return preemption.NewPodUnit(p)
	}
	chain := append([]podgroup.Ref{{Key: t.groupOf(r).key}}, t.forest.Ancestors(podgroup.Ref{Key: t.groupOf(r).key})...)
	var top *podgroup.Ref
	for i := range chain {
		if t.disruptsAll(chain[i]) {
			top = &chain[i]
		}
	}
	priority := t.rootPriority(chain[len(chain)-1])
	if top == nil {
		return preemption.NewUnit(string(p.Key()), preemption.KindPodGroup, priority, []*cluster.PodInfo{p})
	}
	var pods []*cluster.PodInfo
	for _, leaf := range t.forest.Leaves(*top) {
		for k, st := range t.group(leaf.Key).members.Members() {
			if st == podgroup.Unscheduled {
				continue
			}
			if pi, ok := cache.Pod(k); ok {
				pods = append(pods, pi)
			}
		}
	}
	if top.Composite {
		return preemption.NewUnit("compositepodgroup/"+top.Key, preemption.KindCompositePodGroup, priority, pods)
	}
	return preemption.NewUnit("podgroup/"+top.Key, preemption.KindPodGroup, priority, pods)
}

func (t *tracker) disruptsAll(ref podgroup.Ref) bool {
	if ref.Composite {
		return t.composites[ref.Key].cpg.EffectiveDisruptionMode() == podgroup.DisruptAll
	}
	return t.group(ref.Key).group.EffectiveDisruptionMode() == podgroup.DisruptAll
}
