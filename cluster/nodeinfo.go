package cluster

import (
	"iter"
	"slices"
	"time"
	"unsafe"
)

// PodState is where a pod is in the cache's life-cycle (see Cache).
type PodState uint8

// The pod states. PodPending is the zero value: a pod the cache does not
// hold (waiting in the scheduler's queue, or reserved in a snapshot only).
const (
	PodPending PodState = iota
	PodAssumed
	PodBound
	PodTerminating
)

var podStateNames = [...]string{"Pending", "Assumed", "Bound", "Terminating"}

// String returns the state's name.
func (s PodState) String() string {
	if int(s) < len(podStateNames) {
		return podStateNames[s]
	}
	return "PodState(?)"
}

// PodInfo is a pod with what the scheduler derives from it once (its key,
// what it occupies on a node, its non-zero scoring requests) and where it
// is in the cache: its state, its node, its start. PodInfos are shared
// between the cache and its snapshots, so they are immutable: a state
// change makes a new PodInfo, which shares the pod and what was derived
// from it with the old one (a binding copies a few words, not the pod).
type PodInfo struct {
	spec      *podSpec
	node      string        // the node it is on; "" while pending
	start     time.Duration // when it started running
	deletedAt time.Duration // when eviction started; valid in PodTerminating
	priority  int32         // the pod's resolved priority (its first form's is what the pod's own points at)
	handle    int32         // the owner's number for it (SetHandle)
	state     PodState
	affinity  affinityFlags
	// valid says the pod passed Validate; the forms made from this one
	// (bound, pending again) keep it, their pod being this one's. It sits
	// in the struct's padding: the first form and its spec stay one
	// allocation of 144 bytes.
	valid bool
}

// podSpec is the part of a PodInfo every form of one pod shares: the pod
// as created and what is derived from it.
type podSpec struct {
	pod        *Pod // the PodInfo's own copy, or the caller's (NewPodInfoOf)
	key        PodKey
	request    Resources
	nonZeroCPU int64
	nonZeroMem int64
}

// NewPodInfo wraps a deep copy of p as a pending pod. Its priority is
// p.Priority, or 0 when that is nil: admission resolves priorities before
// a pod reaches the cache (see the Scheduler's AddPod). Its NodeName and
// StartTime are p's until the cache places it.
func NewPodInfo(p Pod) *PodInfo {
	prio := p.Priority
	p.Priority = nil // the copy points at its first form's priority: one allocation less per pod
	p = p.Clone()
	p.Priority = prio
	return NewPodInfoShared(p)
}

// NewPodInfoShared wraps p as a pending pod as NewPodInfo does, but keeps
// p's maps and slices instead of copying them: the caller hands them over
// and must not change them afterwards. A PodInfo never changes them
// either, so any number of PodInfos (and runs) may share one pod's data.
func NewPodInfoShared(p Pod) *PodInfo {
	prio := p.Priority
	p.Priority = nil
	// the first form, the spec and the pod in one allocation: 480 bytes
	// (a pod handed over, NewPodInfoOf, takes 144)
	a := &struct {
		info PodInfo
		spec podSpec
		pod  Pod
	}{pod: p}
	var v int32
	if prio != nil {
		v = *prio
		// the first form is never changed: the pod may point at its field
		a.pod.Priority = &a.info.priority
	}
	return a.info.wrap(&a.spec, &a.pod, v)
}

// NewPodInfoOf wraps p itself as a pending pod, without a copy: the
// caller hands p over, with its maps and slices, and must not change any
// of it afterwards. Its priority is *p.Priority; a pod without one is
// copied as NewPodInfoShared does. The pod of a large run is then held
// once, by the caller, where a copy would double it.
func NewPodInfoOf(p *Pod) *PodInfo {
	if p.Priority == nil {
		return NewPodInfoShared(*p)
	}
	a := &struct {
		info PodInfo
		spec podSpec
	}{}
	return a.info.wrap(&a.spec, p, *p.Priority)
}

