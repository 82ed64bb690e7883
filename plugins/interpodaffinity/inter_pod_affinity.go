// Package interpodaffinity is the InterPodAffinity plugin: a pod's
// required affinity and anti-affinity to other pods filter nodes (with the
// symmetry of existing pods' anti-affinity), and preferred terms score
// them.
package interpodaffinity

import (
	"math"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "InterPodAffinity"

// Args configure InterPodAffinity.
type Args struct {
	// HardPodAffinityWeight is what an existing pod's required affinity
	// term adds to the score of the nodes in its domain when the incoming
	// pod matches it (0..100; nil means 1, 0 turns it off).
	HardPodAffinityWeight *int32 `yaml:"hardPodAffinityWeight"`
	// IgnorePreferredTermsOfExistingPods skips scoring for pods without
	// preferred terms of their own.
	IgnorePreferredTermsOfExistingPods bool `yaml:"ignorePreferredTermsOfExistingPods"`
}

// Validate checks the arguments; its errors name the field.
func (a *Args) Validate() error {
	if a != nil && a.HardPodAffinityWeight != nil && (*a.HardPodAffinityWeight < 0 || *a.HardPodAffinityWeight > 100) {
		return fw.ArgError("hardPodAffinityWeight", "%d is not in 0..100", *a.HardPodAffinityWeight)
	}
	return nil
}

// InterPodAffinity places pods by the other pods in their topology
// domains, as kube-scheduler's plugin of that name does.
//
// Filter: a pod with required affinity terms goes only where, for every
// term, some pod matching all its terms runs in the node's domain of the
// term's key (the first pod of a group whose terms select itself may go to
// any node carrying the keys); a pod with required anti-affinity terms
// never joins a domain holding a pod a term selects; and no pod joins a
// domain where an existing pod's required anti-affinity selects it.
// Affinity failures cannot be resolved by preemption, anti-affinity ones
// can.
//
// Score: in each domain, preferred terms of the incoming pod add (or, for
// anti-affinity, subtract) their weight per matching pod there, and so do
// the existing pods' preferred terms matching the incoming pod; an existing
// pod's required affinity term matching the incoming pod adds
// HardPodAffinityWeight. The sums are stretched to 0..100 over the scored
// nodes.
//
// Counts are kept per pod signature and follow the snapshot's changes
// (see helper.TopologyCounts): a gang's earlier members, reserved tentatively in the
// same cycle, count for the later ones, and pods preemption removes
// tentatively stop counting.
type InterPodAffinity struct {
	snapshots       helper.SnapshotSource
	hardWeight      int64
	ignorePreferred bool
	cache           helper.TopologyCache
	sig             []byte
}

var statusSkip = fw.NewStatus(fw.Skip)

var (
	_ fw.Stateless            = (*InterPodAffinity)(nil)
	_ fw.EnqueueExtensions    = (*InterPodAffinity)(nil)
	_ fw.PreFilterPlugin      = (*InterPodAffinity)(nil)
	_ fw.PreFilterExtensions  = (*InterPodAffinity)(nil)
	_ fw.FilterPlugin         = (*InterPodAffinity)(nil)
	_ fw.PreScorePlugin       = (*InterPodAffinity)(nil)
	_ fw.PreScoreIgnoresNodes = (*InterPodAffinity)(nil)
	_ fw.ScorePlugin          = (*InterPodAffinity)(nil)
	_ fw.ScoreNormalizer      = (*InterPodAffinity)(nil)
)

// New builds the plugin from its arguments (nil, an Args or an *Args),
// reading the cycle's snapshot through h, as the registry does.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[Args](args)
	if err != nil {
		return nil, err
	}
	return NewInterPodAffinity(a, h)
}

// NewArgs returns the default arguments, for a loader to decode a file's
// arguments into.
func NewArgs() any { return &Args{} }

// EventsToRegister: pods matching a term may arrive, conflicting pods may
// leave, nodes may be added or relabelled.
func (*InterPodAffinity) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodAdded | fw.AssignedPodDeleted | fw.NodeAdded | fw.NodeChanged
}

