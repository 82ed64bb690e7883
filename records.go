package gangsim

import (
	"iter"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/queue"
)

// Records refer to each other by ID, not by pointer: queue entries, group
// members, nominations, members waiting for their group and timers name
// pods by podID; pods name their group, and composites their leaves, by
// groupID. A million pod records are then a few thousand allocations
// instead of a million, links are 4 bytes instead of 8, and a fork copies
// the tables with every link in them still right, but one: a pod's own
// queue item, which the fork points at the copy's. ID 0 names nothing.
type (
	podID   int32
	groupID int32
)

// recordChunk is the number of records a chunk of a table holds. Chunks
// never move, so a pointer taken from a table stays valid while records
// are added. A chunk is a large allocation, a whole number of 8 KiB
// pages: 1,024 pod records of 184 bytes fill 23 exactly (512 would leave
// 4 KiB of every 96 KiB unused, 8 MB on a million pods).
const recordChunk = 1024

// table holds records in the order they were added, named by IDs of type
// ID; records are never removed (a deleted pod keeps its record and its
// key; groups are never deleted).
type table[T any, ID ~int32] struct {
	chunks [][]T
	n      int // IDs handed out, counting the unused 0
}

type (
	podTable   = table[podRecord, podID]
	groupTable = table[groupRecord, groupID]
)

// add stores r and returns where, and its ID.
func (t *table[T, ID]) add(r T) (*T, ID) {
	if t.n == 0 {
		t.n = 1 // ID 0 names nothing
	}
	if t.n/recordChunk == len(t.chunks) {
		t.chunks = append(t.chunks, make([]T, recordChunk))
	}
	id := t.n
	t.n++
	slot := &t.chunks[id/recordChunk][id%recordChunk]
	*slot = r
	return slot, ID(id)
}

// dropLast takes back the record added last, for an addition that fails
// after it.
func (t *table[T, ID]) dropLast() {
	t.n--
	var zero T
	t.chunks[t.n/recordChunk][t.n%recordChunk] = zero
}

// all yields every record, in the order added.
func (t *table[T, ID]) all() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for id := 1; id < t.n; id++ {
			if !yield(&t.chunks[id/recordChunk][id%recordChunk]) {
				return
			}
		}
	}
}

// at returns the record of id, or nil for 0.
func (t *table[T, ID]) at(id ID) *T {
	if id == 0 {
		return nil
	}
	u := uint32(id) // IDs are positive: unsigned, the division is a shift
	return &t.chunks[u/recordChunk][u%recordChunk]
}

// find is at for an ID that may be out of the table (0 included): nil
// then.
func (t *table[T, ID]) find(id ID) *T {
	if id <= 0 || int(id) >= int(t.n) {
		return nil
	}
	return t.at(id)
}

// clone copies every record (shallowly: what records point to outside
// the tables is shared or copied by the caller).
func (t *table[T, ID]) clone() table[T, ID] {
	c := table[T, ID]{chunks: make([][]T, len(t.chunks)), n: t.n}
	for i, ch := range t.chunks {
		c.chunks[i] = append([]T(nil), ch...)
	}
	return c
}

// tracker owns the records of pods and groups, as raft's progress tracker
// owns the followers' progress: the tables by ID, the lookups by key, the
// forest of groups and the members waiting for their group. Its methods
// read and keep these records (lookups, member lists and counts, the
// readiness of hierarchies); what changes the queue, the cache or the
// event stream is the Scheduler's.
type tracker struct {
	pods      map[cluster.PodKey]podID
	records   podTable
	groups    map[string]groupID // by "namespace/name"
	lastGroup struct {           // the last found in groups (see group)
		key string
		id  groupID
	}
	groupRecords groupTable
	composites   map[string]*compositeRecord
	sharedNext   podID // the record sharedRecord tries first
	forest       podgroup.Forest
	// forestVersion changes whenever a group joins the forest; per-root
	// caches derived from it are valid while it holds.
	forestVersion int
	orphans       map[string][]podID // members whose group is not defined yet
}

// newTracker returns an empty tracker.
func newTracker() tracker {
	return tracker{pods: map[cluster.PodKey]podID{}, groups: map[string]groupID{},
		composites: map[string]*compositeRecord{}, orphans: map[string][]podID{}}
}

// record returns the record of the pod key names, or nil.
func (t *tracker) record(key cluster.PodKey) *podRecord {
	return t.records.at(t.pods[key])
}

