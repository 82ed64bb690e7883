package gangsim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
)

const reserveTesterName = "ReserveTester"

// reserveTester is a user PreFilter and Reserve plugin. PreFilter writes
// the pod's key in its state, which Reserve checks (Reserve reads the
// state of its own pod's attempt); Reserve reserves, on a node with
// devices, a claim of the pod's through the handle's snapshot, and then
// rejects the nodes reject picks.
type reserveTester struct {
	h      fw.Handle
	reject func(pod *cluster.PodInfo, node int) bool
	// reserved lists the Reserve calls that succeeded, unreserved the
	// Unreserve calls, in order
	reserved   []reservation
	unreserved []string
}

// reservation is one successful Reserve: the pod, its node, and the
// claim it reserved there (nil alloc for none).
type reservation struct {
	pod   cluster.PodKey
	node  string
	claim string
	alloc *cluster.AllocationResult
}

type podKeyState struct{ key cluster.PodKey }

func (d *podKeyState) Clone() fw.StateData { c := *d; return &c }

func (p *reserveTester) Name() string { return reserveTesterName }

func (p *reserveTester) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, _ *cluster.Snapshot) *fw.Status {
	state.Write(reserveTesterName, &podKeyState{key: pod.Key()})
	return nil
}

func claimOf(pod *cluster.PodInfo) string { return "default/claim-" + pod.Pod().Name }

// testerPod is a pod (of group, when set) naming the claim the tester
// reserves for it, so that the cache releases it with the pod.
func testerPod(name, group string, milliCPU int64) cluster.Pod {
	w := gangsimtest.MakePod(name).MilliCPU(milliCPU).ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimName: "claim-" + name})
	if group != "" {
		w = w.Group(group)
	}
	return w.Obj()
}

func (p *reserveTester) Reserve(state *fw.CycleState, pod *cluster.PodInfo, node int) *fw.Status {
	if d, ok := state.Read(reserveTesterName); !ok || d.(*podKeyState).key != pod.Key() {
		return fw.NewStatus(fw.Error, "Reserve ran with another pod's state")
	}
	snap := p.h.Snapshot()
	ni := snap.Node(node)
	if _, there := ni.Pod(pod.Key()); !there {
		return fw.NewStatus(fw.Error, "Reserve ran before the pod was assumed")
	}
	res := reservation{pod: pod.Key(), node: ni.Name()}
	if sl := ni.Slices(); len(sl) > 0 {
		dev := fmt.Sprintf("gpu-%d", ni.ClaimCount())
		res.claim, res.alloc = claimOf(pod), &cluster.AllocationResult{Node: ni.Name(),
			Devices: []cluster.DeviceRequestAllocation{{Request: "gpu", Driver: sl[0].Driver, Pool: sl[0].Pool.Name, Device: dev}}}
		if err := snap.ReserveClaim(node, res.claim, res.alloc); err != nil {
			return fw.NewStatus(fw.Error, err.Error())
		}
	}
	if p.reject != nil && p.reject(pod, node) {
		return fw.NewStatus(fw.Unschedulable, "node rejected at Reserve")
	}
	p.reserved = append(p.reserved, res)
	return nil
}

func (p *reserveTester) Unreserve(_ *fw.CycleState, pod *cluster.PodInfo, node int) {
	p.unreserved = append(p.unreserved, string(pod.Key())+"@"+p.h.Snapshot().Node(node).Name())
}

// newReserveSched makes a scheduler whose default profile runs pl at
// every point it implements (PreFilter and Reserve), with the invariant
// checker on.
func newReserveSched(t *testing.T, pl *reserveTester, opts ...Option) *testSched {
	t.Helper()
	reg := fw.Registry{reserveTesterName: {New: func(_ any, h fw.Handle) (fw.Plugin, error) {
		if h != nil {
			pl.h = h
		}
		return pl, nil
	}}}
	// DynamicResources is off: the tester reserves the pods' claims itself
	cfg := Config{CheckInvariants: true, Profiles: []Profile{{Plugins: &Plugins{MultiPoint: PluginSet{Enabled: []PluginRef{{Name: reserveTesterName}},
		Disabled: []PluginRef{{Name: "DynamicResources"}}}}}}}
	s, err := New(cfg, append(opts, WithRegistry(reg))...)
	require.NoError(t, err)
	return &testSched{Scheduler: s, t: t}
}

