package gangsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/dynamicresources"
)

const gpuDriver = "gpu.nvidia.com"

// newDeviceSched makes a scheduler with the invariant checker on and the
// GPU device class; preemption turns the DRAPreemption gate on.
func newDeviceSched(t *testing.T, preemption bool, opts ...Option) *testSched {
	t.Helper()
	return newDeviceSchedWith(t, preemption, false, opts...)
}

// newDeviceSchedWith is newDeviceSched; noMemo turns the plugin's
// memo of allocations off.
func newDeviceSchedWith(t *testing.T, preemption, noMemo bool, opts ...Option) *testSched {
	t.Helper()
	cfg := Config{CheckInvariants: true}
	if preemption || noMemo {
		args := dynamicresources.NewArgs().(*dynamicresources.Args)
		args.Preemption, args.NoAllocationMemo = preemption, noMemo
		cfg.Profiles = []Profile{{PluginConfig: []PluginConfig{{Name: dynamicresources.Name, Args: args}}}}
	}
	s, err := New(cfg, opts...)
	require.NoError(t, err)
	ts := &testSched{Scheduler: s, t: t}
	require.NoError(t, s.AddDeviceClass(gangsimtest.GPUClass()))
	return ts
}

// gpus adds a node of 16 cpus with count GPUs of a model; shared GPUs
// are shared by capacity (1000 milligpu each, KEP-5075).
func (ts *testSched) gpus(name string, count int, model string, shared bool, rack string) *testSched {
	ts.t.Helper()
	n := gangsimtest.MakeNode(name).CPU("16").Memory("64Gi")
	if rack != "" {
		n = n.Rack(rack)
	}
	require.NoError(ts.t, ts.AddNode(n.Obj()))
	require.NoError(ts.t, ts.AddResourceSlice(gangsimtest.GPUSlice(name, count, model, shared)))
	return ts
}

// gpuSpec asks for count GPUs of the class (of a model when model is set),
// or, with milli > 0, for that much of one shared GPU.
var gpuSpec = gangsimtest.GPUSpec

// template adds a claim template to the tests' stand-in for the
// resourceclaim controller (AddPod).
func (ts *testSched) template(name string, spec cluster.ResourceClaimSpec) *testSched {
	if ts.templates == nil {
		ts.templates = map[string]cluster.ResourceClaimSpec{}
	}
	ts.templates[string(cluster.MakePodKey("", name))] = spec
	return ts
}

// AddPod adds a pod once the claims of its entries naming a template
// known to ts exist, as the resourceclaim controller makes them
// (controllers.ResourceClaims, which this package's tests cannot import):
// "<pod>-<entry>", owned by the pod and recorded in its status.
func (ts *testSched) AddPod(p cluster.Pod, d time.Duration) error {
	if err := makeClaims(ts.Scheduler, ts.templates, &p); err != nil {
		return err
	}
	return ts.Scheduler.AddPod(p, d)
}

// makeClaims makes the claims of p's entries whose template is in
// templates (by "namespace/name"), and records them in p's status.
func makeClaims(s *Scheduler, templates map[string]cluster.ResourceClaimSpec, p *cluster.Pod) error {
	for i, e := range p.ResourceClaims {
		spec, ok := templates[string(cluster.MakePodKey(p.Namespace, e.ResourceClaimTemplateName))]
		if !ok || p.ClaimKey(i) != "" {
			continue
		}
		name := cluster.TemplateClaimName(p.Name, e.Name)
		if _, made := s.ResourceClaim(string(cluster.MakePodKey(p.Namespace, name))); made {
			// made for an earlier pod of the name (the random programs'):
			// kept, as the stand-in deletes nothing
		} else if err := s.AddResourceClaim(cluster.ResourceClaim{Namespace: p.Namespace, Name: name, Spec: spec,
			Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: p.Name}}); err != nil {
			return err
		}
		p.ResourceClaimStatuses = append(slices.Clip(p.ResourceClaimStatuses), cluster.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: name})
	}
	return nil
}