// sharedRecord is record(p.Key()) for a pod added with AddSharedPod,
// found by position when asked in the order the pods were added (each
// after the one asked before it): the record that holds p itself and
// still has its key. A pod admission copied, or asked out of order, is
// looked up by key.
func (t *tracker) sharedRecord(p *cluster.Pod) *podRecord {
	if r := t.records.find(t.sharedNext); r != nil && r.info.Pod() == p && !r.superseded {
		t.sharedNext++
		return r
	}
	r := t.record(p.Key())
	if r != nil {
		t.sharedNext = r.id + 1 // a hint: the next pod's record, if asked in order
	}
	return r
}

// recordOf is record(pi.Key()) found through pi's handle when pi is the
// record's own PodInfo: victim units and nominations ask it of every pod
// of a node, and a lookup by key was a tenth of a failed preemption.
func (t *tracker) recordOf(pi *cluster.PodInfo) *podRecord {
	if r := t.records.find(podID(pi.Handle())); r != nil && r.info == pi {
		return r
	}
	return t.record(pi.Key())
}

// setInfo makes pi the pod's PodInfo, with the record's handle.
func (r *podRecord) setInfo(pi *cluster.PodInfo) {
	pi.SetHandle(int32(r.id))
	r.info = pi
}

// group returns the record of the PodGroup key names, or nil.
func (t *tracker) group(key string) *groupRecord {
	// a group cycle looks its root up a few times: the last key is kept
	// (groups are never taken out of t.groups, so an ID stays good)
	if key != t.lastGroup.key || t.lastGroup.id == 0 {
		t.lastGroup.key, t.lastGroup.id = key, t.groups[key]
	}
	return t.groupRecords.at(t.lastGroup.id)
}

// groupOf returns the record of r's PodGroup, or nil when it has none
// (yet).
func (t *tracker) groupOf(r *podRecord) *groupRecord {
	return t.groupRecords.at(r.group)
}

// entry is what the queue holds: a pod, or a root group (a PodGroup with no
// parent, or the top CompositePodGroup of a hierarchy).
type entry struct {
	pod  podID // 0 for a group
	root podgroup.Ref
}

// podRecord is the scheduler's record of a pod from arrival to deletion.
type podRecord struct {
	id      podID
	group   groupID          // 0 for a pod outside any group, or whose group is not defined yet
	info    *cluster.PodInfo // the pod as admitted, in its pending form
	spec    *cluster.Pod     // the pod as given, while its group's priority is awaited
	phase   Phase
	node    string
	reason  string
	profile int32 // see profiles.of; 0 until looked up
	// gated is set while the pod waits on its group's quorum (or on
	// scheduling gates in its hierarchy) and was told so: later changes
	// of the count update the reason without an event, so that a gang
	// arriving pod by pod makes a linear event stream.
	gated bool
	// unschedulable is set by a failed attempt (kube's PodScheduled=False,
	// reason Unschedulable) and cleared by anything else that gives the
	// pod a reason, a binding or a return to the queue
	unschedulable bool
	// reasonFit is set while reason is lastFit's message not made yet:
	// a failed gang member's message is made when someone reads it
	// (reasonText), not at every retry
	reasonFit bool
	// superseded is set when a later record took the pod's key (the pod
	// ended, then was added again): the key names that one now
	superseded bool
	duration   time.Duration // run time once bound; 0 runs forever
	firstSeen  time.Duration
	boundAt    time.Duration
	endedAt    time.Duration
	binds      int    // bindings so far; a timer armed at one binding is stale at the next
	attempts   int    // group cycles this pod took part in (orders group members)
	nominated  string // node preemption nominated it to; "" for none
	// enqueueBlock is the message of the PreEnqueue plugin that keeps the
	// pod out of the queue (its scheduling gates, for the built-in one),
	// "" when none does (see preEnqueue)
	enqueueBlock string
	lastFit      *fw.FitError // the node by node rejections of its last failed attempt (read-only: pods that fail alike share one, its Pod names the first)
	shape        podShape     // the KnownFailures shortcut's (shortcuts.go)
	// item is the pod's queue item while it has one (a pending pod
	// outside any group): the queue keeps no index of pods (Queue.Put)
	item *queue.Item[entry]
}

