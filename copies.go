package gangsim

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// ErrForkInCycle is returned by Fork called from an observer during a
// cycle: a fork is taken between cycles.
var ErrForkInCycle = errors.New("gangsim: Fork during a scheduling cycle")

// Fork returns an independent copy of the simulation as it stands now,
// for what-if questions asked mid-run: both go on from here on their own,
// and one given the same calls as the other makes the same decisions. It
// costs a copy of the records, the queue and the node accounts, not a
// replay: pods and node objects, which never change once made, are
// shared. The fork has the observers opts give it (none of s's); its
// plugins are new instances from the same registry and configuration, so a
// plugin's own state starts afresh, while what the scheduler keeps for
// them (the scan position of each profile) carries over.
func (s *Scheduler) Fork(opts ...Option) (*Scheduler, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if s.inCycle != 0 {
		return nil, ErrForkInCycle
	}
	f, err := New(s.cfg, append([]Option{WithRegistry(s.userRegistry), WithStartTime(s.now), WithoutShortcuts(s.shortcutsOff)}, opts...)...)
	f.sharedPods = s.sharedPods
	if err != nil {
		return nil, err
	}
	f.cache = s.cache.Clone()
	f.snap = f.cache.Snapshot()
	f.nominations = newNominator(f.snap, &f.tracker.records)
	f.nominations.dropped = f.clusterEvents.nominationDropped
	f.explainer = s.explainer.clone()
	for i, p := range f.profiles.list {
		p.pods.Nominations = f.nominations
		p.pods.SetScanPosition(s.profiles.list[i].pods.ScanPosition())
		f.explainer.wire(p.pods)
	}

	// records, each copied once, linked by ID as they were; what a record
	// holds that changes in place is copied too
	f.tracker.records = s.tracker.records.clone()
	f.tracker.pods = maps.Clone(s.tracker.pods)
	f.tracker.groupRecords = s.tracker.groupRecords.clone()
	f.tracker.groups = maps.Clone(s.tracker.groups)
	leaves := make(map[*podgroup.PodGroup]*podgroup.PodGroup, len(s.tracker.groups))
	for _, id := range f.tracker.groups {
		g := f.tracker.groupRecords.at(id)
		g.members = g.members.Clone()
		g.conditions = slices.Clone(g.conditions)
		g.pods = maps.Clone(g.pods)
		g.memo = memberMemo{} // its records are the parent's
		leaves[&s.tracker.groupRecords.at(id).group] = &g.group
	}
	composites := make(map[*podgroup.CompositePodGroup]*podgroup.CompositePodGroup, len(s.tracker.composites))
	for key, c := range s.tracker.composites {
		cp := *c
		cp.leaves = slices.Clone(c.leaves)
		f.tracker.composites[key] = &cp
		composites[&c.cpg] = &cp.cpg
	}
	f.tracker.forest = s.tracker.forest.Clone(func(g *podgroup.PodGroup) *podgroup.PodGroup { return leaves[g] },
		func(c *podgroup.CompositePodGroup) *podgroup.CompositePodGroup { return composites[c] })
	f.tracker.forestVersion = s.tracker.forestVersion
	for key, list := range s.tracker.orphans {
		f.tracker.orphans[key] = slices.Clone(list)
	}
	for node, list := range s.nominations.byNode {
		f.nominations.byNode[node] = slices.Clone(list)
	}
	for r := range f.tracker.records.all() {
		r.item = nil // the parent's: the copy's own are set as the queue is copied
	}
	f.queue = s.queue.Clone(func(e entry) entry { return e }, func(_, cp *queue.Item[entry]) {
		if cp.Value.pod != 0 {
			f.tracker.records.at(cp.Value.pod).item = cp
		}
	})

	f.invariants = invariantState{evictions: s.invariants.evictions, wasTrue: maps.Clone(s.invariants.wasTrue)}
	f.classes = s.classes.Clone()
	f.limitRanger, f.quotas = s.limitRanger.Clone(), s.quotas.Clone()
	f.clusterEvents = s.clusterEvents
	f.knownFailures = knownFailures{restarts: s.knownFailures.restarts + 1} // the pods' shape ids are the parent's
	f.timers = s.timers.clone()
	f.timers.firstKnown = false
	f.shortcutStats = s.shortcutStats
	f.cycle = s.cycle
	f.evictions = slices.Clone(s.evictions)
	f.stats = s.stats
	return f, nil
}