// wrap makes pi the pending form of p, of priority prio, with sp its spec.
func (pi *PodInfo) wrap(sp *podSpec, p *Pod, prio int32) *PodInfo {
	sp.pod, sp.key, sp.request = p, p.Key(), PodRequest(p)
	sp.nonZeroCPU, sp.nonZeroMem = p.NonZeroRequests()
	*pi = PodInfo{spec: sp, node: p.NodeName, start: p.StartTime, priority: prio, affinity: affinityOf(p)}
	return pi
}

// affinityFlags say which inter-pod terms a pod has: the inter-pod
// affinity plugin looks only at pods that have some.
type affinityFlags uint8

const (
	hasPodAffinity          affinityFlags = 1 << iota // any pod affinity or anti-affinity term
	hasRequiredAntiAffinity                           // a required anti-affinity term
)

func affinityOf(p *Pod) affinityFlags {
	var f affinityFlags
	if a := p.Affinity; a != nil {
		if a.PodAffinity != nil || a.PodAntiAffinity != nil {
			f |= hasPodAffinity
		}
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.Required) > 0 {
			f |= hasRequiredAntiAffinity
		}
	}
	return f
}

// HasPodAffinity reports whether the pod has pod affinity or anti-affinity
// terms.
func (pi *PodInfo) HasPodAffinity() bool { return pi.affinity&hasPodAffinity != 0 }

// HasRequiredAntiAffinity reports whether the pod has a required
// anti-affinity term.
func (pi *PodInfo) HasRequiredAntiAffinity() bool {
	return pi.affinity&hasRequiredAntiAffinity != 0
}

// Pod returns the pod as it was created: the form every state of it
// shares. Where the pod runs and since when are NodeName and StartTime;
// the pod's own NodeName is the node it named at its creation, if any. It
// is shared: never modify it.
func (pi *PodInfo) Pod() *Pod { return pi.spec.pod }

// NodeName returns the node the pod is on (bound, assumed or terminating),
// "" while it is pending.
func (pi *PodInfo) NodeName() string { return pi.node }

// StartTime returns the simulated time the pod started running (0 until
// it is bound).
func (pi *PodInfo) StartTime() time.Duration { return pi.start }

// Key returns the pod's "namespace/name".
func (pi *PodInfo) Key() PodKey { return pi.spec.key }

// Validate checks the pod (Pod.Validate) once: a PodInfo's pod never
// changes, so a later call, on this PodInfo or on a form made from it
// afterwards (bound, pending again), answers at once. It records the
// pass in pi: call it before pi is shared, as its owner does on
// admission.
func (pi *PodInfo) Validate() error {
	if err := pi.check(); err != nil {
		return err
	}
	pi.valid = true
	return nil
}

// check is Validate without recording the pass: the cache's checks read
// PodInfos that forks of one cache may share across goroutines.
func (pi *PodInfo) check() error {
	if pi.valid {
		return nil
	}
	return pi.spec.pod.Validate()
}

// Handle returns the number the pod's owner gave this PodInfo
// (SetHandle), 0 until then; copies made from it keep it.
func (pi *PodInfo) Handle() int32 { return pi.handle }

// SetHandle gives pi a number its owner finds its own record of the pod
// by, without a lookup by key. Set it before pi is shared.
func (pi *PodInfo) SetHandle(h int32) { pi.handle = h }

// Request returns what the pod occupies on a node: its requests plus one pod.
func (pi *PodInfo) Request() Resources { return pi.spec.request }

// RequestRef is Request without the copy (NodeInfo.RequestedRef says
// why). It is shared: never modify it.
func (pi *PodInfo) RequestRef() *Resources { return &pi.spec.request }

// NonZeroRequests returns the cpu and memory scoring counts for the pod.
func (pi *PodInfo) NonZeroRequests() (milliCPU, memory int64) {
	return pi.spec.nonZeroCPU, pi.spec.nonZeroMem
}

// State returns the pod's cache state.
func (pi *PodInfo) State() PodState { return pi.state }