// claimPod makes a pod of 1 cpu using a template (or a shared claim,
// when claim is set).
func claimPod(name, template, claim string) *gangsimtest.PodWrapper {
	e := cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: template}
	if claim != "" {
		e = cluster.PodResourceClaim{Name: "gpu", ResourceClaimName: claim}
	}
	return gangsimtest.MakePod(name).CPU("1").ResourceClaims(e)
}

// devicesOf lists the devices a claim holds in the cache, and its node.
func (ts *testSched) devicesOf(claim string) (string, []string) {
	ts.t.Helper()
	for ni := range ts.cache.Nodes() {
		if alloc, _, ok := ni.Claim(claim); ok {
			var out []string
			for _, d := range alloc.Devices {
				out = append(out, d.Device)
			}
			return ni.Name(), out
		}
	}
	return "", nil
}

// A pod claiming two GPUs of a model, on nodes with one free each, stays
// pending with kube's reason.
func TestClaimOfTwoGPUsOnNodesWithOneFreeEach(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", false, "").gpus("n2", 2, "A100", false, "").gpus("n3", 4, "H100", false, "")
	ts.template("one", gpuSpec(1, "A100", 0)).template("two", gpuSpec(2, "A100", 0))
	require.NoError(t, ts.AddPod(claimPod("a", "one", "").Obj(), 0))
	require.NoError(t, ts.AddPod(claimPod("b", "one", "").Obj(), 0))
	ts.run()
	na, _ := ts.devicesOf("default/a-gpu")
	nb, _ := ts.devicesOf("default/b-gpu")
	require.ElementsMatch(t, []string{"n1", "n2"}, []string{na, nb}, "one A100 taken on each node")

	require.NoError(t, ts.AddPod(claimPod("c", "two", "").Obj(), 0))
	ts.run()
	st, _ := ts.Pod("default/c")
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, "0/3 nodes are available: 3 cannot allocate all claims.", st.Reason)

	// a's pod ends: its GPU is free, and c fits beside b's
	require.NoError(t, ts.DeletePod("default/a"))
	ts.run()
	st, _ = ts.Pod("default/c")
	require.Equal(t, PhaseBound, st.Phase)
	require.Equal(t, na, st.Node)
	_, devs := ts.devicesOf("default/c-gpu")
	require.Equal(t, []string{"gpu-0", "gpu-1"}, devs)
	_, ok := ts.cache.ResourceClaim("default/a-gpu")
	require.True(t, ok, "the scheduler deletes no claim: the resourceclaim controller does")
}

// A shared claim serves two pods on one node: the second follows the
// first to the claim's node, and the devices are freed when the last pod
// ends.
func TestSharedClaimServesTwoPodsOnOneNode(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 1, "A100", false, "").gpus("n2", 1, "A100", false, "")
	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "shared", Spec: gpuSpec(1, "", 0)}))
	var events []string
	WithObserver(func(e Event) {
		if e.Kind == EventClaimAllocated || e.Kind == EventClaimReleased {
			events = append(events, e.String())
		}
	})(ts.Scheduler)
	require.NoError(t, ts.AddPod(claimPod("a", "", "shared").Obj(), 0))
	require.NoError(t, ts.AddPod(claimPod("b", "", "shared").Obj(), 0))
	ts.run()
	sa, _ := ts.Pod("default/a")
	sb, _ := ts.Pod("default/b")
	require.Equal(t, PhaseBound, sb.Phase)
	require.Equal(t, sa.Node, sb.Node)
	ni, _ := ts.cache.Node(sa.Node)
	_, pods, _ := ni.Claim("default/shared")
	require.Equal(t, 2, pods)

	require.NoError(t, ts.DeletePod("default/a"))
	require.Len(t, events, 1, "the claim stays allocated while b uses it")
	require.NoError(t, ts.DeletePod("default/b"))
	require.Equal(t, []string{
		"0s ClaimAllocated claim=default/shared node=" + sa.Node + " devices=gpu.nvidia.com/" + sa.Node + "/gpu-0",
		"0s ClaimReleased claim=default/shared node=" + sa.Node,
	}, events)
	require.Equal(t, 0, ni.ClaimCount())
}

