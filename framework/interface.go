package framework

import (
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Plugin is a scheduling plugin. It implements one or more of the extension
// point interfaces below; a profile enables it at the points it implements.
type Plugin interface {
	// Name is the plugin's name in profiles ("NodeResourcesFit").
	Name() string
}

// PreEnqueuePlugin decides whether a pod may enter the queue to be tried
// at all, as kube-scheduler's PreEnqueue extension point does. The
// scheduler asks it when the pod is added and again when the pod changes
// (UngatePod). A non-nil status (UnschedulableAndUnresolvable) keeps the
// pod out of activeQ, in the queue's gated pool, pending with the
// status's message as its reason, until a change makes every PreEnqueue
// plugin pass; a member of a PodGroup holds its whole root group so. It
// sees the pod alone: no snapshot, no CycleState. SchedulingGates is the
// built-in one.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(pod *cluster.PodInfo) *Status
}

// PreFilterPlugin runs once per pod per attempt, before any node is
// filtered, and may look at the whole snapshot to prepare state for its
// Filter (kept in the CycleState). It returns:
//   - nil: go on, Filter will run;
//   - Skip: the plugin has nothing to check for this pod; its Filter and
//     its PreFilterExtensions are not run in this attempt;
//   - Unschedulable or UnschedulableAndUnresolvable: no node fits; the
//     status is every node's rejection.
type PreFilterPlugin interface {
	Plugin
	PreFilter(state *CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *Status
}

// PreFilterExtensions is implemented by PreFilter plugins whose state
// counts other pods: when a pod is added to or removed from a node
// tentatively (preemption trying victims, nominated pods counted), the
// scheduler changes the node first and then calls AddPod or RemovePod so
// the state follows. Both must be exact inverses of each other.
type PreFilterExtensions interface {
	AddPod(state *CycleState, pod, added *cluster.PodInfo, node *cluster.NodeInfo) *Status
	RemovePod(state *CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *Status
}

// FilterPlugin decides whether pod may run on node as the node is now (its
// pods include the cycle's tentative reservations). It returns nil when the
// pod fits; Unschedulable when evicting pods could make it fit (preemption
// tries the node); UnschedulableAndUnresolvable when nothing could (a
// taint, a selector).
type FilterPlugin interface {
	Plugin
	Filter(state *CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *Status
}

// ReservePlugin is kube-scheduler's Reserve extension point. Reserve runs
// once the pod is assumed on the node in the cycle's snapshot (the
// snapshot holds the pod there), right after the filter and score phase
// that chose the node, with the CycleState its PreFilter and Filter left.
// It may make further tentative changes on the snapshot through the
// Handle (Handle.Snapshot, e.g. Snapshot.ReserveClaim): they belong to the
// pod's reservation, are committed with it when the cycle succeeds, and
// are undone with it by the snapshot's rollback when it does not (a
// failed group placement, a candidate not chosen), so Unreserve only
// undoes what the plugin keeps itself. Unreserve runs only when a pod's
// own Reserve fails (below): the group search's rollbacks undo the
// snapshot alone, so a plugin keeps what it reserves on the snapshot (or
// in the CycleState), not in fields of its own.
//
// A non-success status makes the node unusable for the pod in this cycle:
// the runner runs the Unreserve of every Reserve plugin, in reverse order
// (kube-scheduler's RunReservePluginsUnreserve: the failed plugin and
// those after it included, so Unreserve must tolerate a Reserve that did
// not run), rolls the pod's reservation back, and the pod fails this
// attempt with that status. There is no second filter pass: a lone pod
// retries in a later cycle; in a group cycle the member is unplaced, as a
// pod that fits no node, and the walk goes on.
type ReservePlugin interface {
	Plugin
	Reserve(state *CycleState, pod *cluster.PodInfo, node int) *Status
	Unreserve(state *CycleState, pod *cluster.PodInfo, node int)
}

// PostFilterPlugin runs when no node fits a pod outside any group. It may
// choose preemption victims and a node for the pod: the scheduler evicts
// the victims and nominates the pod to the node. A nil result leaves the
// pod's nomination as it is; a result with an empty NominatedNode clears
// it. A Success status ends the PostFilter phase.
type PostFilterPlugin interface {
	Plugin
	PostFilter(state *CycleState, pod *cluster.PodInfo, fit *FitError) (*PostFilterResult, *Status)
}

// PostFilterResult is what a PostFilter plugin decided.
type PostFilterResult struct {
	NominatedNode string
	Victims       []Victim
}

// Victim is a running pod a preemption decided to evict.
type Victim struct {
	Pod cluster.PodKey
	// BudgetViolation says whether evicting it breaks a
	// PodDisruptionBudget.
	BudgetViolation bool
}

// PreScorePlugin runs once per pod before scoring, with the nodes that
// passed every filter. Skip removes the plugin from this pod's scoring.
type PreScorePlugin interface {
	Plugin
	PreScore(state *CycleState, pod *cluster.PodInfo, nodes []*cluster.NodeInfo) *Status
}

// ScorePlugin ranks a feasible node for pod. After normalisation
// (ScoreNormalizer, if the plugin has one) scores lie in 0..MaxNodeScore;
// the node total is the sum of score times weight.
type ScorePlugin interface {
	Plugin
	Score(state *CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) (int64, *Status)
}

// ScoreNormalizer is implemented by score plugins whose raw scores are
// rescaled over all scored nodes before weighting.
type ScoreNormalizer interface {
	NormalizeScore(state *CycleState, pod *cluster.PodInfo, scores []NodeScore) *Status
}

// NodeScore is one node's score (Node is the snapshot index).
type NodeScore struct {
	Node  int
	Score int64
}

// MaxNodeScore is the highest score a plugin gives a node after
// normalisation.
const MaxNodeScore int64 = 100

// Capabilities: optional interfaces a plugin declares to make the engine
// faster. A plugin that declares none is still run correctly, only every
// time.

// Signer is a filter or score plugin whose answer for a node depends only
// on that node (its NodeInfo) and on the parts of the pod that Sign appends
// to sig: two pods with equal signatures get the same answers on an
// unchanged node, so the scheduler remembers them per signature while the
// node does not change (kube-scheduler's opportunistic batching, per node).
// Sign returns false when it cannot sign this pod; the plugin then runs
// for it every time. A Signer's Filter reads no state PreFilter derived
// from other nodes.
type Signer interface {
	Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool)
}

// PodLocal is a plugin that can tell, for one pod on the snapshot as it
// is, that everything it does for that pod at each of its extension
// points (PreFilter and Filter, PreScore and Score, Reserve) reads only
// the pod and the node it is given, and keeps nothing between calls: its
// answers on a set of nodes then depend on those nodes alone. A gang that
// failed in a placement fails there again while the placement's nodes
// stay as they were (the KnownGroupFailures shortcut), so long as every
// plugin of its profile is PodLocal for each of its pods, or a Signer
// that signs the pod (a Signer is PodLocal at Filter and Score by its
// contract; at Reserve it must say so). A plugin that declares neither
// makes every such search run in full.
type PodLocal interface {
	PodLocalFor(pod *cluster.PodInfo, snap *cluster.Snapshot) bool
}

// NodeLocal is a filter plugin whose Filter reads only the node it is given
// and the pod (and no PreFilter state derived from other nodes). Preemption
// then checks a victim only against the preemptor pods on the victim's own
// nodes. Every Signer counts as NodeLocal.
type NodeLocal interface {
	NodeLocal()
}

// PointwiseNormalizer is a ScoreNormalizer whose normalised score of a
// node depends only on that node's raw score and the highest raw score
// among the scored nodes; it lets remembered scores be normalised in one
// pass. NormalizeOne must agree with NormalizeScore.
type PointwiseNormalizer interface {
	NormalizeOne(raw, highest int64) int64
}

// PreScoreIgnoresNodes is a PreScore plugin that does not read the node
// list it is given (its decision depends on the pod alone): the engine then
// passes nil instead of building the list.
type PreScoreIgnoresNodes interface {
	PreScoreIgnoresNodes()
}

// PreScoreSkipper is a PreScore plugin that can tell from the pod alone
// that its PreScore will return Skip (whatever the feasible nodes, as long
// as there are some): the engine may then rank the nodes without running
// it, from remembered scores.
type PreScoreSkipper interface {
	PreScoreSkips(pod *cluster.PodInfo) bool
}

// FilterSkipper is a Filter plugin that can tell from the pod alone that
// its Filter passes every node (a pod with no node name, no node
// selector): the memo then neither runs it nor signs it, as a PreFilter's
// Skip would have it, without a PreFilter point kube-scheduler's plugin
// does not have.
type FilterSkipper interface {
	FilterSkips(pod *cluster.PodInfo) bool
}

// Handle is what the scheduler offers plugins: the cycle's snapshot and
// the filter machinery, for plugins that simulate (preemption). A plugin's
// factory receives it.
type Handle interface {
	// Snapshot is the cycle's working snapshot. A plugin may reserve and
	// remove pods on it tentatively, but must roll back before returning;
	// a Reserve plugin's changes are the exception: they stay, as part of
	// the pod's reservation (ReservePlugin).
	Snapshot() *cluster.Snapshot
	// Now is the simulated time.
	Now() time.Duration
	// PreFilter runs the profile's PreFilter plugins for pod on the
	// snapshot as it is now and returns the state Filter needs.
	PreFilter(pod *cluster.PodInfo) (*CycleState, *Status)
	// Filter runs the profile's Filter plugins for pod on the node at
	// index node, as a cycle does: pods nominated to the node with equal
	// or higher priority count there too. state comes from PreFilter (nil:
	// PreFilter runs first).
	Filter(state *CycleState, pod *cluster.PodInfo, node int) *Status
	// AddPod and RemovePod change the snapshot tentatively (reserve or
	// remove other on the node) and keep state's PreFilter extensions in
	// step.
	AddPod(state *CycleState, pod, other *cluster.PodInfo, node int)
	RemovePod(state *CycleState, pod, other *cluster.PodInfo, node int) error
	// Rollback undoes the snapshot's changes since cp, newest first,
	// keeping state in step.
	Rollback(state *CycleState, pod *cluster.PodInfo, cp cluster.Checkpoint)
}

// Stateless is a PreFilter, Filter or PostFilter plugin whose answers
// depend only on the pod, the snapshot and the nominations it is shown:
// it keeps nothing between calls that could change a later answer. While
// the cluster and the nominations stay as they were, a pod of the same
// shape as one that just failed fails the same way in a profile whose
// PreFilter, Filter and PostFilter plugins are all Stateless (or Signers),
// and the scheduler answers its cycle from the first failure without
// running them. A plugin that declares nothing is run every time.
type Stateless interface {
	Stateless()
}

// LowerPriorityVictims is a PostFilter or PodGroupPostFilter plugin that
// makes room for a pod (or a group) only by evicting pods of lower
// priority than its own and changes nothing when it fails: in a cluster
// where no pod has a lower priority it fails, however the nodes changed. A pod that found no node is then
// answered by its last failure after changes none of which helps it (the
// scheduler's FutileRetries shortcut), as kube-scheduler's preemption
// would have found no victim, and a gang's failed cycle does not ask it.
type LowerPriorityVictims interface {
	LowerPriorityVictims()
}
