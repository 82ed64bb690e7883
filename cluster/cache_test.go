package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a cache with nodes n1 and n2 and a pod in every state:
// "assumed" and "bound" on n1, "terminating" on n2.
func fixture(t *testing.T) *Cache {
	t.Helper()
	c := NewCache()
	require.NoError(t, c.AddNode(node("n1").cpu(8).mem(16*gi).gpus(2).obj()))
	require.NoError(t, c.AddNode(node("n2").cpu(8).mem(16*gi).obj()))
	require.NoError(t, c.AssumePod(pod("assumed").milli(500).mem(gi).gpus(1).info(), "n1"))
	require.NoError(t, c.AddPod(pod("bound").milli(250).on("n1").started(time.Second).obj()))
	require.NoError(t, c.AddPod(pod("terminating").mem(mi).on("n2").obj()))
	require.NoError(t, c.EvictPod("default/terminating", 5*time.Second))
	checkCache(t, c)
	return c
}

// podAt brings pod "p" (500m, 1Gi, one gpu) into state on n1.
func podAt(t *testing.T, c *Cache, state PodState) {
	t.Helper()
	p := pod("p").milli(500).mem(gi).gpus(1)
	switch state {
	case PodAssumed:
		require.NoError(t, c.AssumePod(p.info(), "n1"))
	case PodBound:
		require.NoError(t, c.AddPod(p.on("n1").started(time.Second).obj()))
	case PodTerminating:
		require.NoError(t, c.AddPod(p.on("n1").started(time.Second).obj()))
		require.NoError(t, c.EvictPod("default/p", 2*time.Second))
	}
}

func TestCacheLegalTransitions(t *testing.T) {
	const key PodKey = "default/p"
	tests := []struct {
		name      string
		from, to  PodState // PodPending: absent from the cache
		op        func(c *Cache) error
		start     time.Duration
		deletedAt time.Duration
	}{
		{"AssumePod", PodPending, PodAssumed, func(c *Cache) error { return c.AssumePod(pod("p").milli(500).mem(gi).gpus(1).info(), "n1") }, 0, 0},
		{"AddPod", PodPending, PodBound, func(c *Cache) error {
			return c.AddPod(pod("p").milli(500).mem(gi).gpus(1).on("n1").started(7 * time.Second).obj())
		}, 7 * time.Second, 0},
		{"FinishBinding", PodAssumed, PodBound, func(c *Cache) error { return c.FinishBinding(key, 3*time.Second) }, 3 * time.Second, 0},
		{"ForgetPod", PodAssumed, PodPending, func(c *Cache) error { return c.ForgetPod(key) }, 0, 0},
		{"EvictPod", PodBound, PodTerminating, func(c *Cache) error { return c.EvictPod(key, 4*time.Second) }, time.Second, 4 * time.Second},
		{"RemovePod bound", PodBound, PodPending, func(c *Cache) error { _, err := c.RemovePod(key); return err }, 0, 0},
		{"RemovePod terminating", PodTerminating, PodPending, func(c *Cache) error { _, err := c.RemovePod(key); return err }, 0, 0},
		{"RemovePod assumed", PodAssumed, PodPending, func(c *Cache) error { _, err := c.RemovePod(key); return err }, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache()
			require.NoError(t, c.AddNode(node("n1").cpu(8).mem(16*gi).gpus(2).obj()))
			require.NoError(t, c.AddNode(node("n2").cpu(8).obj()))
			require.NoError(t, c.AddPod(pod("other").milli(100).on("n1").obj()))
			podAt(t, c, tt.from)
			require.NoError(t, c.AddPod(pod("last").mem(mi).on("n1").obj()))
			n1, _ := c.Node("n1")
			n2, _ := c.Node("n2")
			order := podKeys(n1)
			gen, n2gen := c.Generation(), n2.Generation()
			require.NotEqual(t, key, order[len(order)-1], "p must not be last for the order check")

			require.NoError(t, tt.op(c))
			checkCache(t, c)
			assert.Equal(t, gen+1, c.Generation(), "one change, one generation")
			assert.Equal(t, c.Generation(), n1.Generation())
			assert.Equal(t, n2gen, n2.Generation(), "the other node is untouched")

			others := NewResources(100, mi, 2) // "other" and "last"
			pi, ok := c.Pod(key)
			if tt.to == PodPending {
				assert.False(t, ok)
				assert.Equal(t, []PodKey{"default/other", "default/last"}, podKeys(n1))
				assert.Equal(t, others, n1.Requested())
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.to, pi.State())
			assert.Equal(t, "n1", pi.NodeName())
			assert.Equal(t, tt.start, pi.StartTime())
			assert.Equal(t, tt.deletedAt, pi.DeletedAt())
			assert.Equal(t, others.Add(NewResources(500, gi, 1, gpu(1))), n1.Requested())
			if tt.from != PodPending {
				assert.Equal(t, order, podKeys(n1), "a state change keeps the pod's place")
			}
		})
	}
}

