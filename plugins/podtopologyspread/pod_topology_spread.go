// Package podtopologyspread is the PodTopologySpread plugin: a pod's
// topology spread constraints (and the system default spreading) filter
// and score nodes by how many matching pods each domain holds.
package podtopologyspread

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "PodTopologySpread"

// The defaulting types of Args.
const (
	SpreadDefaultingSystem = "System"
	SpreadDefaultingList   = "List"
)

// Kubernetes' well-known topology labels.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelZone     = "topology.kubernetes.io/zone"
)

// Args configure PodTopologySpread: the constraints given
// to pods that have none of their own.
type Args struct {
	// DefaultingType is System (the default: spread over hostnames with
	// maxSkew 3 and zones with maxSkew 5, both ScheduleAnyway) or List
	// (DefaultConstraints).
	DefaultingType     string                    `yaml:"defaultingType"`
	DefaultConstraints []DefaultSpreadConstraint `yaml:"defaultConstraints"`
}

// DefaultSpreadConstraint is a constraint given to pods without their own;
// its selector is the one of the pod's owner.
type DefaultSpreadConstraint struct {
	MaxSkew            int32  `yaml:"maxSkew"`
	TopologyKey        string `yaml:"topologyKey"`
	WhenUnsatisfiable  string `yaml:"whenUnsatisfiable"`
	MinDomains         *int32 `yaml:"minDomains"`
	NodeAffinityPolicy string `yaml:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string `yaml:"nodeTaintsPolicy"`
}

// systemDefaultConstraints are kube-scheduler's System defaults.
var systemDefaultConstraints = []cluster.TopologySpreadConstraint{
	{TopologyKey: LabelHostname, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: LabelZone, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 5},
}

// Validate checks the arguments; its errors name the field.
func (a *Args) Validate() error {
	if a == nil {
		return nil
	}
	switch a.DefaultingType {
	case "", SpreadDefaultingSystem:
		if len(a.DefaultConstraints) > 0 {
			return fw.ArgError("defaultConstraints", "must be empty when defaultingType is System")
		}
		return nil
	case SpreadDefaultingList:
	default:
		return fw.ArgError("defaultingType", "%q is not System or List", a.DefaultingType)
	}
	if field, detail := cluster.ValidateSpread("defaultConstraints", a.constraints()); detail != "" {
		return fw.ArgError(field, "%s", detail)
	}
	return nil
}

// constraints returns the default constraints as the pod-level type.
func (a *Args) constraints() []cluster.TopologySpreadConstraint {
	var out []cluster.TopologySpreadConstraint
	for _, d := range a.DefaultConstraints {
		out = append(out, cluster.TopologySpreadConstraint{
			MaxSkew: d.MaxSkew, TopologyKey: d.TopologyKey, WhenUnsatisfiable: d.WhenUnsatisfiable,
			MinDomains: d.MinDomains, NodeAffinityPolicy: d.NodeAffinityPolicy, NodeTaintsPolicy: d.NodeTaintsPolicy,
		})
	}
	return out
}

// PodTopologySpread spreads pods matching a selector over the domains of a
// topology key, as kube-scheduler's plugin of that name does.
//
// Filter (whenUnsatisfiable DoNotSchedule): a node is rejected when the
// matching pods in its domain, plus the pod itself if it matches, would
// exceed the least populated domain's count by more than maxSkew (the
// least counts as 0 while fewer than minDomains domains exist). Domains
// are made of the nodes that carry every constraint's key and pass the
// inclusion policies (the pod's node affinity is honoured and taints are
// ignored unless the constraint says otherwise); only pods of the pod's
// namespace that are not terminating count.
//
// Score (ScheduleAnyway): fewer matching pods in a node's domains score
// higher, each constraint weighted by the log of its number of domains.
//
// A pod without constraints of its own gets the default ones, selecting
// the pods of its owner (ReplicaSet, StatefulSet, ReplicationController);
// one without such an owner gets none.
type PodTopologySpread struct {
	snapshots       helper.SnapshotSource
	defaults        []cluster.TopologySpreadConstraint
	systemDefaulted bool
	cache           helper.TopologyCache
	sig             []byte
}

var statusSkip = fw.NewStatus(fw.Skip)

var (
	_ fw.Stateless           = (*PodTopologySpread)(nil)
	_ fw.EnqueueExtensions   = (*PodTopologySpread)(nil)
	_ fw.PreScoreSkipper     = (*PodTopologySpread)(nil)
	_ fw.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ fw.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ fw.FilterPlugin        = (*PodTopologySpread)(nil)
	_ fw.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ fw.ScorePlugin         = (*PodTopologySpread)(nil)
	_ fw.ScoreNormalizer     = (*PodTopologySpread)(nil)
)

// New builds the plugin from its arguments (nil, an Args or an *Args),
// reading the cycle's snapshot through h, as the registry does.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[Args](args)
	if err != nil {
		return nil, err
	}
	return NewPodTopologySpread(a, h)
}

// NewArgs returns the default arguments, for a loader to decode a file's
// arguments into.
func NewArgs() any { return &Args{} }

// EventsToRegister: every change of pods or nodes moves the counts per
// domain and the domains themselves.
func (*PodTopologySpread) EventsToRegister() fw.ClusterEvent { return fw.AllEvents }

// NewPodTopologySpread returns the plugin configured by a (nil: System
// defaults), reading the cycle's snapshot from snapshots.
func NewPodTopologySpread(a *Args, snapshots helper.SnapshotSource) (*PodTopologySpread, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	p := &PodTopologySpread{snapshots: snapshots, defaults: systemDefaultConstraints, systemDefaulted: true}
	if a != nil && a.DefaultingType == SpreadDefaultingList {
		p.defaults, p.systemDefaulted = a.constraints(), false
	}
	return p, nil
}

// Stateless declares that the plugin's answers depend on the pod, the
// snapshot and the nominations alone: its counts are a cache of the snapshot.
func (*PodTopologySpread) Stateless() {}

// Name returns Name.
func (*PodTopologySpread) Name() string { return Name }

var (
	errSpreadMissingLabel = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match pod topology spread constraints (missing required label)").WithPlugin(Name)
	errSpread             = fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod topology spread constraints").WithPlugin(Name)
)

// spreadConstraint is a constraint ready to evaluate: defaults applied,
// matchLabelKeys merged into the selector.
type spreadConstraint struct {
	maxSkew       int64
	key           string
	minDomains    int
	selector      *cluster.LabelSelector
	honorAffinity bool
	honorTaints   bool
	self          int64 // 1 if the selector matches the pod itself
	slot          int
}

// The kinds of counts: hard constraint i is kind 2i, soft constraint j
// kind 2j+1.
func hardKind(i int) int { return 2 * i }
func softKind(j int) int { return 2*j + 1 }

// spreadCounter computes a node's contributions for one incoming pod.
type spreadCounter struct {
	pod        *cluster.Pod
	hard, soft []spreadConstraint
	requireAll bool // soft constraints count only nodes carrying every key
}

// constraintsOf returns the pod's hard and soft constraints, and whether
// scoring requires nodes to carry all soft keys.
func (pl *PodTopologySpread) constraintsOf(p *cluster.Pod) (hard, soft []spreadConstraint, requireAll bool) {
	cs, requireAll := p.TopologySpreadConstraints, true
	var selector *cluster.LabelSelector
	if len(cs) == 0 {
		selector = defaultSelector(p)
		if selector == nil {
			return nil, nil, true
		}
		cs, requireAll = pl.defaults, !pl.systemDefaulted
	}
	for _, c := range cs {
		sc := spreadConstraint{
			maxSkew: int64(c.MaxSkew), key: c.TopologyKey, minDomains: 1, selector: c.LabelSelector,
			honorAffinity: c.NodeAffinityPolicy != cluster.PolicyIgnore,
			honorTaints:   c.NodeTaintsPolicy == cluster.PolicyHonor,
		}
		if c.MinDomains != nil {
			sc.minDomains = int(*c.MinDomains)
		}
		if selector != nil {
			sc.selector = selector
		} else {
			for _, k := range c.MatchLabelKeys {
				if v, ok := p.Labels[k]; ok {
					sc.selector = sc.selector.With(cluster.LabelRequirement{Key: k, Operator: cluster.LabelIn, Values: []string{v}})
				}
			}
		}
		if sc.selector.Matches(p.Labels) {
			sc.self = 1
		}
		if c.WhenUnsatisfiable == cluster.DoNotSchedule {
			hard = append(hard, sc)
		} else {
			soft = append(soft, sc)
		}
	}
	return hard, soft, requireAll
}

// defaultSelector is the selector of the pod's controller, which default
// constraints use; nil when it has none that selects anything.
func defaultSelector(p *cluster.Pod) *cluster.LabelSelector {
	o := p.Owner
	if o == nil || o.Selector == nil || o.Selector.IsEmpty() {
		return nil
	}
	switch o.Kind {
	case "ReplicaSet", "StatefulSet", "ReplicationController":
		return o.Selector
	}
	return nil
}

func (c *spreadCounter) Count(tc *helper.TopologyCounts, ni *cluster.NodeInfo) {
	labels := ni.Node().Labels
	if len(c.hard) > 0 && hasKeys(labels, c.hard) {
		for i := range c.hard {
			if sc := &c.hard[i]; c.eligible(sc, ni) {
				tc.Add(sc.slot, countMatching(ni, sc.selector, c.pod.Namespace))
			}
		}
	}
	if len(c.soft) == 0 {
		return
	}
	allKeys := hasKeys(labels, c.soft)
	for i := range c.soft {
		sc := &c.soft[i]
		switch {
		case sc.key == LabelHostname:
			// a node's own count, read by Score without the policies
			tc.Add(sc.slot, countMatching(ni, sc.selector, c.pod.Namespace))
		case (allKeys || !c.requireAll) && c.eligible(sc, ni):
			tc.Add(sc.slot, countMatching(ni, sc.selector, c.pod.Namespace))
		}
	}
}

func hasKeys(labels map[string]string, cs []spreadConstraint) bool {
	for i := range cs {
		if _, ok := labels[cs[i].key]; !ok {
			return false
		}
	}
	return true
}

// eligible applies the constraint's node inclusion policies.
func (c *spreadCounter) eligible(sc *spreadConstraint, ni *cluster.NodeInfo) bool {
	if sc.honorAffinity && !helper.NodeMatches(c.pod, ni.Node()) {
		return false
	}
	if sc.honorTaints && !helper.ToleratesScheduleTaints(c.pod, ni.Node()) {
		return false
	}
	return true
}

// countMatching counts the node's pods in namespace ns that the selector
// matches and that are not terminating; an empty selector counts none.
func countMatching(ni *cluster.NodeInfo, sel *cluster.LabelSelector, ns string) int64 {
	if sel == nil || sel.IsEmpty() {
		return 0
	}
	var n int64
	for _, e := range ni.PodList() {
		if e.State() == cluster.PodTerminating || e.Pod().Namespace != ns {
			continue
		}
		if sel.Matches(e.Pod().Labels) {
			n++
		}
	}
	return n
}

// counts returns the counts for pod, shared by the pods of its signature.
func (pl *PodTopologySpread) counts(snap *cluster.Snapshot, pod *cluster.PodInfo, hard, soft []spreadConstraint, requireAll bool) (*helper.TopologyCounts, *spreadCounter) {
	c := &spreadCounter{pod: pod.Pod(), hard: hard, soft: soft, requireAll: requireAll}
	pl.sig = appendSpreadSignature(pl.sig[:0], pod, c)
	tc := pl.cache.Get(snap, pl.sig, func() *helper.TopologyCounts {
		tc := helper.NewTopologyCounts(c)
		for i := range c.hard {
			c.hard[i].slot = tc.SlotFor(hardKind(i), c.hard[i].key, false, false)
		}
		for j := range c.soft {
			c.soft[j].slot = tc.SlotFor(softKind(j), c.soft[j].key, !requireAll, c.soft[j].key == LabelHostname)
		}
		return tc
	})
	return tc, tc.Counter().(*spreadCounter)
}

// appendSpreadSignature appends what the counts depend on.
func appendSpreadSignature(sig []byte, pod *cluster.PodInfo, c *spreadCounter) []byte {
	p := pod.Pod()
	sig = append(sig, p.Namespace...)
	sig = append(sig, 0)
	sig = strconv.AppendBool(sig, c.requireAll)
	affinity, taints := false, false
	for _, group := range [][]spreadConstraint{c.hard, c.soft} {
		sig = append(sig, '|')
		for i := range group {
			sc := &group[i]
			sig = append(sig, sc.key...)
			sig = append(sig, 0)
			sig = append(sig, sc.selector.String()...)
			sig = fmt.Appendf(sig, "/%t%t;", sc.honorAffinity, sc.honorTaints)
			affinity, taints = affinity || sc.honorAffinity, taints || sc.honorTaints
		}
	}
	if affinity {
		sig = helper.AppendNodeAffinity(sig, pod.Pod())
	}
	if taints {
		sig = helper.AppendTolerations(sig, pod.Pod())
	}
	return sig
}

// spreadState is PodTopologySpread's state for one pod. The counts follow
// the snapshot (see ipaState); adjust records what kube-scheduler's
// AddPod and RemovePod count that the snapshot's counts do not:
// terminating pods, which PreFilter leaves out but the extensions do not.
type spreadState struct {
	snap   *cluster.Snapshot
	counts *helper.TopologyCounts
	c      *spreadCounter
	adjust []spreadAdjust
	// scoring
	ignored map[int]bool // feasible nodes lacking a soft key (by index)
	weights []float64    // per soft constraint
}

type spreadAdjust struct {
	slot, dom int
	delta     int64
}

func (s *spreadState) Clone() fw.StateData {
	cp := *s
	cp.adjust = slices.Clone(s.adjust)
	return &cp
}

func spreadStateOf(state *fw.CycleState) *spreadState {
	d, ok := state.Read(Name)
	if !ok {
		return nil
	}
	return d.(*spreadState)
}

// PreFilter prepares the counts of the hard constraints, or skips when the
// pod has none.
func (pl *PodTopologySpread) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	hard, soft, requireAll := pl.constraintsOf(pod.Pod())
	if len(hard) == 0 {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod, hard, soft, requireAll)
	state.Write(Name, &spreadState{snap: snap, counts: tc, c: c})
	return nil
}

// AddPod brings the counts up to date with the node the scheduler just
// changed, and counts a terminating pod as kube-scheduler does.
func (pl *PodTopologySpread) AddPod(state *fw.CycleState, pod, added *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	pl.extend(state, pod, added, node, 1)
	return nil
}

// RemovePod is AddPod's inverse.
func (pl *PodTopologySpread) RemovePod(state *fw.CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	pl.extend(state, pod, removed, node, -1)
	return nil
}

func (pl *PodTopologySpread) extend(state *fw.CycleState, pod, other *cluster.PodInfo, node *cluster.NodeInfo, delta int64) {
	s := spreadStateOf(state)
	if s == nil {
		return
	}
	s.counts.Sync(s.snap)
	op := other.Pod()
	if other.State() != cluster.PodTerminating || op.Namespace != pod.Pod().Namespace || !hasKeys(node.Node().Labels, s.c.hard) {
		return
	}
	for i := range s.c.hard {
		sc := &s.c.hard[i]
		if !sc.selector.Matches(op.Labels) || !s.c.eligible(sc, node) {
			continue
		}
		d := s.counts.Slot(sc.slot).DomainOf(node)
		s.adjust = append(s.adjust, spreadAdjust{slot: sc.slot, dom: d, delta: delta})
	}
}

// adjusted returns slot's count at domain d with the adjustments.
func (s *spreadState) adjusted(slot, d int) int64 {
	n := s.counts.Slot(slot).Count(d)
	for _, a := range s.adjust {
		if a.slot == slot && a.dom == d {
			n += a.delta
		}
	}
	return n
}

// minimum is the slot's lowest count among existing domains, with the
// adjustments, and how many domains exist.
func (s *spreadState) minimum(slot int) (int64, int) {
	sl := s.counts.Slot(slot)
	if len(s.adjust) == 0 {
		return sl.Minimum()
	}
	lo := int64(math.MaxInt64)
	for d := range sl.NumDomains() {
		if sl.Present(d) {
			lo = min(lo, s.adjusted(slot, d))
		}
	}
	return lo, sl.NumPresent()
}

// Filter rejects a node lacking a constraint's key, or whose domain would
// be more than maxSkew above the least populated one.
func (pl *PodTopologySpread) Filter(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	s := spreadStateOf(state)
	if s == nil {
		return nil
	}
	s.counts.Sync(s.snap)
	for i := range s.c.hard {
		sc := &s.c.hard[i]
		d := s.counts.Slot(sc.slot).DomainOf(node)
		if d < 0 {
			return errSpreadMissingLabel
		}
		lowest, domains := s.minimum(sc.slot)
		if domains < sc.minDomains {
			lowest = 0
		}
		if s.adjusted(sc.slot, d)+sc.self-lowest > sc.maxSkew {
			return errSpread
		}
	}
	return nil
}

// PodLocalFor reports that the plugin does nothing for the pod: it has
// no spread constraints, its own or defaults (framework.PodLocal).
func (pl *PodTopologySpread) PodLocalFor(pod *cluster.PodInfo, _ *cluster.Snapshot) bool {
	// constraintsOf's answer is empty exactly then, told without building
	// the constraints (asked for every member of a gang at each retry)
	p := pod.Pod()
	return len(p.TopologySpreadConstraints) == 0 && (len(pl.defaults) == 0 || defaultSelector(p) == nil)
}

var _ fw.PodLocal = (*PodTopologySpread)(nil)

// PreScoreSkips reports that the pod has no soft constraints (its own, or
// defaults): PreScore would skip it.
func (pl *PodTopologySpread) PreScoreSkips(pod *cluster.PodInfo) bool {
	_, soft, _ := pl.constraintsOf(pod.Pod())
	return len(soft) == 0
}

// PreScore prepares the soft constraints' weights over the feasible
// nodes, or skips when the pod has none.
func (pl *PodTopologySpread) PreScore(state *fw.CycleState, pod *cluster.PodInfo, nodes []*cluster.NodeInfo) *fw.Status {
	p := pod.Pod()
	if len(nodes) == 0 {
		return statusSkip
	}
	hard, soft, requireAll := pl.constraintsOf(p)
	if len(soft) == 0 {
		return statusSkip
	}
	snap := pl.snapshots.Snapshot()
	tc, c := pl.counts(snap, pod, hard, soft, requireAll)
	s := spreadStateOf(state)
	if s == nil {
		s = &spreadState{snap: snap, counts: tc, c: c}
		state.Write(Name, s)
	} else if s.counts != tc {
		s.counts, s.c = tc, c
	}
	s.ignored = nil
	if requireAll {
		for _, ni := range nodes {
			if !hasKeys(ni.Node().Labels, c.soft) {
				if s.ignored == nil {
					s.ignored = map[int]bool{}
				}
				s.ignored[ni.Index()] = true
			}
		}
	}
	s.weights = s.weights[:0]
	for j := range c.soft {
		sc := &c.soft[j]
		size := len(nodes) - len(s.ignored)
		if sc.key != LabelHostname {
			sl := tc.Slot(sc.slot)
			seen := map[int]bool{}
			for _, ni := range nodes {
				if !s.ignored[ni.Index()] {
					seen[sl.DomainOf(ni)] = true
				}
			}
			size = len(seen)
		}
		s.weights = append(s.weights, math.Log(float64(size+2)))
	}
	return nil
}

// Score sums, over the soft constraints whose key the node carries, the
// matching pods in its domain times the constraint's weight, plus
// maxSkew-1; fewer is better (see NormalizeScore).
func (pl *PodTopologySpread) Score(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	s := spreadStateOf(state)
	if s == nil || s.ignored[node.Index()] {
		return 0, nil
	}
	s.counts.Sync(s.snap)
	var score float64
	labels := node.Node().Labels
	for j := range s.c.soft {
		sc := &s.c.soft[j]
		if _, ok := labels[sc.key]; !ok {
			continue
		}
		sl := s.counts.Slot(sc.slot)
		var cnt int64
		if d := sl.DomainOf(node); d >= 0 {
			cnt = sl.Count(d)
		}
		score += float64(cnt)*s.weights[j] + float64(sc.maxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// NormalizeScore turns the sums around: the lowest gets 100, others
// 100*(highest+lowest-score)/highest; ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(state *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	s := spreadStateOf(state)
	var ignored map[int]bool
	if s != nil {
		ignored = s.ignored
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, ns := range scores {
		if !ignored[ns.Node] {
			lo, hi = min(lo, ns.Score), max(hi, ns.Score)
		}
	}
	for i := range scores {
		switch {
		case ignored[scores[i].Node]:
			scores[i].Score = 0
		case hi == 0:
			scores[i].Score = fw.MaxNodeScore
		default:
			scores[i].Score = fw.MaxNodeScore * (hi + lo - scores[i].Score) / hi
		}
	}
	return nil
}
