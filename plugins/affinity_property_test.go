package plugins_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/plugins/helper"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

// The incremental counts of InterPodAffinity and PodTopologySpread must
// give what a recomputation from scratch gives after any sequence of tentative
// reservations, removals and rollbacks. The reference below recomputes
// kube-scheduler's maps literally (docs/semantics.md, inter-pod affinity
// and topology spread) on the snapshot as it is, and is compared with the
// plugins' Filter verdicts and raw scores on every node, step by step.

// The plugins' reasons, as kube-scheduler words them.
const (
	msgPodAffinity        = "node(s) didn't match pod affinity rules"
	msgPodAntiAffinity    = "node(s) didn't match pod anti-affinity rules"
	msgExistingAnti       = "node(s) didn't satisfy existing pods anti-affinity rules"
	msgSpreadMissingLabel = "node(s) didn't match pod topology spread constraints (missing required label)"
	msgSpread             = "node(s) didn't match pod topology spread constraints"
)

type snapSource struct{ s *cluster.Snapshot }

func (s *snapSource) Snapshot() *cluster.Snapshot { return s.s }

var propApps, propTiers = []string{"a", "b", "c"}, []string{"x", "y"}

// randSelector is nil, empty or app In (one or two apps), sometimes with
// a tier.
func randSelector(r *rand.Rand) *cluster.LabelSelector {
	switch r.IntN(12) {
	case 0:
		return nil
	case 1:
		return &cluster.LabelSelector{}
	}
	s := &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "app", Operator: cluster.LabelIn, Values: []string{propApps[r.IntN(3)]}}}}
	if r.IntN(3) == 0 {
		s.MatchExpressions[0].Values = append(s.MatchExpressions[0].Values, propApps[r.IntN(3)])
	}
	if r.IntN(4) == 0 {
		s.MatchLabels = map[string]string{"tier": propTiers[r.IntN(2)]}
	}
	return s
}

func randKey(r *rand.Rand) string {
	return []string{podtopologyspread.LabelHostname, podtopologyspread.LabelZone, podtopologyspread.LabelZone, "rack"}[r.IntN(4)]
}

func randTerm(r *rand.Rand) cluster.PodAffinityTerm {
	t := cluster.PodAffinityTerm{LabelSelector: randSelector(r), TopologyKey: randKey(r)}
	switch r.IntN(6) {
	case 0:
		t.Namespaces = []string{"other"}
	case 1:
		t.NamespaceSelector = &cluster.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	case 2:
		t.NamespaceSelector = &cluster.LabelSelector{}
	}
	return t
}

func randPodAffinity(r *rand.Rand) *cluster.PodAffinity {
	if r.IntN(2) == 0 {
		return nil
	}
	pa := &cluster.PodAffinity{}
	for range r.IntN(3) {
		pa.Required = append(pa.Required, randTerm(r))
	}
	for range r.IntN(3) {
		pa.Preferred = append(pa.Preferred, cluster.WeightedPodAffinityTerm{Weight: int32(1 + r.IntN(100)), Term: randTerm(r)})
	}
	return pa
}

func randSpread(r *rand.Rand) []cluster.TopologySpreadConstraint {
	var cs []cluster.TopologySpreadConstraint
	seen := map[string]bool{}
	for range r.IntN(3) {
		c := cluster.TopologySpreadConstraint{
			MaxSkew: int32(1 + r.IntN(4)/3), TopologyKey: randKey(r), WhenUnsatisfiable: cluster.DoNotSchedule,
			LabelSelector: randSelector(r),
		}
		if r.IntN(2) == 0 {
			c.WhenUnsatisfiable = cluster.ScheduleAnyway
		}
		if seen[c.TopologyKey+c.WhenUnsatisfiable] {
			continue
		}
		seen[c.TopologyKey+c.WhenUnsatisfiable] = true
		if c.WhenUnsatisfiable == cluster.DoNotSchedule && r.IntN(2) == 0 {
			c.MinDomains = new(int32(2 + r.IntN(3)))
		}
		if r.IntN(3) == 0 {
			c.NodeAffinityPolicy = cluster.PolicyIgnore
		}
		if r.IntN(3) == 0 {
			c.NodeTaintsPolicy = cluster.PolicyHonor
		}
		if r.IntN(3) == 0 {
			c.MatchLabelKeys = []string{"tier"}
		}
		cs = append(cs, c)
	}
	return cs
}

