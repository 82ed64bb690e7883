package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/google/btree"
)

// Errors of illegal cache transitions. Each is wrapped with the pod and
// node concerned; a failed call leaves the cache unchanged.
var (
	ErrNodeExists    = errors.New("cluster: node already exists")
	ErrNodeNotFound  = errors.New("cluster: node not found")
	ErrPodExists     = errors.New("cluster: pod already in cache")
	ErrPodNotFound   = errors.New("cluster: pod not in cache")
	ErrPodState      = errors.New("cluster: illegal pod transition")
	ErrBudgetExists  = errors.New("cluster: pod disruption budget already exists")
	ErrBudgetMissing = errors.New("cluster: pod disruption budget not found")
)

// Cache holds the cluster state the scheduler decides against: nodes, the
// pods on them, and pod disruption budgets. It is the single owner of that
// state; snapshots copy from it.
//
// Pod life-cycle (pending pods live in the scheduler's queue, not here):
//
//	            AssumePod              FinishBinding
//	(absent) ─────────────▶ Assumed ─────────────────▶ Bound ──EvictPod──▶ Terminating
//	   ▲  │                    │                        │ ▲                   │
//	   │  │                    │ ForgetPod              │ │                   │
//	   │  └──── AddPod ────────┼────────────────────────┼─┘                   │
//	   │      (nodeName set)   ▼                        │ RemovePod           │ RemovePod
//	   └─────────────────── (absent) ◀──────────────────┴─────────────────────┘
//
// Any other transition (assume twice, forget a pod that is not assumed,
// bind to a missing node, remove an unknown pod) returns an error naming
// the pod and node and changes nothing. RemoveNode takes the node's pods
// with it and returns them, so no pod is lost silently.
//
// Every change bumps a counter owned by this cache; the changed NodeInfo
// records the new value as its Generation, and UpdateSnapshot copies only
// nodes newer than the snapshot. A Cache is not safe for concurrent use.
type Cache struct {
	nodes            map[string]*nodeItem
	byName           *btree.BTreeG[*nodeItem] // deterministic node order
	recent           *nodeItem                // most recently changed first
	pods             map[PodKey]*PodInfo
	budgets          []*budgetItem // sorted by key
	generation       int64
	nodeSetVersion   int64 // bumped when a node is added or removed
	nodeVersion      int64 // bumped when a node is added, updated or removed
	budgetVersion    int64 // bumped when a budget or its counts change
	namespaces       map[string]map[string]string
	namespaceVersion int64 // bumped when a namespace's labels change
	// slices are the ResourceSlices by node name, sorted by slice name,
	// kept for nodes not added yet too; those no node owns under ""
	slices map[string][]*ResourceSlice
	// devices are the device classes and resource claims
	// (deviceobjects.go)
	devices deviceObjects
	// net are the accounts of the devices no node owns, which the nodes
	// share (netdevices.go)
	net *netDevices
}

type nodeItem struct {
	info       *NodeInfo
	prev, next *nodeItem
	// rank is the node's index in a snapshot of the cache's node set at
	// version rankAt (snapshots list the nodes by name, so every snapshot
	// of one node set has the same order): UpdateSnapshot finds the
	// snapshot's copy of a changed node without a lookup by name
	rank   int
	rankAt int64
}

type budgetItem struct {
	budget             PodDisruptionBudget
	healthy, expected  int
	probeKey, probeVal string // see BudgetStatus.LabelProbe
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{
		nodes:   map[string]*nodeItem{},
		byName:  btree.NewG(16, func(a, b *nodeItem) bool { return a.info.node.Name < b.info.node.Name }),
		pods:    map[PodKey]*PodInfo{},
		devices: newDeviceObjects(),
		net:     &netDevices{},
	}
}

// Grow readies the cache's index of pods for n more pods without growing
// it step by step (a hint: it changes nothing else).
func (c *Cache) Grow(n int) {
	if n <= 0 {
		return
	}
	pods := make(map[PodKey]*PodInfo, len(c.pods)+n)
	maps.Copy(pods, c.pods)
	c.pods = pods
}

// Generation returns the cache's change counter.
func (c *Cache) Generation() int64 { return c.generation }

// NodeCount returns the number of nodes.
func (c *Cache) NodeCount() int { return len(c.nodes) }

