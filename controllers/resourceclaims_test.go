package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// claimsCase is a Scheduler with the resourceclaim controller beside it,
// one node "n1" of gpus exclusive GPUs, the GPU class and the template
// "one" (one GPU).
type claimsCase struct {
	t *testing.T
	s *gangsim.Scheduler
	c *controllers.ResourceClaims
}

func newClaimsCase(t *testing.T, gpus int, opts ...gangsim.Option) *claimsCase {
	t.Helper()
	c := controllers.NewResourceClaims()
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, append(opts, c.Attach())...)
	require.NoError(t, err)
	require.NoError(t, s.AddDeviceClass(gt.GPUClass()))
	require.NoError(t, s.AddNode(gt.MakeNode("n1").CPU("16").Memory("64Gi").Obj()))
	require.NoError(t, s.AddResourceSlice(gt.GPUSlice("n1", gpus, "A100", false)))
	require.NoError(t, c.Start(s))
	require.NoError(t, c.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: gt.GPUSpec(1, "", 0)}))
	return &claimsCase{t: t, s: s, c: c}
}

// templatePod is a pod of 1 cpu whose entry names a template.
func templatePod(name, entry, template string) cluster.Pod {
	return gt.MakePod(name).CPU("1").ResourceClaims(cluster.PodResourceClaim{Name: entry, ResourceClaimTemplateName: template}).Obj()
}

// add prepares the pod's claims and adds it, as the scenario runner does.
func (cc *claimsCase) add(p cluster.Pod, d time.Duration) {
	cc.t.Helper()
	require.NoError(cc.t, cc.c.Prepare(&p))
	require.NoError(cc.t, cc.s.AddPod(p, d))
}

// claim returns a claim and whether it exists.
func (cc *claimsCase) claim(key string) (*cluster.ResourceClaim, bool) {
	return cc.s.ResourceClaim(key)
}

// devices lists the devices a claim holds on n1.
func (cc *claimsCase) devices(key string) []string {
	ni, _ := cc.s.Node("n1")
	alloc, _, ok := ni.Claim(key)
	if !ok {
		return nil
	}
	var out []string
	for _, d := range alloc.Devices {
		out = append(out, d.Device)
	}
	return out
}

// A pod naming a template gets its claim, "<pod>-<entry>", owned by the
// pod and recorded in its status; it is placed with the claim's device,
// and when it ends the controller deletes the claim.
func TestResourceClaimsMakesAndDeletesAPodsClaim(t *testing.T) {
	cc := newClaimsCase(t, 1)
	cc.add(templatePod("train", "gpu", "one"), time.Minute)
	rc, ok := cc.claim("default/train-gpu")
	require.True(t, ok)
	require.Equal(t, &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: "train"}, rc.Owner)
	require.Equal(t, []string{"default/train-gpu"}, cc.c.Owned("default/train"))
	st, _ := cc.s.Pod("default/train")
	require.Equal(t, []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "train-gpu"}}, st.ResourceClaimStatuses)

	require.NoError(t, cc.s.RunUntil(30*time.Second))
	require.Equal(t, []string{"gpu-0"}, cc.devices("default/train-gpu"))
	require.NoError(t, cc.s.Run())
	st, _ = cc.s.Pod("default/train")
	require.Equal(t, gangsim.PhaseSucceeded, st.Phase)
	require.True(t, cc.c.Busy(), "the pod's end is told: its claim is to be deleted")
	require.NoError(t, cc.c.Sync())
	_, ok = cc.claim("default/train-gpu")
	require.False(t, ok, "deleted with its pod")
	require.Empty(t, cc.c.Owned("default/train"))

	// the name is free again: a new pod of the same name gets it
	cc.add(templatePod("train", "gpu", "one"), 0)
	_, ok = cc.claim("default/train-gpu")
	require.True(t, ok)
}