// queued reports whether the pod's own item is in the queue, in flight
// included.
func (r *podRecord) queued() bool { return r.item != nil && (r.item.Queued() || r.item.InFlight()) }

// blocked reports whether a PreEnqueue plugin keeps the pod out of the
// queue.
func (r *podRecord) blocked() bool { return r.enqueueBlock != "" }

// ended reports whether the pod's life is over: it succeeded or was
// deleted. Its key may name a new pod.
func (r *podRecord) ended() bool { return r.phase == PhaseSucceeded || r.phase == PhaseDeleted }

// reasonText is the pod's reason, made from its rejections when it was
// left to be made.
func (r *podRecord) reasonText() string {
	if r.reasonFit {
		r.reason, r.reasonFit = r.lastFit.Error(), false
	}
	return r.reason
}

func (r *podRecord) status() PodStatus {
	return PodStatus{Key: r.info.Key(), Node: r.node, Phase: r.phase, Reason: r.reasonText(), Unschedulable: r.unschedulable && r.phase == PhasePending, Priority: r.info.Priority(),
		PreemptionPolicy: r.info.Pod().EffectivePreemptionPolicy(), SchedulingGates: slices.Clone(r.info.Pod().SchedulingGates),
		ResourceClaimStatuses: slices.Clone(r.info.Pod().ResourceClaimStatuses), ArrivedAt: r.firstSeen, BoundAt: r.boundAt, EndedAt: r.endedAt, Binds: r.binds}
}

// groupRecord is the scheduler's record of a PodGroup: the object as
// admitted, its known members and its status conditions.
type groupRecord struct {
	id         groupID
	group      podgroup.PodGroup
	key        string // group.Key(), made once: cycles read it for every leaf
	members    podgroup.Membership
	pods       map[cluster.PodKey]podID // known members, any phase but gone
	conditions podgroup.Conditions
	itemKey    string    // its queue key when it is a root
	self       []groupID // itself, as the leaves of a root PodGroup
	gated      int       // members with scheduling gates (all pending)
	// version counts changes of the members (who they are, their states,
	// their pods), and memo keeps what is derived from them at a version:
	// a busy cluster retries a failed gang every few simulated seconds
	// while its members stay as they are.
	version uint64
	memo    memberMemo
	// known is its last fruitless search as a root (FutileRetries), nil
	// when none may answer; knownAt is where the feeds were read up to
	// when it last held (kept here, a value a fork copies: known is shared)
	known   *knownRoot
	knownAt feedsAt
}

// memberMemo is what a group's cycles derive from its members, valid
// while the group's version is the memo's.
type memberMemo struct {
	version   uint64 // the group's version + 1 when taken (0: nothing kept)
	pending   []*podRecord
	infos     []*cluster.PodInfo // pending's pods, for placement (read-only)
	scheduled []string
	valid     string // validateRoot's answer for a root PodGroup
	validSet  bool
	waits     int8 // waitsOnPods's answer for the pending members: 0 not known, 1 no, 2 yes
	oneShape  int8 // whether the pending members have one shape (FutileRetries): 0 not known, 1 no, 2 yes
}

// compositeRecord is the scheduler's record of a CompositePodGroup.
type compositeRecord struct {
	cpg                 podgroup.CompositePodGroup
	itemKey             string
	leaves              []groupID // the PodGroups below, in child order
	leavesForestVersion int       // the forest version leaves was taken at
	// readyChildren counts the children that are ready (treeReady), and
	// pending the unscheduled members of the PodGroups below, kept as
	// members come and go (changeMembers): a composite built child by
	// child costs linear time, not quadratic.
	readyChildren int
	pending       int
	gated         int // members with scheduling gates of the PodGroups below
}

func (gr *groupRecord) status() GroupStatus {
	g := gr.group
	if g.Priority != nil {
		g.Priority = new(*g.Priority) // the caller's copy
	}
	return GroupStatus{Key: gr.key, Group: g, Known: gr.members.Known(),
		Scheduled: gr.members.Scheduled(), Conditions: slices.Clone(gr.conditions)}
}

// setCondition records the PodGroupInitiallyScheduled condition.
func (gr *groupRecord) setCondition(status podgroup.ConditionStatus, reason, msg string, now time.Duration) {
	gr.conditions.Set(podgroup.Condition{Type: podgroup.ConditionInitiallyScheduled, Status: status,
		Reason: reason, Message: msg, LastTransitionTime: now})
}