// A pod sharing a device's capacity fits beside another only while
// capacity remains: three pods of 0.6 GPU on a node of two shared GPUs,
// two bind (one per GPU) and the third waits.
func TestSharedCapacityFitsWhileItRemains(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", true, "")
	ts.template("share", gpuSpec(1, "", 600)).template("small", gpuSpec(1, "", 400))
	for _, name := range []string{"a", "b", "c"} {
		require.NoError(t, ts.AddPod(claimPod(name, "share", "").Obj(), 0))
	}
	ts.run()
	var bound []string
	for st := range ts.Pods() {
		if st.Phase == PhaseBound {
			bound = append(bound, st.Key.Display())
		}
	}
	require.Equal(t, []string{"a", "b"}, bound)
	st, _ := ts.Pod("default/c")
	require.Contains(t, st.Reason, "cannot allocate all claims")
	_, da := ts.devicesOf("default/a-gpu")
	_, db := ts.devicesOf("default/b-gpu")
	require.Equal(t, []string{"gpu-0"}, da)
	require.Equal(t, []string{"gpu-1"}, db)

	// 0.4 still fits beside a's 0.6
	require.NoError(t, ts.AddPod(claimPod("d", "small", "").Obj(), 0))
	ts.run()
	st, _ = ts.Pod("default/d")
	require.Equal(t, PhaseBound, st.Phase)
	_, dd := ts.devicesOf("default/d-gpu")
	require.Equal(t, []string{"gpu-0"}, dd)
	ni, _ := ts.cache.Node("n1")
	u, _ := ni.DeviceUse(cluster.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu-0"})
	require.Equal(t, cluster.Quantity(1000*1000), u.Capacity["milligpu"])
}

// A gang of four claiming devices binds all or none: on a cluster with
// three free GPUs its cycle allocates for three members tentatively and
// rolls them all back; with a fourth GPU it binds all four at once.
func TestGangClaimingDevicesBindsAllOrNone(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", false, "r1").gpus("n2", 1, "A100", false, "r1")
	ts.template("one", gpuSpec(1, "", 0)).gang("g", 4)
	for i := range 4 {
		require.NoError(t, ts.AddPod(claimPod(fmt.Sprintf("g-%d", i), "one", "").Group("g").Obj(), 0))
	}
	ts.run()
	require.Equal(t, 0, ts.boundCount("g"))
	for ni := range ts.cache.Nodes() {
		require.Equal(t, 0, ni.ClaimCount(), "no allocation of the failed gang reached the cache")
	}
	require.NoError(t, ts.cache.UpdateSnapshot(ts.snap), "the snapshot holds no tentative change")

	ts.gpus("n3", 1, "A100", false, "r1")
	ts.run()
	require.Equal(t, 4, ts.boundCount("g"))
	seen := map[string]bool{}
	for i := range 4 {
		node, devs := ts.devicesOf(fmt.Sprintf("default/g-%d-gpu", i))
		require.Len(t, devs, 1)
		id := node + "/" + devs[0]
		require.False(t, seen[id], "each member has a GPU of its own")
		seen[id] = true
	}
}

// Preempting a pod frees its devices for the preemptor. With the
// DRAPreemption gate on, a high-priority pod evicts the low-priority
// holder of the only GPU and takes the GPU; with the gate off (v1.37's
// default) a failure for devices is not resolvable by preemption, and the
// preemptor waits.
func TestPreemptionFreesDevices(t *testing.T) {
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("DRAPreemption=%v", gate), func(t *testing.T) {
			ts := newDeviceSched(t, gate).gpus("n1", 1, "A100", false, "")
			ts.template("one", gpuSpec(1, "", 0))
			require.NoError(t, ts.AddPod(claimPod("low", "one", "").Priority(0).Obj(), 0))
			ts.run()
			require.NoError(t, ts.AddPod(claimPod("high", "one", "").Priority(100).Obj(), 0))
			ts.run()
			high, _ := ts.Pod("default/high")
			low, _ := ts.Pod("default/low")
			if !gate {
				require.Equal(t, PhasePending, high.Phase)
				require.Equal(t, PhaseBound, low.Phase)
				require.Contains(t, high.Reason, "cannot allocate all claims")
				return
			}
			require.Equal(t, PhaseBound, high.Phase)
			require.Equal(t, PhasePending, low.Phase)
			node, devs := ts.devicesOf("default/high-gpu")
			require.Equal(t, "n1", node)
			require.Equal(t, []string{"gpu-0"}, devs)
			require.Len(t, ts.Evictions(), 1)
		})
	}
}

