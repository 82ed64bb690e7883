package cluster

import (
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Builders and state checks shared by the package's tests.

const (
	ki = int64(1) << 10
	mi = int64(1) << 20
	gi = int64(1) << 30

	gpuName  ResourceName = "nvidia.com/gpu"
	fpgaName ResourceName = "example.com/fpga"
)

func gpu(n int64) Scalar  { return Scalar{gpuName, n} }
func fpga(n int64) Scalar { return Scalar{fpgaName, n} }

// res builds Resources from cpu millicores, memory bytes and extended amounts.
func res(milli, mem int64, ext ...Scalar) Resources { return NewResources(milli, mem, 0, ext...) }

type nodeBuilder struct{ n Node }

// node starts a node with room for 110 pods and nothing else.
func node(name string) *nodeBuilder {
	return &nodeBuilder{Node{Name: name, Allocatable: NewResources(0, 0, 110)}}
}

func (b *nodeBuilder) cpu(cores int64) *nodeBuilder {
	b.n.Allocatable.MilliCPU = cores * 1000
	return b
}

func (b *nodeBuilder) mem(bytes int64) *nodeBuilder {
	b.n.Allocatable.Memory = bytes
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

func (b *nodeBuilder) taint(k, v string, e TaintEffect) *nodeBuilder {
	b.n.Taints = append(b.n.Taints, Taint{Key: k, Value: v, Effect: e})
	return b
}

func (b *nodeBuilder) obj() Node { return b.n.Clone() }

type podBuilder struct{ p Pod }

func pod(name string) *podBuilder { return &podBuilder{Pod{Name: name}} }

func (b *podBuilder) ns(ns string) *podBuilder {
	b.p.Namespace = ns
	return b
}

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

func (b *podBuilder) label(k, v string) *podBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

func (b *podBuilder) on(node string) *podBuilder {
	b.p.NodeName = node
	return b
}

func (b *podBuilder) started(at time.Duration) *podBuilder {
	b.p.StartTime = at
	return b
}

func (b *podBuilder) tolerate(t Toleration) *podBuilder {
	b.p.Tolerations = append(b.p.Tolerations, t)
	return b
}

// affinity adds one required term holding reqs (ANDed).
func (b *podBuilder) affinity(reqs ...SelectorRequirement) *podBuilder {
	if b.p.Affinity == nil {
		b.p.Affinity = &Affinity{NodeAffinity: &NodeAffinity{}}
	}
	b.p.Affinity.NodeAffinity.Required = append(b.p.Affinity.NodeAffinity.Required, SelectorTerm{MatchExpressions: reqs})
	return b
}

func (b *podBuilder) policy(p PreemptionPolicy) *podBuilder {
	b.p.PreemptionPolicy = p
	return b
}

func (b *podBuilder) obj() Pod       { return b.p.Clone() }
func (b *podBuilder) info() *PodInfo { return NewPodInfo(b.p) }
func (b *podBuilder) key() PodKey    { return b.p.Key() }
func req(key string, op SelectorOperator, values ...string) SelectorRequirement {
	return SelectorRequirement{Key: key, Operator: op, Values: values}
}

type budgetBuilder struct{ b PodDisruptionBudget }

func pdb(name string) *budgetBuilder { return &budgetBuilder{PodDisruptionBudget{Name: name}} }

func (b *budgetBuilder) ns(ns string) *budgetBuilder {
	b.b.Namespace = ns
	return b
}

func (b *budgetBuilder) match(k, v string) *budgetBuilder {
	if b.b.Selector == nil {
		b.b.Selector = &LabelSelector{MatchLabels: map[string]string{}}
	}
	b.b.Selector.MatchLabels[k] = v
	return b
}

func (b *budgetBuilder) min(v *IntOrPercent) *budgetBuilder {
	b.b.MinAvailable = v
	return b
}

func (b *budgetBuilder) maxUnavailable(v *IntOrPercent) *budgetBuilder {
	b.b.MaxUnavailable = v
	return b
}

func (b *budgetBuilder) obj() PodDisruptionBudget { return b.b }

func count(v int32) *IntOrPercent   { return &IntOrPercent{Value: v} }
func percent(v int32) *IntOrPercent { return &IntOrPercent{Value: v, Percent: true} }

// cacheDump is a deep copy of everything a Cache holds, for "a failed call
// changes nothing" checks. PodInfos are immutable, so sharing them is safe.
type cacheDump struct {
	Generation, NodeSetVersion, BudgetVersion int64
	Nodes                                     []*NodeInfo // name order
	Recent                                    []string    // recency list order
	Pods                                      map[PodKey]*PodInfo
	Budgets                                   []budgetItem
}

func dumpCache(c *Cache) cacheDump {
	d := cacheDump{
		Generation:     c.generation,
		NodeSetVersion: c.nodeSetVersion,
		BudgetVersion:  c.budgetVersion,
		Pods:           maps.Clone(c.pods),
	}
	for ni := range c.Nodes() {
		d.Nodes = append(d.Nodes, ni.clone())
	}
	for it := c.recent; it != nil; it = it.next {
		d.Recent = append(d.Recent, it.info.node.Name)
	}
	for _, b := range c.budgets {
		d.Budgets = append(d.Budgets, *b)
	}
	return d
}

// snapshotNodes deep-copies a snapshot's node list.
func snapshotNodes(s *Snapshot) []*NodeInfo {
	out := make([]*NodeInfo, 0, s.Len())
	for _, ni := range s.Nodes() {
		out = append(out, ni.clone())
	}
	return out
}

// checkCache verifies the cache's invariants: each node's totals are the
// sum over its pods, no pod is on two nodes, every cached pod is on the
// node its NodeName says, the recency list holds every node once in
// strictly decreasing generation, and budget counts match a recount.
func checkCache(t testing.TB, c *Cache) {
	t.Helper()
	seen := map[PodKey]string{}
	for ni := range c.Nodes() {
		var sum Resources
		var nzCPU, nzMem int64
		for pi := range ni.Pods() {
			prev, dup := seen[pi.Key()]
			require.False(t, dup, "pod %s on nodes %q and %q", pi.Key(), prev, ni.Name())
			seen[pi.Key()] = ni.Name()
			require.Equal(t, ni.Name(), pi.NodeName(), "pod %s", pi.Key())
			cached, ok := c.Pod(pi.Key())
			require.True(t, ok, "pod %s on node %q is not in the pod map", pi.Key(), ni.Name())
			require.Same(t, cached, pi)
			sum = sum.Add(PodRequest(pi.Pod()))
			cpu, mem := pi.Pod().NonZeroRequests()
			nzCPU, nzMem = nzCPU+cpu, nzMem+mem
		}
		require.Equal(t, sum, ni.Requested(), "node %q requested", ni.Name())
		gotCPU, gotMem := ni.NonZeroRequested()
		require.Equal(t, [2]int64{nzCPU, nzMem}, [2]int64{gotCPU, gotMem}, "node %q non-zero requested", ni.Name())
		require.LessOrEqual(t, ni.Generation(), c.Generation())
	}
	require.Len(t, seen, c.PodCount(), "pods in the map but on no node")
	checkRecency(t, c)
	checkBudgetCounts(t, c)
}

func checkRecency(t testing.TB, c *Cache) {
	t.Helper()
	n := 0
	var prev *nodeItem
	for it := c.recent; it != nil; it = it.next {
		require.Same(t, prev, it.prev)
		if prev != nil {
			require.Greater(t, prev.info.generation, it.info.generation, "recency list out of order")
		}
		require.Same(t, c.nodes[it.info.node.Name], it)
		prev = it
		n++
	}
	require.Equal(t, c.NodeCount(), n, "recency list length")
}

func checkBudgetCounts(t testing.TB, c *Cache) {
	t.Helper()
	for _, b := range c.budgets {
		healthy, expected := 0, 0
		for _, pi := range c.pods {
			if pi.State() == PodTerminating || !b.budget.Matches(pi.Pod()) {
				continue
			}
			expected++
			if pi.State() == PodBound {
				healthy++
			}
		}
		require.Equal(t, [2]int{healthy, expected}, [2]int{b.healthy, b.expected}, "budget %s counts", b.budget.Key())
	}
}

// checkSnapshot verifies that s equals the cache's state and shares no
// mutable storage with it.
func checkSnapshot(t testing.TB, c *Cache, s *Snapshot) {
	t.Helper()
	require.Equal(t, c.Generation(), s.Generation())
	require.Equal(t, c.NodeCount(), s.Len())
	i := 0
	for ni := range c.Nodes() {
		sn := s.Node(i)
		require.NotSame(t, ni, sn)
		require.Equal(t, i, sn.Index(), "a snapshot node knows its index")
		require.Equal(t, -1, ni.Index())
		cp := *sn
		cp.index = -1
		require.Equal(t, ni, &cp, "node %d", i)
		if len(ni.pods) > 0 {
			require.NotSame(t, &ni.pods[0], &sn.pods[0], "pod slices shared")
		}
		if len(ni.requested.scalars) > 0 {
			require.NotSame(t, &ni.requested.scalars[0], &sn.requested.scalars[0], "requested shared")
		}
		idx, ok := s.Index(ni.Name())
		require.True(t, ok)
		require.Equal(t, i, idx)
		i++
	}
	require.Len(t, s.index, s.Len())
	checkSnapshotTotals(t, s)
	want, got := collectBudgets(c.Budgets()), collectBudgets(s.Budgets())
	require.Equal(t, want, got)
}

func collectBudgets(seq func(func(BudgetStatus) bool)) []BudgetStatus {
	var out []BudgetStatus
	for b := range seq {
		out = append(out, b)
	}
	return out
}

// checkSnapshotTotals recomputes the snapshot's running totals from its
// nodes: pods with inter-pod terms, and pods by priority.
func checkSnapshotTotals(t testing.TB, s *Snapshot) {
	t.Helper()
	var aff, anti int64
	prios := map[int32]int64{}
	for i := range s.Len() {
		for _, pi := range s.Node(i).pods {
			if pi.HasPodAffinity() {
				aff++
			}
			if pi.HasRequiredAntiAffinity() {
				anti++
			}
			prios[pi.priority]++
		}
	}
	checkDomainTotals(t, s, "zone")
	require.Equal(t, aff, s.PodsWithAffinity())
	require.Equal(t, anti, s.PodsWithRequiredAntiAffinity())
	got := map[int32]int64{}
	for i, pc := range s.priorities {
		require.NotZero(t, pc.n, "no zero counts")
		require.True(t, i == 0 || s.priorities[i-1].p < pc.p, "priorities in order")
		got[pc.p] = pc.n
	}
	require.Equal(t, prios, got)
}

// checkDomainTotals compares the snapshot's totals of key's domains with
// sums over the nodes.
func checkDomainTotals(t testing.TB, s *Snapshot, key string) {
	t.Helper()
	tot := s.DomainTotals(key)
	doms := tot.Domains()
	for d := range doms.Values {
		var alloc, req Resources
		var nzCPU, nzMem int64
		for _, i := range doms.Nodes[d] {
			ni := s.Node(i)
			alloc = alloc.Add(ni.node.Allocatable)
			req = req.Add(ni.requested)
			if ni.node.Allocatable.MilliCPU != 0 {
				nzCPU += ni.nonZeroCPU
			}
			if ni.node.Allocatable.Memory != 0 {
				nzMem += ni.nonZeroMem
			}
		}
		for _, name := range []ResourceName{ResourceCPU, ResourceMemory, ResourcePods, gpuName, fpgaName} {
			require.Equal(t, alloc.Get(name), tot.Allocatable(d, name), "domain %s allocatable %s", doms.Values[d], name)
			require.Equal(t, req.Get(name), tot.Requested(d, name), "domain %s requested %s", doms.Values[d], name)
		}
		cpu, mem := tot.NonZeroRequested(d)
		require.Equal(t, [2]int64{nzCPU, nzMem}, [2]int64{cpu, mem}, "domain %s non-zero requests", doms.Values[d])
	}
}
