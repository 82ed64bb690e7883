package kueue

import (
	"maps"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// clusterQueue is a ClusterQueue in the Admitter: its place in the quota
// tree, its admitted workloads, and its queue of pending ones, kept as
// Kueue's queue manager keeps it: a heap ordered by priority then
// creation time, and the inadmissible workloads set aside until a quota
// event moves them back (BestEffortFIFO; a StrictFIFO queue's head goes
// straight back).
type clusterQueue struct {
	spec   ClusterQueue
	node   *node
	rgs    []resourceGroup
	strict bool
	active bool // every flavor it names exists, and it is not stopped

	admitted     map[string]*info // holding quota (admitted or evicted)
	heap         []*info          // pending, in queue order
	inadmissible map[string]*info
	// bulk are the shapes set aside whole since the last requeue
	// (BestEffortFIFO): a workload of such a shape goes straight to the
	// inadmissible set.
	bulk map[string]bool
	// sticky is the preemptor waiting for its victims (BestEffortFIFO),
	// kept at the head.
	sticky string
	// popCycle counts pops; requeueCycle is popCycle at the last move of
	// the inadmissible workloads: a head that failed after such a move
	// goes straight back.
	popCycle, requeueCycle int64
	generation             int64 // bumped when quota is released or changes
	// orderTime is the time a workload is queued by (Admitter.orderTime)
	orderTime func(*info) time.Duration
	a         *Admitter
	// afsLQs are its LocalQueues, by key, when it orders by their usage
	// (afs.go)
	afsLQs []*lqUsage
	// byOrder is admitted in preemption's candidate order (without the
	// term on the queue, the same for all), kept while orderOK: a cache
	// that any change to admitted, to a workload's eviction or to the
	// LocalQueues' usage drops
	byOrder []*info
	orderOK bool
}

// resourceGroup is one of a queue's resource groups.
type resourceGroup struct {
	covered []cluster.ResourceName
	flavors []string
}

func (rg *resourceGroup) covers(r cluster.ResourceName) bool { return slices.Contains(rg.covered, r) }

func newClusterQueue(a *Admitter, spec ClusterQueue) *clusterQueue {
	q := &clusterQueue{spec: spec, strict: spec.QueueingStrategy == StrictFIFO, admitted: map[string]*info{},
		inadmissible: map[string]*info{}, bulk: map[string]bool{}, active: spec.StopPolicy == "" || spec.StopPolicy == StopNone,
		requeueCycle: -1} // no move yet, as Kueue starts it
	q.orderTime = a.orderTime
	q.a = a
	q.node = a.newNode(spec.Name)
	q.node.cq = q
	q.node.weight = weightOf(spec.FairSharing)
	a.setQuotas(q.node, spec.ResourceGroups)
	for _, rg := range spec.ResourceGroups {
		g := resourceGroup{covered: rg.CoveredResources}
		for _, f := range rg.Flavors {
			g.flavors = append(g.flavors, f.Name)
			if a.flavors[f.Name] == nil {
				q.active = false
			}
		}
		q.rgs = append(q.rgs, g)
	}
	return q
}

// rgByResource is the resource group covering r, nil when none does.
func (q *clusterQueue) rgByResource(r cluster.ResourceName) *resourceGroup {
	for i := range q.rgs {
		if q.rgs[i].covers(r) {
			return &q.rgs[i]
		}
	}
	return nil
}

// before is the queue order: with admission fair sharing, the LocalQueue
// of lower usage first; then the sticky preemptor, then higher priority,
// then earlier creation, then the order of arrival.
func (q *clusterQueue) before(x, y *info) bool {
	if x.afs != nil && y.afs != nil && x.afs.value != y.afs.value {
		return x.afs.value < y.afs.value
	}
	if xs, ys := x.key == q.sticky, y.key == q.sticky; xs != ys {
		return xs
	}
	if x.w.Priority != y.w.Priority {
		return x.w.Priority > y.w.Priority
	}
	if xt, yt := q.orderTime(x), q.orderTime(y); xt != yt {
		return xt < yt
	}
	return x.seq < y.seq
}

func (q *clusterQueue) inHeap(wi *info) int {
	return slices.Index(q.heap, wi)
}

func (q *clusterQueue) pushHeap(wi *info) {
	if q.inHeap(wi) >= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(q.heap, wi, func(e, t *info) int {
		if q.before(e, t) {
			return -1
		}
		return 1
	})
	q.heap = slices.Insert(q.heap, i, wi)
}

// pushOrUpdate queues a workload new to the queue, or back from
// eviction: to the inadmissible set when its shape was set aside whole,
// else to the heap.
func (q *clusterQueue) pushOrUpdate(wi *info) {
	if q.inadmissible[wi.key] != nil {
		delete(q.inadmissible, wi.key)
	}
	if !q.strict && q.bulk[wi.shape] {
		q.inadmissible[wi.key] = wi
		return
	}
	q.pushHeap(wi)
}

// pop takes the head of the heap, nil when it is empty.
func (q *clusterQueue) pop() *info {
	q.popCycle++
	if len(q.heap) == 0 {
		return nil
	}
	wi := q.heap[0]
	q.heap = q.heap[1:]
	return wi
}

// requeue puts back a head that was not admitted: straight to the heap
// when immediate (StrictFIFO; a BestEffortFIFO workload that failed after
// nomination or waits for its victims) or when the inadmissible set was
// moved back since the pop, or when flavors are left to try; else to the
// inadmissible set, with every workload of its shape when it did not fit
// at all (BestEffortFIFO).
func (q *clusterQueue) requeue(wi *info, immediate, noFit bool) {
	if immediate || q.requeueCycle >= q.popCycle || wi.last.pending() {
		delete(q.inadmissible, wi.key)
		q.pushHeap(wi)
		return
	}
	if q.inadmissible[wi.key] != nil || q.inHeap(wi) >= 0 {
		return
	}
	q.inadmissible[wi.key] = wi
	if !q.strict && noFit {
		q.bulk[wi.shape] = true
		kept := q.heap[:0]
		for _, x := range q.heap {
			if x.shape == wi.shape {
				q.inadmissible[x.key] = x
				continue
			}
			kept = append(kept, x)
		}
		q.heap = kept
	}
}

// queueInadmissible moves the inadmissible workloads whose namespace the
// queue still selects, and whose back-off is over, back to the heap, and
// returns how many.
func (q *clusterQueue) queueInadmissible(a *Admitter) int {
	q.requeueCycle = q.popCycle
	clear(q.bulk)
	moved := 0
	for _, k := range slices.Sorted(maps.Keys(q.inadmissible)) {
		wi := q.inadmissible[k]
		if !q.spec.NamespaceSelector.Matches(a.ns[wi.w.Namespace]) || wi.backoffUntil > a.now {
			continue
		}
		delete(q.inadmissible, k)
		q.pushHeap(wi)
		moved++
	}
	return moved
}

// remove takes a pending workload out of the queue.
func (q *clusterQueue) remove(wi *info) {
	delete(q.inadmissible, wi.key)
	if i := q.inHeap(wi); i >= 0 {
		q.heap = slices.Delete(q.heap, i, i+1)
	}
	if q.sticky == wi.key {
		q.sticky = ""
	}
}

// assume counts an admitted workload's usage in the cache.
func (q *clusterQueue) assume(wi *info) {
	if wi.afs != nil {
		wi.afs.catchUp()
	}
	for _, u := range wi.usage {
		q.node.addUsage(u.fr, u.v)
	}
	q.admitted[wi.key] = wi
	q.a.tasUsage(wi, 1)
	q.orderOK = false
	if q.sticky == wi.key {
		q.sticky = ""
	}
}

// release gives back the quota a workload holds.
func (q *clusterQueue) release(wi *info) {
	if wi.afs != nil {
		wi.afs.catchUp()
	}
	for _, u := range wi.usage {
		q.node.removeUsage(u.fr, u.v)
	}
	delete(q.admitted, wi.key)
	q.a.tasUsage(wi, -1)
	q.orderOK = false
	q.generation++
	wi.admission, wi.usage = nil, nil
}

// pending reports whether flavors are left to try after the last attempt.
func (l *lastAssignment) pending() bool {
	if l == nil {
		return false
	}
	for _, m := range l.tried {
		for _, i := range m {
			if i != -1 {
				return true
			}
		}
	}
	return false
}
