package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The property test drives a cache with random operations, legal and
// illegal, against a brute-force model of which calls must succeed. After
// every operation it checks the cache invariants (checkCache), that a
// failed call changed nothing, and that an incrementally updated snapshot
// equals the cache. Now and then it makes random tentative changes on the
// snapshot and checks that rolling back restores it exactly.

type modelPod struct {
	node  string
	state PodState
}

// model is the oracle: what the cache should hold.
type model struct {
	nodes   map[string]bool
	pods    map[PodKey]modelPod
	budgets map[string]bool
	order   map[string][]PodKey // pods per node, in the order added
}

type propRun struct {
	t     *testing.T
	rng   *rand.Rand
	c     *Cache
	s     *Snapshot
	m     model
	now   time.Duration
	fresh int      // counter for unique tentative pod names
	trace []string // operations applied, printed on failure
}

var (
	propNodes = []string{"n0", "n1", "n2", "n3", "n4"}
	propPods  = []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11"}
)

func TestCacheProperties(t *testing.T) {
	sequences, ops := 3000, 60
	if testing.Short() {
		sequences = 200
	}
	for seed := range uint64(sequences) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runSequence(t, seed, ops) })
	}
}

func runSequence(t *testing.T, seed uint64, ops int) {
	r := &propRun{
		t:   t,
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		c:   NewCache(),
		m:   model{nodes: map[string]bool{}, pods: map[PodKey]modelPod{}, budgets: map[string]bool{}, order: map[string][]PodKey{}},
	}
	r.s = r.c.Snapshot()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operations:\n%s", strings.Join(r.trace, "\n"))
		}
	})
	for i := range ops {
		name, want, err := r.step()
		if want == nil {
			require.NoError(t, err, "op %d: %s", i, name)
		} else {
			require.ErrorIs(t, err, want, "op %d: %s", i, name)
		}
		if i%7 == 6 {
			r.tentative()
		}
	}
	require.Equal(t, snapshotNodes(r.c.Snapshot()), snapshotNodes(r.s), "fresh and incremental snapshots differ")
}

// step applies one random operation and runs every check after it. It
// returns the operation's name, the error the model expects, and the error
// the cache returned.
func (r *propRun) step() (string, error, error) {
	t := r.t
	before := dumpCache(r.c)
	name, want, apply := r.randomOp()
	r.trace = append(r.trace, name)
	err := apply()
	if want != nil || err != nil {
		require.Equal(t, before, dumpCache(r.c), "%s: a failed call changed the cache", name)
	}
	checkCache(t, r.c)
	r.checkModel()
	require.NoError(t, r.c.UpdateSnapshot(r.s))
	checkSnapshot(t, r.c, r.s)
	return name, want, err
}

func (r *propRun) checkModel() {
	t := r.t
	var nodes []string
	for ni := range r.c.Nodes() {
		nodes = append(nodes, ni.Name())
		require.True(t, slices.Equal(r.m.order[ni.Name()], podKeys(ni)), "pod order on %s: want %v, got %v", ni.Name(), r.m.order[ni.Name()], podKeys(ni))
	}
	var want []string
	for n := range r.m.nodes {
		want = append(want, n)
	}
	slices.Sort(want)
	require.Equal(t, want, nodes)
	require.Equal(t, len(r.m.pods), r.c.PodCount())
	for k, mp := range r.m.pods {
		pi, ok := r.c.Pod(k)
		require.True(t, ok, "pod %s missing", k)
		require.Equal(t, mp, modelPod{pi.NodeName(), pi.State()}, "pod %s", k)
	}
	require.Equal(t, len(r.m.budgets), len(r.c.budgets))
}

func (r *propRun) pick(names []string) string { return names[r.rng.IntN(len(names))] }

func (r *propRun) randomNode(name string) Node {
	b := node(name).cpu(int64(r.rng.IntN(16))).mem(int64(r.rng.IntN(64)) * gi)
	if r.rng.IntN(2) == 0 {
		b.gpus(int64(r.rng.IntN(8)))
	}
	if r.rng.IntN(4) > 0 {
		b.n.Labels = map[string]string{"zone": r.pick([]string{"a", "b", "c"})}
	}
	if r.rng.IntN(20) == 0 {
		b.cpu(-1) // invalid
	}
	return b.obj()
}