// gpuNode adds a node of 4 cpus in rack with a slice of eight devices.
func (ts *testSched) gpuNode(name, rack string) *testSched {
	ts.t.Helper()
	n := gangsimtest.MakeNode(name).CPU("4").Memory("16Gi")
	if rack != "" {
		n = n.Rack(rack)
	}
	require.NoError(ts.t, ts.AddNode(n.Obj()))
	devs := make([]cluster.Device, 8)
	for i := range devs {
		devs[i].Name = fmt.Sprintf("gpu-%d", i)
	}
	require.NoError(ts.t, ts.cache.AddResourceSlice(cluster.ResourceSlice{Name: name + "-gpus", Driver: "gpu.example.com",
		Pool: cluster.ResourcePool{Name: name, SliceCount: 1}, NodeName: name, Devices: devs}))
	return ts
}

// cacheClaims lists the claims the cache holds, by node (all of them: the
// test's claims are the pods' and there are no others).
func (ts *testSched) cacheClaims() map[string][]string {
	ts.t.Helper()
	out := map[string][]string{}
	for ni := range ts.cache.Nodes() {
		for st := range ts.Pods() {
			key := "default/claim-" + st.Key.Display()
			if _, _, ok := ni.Claim(key); ok {
				out[ni.Name()] = append(out[ni.Name()], key)
			}
		}
		require.Len(ts.t, out[ni.Name()], ni.ClaimCount(), "node %s holds only the pods' claims", ni.Name())
	}
	return out
}

// A lone pod whose Reserve fails on the only node that fits fails its
// attempt with the Reserve status, as kube-scheduler's does: no other node
// is tried, the plugin's Unreserve runs, nothing reaches the cache, the
// snapshot is as before; the pod waits for a change and then binds.
func TestReserveFailureFailsThePodAttempt(t *testing.T) {
	pl := &reserveTester{}
	var reasons []string
	ts := newReserveSched(t, pl, WithObserver(func(e Event) {
		if e.Kind == EventCycle {
			reasons = append(reasons, e.Reason)
		}
	}))
	ts.gpuNode("big", "")
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("small").CPU("1").Memory("16Gi").Obj()))
	big, _ := ts.snap.Index("big")
	pl.reject = func(_ *cluster.PodInfo, node int) bool { return node == big }
	require.NoError(t, ts.AddPod(testerPod("web", "", 2000), 0))

	res := ts.scheduleOne()
	require.Empty(t, res.Bound)
	require.Equal(t, Unschedulable, res.Status.Code())
	require.Contains(t, res.Status.Message(), "node rejected at Reserve")
	require.Equal(t, []string{res.Status.Message()}, reasons, "the cycle's event gives the Reserve status")
	st, _ := ts.Pod(cluster.MakePodKey("", "web"))
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, res.Status.Message(), st.Reason)
	require.Equal(t, []string{"default/web@big"}, pl.unreserved)
	require.Zero(t, ts.snap.Tentative())
	require.Empty(t, ts.cacheClaims(), "the claim Reserve made is rolled back with the pod")
	ni, _ := ts.Node("big")
	require.Zero(t, ni.PodCount())
	_, popped, err := ts.ScheduleOne()
	require.NoError(t, err)
	require.False(t, popped, "the pod waits for a change")

	pl.reject = nil
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("tiny").CPU("1").Memory("16Gi").Obj()))
	ts.run()
	st, _ = ts.Pod(cluster.MakePodKey("", "web"))
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, "big", st.Node)
	require.Equal(t, map[string][]string{"big": {"default/claim-web"}}, ts.cacheClaims(), "the claim is committed with the binding")
}