func randPod(r *rand.Rand, name string) cluster.Pod {
	p := cluster.Pod{
		Name: name, Namespace: []string{"default", "default", "other", "third"}[r.IntN(4)],
		Labels:   map[string]string{"app": propApps[r.IntN(3)], "tier": propTiers[r.IntN(2)]},
		Requests: cluster.NewResources(100, 0, 0),
	}
	if r.IntN(3) == 0 {
		p.NodeSelector = map[string]string{"pool": "main"}
	}
	if r.IntN(3) == 0 {
		p.Tolerations = []cluster.Toleration{{Key: "dedicated", Operator: cluster.TolerationExists}}
	}
	if r.IntN(2) == 0 {
		p.Affinity = &cluster.Affinity{PodAffinity: randPodAffinity(r), PodAntiAffinity: randPodAffinity(r)}
	}
	p.TopologySpreadConstraints = randSpread(r)
	if len(p.TopologySpreadConstraints) == 0 && r.IntN(2) == 0 {
		p.Owner = &cluster.Owner{Kind: "ReplicaSet", Name: "rs", Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}}
	}
	return p
}

func randCluster(t *testing.T, r *rand.Rand) (*cluster.Cache, []cluster.Pod) {
	c := cluster.NewCache()
	require.NoError(t, c.SetNamespace(cluster.Namespace{Name: "default", Labels: map[string]string{"team": "a"}}))
	require.NoError(t, c.SetNamespace(cluster.Namespace{Name: "other", Labels: map[string]string{"team": "b"}}))
	n := 3 + r.IntN(5)
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		labels := map[string]string{podtopologyspread.LabelHostname: name}
		if r.IntN(6) > 0 {
			labels[podtopologyspread.LabelZone] = fmt.Sprintf("z%d", r.IntN(3))
		}
		if r.IntN(3) > 0 {
			labels["rack"] = fmt.Sprintf("r%d", r.IntN(4))
		}
		if r.IntN(4) > 0 {
			labels["pool"] = "main"
		}
		node := cluster.Node{Name: name, Labels: labels, Allocatable: cluster.NewResources(64000, 0, 110)}
		if r.IntN(4) == 0 {
			node.Taints = []cluster.Taint{{Key: "dedicated", Value: "x", Effect: cluster.TaintNoSchedule}}
		}
		require.NoError(t, c.AddNode(node))
	}
	var pool []cluster.Pod
	for i := range 10 + r.IntN(20) {
		p := randPod(r, fmt.Sprintf("p%d", i))
		p.NodeName = fmt.Sprintf("n%d", r.IntN(n))
		p.ApplyMatchLabelKeys()
		require.NoError(t, c.AddPod(p))
		if r.IntN(6) == 0 {
			require.NoError(t, c.EvictPod(p.Key(), time.Second))
		}
	}
	for i := range 8 {
		p := randPod(r, fmt.Sprintf("new%d", i))
		p.ApplyMatchLabelKeys()
		pool = append(pool, p)
	}
	return c, pool
}