func podKeys(ni *NodeInfo) []PodKey {
	var keys []PodKey
	for pi := range ni.Pods() {
		keys = append(keys, pi.Key())
	}
	return keys
}

func TestCacheIllegalTransitions(t *testing.T) {
	const (
		assumed     PodKey = "default/assumed"
		bound       PodKey = "default/bound"
		terminating PodKey = "default/terminating"
	)
	removePod := func(k PodKey) func(*Cache) error {
		return func(c *Cache) error { _, err := c.RemovePod(k); return err }
	}
	tests := []struct {
		name    string
		op      func(*Cache) error
		want    error
		mention []string
	}{
		{"assume twice", func(c *Cache) error { return c.AssumePod(pod("assumed").info(), "n2") }, ErrPodExists, []string{"default/assumed", `"n1"`, "Assumed"}},
		{"assume a bound pod", func(c *Cache) error { return c.AssumePod(pod("bound").info(), "n1") }, ErrPodExists, []string{"default/bound", `"n1"`, "Bound"}},
		{"assume a terminating pod", func(c *Cache) error { return c.AssumePod(pod("terminating").info(), "n1") }, ErrPodExists, []string{"default/terminating", `"n2"`}},
		{"assume to a missing node", func(c *Cache) error { return c.AssumePod(pod("new").info(), "n9") }, ErrNodeNotFound, []string{"default/new", `"n9"`}},
		{"assume an invalid pod", func(c *Cache) error { return c.AssumePod(pod("new").milli(-1).info(), "n1") }, ErrInvalidPod, []string{"default/new", "negative"}},
		{"add without nodeName", func(c *Cache) error { return c.AddPod(pod("new").obj()) }, ErrPodState, []string{"default/new", "nodeName"}},
		{"add to a missing node", func(c *Cache) error { return c.AddPod(pod("new").on("n9").obj()) }, ErrNodeNotFound, []string{"default/new", `"n9"`}},
		{"add an assumed pod", func(c *Cache) error { return c.AddPod(pod("assumed").on("n2").obj()) }, ErrPodExists, []string{"default/assumed", `"n1"`}},
		{"add a bound pod again", func(c *Cache) error { return c.AddPod(pod("bound").on("n1").obj()) }, ErrPodExists, []string{"default/bound", `"n1"`}},
		{"add an invalid pod", func(c *Cache) error { return c.AddPod(pod("new").on("n1").policy("Sometimes").obj()) }, ErrInvalidPod, []string{"default/new", "Sometimes"}},
		{"forget a bound pod", func(c *Cache) error { return c.ForgetPod(bound) }, ErrPodState, []string{"default/bound", `"n1"`, "Bound"}},
		{"forget a terminating pod", func(c *Cache) error { return c.ForgetPod(terminating) }, ErrPodState, []string{"default/terminating", `"n2"`, "Terminating"}},
		{"forget an unknown pod", func(c *Cache) error { return c.ForgetPod("default/ghost") }, ErrPodNotFound, []string{"default/ghost"}},
		{"finish binding a bound pod", func(c *Cache) error { return c.FinishBinding(bound, time.Hour) }, ErrPodState, []string{"default/bound", `"n1"`, "Bound"}},
		{"finish binding a terminating pod", func(c *Cache) error { return c.FinishBinding(terminating, time.Hour) }, ErrPodState, []string{"default/terminating", `"n2"`}},
		{"finish binding an unknown pod", func(c *Cache) error { return c.FinishBinding("default/ghost", time.Hour) }, ErrPodNotFound, []string{"default/ghost"}},
		{"evict an assumed pod", func(c *Cache) error { return c.EvictPod(assumed, time.Hour) }, ErrPodState, []string{"default/assumed", `"n1"`, "Assumed"}},
		{"evict a terminating pod", func(c *Cache) error { return c.EvictPod(terminating, time.Hour) }, ErrPodState, []string{"default/terminating", `"n2"`}},
		{"evict an unknown pod", func(c *Cache) error { return c.EvictPod("default/ghost", time.Hour) }, ErrPodNotFound, []string{"default/ghost"}},
		{"remove an unknown pod", removePod("other/ghost"), ErrPodNotFound, []string{"other/ghost"}},
		{"add a duplicate node", func(c *Cache) error { return c.AddNode(node("n1").obj()) }, ErrNodeExists, []string{`"n1"`}},
		{"add an invalid node", func(c *Cache) error { return c.AddNode(node("n9").taint("", "", TaintNoSchedule).obj()) }, ErrInvalidNode, []string{`"n9"`, "taints[0]"}},
		{"update a missing node", func(c *Cache) error { return c.UpdateNode(node("n9").obj()) }, ErrNodeNotFound, []string{`"n9"`}},
		{"update to an invalid node", func(c *Cache) error { return c.UpdateNode(node("n1").cpu(-1).obj()) }, ErrInvalidNode, []string{`"n1"`, "negative"}},
		{"remove a missing node", func(c *Cache) error { _, err := c.RemoveNode("n9"); return err }, ErrNodeNotFound, []string{`"n9"`}},
		{"add a duplicate budget", func(c *Cache) error { return c.AddBudget(pdb("b").match("a", "b").min(count(1)).obj()) }, ErrBudgetExists, []string{"default/b"}},
		{"add an invalid budget", func(c *Cache) error { return c.AddBudget(pdb("c").min(count(1)).obj()) }, ErrInvalidBudget, []string{"default/c", "selector"}},
		{"remove a missing budget", func(c *Cache) error { return c.RemoveBudget("default/zz") }, ErrBudgetMissing, []string{"default/zz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fixture(t)
			require.NoError(t, c.AddBudget(pdb("b").match("app", "web").min(count(1)).obj()))
			before := dumpCache(c)
			err := tt.op(c)
			require.ErrorIs(t, err, tt.want)
			for _, m := range tt.mention {
				assert.Contains(t, err.Error(), m)
			}
			assert.Equal(t, before, dumpCache(c), "a failed call changed the cache")
			checkCache(t, c)
		})
	}
}