// NewInterPodAffinity returns the plugin configured by a (nil: defaults),
// reading the cycle's snapshot from snapshots.
func NewInterPodAffinity(a *Args, snapshots helper.SnapshotSource) (*InterPodAffinity, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	p := &InterPodAffinity{snapshots: snapshots, hardWeight: 1}
	if a != nil {
		if a.HardPodAffinityWeight != nil {
			p.hardWeight = int64(*a.HardPodAffinityWeight)
		}
		p.ignorePreferred = a.IgnorePreferredTermsOfExistingPods
	}
	return p, nil
}

// PreScoreIgnoresNodes declares that PreScore reads the whole snapshot,
// not the feasible nodes.
func (*InterPodAffinity) PreScoreIgnoresNodes() {}

// Stateless declares that the plugin's answers depend on the pod, the
// snapshot and the nominations alone: its counts are a cache of the snapshot.
func (*InterPodAffinity) Stateless() {}

// Name returns Name.
func (*InterPodAffinity) Name() string { return Name }

// The kinds of counts InterPodAffinity keeps (see helper.TopologyCounts).
const (
	ipaExistingAnti = iota // existing pods' required anti-affinity terms matching the pod
	ipaAffinity            // pods matching all the pod's required affinity terms, per term
	ipaAnti                // pods matching the pod's required anti-affinity terms, per term
	ipaScore               // the score sums
)

var (
	errPodAffinity     = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match pod affinity rules").WithPlugin(Name)
	errPodAntiAffinity = fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod anti-affinity rules").WithPlugin(Name)
	errExistingAnti    = fw.NewStatus(fw.Unschedulable, "node(s) didn't satisfy existing pods anti-affinity rules").WithPlugin(Name)
)

// affinityTerm is a pod affinity term of the incoming pod with its
// namespace selector resolved into names, as kube-scheduler merges it.
type affinityTerm struct {
	namespaces    []string // sorted
	allNamespaces bool     // the namespace selector was {}
	selector      *cluster.LabelSelector
	key           string
	weight        int64
}

// matches reports whether the existing pod p is selected by the term.
func (t *affinityTerm) matches(p *cluster.Pod) bool {
	if !t.allNamespaces {
		if _, ok := slices.BinarySearch(t.namespaces, p.Namespace); !ok {
			return false
		}
	}
	return t.selector.Matches(p.Labels)
}

// resolveTerm resolves a term of pod's into namespace names: the listed
// namespaces, plus those the namespace selector picks; with neither, the
// pod's own.
func resolveTerm(snap *cluster.Snapshot, pod *cluster.Pod, t *cluster.PodAffinityTerm, weight int64) affinityTerm {
	at := affinityTerm{selector: t.LabelSelector, key: t.TopologyKey, weight: weight}
	at.namespaces = slices.Clone(t.Namespaces)
	switch {
	case t.NamespaceSelector == nil:
		if len(at.namespaces) == 0 {
			at.namespaces = []string{pod.Namespace}
		}
	case t.NamespaceSelector.IsEmpty():
		at.allNamespaces = true
	default:
		at.namespaces = append(at.namespaces, snap.NamespacesMatching(t.NamespaceSelector)...)
	}
	slices.Sort(at.namespaces)
	at.namespaces = slices.Compact(at.namespaces)
	return at
}

// existingTermMatches reports whether an existing pod's term selects the
// incoming pod (whose namespace has nsLabels).
func existingTermMatches(owner *cluster.Pod, t *cluster.PodAffinityTerm, pod *cluster.Pod, nsLabels map[string]string) bool {
	switch {
	case len(t.Namespaces) == 0 && t.NamespaceSelector == nil:
		if pod.Namespace != owner.Namespace {
			return false
		}
	case !slices.Contains(t.Namespaces, pod.Namespace) && !t.NamespaceSelector.Matches(nsLabels):
		return false
	}
	return t.LabelSelector.Matches(pod.Labels)
}