// clone copies the explainer's requests and results.
func (e *explainer) clone() explainer {
	return explainer{want: maps.Clone(e.want), done: maps.Clone(e.done)}
}

// Sandbox is a working copy of a Scheduler's cluster for "would it fit"
// questions, as the cluster autoscaler asks them of its ClusterSnapshot
// with its PredicateChecker: add nodes that do not exist yet (template
// nodes), take pods off nodes, check a pod against a node with its own
// profile's PreFilter and Filter plugins (taints, affinity, spread,
// devices and ports all count), place it tentatively, and go back to a
// mark.
//
// The sandbox has its own snapshot of the scheduler's cache and its own
// instances of the profiles' plugins, so nothing it does reaches the
// scheduler: not its snapshot, not its plugins' memos, not its scan
// position. The scheduler's event stream is the same whether a sandbox
// asks questions beside it or not.
//
// Cost: Sync brings the copy up to date in O(nodes changed since the last
// Sync) (plus O(nodes) when nodes were added or removed); every other
// call costs what it examines. Pods nominated by preemption are not
// counted on their nodes (the cluster autoscaler's simulation does not
// see nominations either). A Sandbox is not safe for concurrent use, and
// is used between the scheduler's cycles (from a loop driving it, not
// from an observer during a cycle).
type Sandbox struct {
	s     *Scheduler // the real one, read only
	shell *Scheduler // holds the sandbox's plugins, whose handle shows snap
	snap  *cluster.Snapshot
	state *fw.CycleState
	// the PreFilter state in state is of pod, on the snapshot as it was at
	// version; version changes with every change of the snapshot
	pod     *cluster.PodInfo
	stateAt int64
	version int64
	fresh   bool        // state holds a PreFilter result at stateAt
	preErr  *fw.Status  // PreFilter's rejection, when it rejected
	pins    []domainPin // the domains pod's groups already run in, at stateAt
}

// domainPin is a topology domain a group's scheduled pods pin its other
// pods to: the group's placement keeps them in one domain.
type domainPin struct{ key, value string }

// NewSandbox returns a working copy of the cluster as it is now.
func (s *Scheduler) NewSandbox() (*Sandbox, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	shell, err := New(s.cfg, WithRegistry(s.userRegistry), WithStartTime(s.now))
	if err != nil {
		return nil, err
	}
	b := &Sandbox{s: s, shell: shell, snap: s.cache.Snapshot(), state: fw.NewCycleState()}
	shell.snap = b.snap
	for _, p := range shell.profiles.list {
		p.pods.Nominations = nil
	}
	return b, nil
}

// Sync undoes every tentative change and brings the copy up to date with
// the scheduler's cluster.
func (b *Sandbox) Sync() error {
	b.snap.Rollback(0)
	b.changed()
	b.shell.now = b.s.now
	return b.s.cache.UpdateSnapshot(b.snap)
}

// Mark returns a point to Revert to.
func (b *Sandbox) Mark() cluster.Checkpoint { return b.snap.Checkpoint() }

// Revert undoes every change since m, newest first.
func (b *Sandbox) Revert(m cluster.Checkpoint) {
	b.snap.Rollback(m)
	b.changed()
}

func (b *Sandbox) changed() { b.version++ }

// Len is the number of nodes in the copy, tentative ones included.
func (b *Sandbox) Len() int { return b.snap.Len() }