func TestCacheRemoveNodeReturnsItsPods(t *testing.T) {
	c := fixture(t)
	require.NoError(t, c.AddBudget(pdb("b").match("app", "web").min(count(0)).obj()))
	require.NoError(t, c.AddPod(pod("web").label("app", "web").on("n1").obj()))
	n2, _ := c.Node("n2")
	n2gen := n2.Generation()
	gen := c.Generation()

	removed, err := c.RemoveNode("n1")
	require.NoError(t, err)
	var got []string
	for _, pi := range removed {
		got = append(got, string(pi.Key())+"="+pi.State().String())
	}
	assert.Equal(t, []string{"default/assumed=Assumed", "default/bound=Bound", "default/web=Bound"}, got, "pods in node order, states kept")
	for _, pi := range removed {
		_, ok := c.Pod(pi.Key())
		assert.False(t, ok, "pod %s still cached", pi.Key())
	}
	_, ok := c.Node("n1")
	assert.False(t, ok)
	assert.Equal(t, 1, c.NodeCount())
	assert.Equal(t, 1, c.PodCount())
	assert.Greater(t, c.Generation(), gen)
	assert.Equal(t, n2gen, n2.Generation())
	assert.Equal(t, []BudgetStatus{NewBudgetStatus(&c.budgets[0].budget, 0)}, collectBudgets(c.Budgets()), "removed pods leave the budget")
	assert.Equal(t, [2]int{0, 0}, [2]int{c.budgets[0].healthy, c.budgets[0].expected})
	checkCache(t, c)

	// The returned pods can be requeued and placed again.
	require.NoError(t, c.AssumePod(removed[0], "n2"))
	checkCache(t, c)
}

func TestCacheUpdateNodeKeepsPods(t *testing.T) {
	c := fixture(t)
	n1, _ := c.Node("n1")
	requested := n1.Requested()
	require.NoError(t, c.UpdateNode(node("n1").cpu(0).label("zone", "a").obj()))
	assert.Equal(t, []PodKey{"default/assumed", "default/bound"}, podKeys(n1), "pods stay even if they no longer fit")
	assert.Equal(t, requested, n1.Requested())
	assert.Equal(t, map[string]string{"zone": "a"}, n1.Node().Labels)
	assert.Zero(t, n1.Allocatable().MilliCPU)
	assert.Equal(t, c.Generation(), n1.Generation())
	checkCache(t, c)
}

