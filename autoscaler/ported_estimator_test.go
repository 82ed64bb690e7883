package autoscaler

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The cases of the cluster autoscaler's binpacking estimator test
// (estimator/binpacking_estimator_test.go, TestBinpackingEstimate), run
// through the whole autoscaler: one group whose template is the case's
// node (zone-mars), an old node in zone-jupiter that takes none of the
// pods (tainted; it still counts as a topology domain, as the estimator's
// old node does), the case's pods pending; the first scale-up must ask
// the case's node count for the case's pod count. Pods ask the case's
// millicores and bytes of memory; templates the case's millicores and
// MiB, 10 pods.
func TestEstimatorCasesFromClusterAutoscaler(t *testing.T) {
	type pods struct {
		n        int
		milli    int64
		memBytes string
		spread   *cluster.TopologySpreadConstraint
	}
	spread := func(skew int32, key string, minDomains int32) *cluster.TopologySpreadConstraint {
		return &cluster.TopologySpreadConstraint{MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: "DoNotSchedule",
			LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": "estimatee"}}, MinDomains: &minDomains}
	}
	cases := []struct {
		name          string
		skip          string
		milli         int64
		memMiB        int64
		maxNodes      int
		pods          []pods
		nodes, placed int
		bigOnly       bool // the pods placed are the 500m ones
		// oldTakesPods: the old node is not tainted, as upstream's is not
		// (the estimator puts pods on it when a hostname spread skews
		// the last new node); the scheduler has put one pod there before
		oldTakesPods bool
	}{
		// cluster autoscaler: simple resource-based binpacking
		{name: "simple resource-based binpacking", milli: 350*3 - 50, memMiB: 2000, pods: []pods{{10, 350, "1000", nil}}, nodes: 5, placed: 10},
		// cluster autoscaler: pods-per-node bound binpacking
		{name: "pods-per-node bound binpacking", milli: 10000, memMiB: 20000, pods: []pods{{20, 10, "100", nil}}, nodes: 2, placed: 20},
		// cluster autoscaler: hostport conflict forces pod-per-node
		{name: "hostport conflict forces pod-per-node", skip: "host ports (NodePorts) are not in the pod model"},
		// cluster autoscaler: limiter cuts binpacking
		{name: "limiter cuts binpacking", milli: 1000, memMiB: 5000, maxNodes: 5, pods: []pods{{20, 500, "1000", nil}}, nodes: 5, placed: 10},
		// cluster autoscaler: decreasing ordered pods are processed first
		{name: "decreasing ordered pods are processed first", milli: 1000, memMiB: 5000, maxNodes: 5,
			pods: []pods{{10, 50, "1000", nil}, {10, 500, "1000", nil}}, nodes: 5, placed: 10, bigOnly: true},
		// cluster autoscaler: hostname topology spreading with maxSkew=2 forces 2 pods/node
		{name: "hostname topology spreading with maxSkew=2 forces 2 pods/node", milli: 1000, memMiB: 5000,
			pods: []pods{{8, 200, "200", spread(2, "kubernetes.io/hostname", 1)}}, nodes: 4, placed: 8},
		// cluster autoscaler: zonal topology spreading with maxSkew=2 only allows 2 pods to schedule
		{name: "zonal topology spreading with maxSkew=2 only allows 2 pods to schedule", milli: 1000, memMiB: 5000,
			pods: []pods{{8, 20, "100", spread(2, "topology.kubernetes.io/zone", 1)}}, nodes: 1, placed: 2},
		// cluster autoscaler: hostname topology spreading with maxSkew=1 with a large scaleup handles scheduling pods retroactively
		// (upstream 3 nodes for 12 pods: two new nodes and the old one,
		// which its count of nodes with pods takes in; here the old node
		// has one of the 12 from the scheduler before the scan)
		{name: "hostname topology spreading with maxSkew=1 with a large scaleup handles scheduling pods retroactively", milli: 1000, memMiB: 5000,
			pods: []pods{{12, 20, "100", spread(1, "kubernetes.io/hostname", 3)}}, nodes: 3, placed: 11, oldTakesPods: true},
		// cluster autoscaler: fastpath - simple resource-based binpacking
		{name: "fastpath - simple resource-based binpacking", skip: "the estimator's fast path is a speed path with the result of 'simple resource-based binpacking', ported above"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			maxNodes := tc.maxNodes
			if maxNodes == 0 {
				maxNodes = 1000
			}
			g := NodeGroup{Name: "template", Max: maxNodes, Zone: "zone-mars", ProvisioningDelay: Delay{Fixed: time.Minute},
				Template: gt.MakeNode("t").MilliCPU(tc.milli).Memory(fmt.Sprintf("%dMi", tc.memMiB)).Pods(10).Obj()}
			w := newWorld(t, Config{}, g)
			old := gt.MakeNode("oldnode").MilliCPU(100).Memory("100Mi").Pods(10).Zone("zone-jupiter")
			if !tc.oldTakesPods {
				old = old.Taint("old", "yes", cluster.TaintNoSchedule)
			}
			require.NoError(t, w.s.AddNode(old.Obj()))
			for gi, p := range tc.pods {
				for i := range p.n {
					pod := owned(gt.MakePod(fmt.Sprintf("estimatee-%d-%d", gi, i)).MilliCPU(p.milli).Memory(p.memBytes).Label("app", "estimatee"), fmt.Sprint("rs", gi))
					if p.spread != nil {
						pod.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{*p.spread}
					}
					require.NoError(t, w.s.AddPod(pod, time.Hour))
				}
			}
			require.NoError(t, w.a.Start(w.s))
			require.NoError(t, w.a.Advance(w.s, 10*time.Second))
			var up *Event
			for _, e := range w.a.Events() {
				if e.Kind == EventScaleUp {
					up = &e
					break
				}
			}
			require.NotNil(t, up, w.log())
			require.Len(t, up.Nodes, tc.nodes, w.log())
			require.Len(t, up.Pods, tc.placed, w.log())
			if tc.bigOnly {
				for _, k := range up.Pods {
					require.Contains(t, string(k), "estimatee-1-", "only the 500m pods")
				}
			}
		})
	}
}