// PodCount returns the number of assumed, bound and terminating pods.
func (c *Cache) PodCount() int { return len(c.pods) }

// Node returns the node with the given name. The NodeInfo is the cache's
// own and changes with it; take a Snapshot for a stable view.
func (c *Cache) Node(name string) (*NodeInfo, bool) {
	it, ok := c.nodes[name]
	if !ok {
		return nil, false
	}
	return it.info, true
}

// Nodes yields the nodes in name order.
func (c *Cache) Nodes() iter.Seq[*NodeInfo] {
	return func(yield func(*NodeInfo) bool) {
		c.byName.Ascend(func(it *nodeItem) bool { return yield(it.info) })
	}
}

// Pod returns the pod with the given key.
func (c *Cache) Pod(key PodKey) (*PodInfo, bool) {
	pi, ok := c.pods[key]
	return pi, ok
}

// Pods yields the cached pods in key order.
func (c *Cache) Pods() iter.Seq[*PodInfo] {
	return func(yield func(*PodInfo) bool) {
		keys := make([]PodKey, 0, len(c.pods))
		for k := range c.pods {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(c.pods[k]) {
				return
			}
		}
	}
}

// touch records a change of it: new generation, front of the recency list.
func (c *Cache) touch(it *nodeItem) {
	c.generation++
	it.info.generation = c.generation
	if c.recent == it {
		return
	}
	c.unlink(it)
	it.next = c.recent
	if c.recent != nil {
		c.recent.prev = it
	}
	c.recent = it
}

func (c *Cache) unlink(it *nodeItem) {
	if it.prev != nil {
		it.prev.next = it.next
	}
	if it.next != nil {
		it.next.prev = it.prev
	}
	if c.recent == it {
		c.recent = it.next
	}
	it.prev, it.next = nil, nil
}

// AddNode adds a node with no pods.
func (c *Cache) AddNode(n Node) error {
	if err := n.Validate(); err != nil {
		return err
	}
	if _, ok := c.nodes[n.Name]; ok {
		return fmt.Errorf("%w: node %q", ErrNodeExists, n.Name)
	}
	it := &nodeItem{info: &NodeInfo{node: n.Clone(), index: -1, net: c.net}}
	it.info.setSlices(c.slices[n.Name])
	c.nodes[n.Name] = it
	c.byName.ReplaceOrInsert(it)
	c.nodeSetVersion++
	c.nodeVersion++
	c.touch(it)
	return nil
}

// UpdateNode replaces a node's labels, allocatable, taints and
// unschedulable flag; its pods stay, even if they no longer fit (as in
// Kubernetes, where running pods are not re-checked).
func (c *Cache) UpdateNode(n Node) error {
	if err := n.Validate(); err != nil {
		return err
	}
	it, ok := c.nodes[n.Name]
	if !ok {
		return fmt.Errorf("%w: node %q", ErrNodeNotFound, n.Name)
	}
	it.info.node = n.Clone()
	c.nodeVersion++
	c.touch(it)
	return nil
}

// RemoveNode deletes a node and every pod on it, and returns those pods
// (in their order on the node) so the caller can requeue them.
func (c *Cache) RemoveNode(name string) ([]*PodInfo, error) {
	it, ok := c.nodes[name]
	if !ok {
		return nil, fmt.Errorf("%w: node %q", ErrNodeNotFound, name)
	}
	removed := slices.Clone(it.info.pods)
	defer c.touchNet(c.net.version, it)
	for _, pi := range removed {
		it.info.releaseClaims(pi.spec.pod) // a node-independent claim's other pods keep it
		delete(c.pods, pi.spec.key)
		c.countBudgets(pi, -1)
	}
	delete(c.nodes, name)
	c.byName.Delete(it)
	c.unlink(it)
	c.nodeSetVersion++
	c.nodeVersion++
	c.generation++
	return removed, nil
}

// AddPod adds a pod already running on p.NodeName (state Bound).
func (c *Cache) AddPod(p Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.NodeName == "" {
		return fmt.Errorf("%w: pod %s: nodeName is empty (pending pods belong in the queue)", ErrPodState, p.Key())
	}
	pi := NewPodInfo(p)
	return c.place(pi.with(PodBound, p.NodeName, p.StartTime), p.NodeName)
}