// A pod whose claim from a template is not recorded in its status waits,
// held by DynamicResources' PreEnqueue with kube's message and never
// tried; once its status records the claim (SetResourceClaimStatuses, as
// the resourceclaim controller writes it) it is queued and placed. A
// status write is checked: the entry must name a template, and a
// recorded entry keeps its claim.
func TestPodWaitsUntilItsClaimIsRecorded(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 4, "A100", false, "")
	require.NoError(t, ts.AddPod(claimPod("early", "later", "").Obj(), 0))
	ts.run()
	st, _ := ts.Pod("default/early")
	require.Equal(t, PhasePending, st.Phase)
	require.Equal(t, `pod "default/early": ResourceClaim not created yet`, st.Reason)
	require.Zero(t, ts.Stats().Cycles, "held before the queue: never tried")

	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "early-gpu-7", Spec: gpuSpec(1, "", 0),
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "early"}}))
	err := ts.SetResourceClaimStatuses("default/early", cluster.PodResourceClaimStatus{Name: "nope", ResourceClaimName: "x"})
	require.ErrorContains(t, err, `status.resourceClaimStatuses[0].name: "nope" is no entry of spec.resourceClaims`)
	require.NoError(t, ts.SetResourceClaimStatuses("default/early", cluster.PodResourceClaimStatus{Name: "gpu", ResourceClaimName: "early-gpu-7"}))
	err = ts.SetResourceClaimStatuses("default/early", cluster.PodResourceClaimStatus{Name: "gpu", ResourceClaimName: "other"})
	require.ErrorContains(t, err, `entry "gpu" records claim "early-gpu-7" already, not "other"`)
	ts.run()
	st, _ = ts.Pod("default/early")
	require.Equal(t, PhaseBound, st.Phase)
	node, devs := ts.devicesOf("default/early-gpu-7")
	require.Equal(t, "n1", node)
	require.Len(t, devs, 1)
	err = ts.SetResourceClaimStatuses("default/early", cluster.PodResourceClaimStatus{Name: "gpu", ResourceClaimName: "early-gpu-7"})
	require.NoError(t, err, "the same record again changes nothing")
}

// A gang member held for want of its claim holds its whole gang, as a
// gated member does; the status write that records the claim lets the
// gang be placed, and the invariant checker agrees on the gate counts.
func TestGangMemberWaitsForItsClaim(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", false, "").gang("g", 2)
	ts.template("one", gpuSpec(1, "", 0))
	require.NoError(t, ts.AddPod(claimPod("g-0", "one", "").Group("g").Obj(), 0))
	require.NoError(t, ts.Scheduler.AddPod(claimPod("g-1", "one", "").Group("g").Obj(), 0)) // no claim made
	ts.run()
	require.Equal(t, 0, ts.boundCount("g"))
	require.Equal(t, `pod "default/g-1": ResourceClaim not created yet`, ts.status("g-1").Reason)
	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "g-1-gpu", Spec: gpuSpec(1, "", 0),
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "g-1"}}))
	ts.run()
	require.Equal(t, 0, ts.boundCount("g"), "a claim added changes nothing until the pod's status records it")
	require.NoError(t, ts.SetResourceClaimStatuses("default/g-1", cluster.PodResourceClaimStatus{Name: "gpu", ResourceClaimName: "g-1-gpu"}))
	ts.run()
	require.Equal(t, 2, ts.boundCount("g"))
}

// A template's claim made for another pod is refused, as kube checks the
// owner of a pod's claim from a template (resourceclaim.IsForPod).
func TestClaimOfAnotherPodIsRefused(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 1, "A100", false, "")
	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "x", Spec: gpuSpec(1, "", 0),
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "someone"}}))
	p := claimPod("p", "t", "").Obj()
	p.ResourceClaimStatuses = []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "x"}}
	require.NoError(t, ts.AddPod(p, 0))
	ts.run()
	require.Equal(t, "0/1 nodes are available: 1 ResourceClaim default/x was not created for pod default/p (pod is not owner).", ts.status("p").Reason)
}

