package interpodaffinity

import (
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// The kinds of counts InterPodAffinity keeps (see helper.TopologyCounts).
const (
	ipaExistingAnti = iota // existing pods' required anti-affinity terms matching the pod
	ipaAffinity            // pods matching all the pod's required affinity terms, per term
	ipaAnti                // pods matching the pod's required anti-affinity terms, per term
	ipaScore               // the score sums
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

func ipaStateOf(state *fw.CycleState) *ipaState {
	d, ok := state.Read(Name)
	if !ok {
		return nil
	}
	return d.(*ipaState)
}