// Node returns the node at index i (0 <= i < Len()), read-only: real
// nodes come first in name order, then the nodes added, in the order
// added.
func (b *Sandbox) Node(i int) *cluster.NodeInfo { return b.snap.Node(i) }

// Index returns the index of the named node.
func (b *Sandbox) Index(name string) (int, bool) { return b.snap.Index(name) }

// AddNode adds a node that does not exist (a template node) with its own
// ResourceSlices, and returns its index. A node without the hostname
// label gets it, as AddNode on the scheduler gives it.
func (b *Sandbox) AddNode(n cluster.Node, slices []*cluster.ResourceSlice) (int, error) {
	b.changed()
	return b.snap.AddNode(withHostname(n), slices)
}

// Pod returns a pod the scheduler knows, in its pending form (as it would
// be if it were taken off its node).
func (b *Sandbox) Pod(key cluster.PodKey) (*cluster.PodInfo, bool) {
	r := b.s.tracker.record(key)
	if r == nil {
		return nil, false
	}
	if r.info.State() != cluster.PodPending {
		return r.info.Pending(), true
	}
	return r.info, true
}

// RemovePod takes the pod with key off the node at index node.
func (b *Sandbox) RemovePod(key cluster.PodKey, node int) error {
	b.changed()
	return b.snap.Remove(key, node)
}

// Place puts pod on the node at index node, without checking it fits.
func (b *Sandbox) Place(pod *cluster.PodInfo, node int) {
	b.changed()
	b.snap.Reserve(pod, node)
}

// Fits reports whether pod passes its profile's PreFilter and Filter
// plugins on the node at index node, with the copy as it is now. The
// PreFilter state is kept while the pod and the copy stay the same, so
// checking one pod against many nodes runs PreFilter once.
func (b *Sandbox) Fits(pod *cluster.PodInfo, node int) bool {
	st := b.check(pod, node)
	return st == nil
}

// Why says why pod does not fit on the node at index node ("" when it
// does): the rejecting plugin's status.
func (b *Sandbox) Why(pod *cluster.PodInfo, node int) string {
	if st := b.check(pod, node); st != nil {
		return st.String()
	}
	return ""
}

// SpreadSkewed reports whether the node at index node rejects pod for the
// skew of a topology spread constraint (not for a missing label): the
// cluster autoscaler's estimator asks it.
func (b *Sandbox) SpreadSkewed(pod *cluster.PodInfo, node int) bool {
	return slices.Contains(b.check(pod, node).Reasons(), podtopologyspread.ReasonConstraintsNotMatch)
}

// noProfile rejects a pod whose scheduler no profile is.
var noProfile = fw.NewStatus(fw.UnschedulableAndUnresolvable, "pod names a scheduler no profile has")

func (b *Sandbox) check(pod *cluster.PodInfo, node int) *fw.Status {
	p := b.shell.profiles.forPod(pod)
	if p == nil {
		return noProfile
	}
	if !b.fresh || b.pod != pod || b.stateAt != b.version {
		b.pod, b.stateAt, b.fresh, b.preErr = pod, b.version, true, nil
		if st := p.pods.PreFilter(b.state, b.snap, pod); st != nil && !st.IsSkip() {
			b.preErr = st
		}
		b.pins = b.s.tracker.domainPins(pod.Pod(), b.snap, b.s.nominations)
	}
	if b.preErr != nil {
		return b.preErr
	}
	labels := b.snap.Node(node).Node().Labels
	for _, pin := range b.pins {
		if v, ok := labels[pin.key]; !ok || v != pin.value {
			return fw.NewStatus(fw.UnschedulableAndUnresolvable, fmt.Sprintf("the pod's group runs in %s=%s", pin.key, pin.value))
		}
	}
	return p.pods.FilterNode(b.state, b.snap, pod, node)
}

