package queue_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

// model is what the test knows independently of the queue: every key it
// holds, the insertion rank of each (the documented last tie-break), and
// which items are in flight.
type model struct {
	t        *testing.T
	r        *rand.Rand
	q        *queue.Queue[int]
	rank     map[string]int
	inFlight map[string]bool
	// owned are the items added with Put or PutGated, which the test
	// reaches through their pointers (the item methods); with mixed set,
	// an item is added so one time in two
	owned               map[string]*queue.Item[int]
	mixed               bool
	clones              int
	nextKey             int
	nextRank            int
	now                 time.Duration
	clusterEventVersion int64 // what wanted reads besides the item (see checkWakeup)
}

// less is the documented activeQ order, computed by the test: priority
// desc, first seen asc, insertion rank asc.
func (m *model) less(a, b *queue.Item[int]) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.FirstSeen != b.FirstSeen {
		return a.FirstSeen < b.FirstSeen
	}
	return m.rank[a.Key] < m.rank[b.Key]
}

// TestRandomOperations applies random operations and checks after each
// that every item is in exactly one place and that pops follow the active
// order among the items present; mixed, half the items are added with Put
// and reached through their pointers alone. Now and then a clone must hold
// the same items, in the same places, and pop them in the same order.
func TestRandomOperations(t *testing.T) {
	for _, mixed := range []bool{false, true} {
		for seed := uint64(1); seed <= 25; seed++ {
			t.Run(fmt.Sprintf("mixed=%v/%d", mixed, seed), func(t *testing.T) {
				m := &model{
					t: t, r: rand.New(rand.NewPCG(seed, 42)), q: newQueue(),
					rank: map[string]int{}, inFlight: map[string]bool{}, owned: map[string]*queue.Item[int]{}, mixed: mixed,
				}
				for range 1500 {
					m.step()
					m.check()
					if m.r.IntN(50) == 0 {
						m.checkClone()
					}
				}
				require.NotZero(t, m.clones)
			})
		}
	}
}

// item returns the item with key k: the test's own pointer for an owned
// one, which the queue's index must not know.
func (m *model) item(k string) (*queue.Item[int], bool) {
	if it, ok := m.owned[k]; ok {
		if _, indexed := m.q.Get(k); indexed {
			m.t.Fatalf("%s, added with Put, is in the index", k)
		}
		return it, true
	}
	return m.q.Get(k)
}

// call runs the keyed operation on k, or for an owned item (and for an
// indexed one, one time in two) the item operation on its pointer.
func (m *model) call(k string, keyed func(string) error, byItem func(*queue.Item[int]) error) error {
	if it, ok := m.owned[k]; ok || m.mixed && m.r.IntN(2) == 0 {
		if !ok {
			it, _ = m.q.Get(k)
		}
		return byItem(it)
	}
	return keyed(k)
}

func (m *model) step() {
	switch op := m.r.IntN(16); {
	case op < 3:
		m.add(false)
	case op == 3:
		m.add(true)
	case op < 6:
		m.popBurst()
	case op == 6:
		m.withFlight(func(k string) error { return m.call(k, m.q.Requeue, m.q.RequeueItem) }, true)
	case op == 7:
		if m.r.IntN(2) == 0 {
			m.withFlight(func(k string) error {
				return m.call(k, func(k string) error { return m.q.Park(k, m.now, 0) },
					func(it *queue.Item[int]) error { return m.q.ParkItem(it, m.now, 0, queue.AnyChange) })
			}, true)
		} else {
			wake := uint64(1 + m.r.IntN(7))
			m.withFlight(func(k string) error {
				return m.call(k, func(k string) error { return m.q.ParkFor(k, m.now, 0, wake) },
					func(it *queue.Item[int]) error { return m.q.ParkItem(it, m.now, 0, wake) })
			}, true)
		}
	case op == 8:
		isErr := m.r.IntN(3) == 0
		m.withFlight(func(k string) error {
			return m.call(k, func(k string) error { return m.q.BackOff(k, m.now, 0, isErr) },
				func(it *queue.Item[int]) error { return m.q.BackOffItem(it, m.now, 0, isErr) })
		}, true)
	case op == 9:
		m.withFlight(func(k string) error { return m.call(k, m.q.Done, m.q.DoneItem) }, false)
	case op == 10:
		m.deleteAny()
	case op == 11:
		m.withQueued(func(k string) error { return m.call(k, m.q.Gate, m.q.GateItem) })
	case op == 12:
		m.withAny(func(k string) error {
			return m.call(k, func(k string) error { return m.q.Activate(k, m.now) },
				func(it *queue.Item[int]) error { return m.q.ActivateItem(it, m.now) })
		})
	case op == 13:
		if m.r.IntN(2) == 0 {
			m.q.MoveAll(m.now)
		} else {
			m.q.MoveOn(m.now, uint64(1+m.r.IntN(7)))
		}
	case op == 14:
		p := m.priority()
		m.withAny(func(k string) error {
			change := func(it *queue.Item[int]) { it.Priority = p }
			return m.call(k, func(k string) error { return m.q.Update(k, change) },
				func(it *queue.Item[int]) error { return m.q.UpdateItem(it, change) })
		})
	default:
		m.advance()
	}
	if m.r.IntN(5) == 0 {
		m.clusterEventVersion++
	}
}