func (r *propRun) randomPod(name string) *podBuilder {
	b := pod(name).milli([]int64{0, 100, 250, 1000}[r.rng.IntN(4)]).mem([]int64{0, 256 * mi, gi}[r.rng.IntN(3)])
	if r.rng.IntN(2) == 0 {
		b.gpus(int64(r.rng.IntN(3)))
	}
	if r.rng.IntN(8) == 0 {
		b.p.Requests = b.p.Requests.With(fpgaName, 1)
	}
	if r.rng.IntN(3) > 0 {
		b.label("app", r.pick([]string{"web", "db"}))
	}
	if r.rng.IntN(4) == 0 {
		b.ns("prod")
	}
	if r.rng.IntN(3) == 0 {
		b.p.Priority = new(int32(r.rng.IntN(3) * 100))
	}
	if r.rng.IntN(25) == 0 {
		b.milli(-1) // invalid
	}
	return b
}

// randomOp returns an operation, the error the model expects from it, and
// a function that applies it to the cache and, on success, to the model.
func (r *propRun) randomOp() (string, error, func() error) {
	c, m := r.c, &r.m
	r.now += time.Second
	now := r.now
	n := r.pick(propNodes)
	switch r.rng.IntN(14) {
	case 0:
		nd := r.randomNode(n)
		want := firstErr(invalid(nd.Validate(), ErrInvalidNode), cond(m.nodes[n], ErrNodeExists))
		return "AddNode " + n, want, func() error {
			err := c.AddNode(nd)
			if err == nil {
				m.nodes[n] = true
			}
			return err
		}
	case 1:
		nd := r.randomNode(n)
		want := firstErr(invalid(nd.Validate(), ErrInvalidNode), cond(!m.nodes[n], ErrNodeNotFound))
		return "UpdateNode " + n, want, func() error { return c.UpdateNode(nd) }
	case 2:
		return "RemoveNode " + n, cond(!m.nodes[n], ErrNodeNotFound), func() error { return r.removeNode(n) }
	case 3, 4:
		pb := r.randomPod(r.pick(propPods))
		if r.rng.IntN(10) > 0 {
			pb.on(n)
		}
		p := pb.obj()
		_, exists := m.pods[p.Key()]
		want := firstErr(invalid(p.Validate(), ErrInvalidPod), cond(p.NodeName == "", ErrPodState),
			cond(exists, ErrPodExists), cond(!m.nodes[n], ErrNodeNotFound))
		return fmt.Sprintf("AddPod %s on %q", p.Key(), p.NodeName), want, func() error {
			err := c.AddPod(p)
			if err == nil {
				m.place(p.Key(), n, PodBound)
			}
			return err
		}
	case 5, 6, 7:
		pi := r.randomPod(r.pick(propPods)).info()
		_, exists := m.pods[pi.Key()]
		want := firstErr(invalid(pi.Pod().Validate(), ErrInvalidPod), cond(exists, ErrPodExists), cond(!m.nodes[n], ErrNodeNotFound))
		return fmt.Sprintf("AssumePod %s on %q", pi.Key(), n), want, func() error {
			err := c.AssumePod(pi, n)
			if err == nil {
				m.place(pi.Key(), n, PodAssumed)
			}
			return err
		}
	case 8:
		return r.transition("ForgetPod", PodAssumed, PodPending, c.ForgetPod)
	case 9:
		return r.transition("FinishBinding", PodAssumed, PodBound, func(k PodKey) error { return c.FinishBinding(k, now) })
	case 10:
		return r.transition("EvictPod", PodBound, PodTerminating, func(k PodKey) error { return c.EvictPod(k, now) })
	case 11:
		return r.transition("RemovePod", 0, PodPending, func(k PodKey) error { _, err := c.RemovePod(k); return err })
	case 12:
		b := pdb(r.pick([]string{"b0", "b1", "b2"})).match("app", r.pick([]string{"web", "db"}))
		if r.rng.IntN(2) == 0 {
			b.min(count(int32(r.rng.IntN(3))))
		} else {
			b.maxUnavailable(percent(int32(r.rng.IntN(101))))
		}
		key := b.b.Key()
		return "AddBudget " + key, cond(m.budgets[key], ErrBudgetExists), func() error {
			err := c.AddBudget(b.obj())
			if err == nil {
				m.budgets[key] = true
			}
			return err
		}
	default:
		key := "default/" + r.pick([]string{"b0", "b1", "b2"})
		return "RemoveBudget " + key, cond(!m.budgets[key], ErrBudgetMissing), func() error {
			err := c.RemoveBudget(key)
			if err == nil {
				delete(m.budgets, key)
			}
			return err
		}
	}
}