func TestCacheCopiesItsInput(t *testing.T) {
	c := NewCache()
	n := node("n1").cpu(4).gpus(1).label("zone", "a").taint("k", "v", TaintNoSchedule).obj()
	require.NoError(t, c.AddNode(n))
	n.Labels["zone"] = "b"
	n.Taints[0].Key = "changed"
	n.Allocatable.scalars[0].Value = 99
	p := pod("p").label("app", "web").gpus(1).on("n1").obj()
	require.NoError(t, c.AddPod(p))
	p.Labels["app"] = "db"
	p.Requests.scalars[0].Value = 99

	ni, _ := c.Node("n1")
	assert.Equal(t, "a", ni.Node().Labels["zone"])
	assert.Equal(t, "k", ni.Node().Taints[0].Key)
	assert.Equal(t, int64(1), ni.Allocatable().Get(gpuName))
	pi, _ := c.Pod("default/p")
	assert.Equal(t, "web", pi.Pod().Labels["app"])
	assert.Equal(t, int64(1), pi.Request().Get(gpuName))
	checkCache(t, c)
}

// TestNodeInfoRequestedIsAValue checks that a Requested value taken from a
// node does not change when pods are later added to or removed from it.
func TestNodeInfoRequestedIsAValue(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(node("n1").gpus(8).obj()))
	require.NoError(t, c.AssumePod(pod("a").gpus(1).info(), "n1"))
	n1, _ := c.Node("n1")
	before := n1.Requested()
	want := deepCopy(before)
	require.NoError(t, c.AssumePod(pod("b").gpus(2).info(), "n1"))
	require.NoError(t, c.ForgetPod("default/a"))
	assert.Equal(t, want, before, "a Resources value changed after it was returned")
	assert.Equal(t, int64(2), n1.Requested().Get(gpuName))
}

func TestCacheNonZeroAccounting(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(node("n1").cpu(8).mem(16*gi).obj()))
	n1, _ := c.Node("n1")
	steps := []struct {
		name             string
		op               func() error
		requested        Resources
		nonZeroCPU, nzMe int64
	}{
		{"empty node", func() error { return nil }, Resources{}, 0, 0},
		{"pod with no requests counts defaults", func() error { return c.AssumePod(pod("zero").info(), "n1") },
			NewResources(0, 0, 1), DefaultMilliCPURequest, DefaultMemoryRequest},
		{"cpu only", func() error { return c.AddPod(pod("cpu").milli(300).on("n1").obj()) },
			NewResources(300, 0, 2), DefaultMilliCPURequest + 300, 2 * DefaultMemoryRequest},
		{"memory only", func() error { return c.AssumePod(pod("mem").mem(gi).info(), "n1") },
			NewResources(300, gi, 3), 2*DefaultMilliCPURequest + 300, 2*DefaultMemoryRequest + gi},
		{"both", func() error { return c.AssumePod(pod("both").milli(1000).mem(2*gi).info(), "n1") },
			NewResources(1300, 3*gi, 4), 2*DefaultMilliCPURequest + 1300, 2*DefaultMemoryRequest + 3*gi},
		{"forget the zero pod", func() error { return c.ForgetPod("default/zero") },
			NewResources(1300, 3*gi, 3), DefaultMilliCPURequest + 1300, DefaultMemoryRequest + 3*gi},
		{"evicted pods still count", func() error { return c.EvictPod("default/cpu", time.Second) },
			NewResources(1300, 3*gi, 3), DefaultMilliCPURequest + 1300, DefaultMemoryRequest + 3*gi},
		{"remove everything", func() error {
			for _, k := range []PodKey{"default/cpu", "default/mem", "default/both"} {
				if _, err := c.RemovePod(k); err != nil {
					return err
				}
			}
			return nil
		}, Resources{}, 0, 0},
	}
	for _, st := range steps {
		require.NoError(t, st.op(), st.name)
		assert.Equal(t, st.requested, n1.Requested(), st.name)
		assert.Equal(t, st.requested, *n1.RequestedRef(), st.name)
		cpu, mem := n1.NonZeroRequested()
		assert.Equal(t, [2]int64{st.nonZeroCPU, st.nzMe}, [2]int64{cpu, mem}, st.name)
		checkCache(t, c)
	}
}