// An invalid CEL selector is an error naming the object and the field, as
// the API server reports it, and nothing is added.
func TestInvalidSelectorNamesTheField(t *testing.T) {
	ts := newDeviceSched(t, false)
	err := ts.AddDeviceClass(cluster.DeviceClass{Name: "bad", Selectors: []cluster.DeviceSelector{{CEL: `device.driver ==`}}})
	require.ErrorIs(t, err, cluster.ErrInvalidDevices)
	require.True(t, strings.HasPrefix(err.Error(), "cluster: invalid device object deviceclass bad: spec.selectors[0].cel.expression: Invalid value: \"device.driver ==\": compilation failed: ERROR: <input>:1:"), err.Error())
	_, ok := ts.cache.DeviceClass("bad")
	require.False(t, ok)

	spec := gpuSpec(1, "", 0)
	spec.Requests[0].Exactly.Selectors = []cluster.DeviceSelector{{CEL: `1 + 2`}}
	err = ts.AddResourceClaim(cluster.ResourceClaim{Name: "c", Spec: spec})
	require.ErrorContains(t, err, "resourceclaim default/c: spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: ")
}

// deviceCluster is a random small GPU cluster and workload: nodes of two
// GPU models in three racks, some GPUs shared by capacity; pods and gangs
// (half of them kept to a rack) claiming one
// GPU, two, a model, half a GPU, a model or else any (firstAvailable), or
// a claim shared by a few; two priorities, run times, so that pods end,
// free devices and preempt.
func deviceCluster(t *testing.T, seed uint64, preemption bool, opts ...Option) (*testSched, []string) {
	return deviceClusterWith(t, seed, preemption, false, opts...)
}

func deviceClusterWith(t *testing.T, seed uint64, preemption, noMemo bool, opts ...Option) (*testSched, []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var events []string
	ts := newDeviceSchedWith(t, preemption, noMemo, append(opts, WithObserver(func(e Event) { events = append(events, e.String()) }))...)
	models := []string{"A100", "H100"}
	for i := range 4 + rng.IntN(8) {
		ts.gpus(fmt.Sprintf("n%02d", i), 1+rng.IntN(8), models[rng.IntN(2)], rng.IntN(3) == 0, fmt.Sprintf("r%d", i%3))
	}
	anyModel := gpuSpec(1, "", 0)
	firstAvailable := cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: "gpu", FirstAvailable: []cluster.DeviceSubRequest{
		{Name: "h100", ExactDeviceRequest: *gpuSpec(1, "H100", 0).Requests[0].Exactly},
		{Name: "any", ExactDeviceRequest: *anyModel.Requests[0].Exactly},
	}}}}
	ts.template("one", anyModel).template("two", gpuSpec(2, "", 0)).template("a100", gpuSpec(1, "A100", 0)).
		template("half", gpuSpec(1, "", 500)).template("prefer-h100", firstAvailable)
	for i := range 3 {
		require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: fmt.Sprintf("shared-%d", i), Spec: gpuSpec(1, "", 0)}))
	}
	templates := []string{"one", "one", "two", "a100", "half", "half", "prefer-h100"}
	pod := func(name string) *gangsimtest.PodWrapper {
		if rng.IntN(6) == 0 {
			return claimPod(name, "", fmt.Sprintf("shared-%d", rng.IntN(3)))
		}
		return claimPod(name, templates[rng.IntN(len(templates))], "")
	}
	ts.randomArrivals(rng, 10+rng.IntN(30), 3, true, pod)
	ts.run()
	return ts, events
}