func TestAffinityAndSpreadIncrementalEqualsRecomputation(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		c, pool := randCluster(t, r)
		snap := c.Snapshot()
		src := &snapSource{snap}
		ipa, err := interpodaffinity.NewInterPodAffinity(nil, src)
		require.NoError(t, err)
		pts, err := podtopologyspread.NewPodTopologySpread(nil, src)
		require.NoError(t, err)
		ps := placement.NewPodScheduler(placement.PodPlugins{
			PreFilter: []fw.PreFilterPlugin{pts, ipa},
			Filter:    []fw.FilterPlugin{pts, ipa},
		}, 100)
		incoming := randPod(r, "incoming")
		incoming.ApplyMatchLabelKeys()
		pi := cluster.NewPodInfo(incoming)
		state := fw.NewCycleState()
		require.Nil(t, ps.PreFilter(state, snap, pi))
		var live []*cluster.PodInfo // reserved in this test, removable
		check := func(step string) {
			t.Helper()
			ref := newReference(snap, &incoming)
			for i := range snap.Len() {
				ni := snap.Node(i)
				where := fmt.Sprintf("seed %d %s node %s", seed, step, ni.Name())
				if !state.Skipped(1) {
					require.Equal(t, ref.ipaFilter(ni), statusText(ipa.Filter(state, pi, ni)), where+" InterPodAffinity")
				} else if step == "start" {
					require.Equal(t, "", ref.ipaFilter(ni), where+" InterPodAffinity skipped")
				}
				if !state.Skipped(0) {
					require.Equal(t, ref.ptsFilter(ni), statusText(pts.Filter(state, pi, ni)), where+" PodTopologySpread")
				} else if step == "start" {
					require.Equal(t, "", ref.ptsFilter(ni), where+" PodTopologySpread skipped")
				}
			}
			// scoring, with every node feasible, on a fresh state
			nodes := make([]*cluster.NodeInfo, snap.Len())
			for i := range nodes {
				nodes[i] = snap.Node(i)
			}
			ss := fw.NewCycleState()
			ipaRaw, ipaOK := ref.ipaScores()
			require.Equal(t, ipaOK, ipa.PreScore(ss, pi, nodes).IsSuccess(), "seed %d %s InterPodAffinity PreScore", seed, step)
			ptsRaw, ptsOK := ref.ptsScores(nodes)
			require.Equal(t, ptsOK, pts.PreScore(ss, pi, nodes).IsSuccess(), "seed %d %s PodTopologySpread PreScore", seed, step)
			for i, ni := range nodes {
				if ipaOK {
					got, _ := ipa.Score(ss, pi, ni)
					require.Equal(t, ipaRaw[i], got, "seed %d %s node %s InterPodAffinity score", seed, step, ni.Name())
				}
				if ptsOK {
					got, _ := pts.Score(ss, pi, ni)
					require.Equal(t, ptsRaw[i], got, "seed %d %s node %s PodTopologySpread score", seed, step, ni.Name())
				}
			}
		}
		check("start")
		var cps []cluster.Checkpoint
		for step := range 12 {
			switch op := r.IntN(5); {
			case op <= 1:
				p := cluster.NewPodInfo(pool[r.IntN(len(pool))])
				ps.AddPod(state, snap, pi, p, r.IntN(snap.Len()))
				live = append(live, p)
			case op == 2:
				// remove a running pod (terminating ones are counted by
				// kube's extensions but not its PreFilter: not compared)
				var cands [][2]int
				for i := range snap.Len() {
					for j, e := range snap.Node(i).PodList() {
						if e.State() != cluster.PodTerminating {
							cands = append(cands, [2]int{i, j})
						}
					}
				}
				if len(cands) > 0 {
					pick := cands[r.IntN(len(cands))]
					victim := snap.Node(pick[0]).PodList()[pick[1]]
					require.NoError(t, ps.RemovePod(state, snap, pi, victim, pick[0]))
				}
			case op == 3:
				cps = append(cps, snap.Checkpoint())
			default:
				if len(cps) > 0 {
					cp := cps[len(cps)-1]
					cps = cps[:len(cps)-1]
					ps.Rollback(state, snap, pi, cp)
				}
			}
			check(fmt.Sprintf("step %d", step))
		}
		_ = live
	}
}

func statusText(st *fw.Status) string {
	if st == nil {
		return ""
	}
	return st.Message()
}

// systemDefaults are kube-scheduler's System default spread constraints.
var systemDefaults = []cluster.TopologySpreadConstraint{
	{TopologyKey: podtopologyspread.LabelHostname, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: podtopologyspread.LabelZone, WhenUnsatisfiable: cluster.ScheduleAnyway, MaxSkew: 5},
}

