package interpodaffinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
)

// fixedSnapshot hands the plugin one snapshot.
type fixedSnapshot struct{ s *cluster.Snapshot }

func (f fixedSnapshot) Snapshot() *cluster.Snapshot { return f.s }

// The topology keys of the cases, as in kube-scheduler's tests.
const (
	regionKey = "region"
	zoneKey   = "zone"
	hostKey   = "kubernetes.io/hostname"
)

// node is a node in a region and zone ("" leaves the label out), with its
// name as hostname.
func node(name, region, zone string) *gangsimtest.NodeWrapper {
	n := gangsimtest.MakeNode(name).Label(hostKey, name)
	if region != "" {
		n = n.Label(regionKey, region)
	}
	if zone != "" {
		n = n.Label(zoneKey, zone)
	}
	return n
}

// The selectors of the cases: in(key, values...) and the others read as
// the operators they name.
func in(key string, values ...string) *cluster.LabelSelector {
	return &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: key, Operator: cluster.LabelIn, Values: values}}}
}

func notIn(key string, values ...string) *cluster.LabelSelector {
	return &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: key, Operator: cluster.LabelNotIn, Values: values}}}
}

func exists(key string) *cluster.LabelSelector {
	return &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: key, Operator: cluster.LabelExists}}}
}

// and is the selector requiring all of sels' requirements.
func and(sels ...*cluster.LabelSelector) *cluster.LabelSelector {
	out := &cluster.LabelSelector{}
	for _, s := range sels {
		out.MatchExpressions = append(out.MatchExpressions, s.MatchExpressions...)
	}
	return out
}

// term selects the pods sel matches, in the pod's own namespace, over
// the domains of key; namespaces and nsSelector widen it.
func term(key string, sel *cluster.LabelSelector) cluster.PodAffinityTerm {
	return cluster.PodAffinityTerm{TopologyKey: key, LabelSelector: sel}
}

func inNamespaces(t cluster.PodAffinityTerm, ns ...string) cluster.PodAffinityTerm {
	t.Namespaces = ns
	return t
}

func nsSelector(t cluster.PodAffinityTerm, sel *cluster.LabelSelector) cluster.PodAffinityTerm {
	t.NamespaceSelector = sel
	return t
}

// affinity returns p's affinity, made if it has none.
func affinity(p *cluster.Pod) *cluster.Affinity {
	if p.Affinity == nil {
		p.Affinity = &cluster.Affinity{}
	}
	if p.Affinity.PodAffinity == nil {
		p.Affinity.PodAffinity = &cluster.PodAffinity{}
	}
	if p.Affinity.PodAntiAffinity == nil {
		p.Affinity.PodAntiAffinity = &cluster.PodAffinity{}
	}
	return p.Affinity
}

// requireAffinity adds required affinity terms to p; the
// other three add required anti-affinity, preferred affinity and
// preferred anti-affinity.
func requireAffinity(p cluster.Pod, ts ...cluster.PodAffinityTerm) cluster.Pod {
	a := affinity(&p)
	a.PodAffinity.Required = append(a.PodAffinity.Required, ts...)
	return p
}

func requireAnti(p cluster.Pod, ts ...cluster.PodAffinityTerm) cluster.Pod {
	a := affinity(&p)
	a.PodAntiAffinity.Required = append(a.PodAntiAffinity.Required, ts...)
	return p
}

func preferAffinity(p cluster.Pod, weight int32, t cluster.PodAffinityTerm) cluster.Pod {
	a := affinity(&p)
	a.PodAffinity.Preferred = append(a.PodAffinity.Preferred, cluster.WeightedPodAffinityTerm{Weight: weight, Term: t})
	return p
}

func preferAnti(p cluster.Pod, weight int32, t cluster.PodAffinityTerm) cluster.Pod {
	a := affinity(&p)
	a.PodAntiAffinity.Preferred = append(a.PodAntiAffinity.Preferred, cluster.WeightedPodAffinityTerm{Weight: weight, Term: t})
	return p
}

// world is a case's cluster: nodes, pods running on them (pods named in
// terminating are evicted and still terminating) and namespaces' labels.
type world struct {
	nodes       []*gangsimtest.NodeWrapper
	pods        []cluster.Pod
	terminating []string
	namespaces  []cluster.Namespace
}

func (w world) snapshot(t *testing.T) *cluster.Snapshot {
	t.Helper()
	c := cluster.NewCache()
	for _, ns := range w.namespaces {
		require.NoError(t, c.SetNamespace(ns))
	}
	for _, n := range w.nodes {
		require.NoError(t, c.AddNode(n.Obj()))
	}
	for _, p := range w.pods {
		require.NoError(t, c.AddPod(p))
	}
	for _, key := range w.terminating {
		require.NoError(t, c.EvictPod(cluster.MakePodKey("", key), 0))
	}
	return c.Snapshot()
}

// newPlugin is the plugin with args (nil: defaults) on snap.
func newPlugin(t *testing.T, args *interpodaffinity.Args, snap *cluster.Snapshot) *interpodaffinity.InterPodAffinity {
	t.Helper()
	pl, err := interpodaffinity.NewInterPodAffinity(args, fixedSnapshot{snap})
	require.NoError(t, err)
	return pl
}