// randomArrivals adds count arrivals a few minutes apart, each running 10
// to 70 minutes, of two priorities: a quarter are gangs of 2 to
// 1+maxGang pods (topology-aware for half of them, with racks), the rest
// lone pods; pod makes each pod.
func (ts *testSched) randomArrivals(rng *rand.Rand, count, maxGang int, racks bool, pod func(name string) *gangsimtest.PodWrapper) {
	t := ts.t
	at := time.Duration(0)
	for i := range count {
		at += time.Duration(rng.IntN(5)) * time.Minute
		require.NoError(t, ts.RunUntil(at))
		prio := int32(100 * rng.IntN(2))
		d := time.Duration(10+rng.IntN(60)) * time.Minute
		if rng.IntN(4) == 0 {
			g := fmt.Sprintf("g%02d", i)
			n := 2 + rng.IntN(maxGang)
			gang := gangsimtest.MakeGang(g, int32(n)).Priority(prio)
			if racks && rng.IntN(2) == 0 {
				gang = gang.Rack() // topology-aware: one rack's nodes
			}
			require.NoError(t, ts.AddPodGroup(gang.Obj()))
			for j := range n {
				require.NoError(t, ts.AddPod(pod(fmt.Sprintf("%s-%d", g, j)).Group(g).Obj(), d))
			}
			continue
		}
		require.NoError(t, ts.AddPod(pod(fmt.Sprintf("p%02d", i)).Priority(prio).Obj(), d))
	}
}

// checkClaimAccounts holds the cache's claim accounts to the pods: every
// claim allocated on a node is reserved by exactly the pods on that node
// that use it, and every pod on a node has its claims there.
func (ts *testSched) checkClaimAccounts() {
	ts.t.Helper()
	for ni := range ts.cache.Nodes() {
		users := map[string]int{}
		for pi := range ni.Pods() {
			p := pi.Pod()
			for i := range p.ResourceClaims {
				key := p.ClaimKey(i)
				users[key]++
				_, _, ok := ni.Claim(key)
				require.True(ts.t, ok, "pod %s on %s has its claim %s there", pi.Key(), ni.Name(), key)
			}
		}
		for key := range ni.Claims() {
			_, pods, _ := ni.Claim(key)
			require.Equal(ts.t, users[key], pods, "claim %s on %s", key, ni.Name())
		}
	}
}

// On random GPU clusters every shortcut keeps every decision with devices
// too (the DynamicResources plugin signs its verdicts for the filter
// memo), and so does the plugin's own memo of allocations, with the
// DRAPreemption gate off and on; the claim accounts match the pods at the
// end.
func TestDeviceClustersKeepDecisionsWithoutShortcuts(t *testing.T) {
	seeds := uint64(16)
	if raceOn || testing.Short() {
		seeds = 3
	}
	bound, evicted := 0, 0
	for seed := range seeds {
		for _, preemption := range []bool{false, true} {
			ts, want := deviceCluster(t, seed, preemption)
			ts.checkClaimAccounts()
			bound += ts.Stats().Scheduled
			if preemption {
				evicted += len(ts.Evictions())
			}
			for _, off := range []Shortcut{FilterMemo, MemoTree, KnownFailures, DryRunMemo, RememberedCandidates, VictimUnits, allShortcuts} {
				_, got := deviceCluster(t, seed, preemption, WithoutShortcuts(off))
				require.Equal(t, want, got, "seed %d, preemption %v, without %v", seed, preemption, off)
			}
			_, got := deviceClusterWith(t, seed, preemption, true)
			require.Equal(t, want, got, "seed %d, preemption %v, without the plugin's memo of allocations", seed, preemption)
		}
	}
	require.Positive(t, bound)
	require.Positive(t, evicted, "no preemption for devices: the test says little of it")
}