// AssumePod records the scheduler's decision to put pi on node before the
// binding completes: the pod counts against the node from now on. The pod
// is checked unless it was validated (PodInfo.Validate).
func (c *Cache) AssumePod(pi *PodInfo, node string) error {
	if err := pi.check(); err != nil {
		return err
	}
	return c.place(pi.with(PodAssumed, node, 0), node)
}

func (c *Cache) place(pi *PodInfo, node string) error {
	key := pi.spec.key
	it, ok := c.nodes[node]
	if !ok {
		if old, ok := c.pods[key]; ok {
			return errPodExists(old)
		}
		return fmt.Errorf("%w: node %q for pod %s", ErrNodeNotFound, node, key)
	}
	// One map operation, not a lookup then an insert (a binding's costliest
	// step): a pod already there is found by its length, and put back.
	n := len(c.pods)
	c.pods[key] = pi
	if len(c.pods) == n {
		old, ok := c.podOnNodes(key)
		if !ok { // no node lists the pod the index held: an index gone wrong, not kept
			delete(c.pods, key)
			return fmt.Errorf("%w: pod %s is in the cache's index and on no node", ErrPodExists, key)
		}
		c.pods[key] = old
		return errPodExists(old)
	}
	it.info.insertPod(len(it.info.pods), pi)
	c.countBudgets(pi, 1)
	c.touch(it)
	return nil
}

func errPodExists(old *PodInfo) error {
	return fmt.Errorf("%w: pod %s is %s on node %q", ErrPodExists, old.spec.key, old.state, old.node)
}

// podOnNodes returns the pod with the key from the nodes' lists, where
// every pod of the index is: what the index held before place overwrote it.
func (c *Cache) podOnNodes(key PodKey) (*PodInfo, bool) {
	for _, it := range c.nodes {
		if i := it.info.podIndex(key); i >= 0 {
			return it.info.pods[i], true
		}
	}
	return nil, false
}

// BindPod places a pending pod on a node as bound, started at now: an
// AssumePod and FinishBinding in one step, for a binding that cannot fail
// in between (the simulator's), with one copy of the pod instead of two.
// It returns the pod as bound, the copy the cache holds. The pod is checked
// as AssumePod checks it.
func (c *Cache) BindPod(pi *PodInfo, node string, now time.Duration) (*PodInfo, error) {
	if err := pi.check(); err != nil {
		return nil, err
	}
	bound := pi.with(PodBound, node, now)
	if err := c.place(bound, node); err != nil {
		return nil, err
	}
	return bound, nil
}

// FinishBinding turns an assumed pod into a bound one, started at now.
func (c *Cache) FinishBinding(key PodKey, now time.Duration) error {
	return c.transition(key, PodAssumed, func(pi *PodInfo) *PodInfo { return pi.with(PodBound, pi.node, now) })
}

// EvictPod starts the graceful termination of a bound pod: it keeps its
// resources until RemovePod, and stops counting as healthy for budgets.
func (c *Cache) EvictPod(key PodKey, now time.Duration) error {
	return c.transition(key, PodBound, func(pi *PodInfo) *PodInfo {
		cp := pi.with(PodTerminating, pi.node, pi.start)
		cp.deletedAt = now
		return cp
	})
}

// transition replaces a pod in state from by next(pod), in place on its node.
func (c *Cache) transition(key PodKey, from PodState, next func(*PodInfo) *PodInfo) error {
	pi, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("%w: pod %s", ErrPodNotFound, key)
	}
	if pi.state != from {
		return fmt.Errorf("%w: pod %s on node %q is %s, not %s", ErrPodState, key, pi.node, pi.state, from)
	}
	it := c.nodes[pi.node]
	np := next(pi)
	it.info.pods[it.info.podIndex(key)] = np
	c.countBudgets(pi, -1)
	c.countBudgets(np, 1)
	c.pods[key] = np
	c.touch(it)
	return nil
}

// ForgetPod drops an assumed pod whose binding will not happen.
func (c *Cache) ForgetPod(key PodKey) error {
	pi, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("%w: pod %s", ErrPodNotFound, key)
	}
	if pi.state != PodAssumed {
		return fmt.Errorf("%w: pod %s on node %q is %s, not Assumed", ErrPodState, key, pi.node, pi.state)
	}
	_, err := c.RemovePod(key)
	return err
}