// Issue 48's first collision: pod "a" entry "b-c" and pod "a-b" entry
// "c" would both have the claim "a-b-c". The second gets "a-b-c-1": the
// two pods do not share one exclusive GPU; with one GPU the second waits.
func TestResourceClaimsNamesNeverCollideBetweenPods(t *testing.T) {
	for _, gpus := range []int{2, 1} {
		cc := newClaimsCase(t, gpus)
		cc.add(templatePod("a", "b-c", "one"), 0)
		cc.add(templatePod("a-b", "c", "one"), 0)
		require.Equal(t, []string{"default/a-b-c"}, cc.c.Owned("default/a"))
		require.Equal(t, []string{"default/a-b-c-1"}, cc.c.Owned("default/a-b"))
		require.NoError(t, cc.s.Run())
		first, second := cc.devices("default/a-b-c"), cc.devices("default/a-b-c-1")
		st, _ := cc.s.Pod("default/a-b")
		if gpus == 2 {
			require.ElementsMatch(t, []string{"gpu-0", "gpu-1"}, append(first, second...), "a GPU each")
			require.Equal(t, gangsim.PhaseBound, st.Phase)
			continue
		}
		require.Equal(t, []string{"gpu-0"}, first)
		require.Nil(t, second)
		require.Equal(t, gangsim.PhasePending, st.Phase, "the only GPU is a's: a-b waits")
		require.Contains(t, st.Reason, "cannot allocate all claims")
	}
}

// Issue 48's second collision: a user's claim has the name a pod's claim
// would take. The pod gets a claim of its own, and when it ends the
// user's claim stays: the controller deletes only the claims it made.
func TestResourceClaimsNeverTakeAUsersClaim(t *testing.T) {
	cc := newClaimsCase(t, 2)
	require.NoError(t, cc.s.AddResourceClaim(cluster.ResourceClaim{Name: "web-gpu", Spec: gt.GPUSpec(1, "", 0)}))
	require.NoError(t, cc.s.AddPod(gt.MakePod("user").CPU("1").ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimName: "web-gpu"}).Obj(), 0))
	cc.add(templatePod("web", "gpu", "one"), time.Minute)
	require.Equal(t, []string{"default/web-gpu-1"}, cc.c.Owned("default/web"))
	require.NoError(t, cc.s.Run())
	require.NoError(t, cc.c.Sync())
	_, ok := cc.claim("default/web-gpu")
	require.True(t, ok, "the user's claim outlives the pod that ended")
	_, ok = cc.claim("default/web-gpu-1")
	require.False(t, ok)
	require.Equal(t, []string{"gpu-0"}, cc.devices("default/web-gpu"), "the user's pod keeps its GPU")
}

// A pod added without Prepare, or before its template exists, waits,
// held by DynamicResources' PreEnqueue with kube's message; Sync makes
// the claims of those whose template exists, and a template added later
// makes its pods' claims then. Each is queued and placed.
func TestResourceClaimsServeLatePods(t *testing.T) {
	cc := newClaimsCase(t, 2)
	require.NoError(t, cc.s.AddPod(templatePod("early", "gpu", "later"), 0))
	require.NoError(t, cc.s.AddPod(templatePod("plain", "gpu", "one"), 0))
	require.True(t, cc.c.Busy())
	require.NoError(t, cc.s.Run())
	for _, name := range []string{"early", "plain"} {
		st, _ := cc.s.Pod(cluster.MakePodKey("", name))
		require.Equal(t, gangsim.PhasePending, st.Phase, name)
		require.Equal(t, `pod "default/`+name+`": ResourceClaim not created yet`, st.Reason)
	}
	require.NoError(t, cc.c.Sync())
	require.NoError(t, cc.s.Run())
	st, _ := cc.s.Pod("default/plain")
	require.Equal(t, gangsim.PhaseBound, st.Phase, "its claim was made at the sync")
	st, _ = cc.s.Pod("default/early")
	require.Equal(t, gangsim.PhasePending, st.Phase, "its template does not exist yet")

	require.NoError(t, cc.c.AddTemplate(cluster.ResourceClaimTemplate{Name: "later", Spec: gt.GPUSpec(1, "", 0)}))
	require.NoError(t, cc.s.Run())
	st, _ = cc.s.Pod("default/early")
	require.Equal(t, gangsim.PhaseBound, st.Phase)
	require.Equal(t, []string{"default/early-gpu"}, cc.c.Owned("default/early"))
}