// ipaCounter computes a node's contributions for one incoming pod.
type ipaCounter struct {
	pod       *cluster.Pod
	nsLabels  map[string]string
	affinity  []affinityTerm // required
	anti      []affinityTerm // required
	preferred []affinityTerm // weight > 0 affinity, < 0 anti-affinity
	affSlots  []int
	antiSlots []int
	hard      int64
}

func (c *ipaCounter) Count(tc *helper.TopologyCounts, ni *cluster.NodeInfo) {
	labels := ni.Node().Labels
	for _, e := range ni.PodList() {
		ep := e.Pod()
		if e.HasRequiredAntiAffinity() {
			for i := range ep.Affinity.PodAntiAffinity.Required {
				t := &ep.Affinity.PodAntiAffinity.Required[i]
				if existingTermMatches(ep, t, c.pod, c.nsLabels) {
					tc.Add(tc.DynamicSlot(ipaExistingAnti, t.TopologyKey), 1)
				}
			}
		}
		if len(c.affinity) > 0 && c.matchesAll(ep) {
			for _, s := range c.affSlots {
				tc.Add(s, 1)
			}
		}
		for i := range c.anti {
			if c.anti[i].matches(ep) {
				tc.Add(c.antiSlots[i], 1)
			}
		}
		if len(labels) > 0 {
			c.countScore(tc, ep, e.HasPodAffinity())
		}
	}
}

func (c *ipaCounter) matchesAll(p *cluster.Pod) bool {
	for i := range c.affinity {
		if !c.affinity[i].matches(p) {
			return false
		}
	}
	return true
}

// countScore adds the score contributions of the existing pod ep.
func (c *ipaCounter) countScore(tc *helper.TopologyCounts, ep *cluster.Pod, hasTerms bool) {
	for i := range c.preferred {
		if t := &c.preferred[i]; t.matches(ep) {
			tc.Add(tc.DynamicSlot(ipaScore, t.key), t.weight)
		}
	}
	if !hasTerms {
		return
	}
	if pa := ep.Affinity.PodAffinity; pa != nil {
		if c.hard > 0 {
			for i := range pa.Required {
				if t := &pa.Required[i]; existingTermMatches(ep, t, c.pod, c.nsLabels) {
					tc.Add(tc.DynamicSlot(ipaScore, t.TopologyKey), c.hard)
				}
			}
		}
		for i := range pa.Preferred {
			if w := &pa.Preferred[i]; existingTermMatches(ep, &w.Term, c.pod, c.nsLabels) {
				tc.Add(tc.DynamicSlot(ipaScore, w.Term.TopologyKey), int64(w.Weight))
			}
		}
	}
	if pa := ep.Affinity.PodAntiAffinity; pa != nil {
		for i := range pa.Preferred {
			if w := &pa.Preferred[i]; existingTermMatches(ep, &w.Term, c.pod, c.nsLabels) {
				tc.Add(tc.DynamicSlot(ipaScore, w.Term.TopologyKey), -int64(w.Weight))
			}
		}
	}
}

// ipaState is InterPodAffinity's state for one pod. The counts follow the
// snapshot, so a clone shares them: preemption's tentative changes on the
// snapshot are what every state sees, as kube-scheduler's AddPod and
// RemovePod bring each state to.
type ipaState struct {
	snap      *cluster.Snapshot
	counts    *helper.TopologyCounts
	c         *ipaCounter
	selfMatch bool // the pod matches all its own required affinity terms
	scoreKeys []int
}

func (s *ipaState) Clone() fw.StateData { cp := *s; return &cp }