func TestCacheOrders(t *testing.T) {
	c := NewCache()
	for _, name := range []string{"n3", "n1", "n10", "n2"} {
		require.NoError(t, c.AddNode(node(name).obj()))
	}
	for _, name := range []string{"c", "a", "b"} {
		require.NoError(t, c.AddPod(pod(name).ns("z").on("n2").obj()))
	}
	require.NoError(t, c.AddPod(pod("a").ns("b").on("n3").obj()))
	var nodes []string
	for ni := range c.Nodes() {
		nodes = append(nodes, ni.Name())
	}
	assert.Equal(t, []string{"n1", "n10", "n2", "n3"}, nodes)
	var pods []PodKey
	for pi := range c.Pods() {
		pods = append(pods, pi.Key())
	}
	assert.Equal(t, []PodKey{"b/a", "z/a", "z/b", "z/c"}, pods)
	n2, _ := c.Node("n2")
	assert.Equal(t, []PodKey{"z/c", "z/a", "z/b"}, podKeys(n2), "pods on a node in the order added")
	pi, ok := n2.Pod("z/a")
	require.True(t, ok)
	assert.Equal(t, PodKey("z/a"), pi.Key())
	_, ok = n2.Pod("b/a")
	assert.False(t, ok)

	// Early exit from the iterators.
	for range c.Nodes() {
		break
	}
	for range c.Pods() {
		break
	}
	assert.True(t, slices.IsSorted(pods))
}

func TestPodStateString(t *testing.T) {
	assert.Equal(t, []string{"Pending", "Assumed", "Bound", "Terminating", "PodState(?)"},
		[]string{PodPending.String(), PodAssumed.String(), PodBound.String(), PodTerminating.String(), PodState(9).String()})
}

// CheckConsistency holds through the pod life-cycle and catches a node
// whose accounts were changed behind the cache's back.
func TestCheckConsistency(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "n", Allocatable: NewResources(1000, 1<<30, 3)}))
	require.NoError(t, c.AddPod(Pod{Name: "a", NodeName: "n", Requests: NewResources(500, 0, 0)}))
	require.NoError(t, c.CheckConsistency())
	require.NoError(t, c.EvictPod(MakePodKey("", "a"), 0))
	require.NoError(t, c.CheckConsistency())
	ni, _ := c.Node("n")
	ni.requested.MilliCPU += 100
	require.ErrorIs(t, c.CheckConsistency(), ErrInconsistent)
	ni.requested.MilliCPU -= 100
	ni.pods[0].node = "elsewhere"
	require.ErrorContains(t, c.CheckConsistency(), `names node "elsewhere"`)
	ni.pods[0].node = "n"
	ni.node.Allocatable.MilliCPU = 100
	require.ErrorContains(t, c.CheckConsistency(), "more than its allocatable")
}

// Every form of a pod shares the pod as created: binding, eviction and the
// return to pending copy the state, never the pod, and the state is read
// through the form, not through the pod.
func TestPodFormsShareThePod(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "n", Allocatable: NewResources(1000, gi, 10)}))
	pending := NewPodInfo(Pod{Name: "p", Requests: NewResources(100, mi, 0), Labels: map[string]string{"a": "b"}})
	bound, err := c.BindPod(pending, "n", 7)
	require.NoError(t, err)
	require.Same(t, pending.Pod(), bound.Pod())
	require.Equal(t, "", pending.NodeName(), "the pending form is not changed")
	require.Equal(t, time.Duration(0), pending.StartTime())
	require.Equal(t, "n", bound.NodeName())
	require.Equal(t, time.Duration(7), bound.StartTime())
	require.Equal(t, "", bound.Pod().NodeName, "the pod as created named no node")

	require.NoError(t, c.EvictPod(bound.Key(), 9))
	term, _ := c.Pod(bound.Key())
	require.Same(t, pending.Pod(), term.Pod())
	require.Equal(t, "n", term.NodeName())
	require.Equal(t, time.Duration(7), term.StartTime())

	again := term.Pending()
	require.Same(t, pending.Pod(), again.Pod())
	require.Equal(t, PodPending, again.State())
	require.Equal(t, "", again.NodeName())
	require.Equal(t, time.Duration(0), again.StartTime())
	require.Equal(t, time.Duration(0), again.DeletedAt())
	require.Equal(t, pending.Request(), again.Request())
	require.Equal(t, pending.Priority(), again.Priority())

	// a pod that names its node at its creation says so until placed
	named := NewPodInfo(Pod{Name: "q", NodeName: "n", StartTime: 3})
	require.Equal(t, "n", named.NodeName())
	require.Equal(t, time.Duration(3), named.StartTime())
}