// A pod arriving running has its claims made before it is added (the
// controller made them before it ran), and the scheduler reserves them
// on its node; without them it is refused with a message naming the
// entry.
func TestResourceClaimsOfAPodArrivingRunning(t *testing.T) {
	cc := newClaimsCase(t, 1)
	p := templatePod("run", "gpu", "one")
	p.NodeName = "n1"
	bare := p
	err := cc.s.AddPod(bare, 0)
	require.ErrorContains(t, err, `resourceClaims[0]: the claim of entry "gpu" from template one is not made (its status records none), and the pod is already running on node "n1"`)
	cc.add(p, 0)
	require.Equal(t, []string{"gpu-0"}, cc.devices("default/run-gpu"))
}

// A pod admission refuses was never created: the claims prepared for it
// are deleted at the next Sync.
func TestResourceClaimsOfARefusedPodAreDeleted(t *testing.T) {
	cc := newClaimsCase(t, 1)
	require.NoError(t, cc.s.SetResourceQuota(cluster.ResourceQuota{Namespace: "default", Name: "q", Hard: cluster.ResourceList{"pods": 0}}))
	p := templatePod("no", "gpu", "one")
	require.NoError(t, cc.c.Prepare(&p))
	require.ErrorIs(t, cc.s.AddPod(p, 0), gangsim.ErrRejected)
	_, ok := cc.claim("default/no-gpu")
	require.True(t, ok)
	require.NoError(t, cc.c.Sync())
	_, ok = cc.claim("default/no-gpu")
	require.False(t, ok)

	// a claim deleted by someone else before the controller is no error
	q := templatePod("again", "gpu", "one")
	require.NoError(t, cc.c.Prepare(&q))
	require.ErrorIs(t, cc.s.AddPod(q, 0), gangsim.ErrRejected)
	require.NoError(t, cc.s.DeleteResourceClaim("default/again-gpu"))
	require.NoError(t, cc.c.Sync())
}

// A template is checked as the API server checks it: a selector that
// does not compile names the template and the field; a second template
// of the same name is refused.
func TestResourceClaimsCheckTemplates(t *testing.T) {
	cc := newClaimsCase(t, 1)
	spec := gt.GPUSpec(1, "", 0)
	spec.Requests[0].Exactly.Selectors = []cluster.DeviceSelector{{CEL: `1 + 2`}}
	err := cc.c.AddTemplate(cluster.ResourceClaimTemplate{Name: "t", Spec: spec})
	require.ErrorIs(t, err, cluster.ErrInvalidDevices)
	require.ErrorContains(t, err, "resourceclaimtemplate default/t: spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: ")
	err = cc.c.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: gt.GPUSpec(1, "", 0)})
	require.ErrorContains(t, err, "resource claim template default/one already exists")
	_, ok := cc.c.Template("", "t")
	require.False(t, ok)
}