// domainPins are the topology domains p's PodGroup and the composites
// above it are pinned to by their scheduled pods: a group cycle places
// the rest of a group, or of a composite, in the domain where some of it
// already runs (nodes named in snap). Without them the autoscaler would add a node the group
// cannot use, see it unneeded, remove it, and add it again for ever.
func (t *tracker) domainPins(p *cluster.Pod, snap *cluster.Snapshot, noms *nominator) []domainPin {
	if p.PodGroup == "" {
		return nil
	}
	gr := t.group(groupKeyOf(p))
	if gr == nil {
		return nil
	}
	var pins []domainPin
	pin := func(key string, nodes []string) {
		if key == "" || len(nodes) == 0 {
			return
		}
		if i, ok := snap.Index(nodes[0]); ok {
			if v, ok := snap.Node(i).Node().Labels[key]; ok {
				pins = append(pins, domainPin{key, v})
			}
		}
	}
	pin(gr.group.TopologyKey, t.scheduledNodes(gr))
	for _, ref := range t.forest.Ancestors(podgroup.Ref{Key: gr.key}) {
		if c := t.forest.Composite(ref.Key); c != nil && c.TopologyKey != "" {
			pin(c.TopologyKey, t.buildTree(ref, noms).Composite.ScheduledNodes)
		}
	}
	return pins
}

// FindNode returns the first node of candidates (indexes, in the order
// given) pod fits on, or false; it examines the candidates up to that
// one.
func (b *Sandbox) FindNode(pod *cluster.PodInfo, candidates []int) (int, bool) {
	for _, i := range candidates {
		if b.Fits(pod, i) {
			return i, true
		}
		if b.preErr != nil {
			return 0, false // no node can fit
		}
	}
	return 0, false
}

// PlaceGroup runs the scheduler's placement algorithm on the copy for the
// hierarchy under root (a root CompositePodGroup, or a PodGroup without a
// parent), as the root's next cycle would run it: its pending pods, the
// first one's profile, no preemption. The placement is taken back. It
// returns the pods placed with their nodes, or why none can be: the
// cluster autoscaler's question for a group, whether the nodes added to
// the copy let the scheduler place it.
func (b *Sandbox) PlaceGroup(root podgroup.Ref) ([]Placed, string) {
	s := b.s
	if (root.Composite && s.tracker.composites[root.Key] == nil) || (!root.Composite && s.tracker.group(root.Key) == nil) {
		return nil, fmt.Sprintf("%s is not defined", root.Key)
	}
	if s.GroupRoot(root) != root {
		return nil, fmt.Sprintf("%s is not the root of its hierarchy", root.Key)
	}
	pending := s.tracker.hierarchyPending(root)
	switch {
	case len(pending) == 0:
		return nil, "no pod of the group is pending"
	case !s.tracker.treeReady(root):
		return nil, "the scheduler does not try it yet: too few of its pods or groups are known for its minCount or minGroupCount"
	case s.tracker.gatedCount(root) > 0:
		return nil, "the scheduler does not try it yet: some of its pods have scheduling gates"
	}
	if msg := s.tracker.checkRoot(root, s.tracker.leafRecords(root), pending[0], &s.profiles); msg != "" {
		return nil, msg
	}
	p := b.shell.profiles.forPod(pending[0].info)
	tree := s.tracker.buildTree(root, s.nominations)
	m := b.Mark()
	out := p.groups.ScheduleTree(b.snap, tree, fw.Placement{})
	b.Revert(m)
	switch {
	case out.Err != nil:
		return nil, out.Err.Error()
	case !out.Feasible:
		return nil, out.Message
	}
	var placed []Placed
	for _, as := range out.Assignments(tree) {
		placed = append(placed, Placed(as))
	}
	if len(placed) == 0 {
		return nil, errPodGroupUnschedulable
	}
	return placed, ""
}

// Placed is a pod placed on the node at index Node of a Sandbox.
type Placed struct {
	Pod  *cluster.PodInfo
	Node int
}

// Budgets yields the pod disruption budgets with the disruptions they
// allow now, in key order.
func (b *Sandbox) Budgets() iter.Seq[cluster.BudgetStatus] { return b.snap.Budgets() }