func (m *model) priority() int32 { return []int32{-1, 0, 0, 1, 5}[m.r.IntN(5)] }

func (m *model) add(gated bool) {
	if m.q.Len() >= 60 {
		return
	}
	m.nextKey++
	it := &queue.Item[int]{
		Key: fmt.Sprintf("k%d", m.nextKey), Priority: m.priority(),
		FirstSeen: time.Duration(m.r.IntN(4)) * time.Second, Size: 1,
	}
	it.Timestamp = m.now
	if m.r.IntN(3) == 0 {
		it.Kind, it.Size = queue.KindGroup, 1+m.r.IntN(5)
	}
	add := m.q.Add
	if gated {
		add = m.q.AddGated
	}
	if m.mixed && m.r.IntN(2) == 0 {
		add = m.q.Put
		if gated {
			add = m.q.PutGated
		}
		m.owned[it.Key] = it
	}
	require.NoError(m.t, add(it))
	m.nextRank++
	m.rank[it.Key] = m.nextRank
	require.ErrorIs(m.t, add(it), queue.ErrExists, "an item in the queue cannot be added again")
	if _, owned := m.owned[it.Key]; !owned {
		require.ErrorIs(m.t, add(&queue.Item[int]{Key: it.Key}), queue.ErrExists)
	}
}

// popBurst pops a few items at one instant: each must be the head of the
// active order among the items ready then, so the burst never goes down.
func (m *model) popBurst() {
	m.q.Flush(m.now)
	var prev *queue.Item[int]
	for range 1 + m.r.IntN(4) {
		ready := m.activeItems()
		it, ok := m.q.Pop(m.now)
		if !ok {
			require.Empty(m.t, ready, "Pop found nothing with items active")
			return
		}
		require.NotEmpty(m.t, ready)
		for _, other := range ready[1:] {
			require.False(m.t, m.less(other, it), "popped %s while %s was ahead", it.Key, other.Key)
		}
		require.Equal(m.t, ready[0].Key, it.Key)
		if prev != nil {
			require.False(m.t, m.less(it, prev), "%s popped after %s", it.Key, prev.Key)
		}
		prev = it
		m.inFlight[it.Key] = true
	}
}

// activeItems returns activeQ (the first Counts().active items of All).
func (m *model) activeItems() []*queue.Item[int] {
	active, _, _, _ := m.q.Counts()
	var out []*queue.Item[int]
	for it := range m.q.All() {
		if len(out) == active {
			break
		}
		out = append(out, it)
	}
	return out
}

func (m *model) pick(keys []string) (string, bool) {
	if len(keys) == 0 {
		return "", false
	}
	slices.Sort(keys)
	return keys[m.r.IntN(len(keys))], true
}

func (m *model) withFlight(op func(string) error, stays bool) {
	k, ok := m.pick(slices.Collect(maps.Keys(m.inFlight)))
	if !ok {
		return
	}
	require.NoError(m.t, op(k))
	delete(m.inFlight, k)
	if !stays {
		m.forget(k)
	}
}

func (m *model) withQueued(op func(string) error) {
	var keys []string
	for k := range m.rank {
		if !m.inFlight[k] {
			keys = append(keys, k)
		}
	}
	if k, ok := m.pick(keys); ok {
		require.NoError(m.t, op(k))
	}
}

func (m *model) withAny(op func(string) error) {
	if k, ok := m.pick(slices.Collect(maps.Keys(m.rank))); ok {
		require.NoError(m.t, op(k))
	}
}

func (m *model) deleteAny() {
	k, ok := m.pick(slices.Collect(maps.Keys(m.rank)))
	if !ok {
		return
	}
	it, owned := m.owned[k]
	if owned {
		require.NoError(m.t, m.q.DeleteItem(it))
		require.ErrorIs(m.t, m.q.DeleteItem(it), queue.ErrNotFound)
		_, err := m.q.Delete(k)
		require.ErrorIs(m.t, err, queue.ErrNotFound, "an owned item is not found by its key")
	} else {
		var err error
		it, err = m.q.Delete(k)
		require.NoError(m.t, err)
		require.Equal(m.t, k, it.Key)
		_, err = m.q.Delete(k)
		require.ErrorIs(m.t, err, queue.ErrNotFound)
	}
	require.False(m.t, it.Queued() || it.InFlight())
	delete(m.inFlight, k)
	m.forget(k)
}

// forget drops a key the queue no longer holds.
func (m *model) forget(k string) {
	if it, ok := m.owned[k]; ok {
		require.False(m.t, it.Queued() || it.InFlight(), "%s left the queue", k)
		delete(m.owned, k)
	}
	delete(m.rank, k)
}