// A StatefulSet's pod made again under its name, after the first ended,
// gets the claim name the first had: the Manager prepares each pod it
// makes, and the ended pod's claim is deleted first.
func TestManagerMakesClaimsOfItsPods(t *testing.T) {
	c := controllers.NewResourceClaims()
	tmpl := templatePod("", "gpu", "one")
	w := controllers.Workload{Kind: controllers.KindStatefulSet, Namespace: "default", Name: "web", Replicas: 1,
		Template: tmpl, RunTime: func(cluster.PodKey, int) time.Duration { return time.Minute }}
	m := controllers.NewManager([]controllers.Workload{w}, controllers.WithResourceClaims(c))
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, m.Attach(), c.Attach())
	require.NoError(t, err)
	require.NoError(t, s.AddDeviceClass(gt.GPUClass()))
	require.NoError(t, s.AddNode(gt.MakeNode("n1").CPU("16").Memory("64Gi").Obj()))
	require.NoError(t, s.AddResourceSlice(gt.GPUSlice("n1", 1, "A100", false)))
	require.NoError(t, c.Start(s))
	require.NoError(t, c.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: gt.GPUSpec(1, "", 0)}))
	m.Start(s)
	for s.Now() < 150*time.Second { // web-0 ends at 1m and 2m, and is made again
		if m.Busy() {
			require.NoError(t, m.React())
			continue
		}
		m.Resume()
		if w, woken := m.NextWakeup(); woken {
			require.NoError(t, s.RunUntil(w))
			if !m.Paused() {
				m.Wake(w)
			}
			continue
		}
		require.NoError(t, s.RunUntil(150*time.Second))
	}
	require.Equal(t, []string{"default/web-0-gpu"}, c.Owned("default/web-0"))
	st, _ := s.Pod("default/web-0")
	require.Equal(t, 2*time.Minute, st.ArrivedAt, "the third web-0")
	require.Equal(t, gangsim.PhaseBound, st.Phase)
	ni, _ := s.Node("n1")
	_, pods, ok := ni.Claim("default/web-0-gpu")
	require.True(t, ok)
	require.Equal(t, 1, pods)
}

// groupPod is a pod of 1 cpu in a PodGroup, whose entry "gpu" names the
// template "one", as its group's does.
func groupPod(name, group string) cluster.Pod {
	return gt.MakePod(name).CPU("1").Group(group).ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: "one"}).Obj()
}

