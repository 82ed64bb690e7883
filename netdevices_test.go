package gangsim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// netDeviceCluster is a random cluster whose nodes have a few GPUs of
// their own, beside network GPUs every node reaches (an allNodes slice)
// and some only rack r0's nodes reach (a nodeSelector slice); pods and
// gangs claim a network GPU, a rack GPU, any GPU, or share one of a few
// claims of a network GPU from whatever node they land on; run times
// free them, and higher priorities preempt.
func netDeviceCluster(t *testing.T, seed uint64, preemption, noMemo bool, opts ...Option) (*testSched, []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 48))
	var events []string
	ts := newDeviceSchedWith(t, preemption, noMemo, append(opts, WithObserver(func(e Event) { events = append(events, e.String()) }))...)
	for i := range 3 + rng.IntN(6) {
		ts.gpus(fmt.Sprintf("n%02d", i), rng.IntN(3), "A100", false, fmt.Sprintf("r%d", i%2))
	}
	netModel, rackModel := "NET", "RACK"
	fabric := cluster.ResourceSlice{Name: "fabric", Driver: gangsimtest.GPUDriver, Pool: cluster.ResourcePool{Name: "fabric", SliceCount: 1}, AllNodes: true}
	for i := range 1 + rng.IntN(4) {
		fabric.Devices = append(fabric.Devices, cluster.Device{Name: fmt.Sprintf("ngpu-%d", i), Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &netModel}}})
	}
	require.NoError(t, ts.AddResourceSlice(fabric))
	rack := cluster.ResourceSlice{Name: "rack-r0", Driver: gangsimtest.GPUDriver, Pool: cluster.ResourcePool{Name: "rack-r0", SliceCount: 1},
		NodeSelector: []cluster.SelectorTerm{{MatchExpressions: []cluster.SelectorRequirement{{Key: gangsimtest.LabelRack, Operator: cluster.SelectorIn, Values: []string{"r0"}}}}}}
	for i := range 1 + rng.IntN(2) {
		rack.Devices = append(rack.Devices, cluster.Device{Name: fmt.Sprintf("rgpu-%d", i), Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &rackModel}}})
	}
	require.NoError(t, ts.AddResourceSlice(rack))
	ts.template("net", gpuSpec(1, netModel, 0)).template("rack", gpuSpec(1, rackModel, 0)).template("one", gpuSpec(1, "", 0))
	for i := range 2 {
		require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: fmt.Sprintf("shared-%d", i), Spec: gpuSpec(1, netModel, 0)}))
	}
	templates := []string{"net", "net", "rack", "one"}
	pod := func(name string) *gangsimtest.PodWrapper {
		if rng.IntN(3) == 0 {
			return claimPod(name, "", fmt.Sprintf("shared-%d", rng.IntN(2)))
		}
		return claimPod(name, templates[rng.IntN(len(templates))], "")
	}
	ts.randomArrivals(rng, 10+rng.IntN(20), 2, false, pod)
	ts.run()
	return ts, events
}

// checkNetClaimAccounts holds the claim accounts to the pods: a claim a
// pod on a node uses is reserved there, and a claim reserved anywhere
// counts the pods of every node that use it.
func (ts *testSched) checkNetClaimAccounts() {
	ts.t.Helper()
	users := map[string]int{}
	for ni := range ts.cache.Nodes() {
		for pi := range ni.Pods() {
			p := pi.Pod()
			for i := range p.ResourceClaims {
				key := p.ClaimKey(i)
				users[key]++
				_, _, ok := ni.Claim(key)
				require.True(ts.t, ok, "pod %s on %s has its claim %s there", pi.Key(), ni.Name(), key)
			}
		}
	}
	for ni := range ts.cache.Nodes() {
		for key := range ni.Claims() {
			_, pods, _ := ni.Claim(key)
			if alloc, _, _ := ni.Claim(key); alloc.NodeIndependent() {
				require.Equal(ts.t, users[key], pods, "claim %s", key)
			}
		}
	}
}

// With devices no node owns, whose use every node sees, the filter memo
// and the plugin's memo of allocations give the answers a fresh
// evaluation gives: every decision on random clusters is the same with
// them and without, with the DRAPreemption gate off and on, and the claim
// accounts match the pods. Issue 48.
func TestNetDeviceClustersKeepDecisionsWithoutMemos(t *testing.T) {
	seeds := uint64(12)
	if raceOn || testing.Short() {
		seeds = 3
	}
	shared := 0
	for seed := range seeds {
		for _, preemption := range []bool{false, true} {
			ts, want := netDeviceCluster(t, seed, preemption, false)
			ts.checkNetClaimAccounts()
			for _, e := range want {
				if strings.Contains(e, "fabric") {
					shared++
				}
			}
			_, got := netDeviceCluster(t, seed, preemption, true, WithoutShortcuts(allShortcuts))
			require.Equal(t, want, got, "seed %d, preemption %v, without the memos", seed, preemption)
		}
	}
	require.Positive(t, shared, "network devices were allocated")
}