// An extended resource a device class serves (KEP-5004) is allocated as
// devices on a node that does not offer it, and counted by
// NodeResourcesFit on a node that does (a device plugin's); the devices
// are freed with the pod. The implicit name
// deviceclass.resource.kubernetes.io/<class> is served too.
func TestExtendedResourceServedByDevices(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", false, "")
	require.NoError(t, ts.AddDeviceClass(cluster.DeviceClass{Name: "gpu-ext", ExtendedResourceName: "example.com/gpu",
		Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("a").CPU("1").Resource("example.com/gpu", "2").Obj(), 0))
	ts.run()
	st, _ := ts.Pod("default/a")
	require.Equal(t, PhaseBound, st.Phase)
	node, devs := ts.devicesOf("default/a-extended-resources")
	require.Equal(t, "n1", node)
	require.Equal(t, []string{"gpu-0", "gpu-1"}, devs)

	require.NoError(t, ts.AddPod(gangsimtest.MakePod("b").CPU("1").Resource("deviceclass.resource.kubernetes.io/gpu", "1").Obj(), 0))
	ts.run()
	st, _ = ts.Pod("default/b")
	require.Equal(t, PhasePending, st.Phase)
	require.Contains(t, st.Reason, "cannot allocate all claims")

	require.NoError(t, ts.DeletePod("default/a"))
	ts.run()
	st, _ = ts.Pod("default/b")
	require.Equal(t, PhaseBound, st.Phase)
	_, devs = ts.devicesOf("default/b-extended-resources")
	require.Equal(t, []string{"gpu-0"}, devs)

	// a node offering the resource itself: NodeResourcesFit counts it, no
	// devices are allocated
	require.NoError(t, ts.AddNode(gangsimtest.MakeNode("plugin").CPU("4").Memory("8Gi").Resource("example.com/gpu", "4").Obj()))
	require.NoError(t, ts.AddPod(gangsimtest.MakePod("c").CPU("1").Resource("example.com/gpu", "3").Obj(), 0))
	ts.run()
	st, _ = ts.Pod("default/c")
	require.Equal(t, "plugin", st.Node)
	node, _ = ts.devicesOf("default/c-extended-resources")
	require.Empty(t, node)
}

// A DeviceRank (not in Kubernetes) changes which devices a pod gets: best
// fit among shared GPUs takes the fullest GPU that still fits, where
// kube's order takes the first that fits.
func TestDeviceRankChoosesDevices(t *testing.T) {
	for _, bestFit := range []bool{false, true} {
		args := dynamicresources.NewArgs().(*dynamicresources.Args)
		if bestFit {
			args.DeviceRank = func(ni *cluster.NodeInfo, _ []*cluster.ResourceClaim) func(cluster.DeviceID) int64 {
				return func(id cluster.DeviceID) int64 {
					u, _ := ni.DeviceUse(id)
					return 1000*1000 - int64(u.Capacity["milligpu"]) // free capacity: least first
				}
			}
		}
		s, err := New(Config{CheckInvariants: true, Profiles: []Profile{{PluginConfig: []PluginConfig{{Name: dynamicresources.Name, Args: args}}}}})
		require.NoError(t, err)
		ts := &testSched{Scheduler: s, t: t}
		require.NoError(t, s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
		ts.gpus("n1", 2, "A100", true, "")
		ts.template("five", gpuSpec(1, "", 500)).template("six", gpuSpec(1, "", 600)).template("three", gpuSpec(1, "", 300))
		for _, p := range [][2]string{{"a", "five"}, {"b", "six"}, {"small", "three"}} { // a on gpu-0, b on gpu-1
			require.NoError(t, ts.AddPod(claimPod(p[0], p[1], "").Obj(), 0))
			ts.run()
		}
		_, devs := ts.devicesOf("default/small-gpu")
		want := "gpu-0" // kube: the first that fits (500 free)
		if bestFit {
			want = "gpu-1" // the least free that fits (400)
		}
		require.Equal(t, []string{want}, devs, "best fit %v", bestFit)
	}
}

// A slice withdrawn while a claim holds one of its devices leaves the
// claim its device until its pod ends, as documented (the random API
// programs' long run found the invariant checker calling that state
// inconsistent); no new pod gets the withdrawn devices.
func TestSliceWithdrawnWhileItsDeviceIsHeld(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n0", 1, "a100", false, "")
	ts.template("one", gpuSpec(1, "", 0))
	require.NoError(t, ts.AddPod(claimPod("p0", "one", "").Obj(), 0))
	ts.run()
	require.Equal(t, PhaseBound, ts.status("p0").Phase)
	require.NoError(t, ts.RemoveResourceSlice(gangsimtest.GPUSlice("n0", 1, "a100", false).Name))
	require.NoError(t, ts.CheckInvariants(), "the held device of a withdrawn slice is no inconsistency")
	require.NoError(t, ts.AddPod(claimPod("p1", "one", "").Obj(), 0))
	ts.run()
	require.Equal(t, PhasePending, ts.status("p1").Phase, "the withdrawn devices are offered to no one")
	require.NoError(t, ts.DeletePod(cluster.MakePodKey("", "p0")))
	require.NoError(t, ts.CheckInvariants())
}