// counts returns the counts for pod, shared by the pods of its signature.
func (pl *InterPodAffinity) counts(snap *cluster.Snapshot, pod *cluster.PodInfo) (*helper.TopologyCounts, *ipaCounter) {
	p := pod.Pod()
	c := &ipaCounter{pod: p, nsLabels: snap.NamespaceLabels(p.Namespace), hard: pl.hardWeight}
	if a := p.Affinity; a != nil {
		if a.PodAffinity != nil {
			for i := range a.PodAffinity.Required {
				c.affinity = append(c.affinity, resolveTerm(snap, p, &a.PodAffinity.Required[i], 0))
			}
			for i := range a.PodAffinity.Preferred {
				w := &a.PodAffinity.Preferred[i]
				c.preferred = append(c.preferred, resolveTerm(snap, p, &w.Term, int64(w.Weight)))
			}
		}
		if a.PodAntiAffinity != nil {
			for i := range a.PodAntiAffinity.Required {
				c.anti = append(c.anti, resolveTerm(snap, p, &a.PodAntiAffinity.Required[i], 0))
			}
			for i := range a.PodAntiAffinity.Preferred {
				w := &a.PodAntiAffinity.Preferred[i]
				c.preferred = append(c.preferred, resolveTerm(snap, p, &w.Term, -int64(w.Weight)))
			}
		}
	}
	pl.sig = appendIPASignature(pl.sig[:0], p, c, snap.NamespaceVersion())
	tc := pl.cache.Get(snap, pl.sig, func() *helper.TopologyCounts {
		tc := helper.NewTopologyCounts(c)
		for _, t := range c.affinity {
			c.affSlots = append(c.affSlots, tc.SlotFor(ipaAffinity, t.key, false, false))
		}
		for _, t := range c.anti {
			c.antiSlots = append(c.antiSlots, tc.SlotFor(ipaAnti, t.key, false, false))
		}
		tc.EnsureKind(ipaScore) // kinds must exist before they are read
		return tc
	})
	return tc, tc.Counter().(*ipaCounter)
}

// appendIPASignature appends what the counts depend on: the pod's
// namespace, labels and resolved terms.
func appendIPASignature(sig []byte, p *cluster.Pod, c *ipaCounter, namespaceVersion int64) []byte {
	sig = append(sig, p.Namespace...)
	sig = append(sig, 0)
	sig = helper.AppendLabels(sig, p.Labels)
	sig = strconv.AppendInt(sig, namespaceVersion, 10) // the counter holds namespace labels
	for _, group := range [][]affinityTerm{c.affinity, c.anti, c.preferred} {
		sig = append(sig, '|')
		for i := range group {
			sig = appendTerm(sig, &group[i])
		}
	}
	return sig
}

func appendTerm(sig []byte, t *affinityTerm) []byte {
	sig = append(sig, t.key...)
	sig = append(sig, 0)
	sig = strconv.AppendInt(sig, t.weight, 10)
	sig = strconv.AppendBool(sig, t.allNamespaces)
	for _, ns := range t.namespaces {
		sig = append(sig, ns...)
		sig = append(sig, ',')
	}
	sig = append(sig, 0)
	sig = append(sig, t.selector.String()...)
	return append(sig, ';')
}

// PodLocalFor reports that the plugin does nothing for the pod: it has
// no pod affinity or anti-affinity terms, and no pod in the cluster has
// any (framework.PodLocal).
func (pl *InterPodAffinity) PodLocalFor(pod *cluster.PodInfo, snap *cluster.Snapshot) bool {
	return !pod.HasPodAffinity() && !pod.HasRequiredAntiAffinity() && snap.PodsWithAffinity() == 0 && snap.PodsWithRequiredAntiAffinity() == 0
}

var _ fw.PodLocal = (*InterPodAffinity)(nil)

// PreFilter prepares the counts, or skips when the pod has no required
// terms and no existing pod's required anti-affinity selects it.
func (pl *InterPodAffinity) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	p := pod.Pod()
	hasRequired := p.Affinity != nil && (p.Affinity.PodAffinity != nil && len(p.Affinity.PodAffinity.Required) > 0 ||
		p.Affinity.PodAntiAffinity != nil && len(p.Affinity.PodAntiAffinity.Required) > 0)
	if !hasRequired && snap.PodsWithRequiredAntiAffinity() == 0 {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod)
	if !hasRequired && tc.KindEntries(ipaExistingAnti) == 0 {
		return statusSkip
	}
	s := &ipaState{snap: snap, counts: tc, c: c, selfMatch: len(c.affinity) > 0 && c.matchesAll(p)}
	state.Write(Name, s)
	return nil
}