// addGroup adds a gang of min pods whose spec.resourceClaims has the
// entry "gpu" from the template "one".
func (cc *claimsCase) addGroup(name string, min int32) {
	cc.t.Helper()
	require.NoError(cc.t, cc.s.AddPodGroup(podgroup.PodGroup{Name: name, Policy: podgroup.Gang, MinCount: min,
		ResourceClaims: []cluster.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one"}}}))
}

// A PodGroup's claim from a template (DRAWorkloadResourceClaims) is made
// once for the group, owned by it, and its pods share it: one
// allocation, one device, every pod on the node it is usable on. A second
// group gets a claim and a device of its own; a pod of the group whose
// entry differs from the group's gets its own claim. When the group's
// last pod ends the device is free again; the claim stays, with its
// group.
func TestResourceClaimsOfAPodGroupAreShared(t *testing.T) {
	c := controllers.NewResourceClaims()
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, c.Attach())
	require.NoError(t, err)
	cc := &claimsCase{t: t, s: s, c: c}
	require.NoError(t, s.AddDeviceClass(gt.GPUClass()))
	for _, n := range []string{"n1", "n2"} {
		require.NoError(t, s.AddNode(gt.MakeNode(n).CPU("16").Memory("64Gi").Obj()))
		require.NoError(t, s.AddResourceSlice(gt.GPUSlice(n, 1, "A100", false)))
	}
	require.NoError(t, c.Start(s))
	require.NoError(t, c.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: gt.GPUSpec(1, "", 0)}))
	cc.addGroup("g1", 3)
	cc.addGroup("g2", 2)
	for i, d := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		cc.add(groupPod(fmt.Sprintf("g1-%d", i), "g1"), d)
	}
	cc.add(groupPod("g2-0", "g2"), 0)
	cc.add(groupPod("g2-1", "g2"), 0)
	require.Equal(t, []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "g1-gpu"}}, c.GroupClaims("default/g1"))
	rc, ok := s.ResourceClaim("default/g1-gpu")
	require.True(t, ok)
	require.Equal(t, &cluster.ClaimOwner{Kind: cluster.OwnerPodGroup, Name: "g1"}, rc.Owner)
	require.Empty(t, c.Owned("default/g1-0"), "the pod owns no claim: the group does")
	require.NoError(t, s.RunUntil(30*time.Second))

	node := func(pod string) string { st, _ := s.Pod(cluster.MakePodKey("", pod)); return st.Node }
	require.Equal(t, node("g1-0"), node("g1-1"))
	require.Equal(t, node("g1-0"), node("g1-2"))
	require.Equal(t, node("g2-0"), node("g2-1"))
	require.NotEqual(t, node("g1-0"), node("g2-0"), "a GPU each, on its node")
	ni, _ := s.Node(node("g1-0"))
	alloc, pods, ok := ni.Claim("default/g1-gpu")
	require.True(t, ok)
	require.Equal(t, 3, pods, "one allocation for the group's three pods")
	require.Len(t, alloc.Devices, 1)
	for _, p := range []string{"g1-0", "g1-1", "g1-2"} {
		st, _ := s.Pod(cluster.MakePodKey("", p))
		require.Equal(t, []cluster.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "g1-gpu"}}, st.ResourceClaimStatuses)
	}

	require.NoError(t, s.RunUntil(150*time.Second)) // g1-0 and g1-1 ended
	ni, _ = s.Node(ni.Name())
	_, pods, ok = ni.Claim("default/g1-gpu")
	require.True(t, ok)
	require.Equal(t, 1, pods)
	require.NoError(t, s.Run()) // g1-2 ended: the group's last pod
	ni, _ = s.Node(ni.Name())
	_, _, ok = ni.Claim("default/g1-gpu")
	require.False(t, ok, "released with the group's last pod")
	require.NoError(t, c.Sync())
	_, ok = s.ResourceClaim("default/g1-gpu")
	require.True(t, ok, "the claim is the group's, not its pods'")

	// the device is free: a pod of no group takes it
	cc.add(templatePod("solo", "gpu", "one"), 0)
	require.NoError(t, s.Run())
	st, _ := s.Pod("default/solo")
	require.Equal(t, gangsim.PhaseBound, st.Phase)
	require.Equal(t, node("g1-0"), st.Node)
}

// Only an entry equal to the group's in every field uses the group's
// claim: a pod of the group whose entry has another name gets a claim of
// its own, and a pod of a group without claims too.
func TestResourceClaimsOnlyAMatchingEntryIsTheGroups(t *testing.T) {
	cc := newClaimsCase(t, 2)
	cc.addGroup("g", 1)
	require.NoError(t, cc.s.AddPodGroup(podgroup.PodGroup{Name: "plain", Policy: podgroup.Gang, MinCount: 1}))
	other := gt.MakePod("other").CPU("1").Group("g").ResourceClaims(cluster.PodResourceClaim{Name: "gpu2", ResourceClaimTemplateName: "one"}).Obj()
	cc.add(other, 0)
	cc.add(groupPod("p", "plain"), 0)
	require.Equal(t, []string{"default/other-gpu2"}, cc.c.Owned("default/other"))
	require.Equal(t, []string{"default/p-gpu"}, cc.c.Owned("default/p"))
	require.Empty(t, cc.c.GroupClaims("default/g"))
}

// A pod's name long enough that "<pod>-<entry>" is no valid name gets a
// claim whose name is cut short before its suffix, as generateName cuts
// the prefix: at most 253 characters.
func TestResourceClaimsNamesStayValid(t *testing.T) {
	cc := newClaimsCase(t, 1)
	long := strings.Repeat("a", 250)
	cc.add(templatePod(long, "gpu", "one"), 0)
	want := "default/" + strings.Repeat("a", 250) + "-1"
	require.Equal(t, []string{want}, cc.c.Owned(cluster.MakePodKey("", long)))
	require.NoError(t, cc.s.Run())
	require.Equal(t, []string{"gpu-0"}, cc.devices(want))
}