// fabricSlice is an allNodes slice of count network GPUs.
func fabricSlice(count int) cluster.ResourceSlice {
	model := "NET"
	s := cluster.ResourceSlice{Name: "fabric", Driver: gangsimtest.GPUDriver, Pool: cluster.ResourcePool{Name: "fabric", SliceCount: 1}, AllNodes: true}
	for i := range count {
		s.Devices = append(s.Devices, cluster.Device{Name: fmt.Sprintf("ngpu-%d", i), Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &model}}})
	}
	return s
}

// A network GPU held by a pod of node n1 is in use for the pods of n2;
// a pod of n2 may share its claim; with the DRAPreemption gate on, a
// higher-priority pod that needs it evicts its holder, and without it
// waits ("cannot allocate all claims"). Issue 48.
func TestNetDevicePreemption(t *testing.T) {
	for _, preemption := range []bool{false, true} {
		ts := newDeviceSched(t, preemption)
		for _, n := range []string{"n1", "n2"} {
			require.NoError(t, ts.AddNode(gangsimtest.MakeNode(n).CPU("4").Memory("8Gi").Obj()))
		}
		require.NoError(t, ts.AddResourceSlice(fabricSlice(1)))
		ts.template("net", gpuSpec(1, "NET", 0))
		require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "shared", Spec: gpuSpec(1, "NET", 0)}))
		// two pods filling a node each share one claim of the GPU
		require.NoError(t, ts.AddPod(claimPod("a", "", "shared").CPU("4").Obj(), 0))
		require.NoError(t, ts.AddPod(claimPod("b", "", "shared").CPU("4").Obj(), 0))
		ts.run()
		sa, _ := ts.Pod("default/a")
		sb, _ := ts.Pod("default/b")
		require.Equal(t, PhaseBound, sa.Phase)
		require.Equal(t, PhaseBound, sb.Phase)
		require.NotEqual(t, sa.Node, sb.Node, "one claim, pods on two nodes")
		require.NoError(t, ts.DeletePod("default/a"))
		require.NoError(t, ts.DeletePod("default/b"))
		ts.run()

		require.NoError(t, ts.AddPod(claimPod("low", "net", "").Obj(), 0))
		ts.run()
		require.NoError(t, ts.AddPod(claimPod("high", "net", "").Priority(100).Obj(), 0))
		ts.run()
		st, _ := ts.Pod("default/high")
		if !preemption {
			require.Equal(t, PhasePending, st.Phase)
			require.Contains(t, st.Reason, "cannot allocate all claims")
			continue
		}
		require.Equal(t, PhaseBound, st.Phase, st.Reason)
		_, devs := ts.devicesOf("default/high-gpu")
		require.Equal(t, []string{"ngpu-0"}, devs)
		require.Len(t, ts.Evictions(), 1)
		ts.checkNetClaimAccounts()
	}
}

// A gang that needs both network GPUs while a pod of another node holds
// one waits, and is placed when that pod ends, though the nodes it goes
// to did not change: the shortcuts that remember a search's failure by
// its nodes see every node changed when a network device is freed. The
// same decisions with every shortcut off. Issue 48.
func TestNetDeviceFreedElsewhereWakesGang(t *testing.T) {
	run := func(opts ...Option) (*testSched, []string) {
		var events []string
		ts := newDeviceSchedWith(t, false, false, append(opts, WithObserver(func(e Event) { events = append(events, e.String()) }))...)
		for _, n := range []string{"n1", "n2", "n3"} {
			require.NoError(t, ts.AddNode(gangsimtest.MakeNode(n).CPU("4").Memory("8Gi").Obj()))
		}
		require.NoError(t, ts.AddResourceSlice(fabricSlice(2)))
		ts.template("net", gpuSpec(1, "NET", 0))
		// n1 is full but for the holder's one cpu, which no member fits in
		require.NoError(t, ts.AddPod(gangsimtest.MakePod("filler").CPU("3").NodeName("n1").Obj(), 0))
		require.NoError(t, ts.AddPod(claimPod("holder", "net", "").CPU("1").NodeName("n1").Obj(), 10*time.Minute))
		ts.run()
		require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", 2).Obj()))
		for j := range 2 {
			require.NoError(t, ts.AddPod(claimPod(fmt.Sprintf("g-%d", j), "net", "").CPU("3").Group("g").Obj(), time.Minute))
		}
		ts.run()
		return ts, events
	}
	ts, want := run()
	require.Contains(t, strings.Join(want, "\n"), "g-1")
	for j := range 2 {
		st, _ := ts.Pod(cluster.PodKey(fmt.Sprintf("default/g-%d", j)))
		require.NotEqual(t, PhasePending, st.Phase, st.Reason)
	}
	_, got := run(WithoutShortcuts(allShortcuts))
	require.Equal(t, want, got)
}
