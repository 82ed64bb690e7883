package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/placement"
)

// Builders shared by the package's tests.

const (
	mi = int64(1) << 20
	gi = int64(1) << 30

	gpuName  cluster.ResourceName = "nvidia.com/gpu"
	fpgaName cluster.ResourceName = "example.com/fpga"

	NS = cluster.TaintNoSchedule
	NE = cluster.TaintNoExecute
	PN = cluster.TaintPreferNoSchedule
)

type nodeBuilder struct{ n cluster.Node }

// node starts a node with room for 110 pods and nothing else.
func node(name string) *nodeBuilder {
	return &nodeBuilder{cluster.Node{Name: name, Allocatable: cluster.NewResources(0, 0, 110)}}
}

func (b *nodeBuilder) milli(m int64) *nodeBuilder {
	b.n.Allocatable.MilliCPU = m
	return b
}

func (b *nodeBuilder) mem(bytes int64) *nodeBuilder {
	b.n.Allocatable.Memory = bytes
	return b
}

func (b *nodeBuilder) pods(n int64) *nodeBuilder {
	b.n.Allocatable.Pods = n
	return b
}

func (b *nodeBuilder) gpus(n int64) *nodeBuilder {
	b.n.Allocatable = b.n.Allocatable.With(gpuName, n)
	return b
}

func (b *nodeBuilder) label(k, v string) *nodeBuilder {
	if b.n.Labels == nil {
		b.n.Labels = map[string]string{}
	}
	b.n.Labels[k] = v
	return b
}

func (b *nodeBuilder) taint(k, v string, e cluster.TaintEffect) *nodeBuilder {
	b.n.Taints = append(b.n.Taints, cluster.Taint{Key: k, Value: v, Effect: e})
	return b
}

func (b *nodeBuilder) cordoned() *nodeBuilder {
	b.n.Unschedulable = true
	return b
}

type podBuilder struct{ p cluster.Pod }

func pod(name string) *podBuilder { return &podBuilder{cluster.Pod{Name: name}} }

func (b *podBuilder) milli(m int64) *podBuilder {
	b.p.Requests.MilliCPU = m
	return b
}

func (b *podBuilder) mem(bytes int64) *podBuilder {
	b.p.Requests.Memory = bytes
	return b
}

func (b *podBuilder) gpus(n int64) *podBuilder {
	b.p.Requests = b.p.Requests.With(gpuName, n)
	return b
}

func (b *podBuilder) fpgas(n int64) *podBuilder {
	b.p.Requests = b.p.Requests.With(fpgaName, n)
	return b
}

func (b *podBuilder) on(node string) *podBuilder {
	b.p.NodeName = node
	return b
}

func (b *podBuilder) tolerate(key string, op cluster.TolerationOperator, value string, e cluster.TaintEffect) *podBuilder {
	b.p.Tolerations = append(b.p.Tolerations, cluster.Toleration{Key: key, Operator: op, Value: value, Effect: e})
	return b
}

func (b *podBuilder) selector(k, v string) *podBuilder {
	if b.p.NodeSelector == nil {
		b.p.NodeSelector = map[string]string{}
	}
	b.p.NodeSelector[k] = v
	return b
}

// affinity adds one required term holding reqs (ANDed); terms are ORed.
func (b *podBuilder) affinity(reqs ...cluster.SelectorRequirement) *podBuilder {
	if b.p.Affinity == nil {
		b.p.Affinity = &cluster.Affinity{NodeAffinity: &cluster.NodeAffinity{}}
	}
	na := b.p.Affinity.NodeAffinity
	na.Required = append(na.Required, cluster.SelectorTerm{MatchExpressions: reqs})
	return b
}

func (b *podBuilder) info() *cluster.PodInfo { return cluster.NewPodInfo(b.p) }

func req(key string, op cluster.SelectorOperator, values ...string) cluster.SelectorRequirement {
	return cluster.SelectorRequirement{Key: key, Operator: op, Values: values}
}

// snapshot builds a cache holding nodes and the pods bound to them (each
// pod names its node with on) and returns its snapshot.
func snapshot(t testing.TB, nodes []*nodeBuilder, pods ...*podBuilder) *cluster.Snapshot {
	t.Helper()
	c := cluster.NewCache()
	for _, n := range nodes {
		require.NoError(t, c.AddNode(n.n))
	}
	for _, p := range pods {
		require.NoError(t, c.AddPod(p.p))
	}
	return c.Snapshot()
}

// nodeInfo builds one node with pods on it (their nodeName is set here).
func nodeInfo(t testing.TB, n *nodeBuilder, pods ...*podBuilder) *cluster.NodeInfo {
	t.Helper()
	for _, p := range pods {
		p.on(n.n.Name)
	}
	s := snapshot(t, []*nodeBuilder{n}, pods...)
	return s.Node(0)
}

// newPodScheduler arranges filters and scorers as a profile does (a score
// plugin that has PreScore runs it) into a PodScheduler.
func newPodScheduler(filters []fw.FilterPlugin, scorers []placement.WeightedScorer, pct int32) *placement.PodScheduler {
	pp := placement.PodPlugins{Filter: filters, Score: scorers}
	for _, ws := range scorers {
		if pre, ok := ws.Plugin.(fw.PreScorePlugin); ok {
			pp.PreScore = append(pp.PreScore, pre)
		}
	}
	return placement.NewPodScheduler(pp, pct, placement.Shortcuts{})
}