func ipaStateOf(state *fw.CycleState) *ipaState {
	d, ok := state.Read(Name)
	if !ok {
		return nil
	}
	return d.(*ipaState)
}

// AddPod and RemovePod bring the counts up to date with the node the
// scheduler just changed.
func (pl *InterPodAffinity) AddPod(state *fw.CycleState, _, _ *cluster.PodInfo, _ *cluster.NodeInfo) *fw.Status {
	if s := ipaStateOf(state); s != nil {
		s.counts.Sync(s.snap)
	}
	return nil
}

// RemovePod: see AddPod.
func (pl *InterPodAffinity) RemovePod(state *fw.CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	return pl.AddPod(state, pod, removed, node)
}

// Filter applies the pod's required affinity, its required anti-affinity
// and the existing pods' required anti-affinity, in that order.
func (pl *InterPodAffinity) Filter(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	s := ipaStateOf(state)
	if s == nil {
		return nil
	}
	tc := s.counts
	tc.Sync(s.snap)
	if len(s.c.affSlots) > 0 {
		all := true
		for _, slot := range s.c.affSlots {
			sl := tc.Slot(slot)
			d := sl.DomainOf(node)
			if d < 0 {
				return errPodAffinity
			}
			if sl.Count(d) <= 0 {
				all = false
			}
		}
		if !all && !(tc.KindTotal(ipaAffinity) == 0 && s.selfMatch) {
			return errPodAffinity
		}
	}
	for _, slot := range s.c.antiSlots {
		sl := tc.Slot(slot)
		if d := sl.DomainOf(node); d >= 0 && sl.Count(d) > 0 {
			return errPodAntiAffinity
		}
	}
	if tc.KindEntries(ipaExistingAnti) > 0 {
		for i := range tc.NumSlots() {
			sl := tc.Slot(i)
			if sl.Kind() != ipaExistingAnti {
				continue
			}
			if d := sl.DomainOf(node); d >= 0 && sl.Count(d) > 0 {
				return errExistingAnti
			}
		}
	}
	return nil
}

// PreScore prepares the score sums, or skips when nothing would add to
// them.
func (pl *InterPodAffinity) PreScore(state *fw.CycleState, pod *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	p := pod.Pod()
	hasPreferred := p.Affinity != nil && (p.Affinity.PodAffinity != nil && len(p.Affinity.PodAffinity.Preferred) > 0 ||
		p.Affinity.PodAntiAffinity != nil && len(p.Affinity.PodAntiAffinity.Preferred) > 0)
	snap := pl.snapshots.Snapshot()
	if !hasPreferred && (pl.ignorePreferred || snap.PodsWithAffinity() == 0) {
		return statusSkip
	}
	tc, c := pl.counts(snap, pod)
	if tc.KindEntries(ipaScore) == 0 {
		return statusSkip
	}
	s := ipaStateOf(state)
	if s == nil {
		s = &ipaState{snap: snap, counts: tc, c: c}
		state.Write(Name, s)
	}
	s.scoreKeys = s.scoreKeys[:0]
	for i := range tc.NumSlots() {
		if tc.Slot(i).Kind() == ipaScore {
			s.scoreKeys = append(s.scoreKeys, i)
		}
	}
	return nil
}

// Score sums the node's domains' scores over the keys it carries.
func (pl *InterPodAffinity) Score(state *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	s := ipaStateOf(state)
	if s == nil {
		return 0, nil
	}
	s.counts.Sync(s.snap)
	var sum int64
	for _, slot := range s.scoreKeys {
		sl := s.counts.Slot(slot)
		if d := sl.DomainOf(node); d >= 0 {
			sum += sl.Count(d)
		}
	}
	return sum, nil
}

// NormalizeScore stretches the sums to 0..100 between the lowest and the
// highest; all equal gives every node 0.
func (pl *InterPodAffinity) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	diff := hi - lo
	for i := range scores {
		if diff > 0 {
			scores[i].Score = int64(float64(fw.MaxNodeScore) * float64(scores[i].Score-lo) / float64(diff))
		} else {
			scores[i].Score = 0
		}
	}
	return nil
}