// refEstimate is the estimate written plainly: pods in the estimator's
// order (decreasing share of the template's cpu plus memory, then by
// key); each goes onto the last new node if it fits, else the first
// earlier new node it fits, else a new node while fewer than max, if it
// fits an empty one at all (else it is left out). Fits is cpu, memory and
// pod count. It returns the nodes and the pods placed.
func refEstimate(tcpu, tmem, tpods int64, max int, pods []refPod) (int, int) {
	order := slices.Clone(pods)
	share := func(p refPod) float64 { return float64(p.cpu)/float64(tcpu) + float64(p.mem)/float64(tmem) }
	slices.SortStableFunc(order, func(x, y refPod) int {
		return cmp.Or(cmp.Compare(share(y), share(x)), cmp.Compare(x.key, y.key))
	})
	type node struct{ cpu, mem, pods int64 }
	var nodes []node
	fits := func(n node, p refPod) bool { return n.cpu+p.cpu <= tcpu && n.mem+p.mem <= tmem && n.pods+1 <= tpods }
	placed := 0
	for _, p := range order {
		at := -1
		if len(nodes) > 0 && fits(nodes[len(nodes)-1], p) {
			at = len(nodes) - 1
		}
		for i := 0; at < 0 && i < len(nodes)-1; i++ {
			if fits(nodes[i], p) {
				at = i
			}
		}
		if at < 0 {
			if len(nodes) == max || !fits(node{}, p) {
				continue
			}
			nodes = append(nodes, node{})
			at = len(nodes) - 1
		}
		nodes[at].cpu += p.cpu
		nodes[at].mem += p.mem
		nodes[at].pods++
		placed++
	}
	return len(nodes), placed
}

type refPod struct {
	key      string
	cpu, mem int64
}