// Priority returns the pod's resolved priority.
func (pi *PodInfo) Priority() int32 { return pi.priority }

// DeletedAt returns when the eviction of a terminating pod started.
func (pi *PodInfo) DeletedAt() time.Duration { return pi.deletedAt }

// with returns a copy of pi in another state, on another node, started at
// another time: the copy-on-write step of every cache transition. The
// copy shares pi's pod.
func (pi *PodInfo) with(state PodState, node string, start time.Duration) *PodInfo {
	cp := *pi
	cp.state, cp.node, cp.start = state, node, start
	return &cp
}

// Pending returns the pod as it was before it was bound by the
// scheduler: pending, with no node and no start time. The scheduler keeps
// only the bound form of a running pod and makes its pending form again if
// it returns to the queue.
func (pi *PodInfo) Pending() *PodInfo {
	cp := pi.with(PodPending, "", 0)
	cp.deletedAt = 0
	return cp
}

// NodeInfo is a node with the pods on it (bound, assumed or terminating)
// and their summed requests. Requested counts each pod's requests plus one
// pod; NonZeroRequested counts cpu and memory as scoring does (100m and
// 200Mi in place of zero requests).
//
// Invariant: Requested == the sum of Request() over Pods(), and likewise for
// the non-zero totals. Generation is the value of the owning cache's
// counter at the node's last change; tentative changes made in a snapshot
// (Snapshot.Reserve) do not change it.
type NodeInfo struct {
	node       Node
	pods       []*PodInfo
	requested  Resources
	nonZeroCPU int64
	nonZeroMem int64
	generation int64
	// podsWithAffinity and podsWithRequiredAnti count the pods with
	// inter-pod terms, so that plugins skip nodes without any.
	podsWithAffinity     int32
	podsWithRequiredAnti int32
	index                int32 // position in its snapshot; -1 in the cache
	// priorities counts the pods by priority, so that a snapshot taking
	// the node in or out counts its pods without reading each
	priorities []priorityCount
	// devices are the node's slices and allocated claims (nodedevices.go)
	devices *nodeDevices
	// net are the accounts of the devices no node owns (netdevices.go),
	// shared by the nodes of one cache or one snapshot; nil for a node of
	// neither.
	net *netDevices
}

// Node returns the node. It is shared: never modify it.
func (ni *NodeInfo) Node() *Node { return &ni.node }

// Name returns the node's name.
func (ni *NodeInfo) Name() string { return ni.node.Name }

// Allocatable returns the node's allocatable resources.
func (ni *NodeInfo) Allocatable() Resources { return ni.node.Allocatable }

// Requested returns the sum of the requests of the pods on the node,
// including one pod each.
func (ni *NodeInfo) Requested() Resources { return ni.requested }

// RequestedRef is Requested without the copy, for the filters and scores
// that run on a node at each of its changes, for every pod shape: the
// Resources they copied to read a few fields made the in-process run of
// 10,000 pods on 1,000 nodes about 5% slower. It is shared: never modify
// it, and do not keep it past a change to the node. The allocatable's is
// &Node().Allocatable.
func (ni *NodeInfo) RequestedRef() *Resources { return &ni.requested }

// NonZeroRequested returns the cpu and memory scoring counts as requested.
func (ni *NodeInfo) NonZeroRequested() (milliCPU, memory int64) { return ni.nonZeroCPU, ni.nonZeroMem }

// Index returns the node's index in the snapshot it belongs to (-1 for the
// cache's own NodeInfo): plugins use it to read data kept per node in
// dense arrays.
func (ni *NodeInfo) Index() int { return int(ni.index) }

// Generation returns the cache generation of the node's last change.
func (ni *NodeInfo) Generation() int64 { return ni.generation }

// PodCount returns the number of pods on the node.
func (ni *NodeInfo) PodCount() int { return len(ni.pods) }

// Pods yields the pods on the node in the order they were added.
func (ni *NodeInfo) Pods() iter.Seq[*PodInfo] { return slices.Values(ni.pods) }

