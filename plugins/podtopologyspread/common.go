package podtopologyspread

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
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