// reference recomputes kube-scheduler's maps from scratch.
type reference struct {
	snap *cluster.Snapshot
	pod  *cluster.Pod
}

func newReference(snap *cluster.Snapshot, pod *cluster.Pod) *reference {
	return &reference{snap: snap, pod: pod}
}

type pair struct{ key, value string }

// incomingMatches: the incoming pod's term against existing pod e.
func (r *reference) incomingMatches(t *cluster.PodAffinityTerm, e *cluster.Pod) bool {
	nsOK := false
	switch {
	case len(t.Namespaces) == 0 && t.NamespaceSelector == nil:
		nsOK = e.Namespace == r.pod.Namespace
	default:
		nsOK = slices.Contains(t.Namespaces, e.Namespace)
		if t.NamespaceSelector != nil {
			if t.NamespaceSelector.IsEmpty() {
				nsOK = true
			} else if labels := r.snap.NamespaceLabels(e.Namespace); labels != nil && t.NamespaceSelector.Matches(labels) {
				nsOK = true
			}
		}
	}
	return nsOK && t.LabelSelector.Matches(e.Labels)
}

// existingMatches: existing pod e's term against the incoming pod.
func (r *reference) existingMatches(e *cluster.Pod, t *cluster.PodAffinityTerm) bool {
	nsOK := false
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		nsOK = r.pod.Namespace == e.Namespace
	} else {
		nsOK = slices.Contains(t.Namespaces, r.pod.Namespace) || t.NamespaceSelector.Matches(r.snap.NamespaceLabels(r.pod.Namespace))
	}
	return nsOK && t.LabelSelector.Matches(r.pod.Labels)
}

func required(pa *cluster.PodAffinity) []cluster.PodAffinityTerm {
	if pa == nil {
		return nil
	}
	return pa.Required
}

func (r *reference) ipaFilter(node *cluster.NodeInfo) string {
	var aff, anti []cluster.PodAffinityTerm
	if a := r.pod.Affinity; a != nil {
		aff, anti = required(a.PodAffinity), required(a.PodAntiAffinity)
	}
	existingAnti, affCounts, antiCounts := map[pair]int{}, map[pair]int{}, map[pair]int{}
	for i := range r.snap.Len() {
		ni := r.snap.Node(i)
		labels := ni.Node().Labels
		for _, e := range ni.PodList() {
			ep := e.Pod()
			if ep.Affinity != nil {
				for _, t := range required(ep.Affinity.PodAntiAffinity) {
					if v, ok := labels[t.TopologyKey]; ok && r.existingMatches(ep, &t) {
						existingAnti[pair{t.TopologyKey, v}]++
					}
				}
			}
			all := len(aff) > 0
			for _, t := range aff {
				all = all && r.incomingMatches(&t, ep)
			}
			if all {
				for _, t := range aff {
					if v, ok := labels[t.TopologyKey]; ok {
						affCounts[pair{t.TopologyKey, v}]++
					}
				}
			}
			for _, t := range anti {
				if v, ok := labels[t.TopologyKey]; ok && r.incomingMatches(&t, ep) {
					antiCounts[pair{t.TopologyKey, v}]++
				}
			}
		}
	}
	labels := node.Node().Labels
	if len(aff) > 0 {
		for _, t := range aff {
			if _, ok := labels[t.TopologyKey]; !ok {
				return msgPodAffinity
			}
		}
		all := true
		for _, t := range aff {
			all = all && affCounts[pair{t.TopologyKey, labels[t.TopologyKey]}] > 0
		}
		if !all {
			self := true
			for _, t := range aff {
				self = self && r.incomingMatches(&t, r.pod)
			}
			if len(affCounts) != 0 || !self {
				return msgPodAffinity
			}
		}
	}
	for _, t := range anti {
		if v, ok := labels[t.TopologyKey]; ok && antiCounts[pair{t.TopologyKey, v}] > 0 {
			return msgPodAntiAffinity
		}
	}
	for k, v := range labels {
		if existingAnti[pair{k, v}] > 0 {
			return msgExistingAnti
		}
	}
	return ""
}