// transition is a pod state change legal only from state from (0: any).
func (r *propRun) transition(name string, from, to PodState, op func(PodKey) error) (string, error, func() error) {
	key := MakePodKey("", r.pick(propPods))
	if r.rng.IntN(4) == 0 {
		key = MakePodKey("prod", r.pick(propPods))
	}
	mp, ok := r.m.pods[key]
	want := firstErr(cond(!ok, ErrPodNotFound), cond(ok && from != 0 && mp.state != from, ErrPodState))
	return name + " " + string(key), want, func() error {
		err := op(key)
		if err == nil {
			if to == PodPending {
				delete(r.m.pods, key)
				r.m.order[mp.node] = slices.DeleteFunc(r.m.order[mp.node], func(k PodKey) bool { return k == key })
			} else {
				r.m.pods[key] = modelPod{mp.node, to}
			}
		}
		return err
	}
}

// removeNode removes a node and checks that exactly its pods come back.
func (r *propRun) removeNode(n string) error {
	var want []PodKey
	if ni, ok := r.c.Node(n); ok {
		want = podKeys(ni)
	}
	pods, err := r.c.RemoveNode(n)
	if err != nil {
		return err
	}
	var got []PodKey
	for _, pi := range pods {
		got = append(got, pi.Key())
		delete(r.m.pods, pi.Key())
	}
	require.Equal(r.t, want, got)
	for k, mp := range r.m.pods {
		require.NotEqual(r.t, n, mp.node, "pod %s of the removed node not returned", k)
	}
	delete(r.m.nodes, n)
	delete(r.m.order, n)
	return nil
}

func (m *model) place(key PodKey, node string, state PodState) {
	m.pods[key] = modelPod{node, state}
	m.order[node] = append(m.order[node], key)
}

// tentative makes random nested Reserve/Remove changes on the snapshot,
// checking each rollback against a deep copy taken at its checkpoint.
func (r *propRun) tentative() {
	t, s := r.t, r.s
	if s.Len() == 0 {
		return
	}
	type mark struct {
		cp    Checkpoint
		nodes []*NodeInfo
	}
	stack := []mark{{s.Checkpoint(), snapshotNodes(s)}}
	for range 2 + r.rng.IntN(30) {
		i := r.rng.IntN(s.Len())
		ni := s.Node(i)
		switch k := r.rng.IntN(10); {
		case k < 4:
			r.fresh++
			s.Reserve(r.randomPod(fmt.Sprintf("t%d", r.fresh)).info(), i)
		case k < 7 && ni.PodCount() > 0:
			key := ni.pods[r.rng.IntN(ni.PodCount())].Key()
			require.NoError(t, s.Remove(key, i))
		case k < 8:
			before, n := snapshotNodes(s), s.Tentative()
			require.ErrorIs(t, s.Remove("ghost/x", i), ErrPodNotFound)
			require.Equal(t, before, snapshotNodes(s))
			require.Equal(t, n, s.Tentative())
		case k < 9:
			stack = append(stack, mark{s.Checkpoint(), snapshotNodes(s)})
		case len(stack) > 1:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.Rollback(top.cp)
			require.Equal(t, top.nodes, snapshotNodes(s), "inner rollback")
		}
		checkAccounting(t, s)
		checkSnapshotTotals(t, s)
	}
	s.Rollback(stack[0].cp)
	require.Zero(t, s.Tentative())
	require.Equal(t, stack[0].nodes, snapshotNodes(s), "rollback")
	checkSnapshot(t, r.c, s)
}

// invalid maps a validation error to the sentinel it must wrap.
func invalid(err, sentinel error) error {
	if err == nil {
		return nil
	}
	return sentinel
}

func cond(bad bool, sentinel error) error {
	if bad {
		return sentinel
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