// On random tiny inputs (one template, pods of random cpu and memory,
// each its own owner so that no equivalence shortcut applies... and some
// sharing one, which must not change the answer), the first scale-up
// asks as many nodes and counts as many pods as refEstimate.
func TestEstimateAgainstFirstFitReference(t *testing.T) {
	for seed := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed, 9))
		tcpu := int64(1000 * (1 + rng.IntN(6)))
		tmem := int64(1+rng.IntN(6)) << 30
		tpods := int64(2 + rng.IntN(5))
		maxNodes := 1 + rng.IntN(8)
		g := NodeGroup{Name: "g", Max: maxNodes, ProvisioningDelay: Delay{Fixed: time.Minute},
			Template: gt.MakeNode("t").MilliCPU(tcpu).Memory(fmt.Sprint(tmem)).Pods(tpods).Obj()}
		w := newWorld(t, Config{}, g)
		var ref []refPod
		for i := range 1 + rng.IntN(12) {
			cpu := int64(100 * (1 + rng.IntN(40)))
			mem := int64(128<<20) * int64(1+rng.IntN(40))
			name := fmt.Sprintf("p%02d", i)
			owner := name
			if rng.IntN(3) == 0 {
				owner = "shared" // same owner: alike pods form one shape
			}
			require.NoError(t, w.s.AddPod(owned(gt.MakePod(name).MilliCPU(cpu).Memory(fmt.Sprint(mem)), owner), time.Hour))
			ref = append(ref, refPod{key: "default/" + name, cpu: cpu, mem: mem})
		}
		require.NoError(t, w.a.Start(w.s))
		require.NoError(t, w.a.Advance(w.s, 10*time.Second))
		wantNodes, wantPods := refEstimate(tcpu, tmem, tpods, maxNodes, ref)
		gotNodes, gotPods := 0, 0
		for _, e := range w.a.Events() {
			if e.Kind == EventScaleUp {
				gotNodes, gotPods = len(e.Nodes), len(e.Pods)
				break
			}
		}
		require.Equal(t, [2]int{wantNodes, wantPods}, [2]int{gotNodes, gotPods}, "seed %d: template %dm %d pods, max %d, pods %v\n%s", seed, tcpu, tpods, maxNodes, ref, w.log())
	}
}

// On random tiny clusters with cluster-wide limits (nodes, cores,
// memory), at every step the nodes ready or on the way never exceed any
// limit, whatever the groups' sizes and the pods.
func TestScaleUpNeverExceedsTheLimits(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 13))
		var groups []NodeGroup
		for i := range 1 + rng.IntN(3) {
			g := group(fmt.Sprintf("g%d", i), fmt.Sprint(1+rng.IntN(8)), 1+rng.IntN(6))
			g.ProvisioningDelay.Fixed = time.Duration(rng.IntN(3)) * time.Minute
			groups = append(groups, g)
		}
		cfg := Config{Expander: Expanders[rng.IntN(4)], Priorities: map[int][]string{1: {"g0"}}, MaxNodesTotal: rng.IntN(6), MaxCoresTotal: int64(rng.IntN(20)), MaxMemoryTotal: int64(rng.IntN(5)) * 16 << 30}
		a, err := New(cfg, groups, rand.New(rand.NewPCG(seed, 2)))
		require.NoError(t, err)
		s, err := gangsim.New(gangsim.Config{}, a.Attach())
		require.NoError(t, err)
		for i := range 1 + rng.IntN(15) {
			require.NoError(t, s.AddPod(owned(podOf(fmt.Sprintf("p%d", i), 250+rng.IntN(3750)), fmt.Sprint("rs", rng.IntN(3))), time.Duration(rng.IntN(30))*time.Minute))
		}
		require.NoError(t, a.Start(s))
		stepToEnd(t, a, s, func(int) {
			nodes, cores, mem := 0, int64(0), int64(0)
			for _, g := range a.groups {
				nodes += g.live
				cores += int64(g.live) * g.resources.MilliCPU
				mem += int64(g.live) * g.resources.Memory
			}
			if cfg.MaxNodesTotal > 0 {
				require.LessOrEqual(t, nodes, cfg.MaxNodesTotal, "seed %d", seed)
			}
			if cfg.MaxCoresTotal > 0 {
				require.LessOrEqual(t, cores, cfg.MaxCoresTotal*1000, "seed %d", seed)
			}
			if cfg.MaxMemoryTotal > 0 {
				require.LessOrEqual(t, mem, cfg.MaxMemoryTotal, "seed %d", seed)
			}
			for _, g := range a.groups {
				require.LessOrEqual(t, g.live, g.Max, "seed %d %s", seed, g.Name)
			}
		})
	}
}