func (r *reference) ipaScores() ([]int64, bool) {
	score := map[string]map[string]int64{}
	add := func(key string, labels map[string]string, w int64) {
		if v, ok := labels[key]; ok {
			if score[key] == nil {
				score[key] = map[string]int64{}
			}
			score[key][v] += w
		}
	}
	var pref, prefAnti []cluster.WeightedPodAffinityTerm
	if a := r.pod.Affinity; a != nil {
		if a.PodAffinity != nil {
			pref = a.PodAffinity.Preferred
		}
		if a.PodAntiAffinity != nil {
			prefAnti = a.PodAntiAffinity.Preferred
		}
	}
	for i := range r.snap.Len() {
		ni := r.snap.Node(i)
		labels := ni.Node().Labels
		if len(labels) == 0 {
			continue
		}
		for _, e := range ni.PodList() {
			ep := e.Pod()
			for _, w := range pref {
				if r.incomingMatches(&w.Term, ep) {
					add(w.Term.TopologyKey, labels, int64(w.Weight))
				}
			}
			for _, w := range prefAnti {
				if r.incomingMatches(&w.Term, ep) {
					add(w.Term.TopologyKey, labels, -int64(w.Weight))
				}
			}
			if ep.Affinity == nil {
				continue
			}
			if pa := ep.Affinity.PodAffinity; pa != nil {
				for _, t := range pa.Required {
					if r.existingMatches(ep, &t) {
						add(t.TopologyKey, labels, 1)
					}
				}
				for _, w := range pa.Preferred {
					if r.existingMatches(ep, &w.Term) {
						add(w.Term.TopologyKey, labels, int64(w.Weight))
					}
				}
			}
			if pa := ep.Affinity.PodAntiAffinity; pa != nil {
				for _, w := range pa.Preferred {
					if r.existingMatches(ep, &w.Term) {
						add(w.Term.TopologyKey, labels, -int64(w.Weight))
					}
				}
			}
		}
	}
	if len(score) == 0 {
		return nil, false
	}
	out := make([]int64, r.snap.Len())
	for i := range out {
		labels := r.snap.Node(i).Node().Labels
		for key, vals := range score {
			if v, ok := labels[key]; ok {
				out[i] += vals[v]
			}
		}
	}
	return out, true
}

// refConstraint is a constraint as kube-scheduler reads it.
type refConstraint struct {
	cluster.TopologySpreadConstraint
	selector *cluster.LabelSelector
}

func (r *reference) constraints(action string) ([]refConstraint, bool) {
	cs, system := r.pod.TopologySpreadConstraints, false
	var sel *cluster.LabelSelector
	if len(cs) == 0 {
		if o := r.pod.Owner; o != nil && o.Selector != nil && !o.Selector.IsEmpty() {
			sel, cs, system = o.Selector, systemDefaults, true
		}
	}
	var out []refConstraint
	for _, c := range cs {
		if c.WhenUnsatisfiable != action {
			continue
		}
		s := c.LabelSelector
		if sel != nil {
			s = sel
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := r.pod.Labels[k]; ok && s != nil {
				s = s.With(cluster.LabelRequirement{Key: k, Operator: cluster.LabelIn, Values: []string{v}})
			}
		}
		out = append(out, refConstraint{c, s})
	}
	return out, system
}

func (r *reference) count(ni *cluster.NodeInfo, sel *cluster.LabelSelector) int64 {
	if sel == nil || sel.IsEmpty() {
		return 0
	}
	var n int64
	for _, e := range ni.PodList() {
		if e.State() != cluster.PodTerminating && e.Pod().Namespace == r.pod.Namespace && sel.Matches(e.Pod().Labels) {
			n++
		}
	}
	return n
}

