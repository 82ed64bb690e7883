package podtopologyspread_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

// fixedSnapshot hands the plugin one snapshot.
type fixedSnapshot struct{ s *cluster.Snapshot }

func (f fixedSnapshot) Snapshot() *cluster.Snapshot { return f.s }

// The keys the cases spread over: kube's own tests use "zone" and "node"
// (a hostname of their own, which scoring does not treat as the hostname).
const (
	zoneKey = "zone"
	nodeKey = "node"
	hostKey = podtopologyspread.LabelHostname
)

var (
	foo = &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "foo", Operator: cluster.LabelExists}}}
	bar = &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "bar", Operator: cluster.LabelExists}}}
)

// zoned is a node in zone z (no zone label when z is ""), labelled with
// its name under nodeKey and hostKey.
func zoned(name, z string) *gangsimtest.NodeWrapper {
	n := gangsimtest.MakeNode(name).Label(nodeKey, name).Label(hostKey, name)
	if z != "" {
		n = n.Label(zoneKey, z)
	}
	return n
}

// fourNodes is kube's usual cluster: node-a and node-b in zone1, node-x
// and node-y in zone2.
func fourNodes() []*gangsimtest.NodeWrapper {
	return []*gangsimtest.NodeWrapper{zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")}
}

// on is n pods on a node.
type on struct {
	node string
	n    int
}

// running is the pods of placed, labelled label (foo or bar), each
// named after its node.
func running(label string, placed ...on) []*gangsimtest.PodWrapper {
	var out []*gangsimtest.PodWrapper
	for _, o := range placed {
		for i := range o.n {
			name := "p-" + label + "-" + o.node + "-" + string(rune('1'+i))
			out = append(out, gangsimtest.MakePod(name).NodeName(o.node).Label(label, ""))
		}
	}
	return out
}

// spreadC is a constraint with builder methods for the fields a case
// changes.
type spreadC cluster.TopologySpreadConstraint

// hard is a DoNotSchedule constraint, soft a ScheduleAnyway one.
func hard(maxSkew int32, key string, sel *cluster.LabelSelector) spreadC {
	return spreadC{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: cluster.DoNotSchedule, LabelSelector: sel}
}

func soft(maxSkew int32, key string, sel *cluster.LabelSelector) spreadC {
	return spreadC{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: cluster.ScheduleAnyway, LabelSelector: sel}
}

func (c spreadC) minDomains(n int32) spreadC         { c.MinDomains = &n; return c }
func (c spreadC) affinityPolicy(p string) spreadC    { c.NodeAffinityPolicy = p; return c }
func (c spreadC) taintsPolicy(p string) spreadC      { c.NodeTaintsPolicy = p; return c }
func (c spreadC) matchLabelKeys(k ...string) spreadC { c.MatchLabelKeys = k; return c }

// incoming is the pod w with the constraints cs.
func incoming(w *gangsimtest.PodWrapper, cs ...spreadC) cluster.Pod {
	p := w.Obj()
	for _, c := range cs {
		p.TopologySpreadConstraints = append(p.TopologySpreadConstraints, cluster.TopologySpreadConstraint(c))
	}
	return p
}

// requireNode gives p a required node affinity: key op values.
func requireNode(p cluster.Pod, key string, op cluster.SelectorOperator, values ...string) cluster.Pod {
	p.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{Required: []cluster.SelectorTerm{{
		MatchExpressions: []cluster.SelectorRequirement{{Key: key, Operator: op, Values: values}},
	}}}}
	return p
}

// ownedBy gives p an owner of kind selecting sel, which default
// constraints take their selector from.
func ownedBy(p cluster.Pod, kind string, sel *cluster.LabelSelector) cluster.Pod {
	p.Owner = &cluster.Owner{Kind: kind, Name: "owner", Selector: sel}
	return p
}

// snapshotOf is a cluster of nodes with pods running on them; the pods
// named in terminating have been evicted and are still terminating.
func snapshotOf(t *testing.T, nodes []*gangsimtest.NodeWrapper, pods []*gangsimtest.PodWrapper, terminating ...string) *cluster.Snapshot {
	t.Helper()
	c := cluster.NewCache()
	for _, n := range nodes {
		require.NoError(t, c.AddNode(n.Obj()))
	}
	for _, p := range pods {
		require.NoError(t, c.AddPod(p.Obj()))
	}
	for _, name := range terminating {
		require.NoError(t, c.EvictPod(cluster.MakePodKey("", name), 0))
	}
	return c.Snapshot()
}

// newPlugin is the plugin with args (nil: System defaults) on snap.
func newPlugin(t *testing.T, args *podtopologyspread.Args, snap *cluster.Snapshot) *podtopologyspread.PodTopologySpread {
	t.Helper()
	pl, err := podtopologyspread.NewPodTopologySpread(args, fixedSnapshot{snap})
	require.NoError(t, err)
	return pl
}