// checkClone clones the queue and requires that the clone holds every item once, each told to moved, in
// the same places and All order, and pops them in the same order as the
// original would; the original is left as it was.
func (m *model) checkClone() {
	m.clones++
	copies := map[*queue.Item[int]]*queue.Item[int]{}
	cp := m.q.Clone(func(v int) int { return v }, func(it, c *queue.Item[int]) {
		require.NotSame(m.t, it, c)
		require.NotContains(m.t, copies, it, "%s told twice", it.Key)
		copies[it] = c
	})
	require.Len(m.t, copies, m.q.Len(), "every item told")
	require.Equal(m.t, m.q.Len(), cp.Len())
	a, b, u, g := m.q.Counts()
	ca, cb, cu, cg := cp.Counts()
	require.Equal(m.t, []int{a, b, u, g}, []int{ca, cb, cu, cg})
	keys := func(q *queue.Queue[int]) (out []string) {
		for it := range q.All() {
			out = append(out, it.Key)
		}
		return out
	}
	require.Equal(m.t, keys(m.q), keys(cp))
	for k := range m.rank {
		it, _ := m.item(k)
		c, ok := copies[it]
		require.True(m.t, ok, "%s not copied", k)
		require.Equal(m.t, it.InFlight(), c.InFlight(), k)
		if _, owned := m.owned[k]; owned {
			_, found := cp.Get(k)
			require.False(m.t, found, "%s is owned in the clone too", k)
		} else {
			got, _ := cp.Get(k)
			require.Same(m.t, c, got)
		}
	}
	later := m.now + time.Hour
	cp.MoveAll(later)
	var popped []string
	for it, ok := cp.Pop(later); ok; it, ok = cp.Pop(later) {
		popped = append(popped, it.Key)
	}
	require.Len(m.t, popped, a+b+u, "the clone pops what is not gated or in flight")
}

// advance moves time on, now and then past MaxUnschedulable, and checks
// that nothing is left due after a Flush.
func (m *model) advance() {
	if m.r.IntN(20) == 0 {
		m.now += 6 * time.Minute
	} else {
		m.now += time.Duration(m.r.IntN(3000)) * time.Millisecond
	}
	m.q.Flush(m.now)
	if wake, ok := m.q.NextWakeup(nil, 0); ok {
		require.Greater(m.t, wake, m.now, "Flush left an item due")
	}
}

// check verifies that every item is in exactly one place. It runs after
// every step, so it reports with t.Fatalf rather than require in its loops.
func (m *model) check() {
	t := m.t
	t.Helper()
	a, b, u, g := m.q.Counts()
	require.Equal(t, m.q.Len(), a+b+u+g+len(m.inFlight), "pools + in flight")
	require.Equal(t, len(m.rank), m.q.Len())
	seen := make(map[string]bool, m.q.Len())
	for it := range m.q.All() {
		if seen[it.Key] || !it.Queued() || it.InFlight() {
			t.Fatalf("%s listed twice (%v) or not queued (queued %v, in flight %v)", it.Key, seen[it.Key], it.Queued(), it.InFlight())
		}
		seen[it.Key] = true
	}
	require.Len(t, seen, a+b+u+g)
	for k := range m.rank {
		it, ok := m.item(k)
		if !ok {
			t.Fatalf("%s lost", k)
		}
		if it.InFlight() != m.inFlight[k] || seen[k] == m.inFlight[k] {
			t.Fatalf("%s: in flight %v, want %v; listed by All %v", k, it.InFlight(), m.inFlight[k], seen[k])
		}
	}
	active := m.activeItems()
	for i := 1; i < len(active); i++ {
		if !m.less(active[i-1], active[i]) {
			t.Fatalf("activeQ out of order: %s before %s", active[i-1].Key, active[i].Key)
		}
	}
	if m.r.IntN(4) == 0 { // now and then: between checks the lists' memory of unwanted items lasts
		m.checkWakeup()
	}
}

// checkWakeup compares NextWakeup with a filter (which the pool's lists
// remember the answers of while the cluster-event version holds) with the
// earliest wakeup of the wanted items, computed from the pools as All
// lists them.
func (m *model) checkWakeup() {
	wanted := func(it *queue.Item[int]) bool {
		return (int64(len(it.Key))*7+int64(it.Key[len(it.Key)-1])+m.clusterEventVersion)%3 == 0
	}
	got, gotOK := m.q.NextWakeup(wanted, m.clusterEventVersion)
	a, b, u, _ := m.q.Counts()
	items := slices.Collect(m.q.All())
	var want time.Duration
	wantOK := false
	consider := func(at time.Duration) {
		if !wantOK || at < want {
			want, wantOK = at, true
		}
	}
	for _, it := range items[a : a+b] {
		if wanted(it) {
			failures := it.UnschedulableCount
			if it.ConsecutiveErrors > 0 {
				failures = it.ConsecutiveErrors
			}
			consider(m.q.Backoff().Expiry(it.Timestamp, failures, it.Size))
		}
	}
	for _, it := range items[a+b : a+b+u] {
		if wanted(it) {
			consider(it.Timestamp + queue.DefaultMaxUnschedulable)
		}
	}
	require.Equal(m.t, wantOK, gotOK, "a wanted item waits")
	require.Equal(m.t, want, got, "the earliest wanted wakeup")
}