// PodList returns the node's pods as a slice, for loops on hot paths. It
// is shared: never modify it, and do not keep it past a change to the node.
func (ni *NodeInfo) PodList() []*PodInfo { return ni.pods }

// Pod returns the pod with the given key on this node.
func (ni *NodeInfo) Pod(key PodKey) (*PodInfo, bool) {
	if i := ni.podIndex(key); i >= 0 {
		return ni.pods[i], true
	}
	return nil, false
}

func (ni *NodeInfo) podIndex(key PodKey) int {
	// the key is nearly always the listed pod's own (a victim tried, a
	// reservation undone): found by the address of its bytes first, no
	// key compared byte by byte with the node's others
	data := unsafe.StringData(string(key))
	for i, p := range ni.pods {
		if unsafe.StringData(string(p.spec.key)) == data && len(p.spec.key) == len(key) {
			return i
		}
	}
	for i, p := range ni.pods {
		if p.spec.key == key {
			return i
		}
	}
	return -1
}

// insertPod puts pi at position pos (len to append) and adds its requests.
func (ni *NodeInfo) insertPod(pos int, pi *PodInfo) {
	ni.pods = slices.Insert(ni.pods, pos, pi)
	ni.account(pi, 1)
}

// removePodAt takes the pod at pos off the node and subtracts its requests.
func (ni *NodeInfo) removePodAt(pos int) *PodInfo {
	pi := ni.pods[pos]
	ni.pods = slices.Delete(ni.pods, pos, pos+1)
	if len(ni.pods) == 0 {
		ni.pods = nil
	}
	ni.account(pi, -1)
	return pi
}

func (ni *NodeInfo) account(pi *PodInfo, sign int64) {
	addPriority(&ni.priorities, pi.priority, sign)
	ni.requested.addInPlace(pi.spec.request, sign)
	ni.nonZeroCPU += sign * pi.spec.nonZeroCPU
	ni.nonZeroMem += sign * pi.spec.nonZeroMem
	if pi.affinity != 0 {
		if pi.HasPodAffinity() {
			ni.podsWithAffinity += int32(sign)
		}
		if pi.HasRequiredAntiAffinity() {
			ni.podsWithRequiredAnti += int32(sign)
		}
	}
}

// PodsWithAffinity counts the node's pods with pod affinity or
// anti-affinity terms.
func (ni *NodeInfo) PodsWithAffinity() int { return int(ni.podsWithAffinity) }

// PodsWithRequiredAntiAffinity counts the node's pods with a required
// anti-affinity term.
func (ni *NodeInfo) PodsWithRequiredAntiAffinity() int { return int(ni.podsWithRequiredAnti) }

// Clone returns a copy that shares nothing mutable with ni but its pods,
// which are read-only; it belongs to no snapshot.
func (ni *NodeInfo) Clone() *NodeInfo {
	cp := ni.clone()
	cp.node = ni.node.Clone()
	cp.index = -1
	return cp
}

// copyTo makes dst a copy of ni that shares nothing mutable with it,
// reusing the room of dst's pod and priority lists (which dst alone
// holds; its requests' extended resources may be shared, and are not).
func (ni *NodeInfo) copyTo(dst *NodeInfo) {
	pods, prios := dst.pods[:0], dst.priorities[:0]
	*dst = *ni
	if len(ni.pods) > 0 {
		dst.pods = append(pods, ni.pods...)
	}
	if len(ni.priorities) > 0 {
		dst.priorities = append(prios, ni.priorities...)
	}
	dst.requested = ni.requested.clone()
	dst.devices = ni.devices.clone()
}

// clone returns a copy that shares nothing mutable with ni.
func (ni *NodeInfo) clone() *NodeInfo {
	cp := *ni
	cp.pods = slices.Clone(ni.pods)
	cp.priorities = slices.Clone(ni.priorities)
	cp.requested = ni.requested.clone()
	cp.devices = ni.devices.clone()
	return &cp
}