// A gang member whose Reserve fails is unplaced and the walk goes on; a
// gang whose quorum then fails rolls everything back, the claims its
// members' Reserve made included.
func TestReserveFailureInAGang(t *testing.T) {
	t.Run("quorum lost: nothing bound, no claim", func(t *testing.T) {
		pl := &reserveTester{reject: func(_ *cluster.PodInfo, node int) bool { return node%2 == 1 }}
		ts := newReserveSched(t, pl)
		for i := range 4 {
			ts.gpuNode(fmt.Sprintf("n-%d", i), "")
		}
		ts.gang("g", 4)
		for i := range 4 {
			require.NoError(t, ts.AddPod(testerPod(fmt.Sprintf("g-%d", i), "g", 3000), 0))
		}
		res := ts.scheduleOne()
		require.Empty(t, res.Bound)
		require.Equal(t, Unschedulable, res.Status.Code())
		require.Zero(t, ts.boundCount("g"))
		require.Empty(t, ts.cacheClaims())
		require.Zero(t, ts.snap.Tentative())
		for i := range ts.snap.Len() {
			require.Zero(t, ts.snap.Node(i).ClaimCount(), "the snapshot is rolled back")
		}
		// g-0 reserved on n-0; g-1 failed on n-1, and the quorum was lost
		require.Equal(t, []reservation{{pod: "default/g-0", node: "n-0", claim: "default/claim-g-0", alloc: pl.reserved[0].alloc}}, pl.reserved)
		require.Equal(t, []string{"default/g-1@n-1"}, pl.unreserved)
	})
	t.Run("quorum met: the others bound with their claims", func(t *testing.T) {
		pl := &reserveTester{reject: func(pod *cluster.PodInfo, _ int) bool { return pod.Pod().Name == "g-1" }}
		ts := newReserveSched(t, pl)
		for i := range 4 {
			ts.gpuNode(fmt.Sprintf("n-%d", i), "")
		}
		ts.gang("g", 2)
		for i := range 3 {
			require.NoError(t, ts.AddPod(testerPod(fmt.Sprintf("g-%d", i), "g", 3000), 0))
		}
		res := ts.scheduleOne()
		require.Equal(t, []Binding{{Pod: "default/g-0", Node: "n-0"}, {Pod: "default/g-2", Node: "n-1"}}, res.Bound,
			"g-1 failed at Reserve on n-1 and the walk went on")
		require.Equal(t, map[string][]string{"n-0": {"default/claim-g-0"}, "n-1": {"default/claim-g-2"}}, ts.cacheClaims())
		st, _ := ts.Pod(cluster.MakePodKey("", "g-1"))
		require.Equal(t, PhasePending, st.Phase)
		require.Equal(t, []string{"default/g-1@n-1"}, pl.unreserved)
	})
}

// The best of several evaluated placements is re-applied and committed
// exactly as it was evaluated, without running Reserve again: the same
// pods on the same nodes, and the same claim reservations (the very
// allocations Reserve made). With a quorum of two every rack is evaluated
// and the best replayed; with all three needed the racks are tried best
// first and the first feasible one kept.
func TestReappliedPlacementIsTheEvaluatedOne(t *testing.T) {
	for _, tc := range []struct {
		minCount int32
		reserves int
	}{{2, 2 + 3 + 2}, {3, -1}} {
		t.Run(fmt.Sprintf("minCount=%d", tc.minCount), func(t *testing.T) {
			pl := &reserveTester{}
			ts := newReserveSched(t, pl)
			// racks of 2, 3 and 2 nodes: each fits two pods, r2 all three,
			// and PodGroupPodsCount prefers it; it is not the last rack
			for _, n := range []struct{ name, rack string }{{"r1-0", "r1"}, {"r1-1", "r1"}, {"r2-0", "r2"}, {"r2-1", "r2"}, {"r2-2", "r2"}, {"r3-0", "r3"}, {"r3-1", "r3"}} {
				ts.gpuNode(n.name, n.rack)
			}
			require.NoError(t, ts.AddPodGroup(gangsimtest.MakeGang("g", tc.minCount).Rack().Obj()))
			for i := range 3 {
				require.NoError(t, ts.AddPod(testerPod(fmt.Sprintf("g-%d", i), "g", 3000), 0))
			}
			res := ts.scheduleOne()
			if tc.reserves > 0 {
				require.Len(t, pl.reserved, tc.reserves, "one reservation per pod placed in each rack, none at the re-application")
			}
			at := slices.IndexFunc(pl.reserved, func(r reservation) bool { return r.node == "r2-0" })
			require.GreaterOrEqual(t, at, 0, "rack r2 was evaluated")
			evaluated := pl.reserved[at : at+3]
			var committed []reservation
			for _, b := range res.Bound {
				ni, _ := ts.cache.Node(b.Node)
				key := "default/claim-" + b.Pod.Display()
				alloc, pods, ok := ni.Claim(key)
				require.True(t, ok, "the claim of %s is reserved on %s", b.Pod, b.Node)
				require.Equal(t, 1, pods)
				committed = append(committed, reservation{pod: b.Pod, node: b.Node, claim: key, alloc: alloc})
			}
			require.Equal(t, evaluated, committed)
			for i := range committed {
				require.Same(t, evaluated[i].alloc, committed[i].alloc)
			}
			require.Equal(t, map[string][]string{"r2-0": {"default/claim-g-0"}, "r2-1": {"default/claim-g-1"}, "r2-2": {"default/claim-g-2"}}, ts.cacheClaims(),
				"the claims of the placements not chosen are gone")
			require.Empty(t, pl.unreserved)
		})
	}
}