// RemovePod deletes a pod in any state (it finished, was deleted, or its
// termination completed) and returns it. The pod's claims reserved on its
// node count one pod fewer: the last pod of a claim frees its devices.
func (c *Cache) RemovePod(key PodKey) (*PodInfo, error) {
	pi, ok := c.pods[key]
	if !ok {
		return nil, fmt.Errorf("%w: pod %s", ErrPodNotFound, key)
	}
	it := c.nodes[pi.node]
	it.info.removePodAt(it.info.podIndex(key))
	before := c.net.version
	it.info.releaseClaims(pi.spec.pod)
	delete(c.pods, key)
	c.countBudgets(pi, -1)
	c.touch(it)
	c.touchNet(before, it)
	return pi, nil
}

// AddBudget adds a pod disruption budget; its counts cover the pods already
// cached.
func (c *Cache) AddBudget(b PodDisruptionBudget) error {
	if err := b.Validate(); err != nil {
		return err
	}
	i, found := c.budgetIndex(b.Key())
	if found {
		return fmt.Errorf("%w: %s", ErrBudgetExists, b.Key())
	}
	b.Selector = b.Selector.Clone()
	if b.MinAvailable != nil {
		b.MinAvailable = new(*b.MinAvailable)
	}
	if b.MaxUnavailable != nil {
		b.MaxUnavailable = new(*b.MaxUnavailable)
	}
	item := &budgetItem{budget: b}
	item.probeKey, item.probeVal = labelProbe(b.Selector)
	for _, pi := range c.pods {
		item.count(pi, 1)
	}
	c.budgets = slices.Insert(c.budgets, i, item)
	c.budgetVersion++
	return nil
}

// SetNamespace records a namespace's labels (replacing earlier ones);
// namespace selectors of pod affinity terms read them. A namespace never
// set has no labels.
func (c *Cache) SetNamespace(ns Namespace) error {
	if p := NameProblem(ns.Name, true); p != "" {
		return fieldError(ErrInvalidNamespace, "", "name", "%s", p)
	}
	if c.namespaces == nil {
		c.namespaces = map[string]map[string]string{}
	}
	c.namespaces[ns.Name] = maps.Clone(ns.Labels)
	c.namespaceVersion++
	return nil
}

// ErrInvalidNamespace is wrapped by namespace errors.
var ErrInvalidNamespace = errors.New("cluster: invalid namespace")

// RemoveBudget deletes the budget with the given "namespace/name".
func (c *Cache) RemoveBudget(key string) error {
	i, found := c.budgetIndex(key)
	if !found {
		return fmt.Errorf("%w: %s", ErrBudgetMissing, key)
	}
	c.budgets = slices.Delete(c.budgets, i, i+1)
	c.budgetVersion++
	return nil
}

func (c *Cache) budgetIndex(key string) (int, bool) {
	return slices.BinarySearchFunc(c.budgets, key, func(b *budgetItem, k string) int { return cmp.Compare(b.budget.Key(), k) })
}

// Budgets yields every budget with its current disruptionsAllowed, in key
// order.
func (c *Cache) Budgets() iter.Seq[BudgetStatus] {
	return func(yield func(BudgetStatus) bool) {
		for _, b := range c.budgets {
			if !yield(b.status()) {
				return
			}
		}
	}
}

func (b *budgetItem) status() BudgetStatus {
	return BudgetStatus{Budget: &b.budget, Allowed: b.budget.DisruptionsAllowed(b.healthy, b.expected), probeKey: b.probeKey, probeVal: b.probeVal}
}

func (c *Cache) countBudgets(pi *PodInfo, sign int) {
	for _, b := range c.budgets {
		if b.count(pi, sign) {
			c.budgetVersion++
		}
	}
}

// count adds sign to the budget's counts if it covers pi.
func (b *budgetItem) count(pi *PodInfo, sign int) bool {
	if pi.state == PodTerminating || !b.budget.Matches(pi.spec.pod) {
		return false
	}
	b.expected += sign
	if pi.state == PodBound {
		b.healthy += sign
	}
	return true
}