func (r *reference) included(c *refConstraint, ni *cluster.NodeInfo) bool {
	if c.NodeAffinityPolicy != cluster.PolicyIgnore && !helper.NodeMatches(r.pod, ni.Node()) {
		return false
	}
	if c.NodeTaintsPolicy == cluster.PolicyHonor {
		for _, t := range ni.Node().Taints {
			if (t.Effect == cluster.TaintNoSchedule || t.Effect == cluster.TaintNoExecute) && !cluster.TolerationsTolerate(r.pod.Tolerations, &t) {
				return false
			}
		}
	}
	return true
}

func hasAll(labels map[string]string, cs []refConstraint) bool {
	for _, c := range cs {
		if _, ok := labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

func (r *reference) ptsFilter(node *cluster.NodeInfo) string {
	cs, _ := r.constraints(cluster.DoNotSchedule)
	counts := make([]map[string]int64, len(cs))
	for i := range counts {
		counts[i] = map[string]int64{}
	}
	for i := range r.snap.Len() {
		ni := r.snap.Node(i)
		labels := ni.Node().Labels
		if !hasAll(labels, cs) {
			continue
		}
		for j := range cs {
			if r.included(&cs[j], ni) {
				counts[j][labels[cs[j].TopologyKey]] += r.count(ni, cs[j].selector)
			}
		}
	}
	labels := node.Node().Labels
	for j, c := range cs {
		v, ok := labels[c.TopologyKey]
		if !ok {
			return msgSpreadMissingLabel
		}
		lowest := int64(math.MaxInt64)
		for _, n := range counts[j] {
			lowest = min(lowest, n)
		}
		minDomains := 1
		if c.MinDomains != nil {
			minDomains = int(*c.MinDomains)
		}
		if len(counts[j]) < minDomains {
			lowest = 0
		}
		var self int64
		if c.selector.Matches(r.pod.Labels) {
			self = 1
		}
		if counts[j][v]+self-lowest > int64(c.MaxSkew) {
			return msgSpread
		}
	}
	return ""
}

func (r *reference) ptsScores(feasible []*cluster.NodeInfo) ([]int64, bool) {
	cs, system := r.constraints(cluster.ScheduleAnyway)
	if len(cs) == 0 {
		return nil, false
	}
	requireAll := !system
	ignored := map[string]bool{}
	domains := make([]map[string]*int64, len(cs))
	sizes := make([]int, len(cs))
	for j := range cs {
		domains[j] = map[string]*int64{}
	}
	for _, ni := range feasible {
		labels := ni.Node().Labels
		if requireAll && !hasAll(labels, cs) {
			ignored[ni.Name()] = true
			continue
		}
		for j, c := range cs {
			if c.TopologyKey == podtopologyspread.LabelHostname {
				continue
			}
			v := labels[c.TopologyKey]
			if domains[j][v] == nil {
				domains[j][v] = new(int64)
				sizes[j]++
			}
		}
	}
	for i := range r.snap.Len() {
		ni := r.snap.Node(i)
		labels := ni.Node().Labels
		if requireAll && !hasAll(labels, cs) {
			continue
		}
		for j := range cs {
			if !r.included(&cs[j], ni) {
				continue
			}
			if p := domains[j][labels[cs[j].TopologyKey]]; p != nil {
				*p += r.count(ni, cs[j].selector)
			}
		}
	}
	weights := make([]float64, len(cs))
	for j, c := range cs {
		size := sizes[j]
		if c.TopologyKey == podtopologyspread.LabelHostname {
			size = len(feasible) - len(ignored)
		}
		weights[j] = math.Log(float64(size + 2))
	}
	out := make([]int64, len(feasible))
	for i, ni := range feasible {
		if ignored[ni.Name()] {
			continue
		}
		var score float64
		labels := ni.Node().Labels
		for j, c := range cs {
			v, ok := labels[c.TopologyKey]
			if !ok {
				continue
			}
			var cnt int64
			if c.TopologyKey == podtopologyspread.LabelHostname {
				cnt = r.count(ni, c.selector)
			} else {
				cnt = *domains[j][v]
			}
			score += float64(cnt)*weights[j] + float64(c.MaxSkew-1)
		}
		out[i] = int64(math.Round(score))
	}
	return out, true
}
