package metrics

import (
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// Options configure a Recorder.
type Options struct {
	// DomainKeys are the node label keys whose domains (each value of the
	// key) get their own allocation series, such as
	// topology.kubernetes.io/zone and rack. Nodes without the label belong
	// to no domain of that key.
	DomainKeys []string
	// Devices is where the Recorder reads the nodes' devices, the device
	// classes and the claims pods name; nil without devices (Attach sets
	// it to the Scheduler it wires the Recorder into). The report's
	// device sections are left out when no node has devices.
	Devices DeviceSource
}

// Recorder builds metrics from a simulation's event stream. Pass its
// Observe method to gangsim.WithObserver (or call it with every event of
// a stream, in order), then call Report. The zero value is not usable;
// use NewRecorder.
type Recorder struct {
	opts    Options
	res     resourceIndex
	started bool
	start   time.Duration
	now     time.Duration

	nodes   map[string]*nodeState
	pods    map[cluster.PodKey]*podState
	groups  map[string]*groupState
	domains map[domainID]*domainState

	capacity, allocated vecTrack
	pendingPods         track
	pendingGroups       track
	frag                fragmentation
	dev                 devices

	waits   []sample // placed pods' waits, in binding order
	reasons map[string]*reasonCount
	// reasonCache holds the reasons of each message seen (Reasons is a
	// few regular expressions; messages repeat).
	reasonCache map[string][]string
	preempt     preemptions
	succeeded   int
	evicted     int
	rejected    map[cluster.PodKey]bool // pods admission refused
	// status reads a pod's pending reason as it stands from the
	// Scheduler (Attach); nil when the Recorder only observes.
	status func(cluster.PodKey) (gangsim.PodStatus, bool)
}

// nodeState is a node as the stream showed it.
type nodeState struct {
	node        *cluster.Node // as the last event showed it (read-only)
	alloc       []int64
	used        []int64
	pods        int
	schedulable bool
	domains     []*domainState // one per domain key it has a label for
	frag        []int64        // its part of the fragmented totals
	dev         *nodeDevices   // its devices, once read; nil before
	devStale    bool           // its inventory is to be read
	devDirty    bool           // its device fragments are to be recomputed
}

// podState is a pod as the stream showed it.
type podState struct {
	info      *cluster.PodInfo
	vec       []int64
	arrived   time.Duration
	bound     bool // bound at least once
	running   bool // arrived already running
	node      string
	pending   bool
	group     *groupState
	shape     string
	unsched   map[string]bool // reasons it was given, for distinct counts
	firstBind time.Duration
	workload  string        // see Workload
	since     time.Duration // pending since: its arrival, or when it last left a node
	reason    string        // why it is pending, as the stream last said
}

// groupState is a PodGroup as its pods showed it.
type groupState struct {
	key        string
	arrived    time.Duration
	priority   int32
	bound      bool
	firstBind  time.Duration
	pendingNow int
}

// domainID names a topology domain: a label key and value.
type domainID struct{ key, value string }

// domainState is a domain's capacity and allocation.
type domainState struct {
	id                  domainID
	capacity, allocated vecTrack
}

// sample is one placed pod's wait.
type sample struct {
	pod      cluster.PodKey
	workload string
	priority int32
	arrived  time.Duration
	wait     time.Duration
}

// NewRecorder returns a Recorder.
func NewRecorder(opts Options) *Recorder {
	return &Recorder{
		opts: opts, res: newResourceIndex(),
		nodes: map[string]*nodeState{}, pods: map[cluster.PodKey]*podState{},
		groups: map[string]*groupState{}, domains: map[domainID]*domainState{},
		reasons: map[string]*reasonCount{}, reasonCache: map[string][]string{}, frag: newFragmentation(),
		dev: newDevices(opts.Devices),
	}
}

// Observe records one event. Events must come in the order of the stream;
// an event earlier than the one before is taken as happening at the same
// time.
func (r *Recorder) Observe(e gangsim.Event) {
	r.advance(e.At)
	switch e.Kind {
	case gangsim.EventNodeAdded, gangsim.EventNodeUpdated, gangsim.EventNodeCordoned, gangsim.EventNodeUncordoned:
		r.setNode(e.NodeObject)
	case gangsim.EventNodeRemoved:
		r.removeNode(e.Node)
	case gangsim.EventPodArrived:
		r.arrive(e)
	case gangsim.EventPodBound:
		r.bind(e)
	case gangsim.EventPodUnschedulable:
		r.unschedulable(e)
	case gangsim.EventPodEvicted:
		r.evicted++
		r.preempt.evict(e)
	case gangsim.EventPodTerminated:
		r.leave(e, true)
	case gangsim.EventPodSucceeded:
		r.succeeded++
		r.leave(e, false)
	case gangsim.EventPodDeleted:
		r.leave(e, false)
	case gangsim.EventPodRejected:
		if r.rejected == nil {
			r.rejected = map[cluster.PodKey]bool{}
		}
		r.rejected[e.Pod.Key()] = true
	case gangsim.EventCycle:
		r.preempt.endCycle(e)
	case gangsim.EventClaimAllocated:
		r.dev.allocated(r, e.Claim, e.Node, e.Allocation)
	case gangsim.EventClaimReleased:
		r.dev.released(r, e.Claim)
	}
}

// advance moves the clock; when time passes, the state of the instant
// that ends is recorded.
func (r *Recorder) advance(t time.Duration) {
	if !r.started {
		r.started, r.start, r.now = true, t, t
		return
	}
	if t > r.now {
		r.flush()
		r.now = t
	}
}

// flush records every track's value at r.now.
func (r *Recorder) flush() {
	r.frag.update(r)
	r.dev.readStale(r)
	r.dev.frag.update(r)
	r.dev.flush(r)
	n := len(r.res.names)
	r.capacity.flush(r.now, n)
	r.allocated.flush(r.now, n)
	r.pendingPods.flush(r.now)
	r.pendingGroups.flush(r.now)
	r.frag.total.flush(r.now, n)
	for _, d := range r.domains {
		d.capacity.flush(r.now, n)
		d.allocated.flush(r.now, n)
	}
}

// setNode adds a node or takes its new state (allocatable, labels, flag).
func (r *Recorder) setNode(n *cluster.Node) {
	if n == nil {
		return
	}
	ns := r.nodes[n.Name]
	if ns == nil {
		ns = &nodeState{}
		r.nodes[n.Name] = ns
	} else {
		r.account(ns, -1)
	}
	ns.node = n
	ns.alloc = r.res.vector(n.Allocatable)
	ns.schedulable = !n.Unschedulable
	ns.domains = ns.domains[:0]
	for _, key := range r.opts.DomainKeys {
		if v, ok := n.Labels[key]; ok {
			ns.domains = append(ns.domains, r.domain(domainID{key, v}))
		}
	}
	r.account(ns, 1)
	r.frag.nodeChanged(n.Name)
	r.dev.nodeChanged(ns)
	r.dev.frag.nodeChanged(ns)
}

// account adds (sign 1) or takes away (-1) a node's capacity and
// allocation from the cluster's and its domains' totals.
func (r *Recorder) account(ns *nodeState, sign int64) {
	r.capacity.add(ns.alloc, sign)
	r.allocated.add(ns.used, sign)
	for _, d := range ns.domains {
		d.capacity.add(ns.alloc, sign)
		d.allocated.add(ns.used, sign)
	}
}

func (r *Recorder) domain(id domainID) *domainState {
	d := r.domains[id]
	if d == nil {
		d = &domainState{id: id}
		r.domains[id] = d
	}
	return d
}

func (r *Recorder) removeNode(name string) {
	ns := r.nodes[name]
	if ns == nil {
		return
	}
	r.account(ns, -1)
	r.frag.nodeRemoved(name, ns)
	r.dev.removeNode(name, ns)
	delete(r.nodes, name)
}

// arrive records a new pod: pending, or running on its node.
func (r *Recorder) arrive(e gangsim.Event) {
	p := &podState{info: e.Pod, vec: r.res.vector(e.Pod.Request()), arrived: e.At, since: e.At, workload: Workload(e.Pod.Pod())}
	p.shape = shapeKey(p.vec, e.Pod.Pod())
	r.pods[e.Pod.Key()] = p
	r.dev.frag.arrive(&r.dev, p)
	if name := e.Pod.Pod().PodGroup; name != "" {
		key := podgroup.Key(e.Pod.Pod().Namespace, name)
		g := r.groups[key]
		if g == nil {
			g = &groupState{key: key, arrived: e.At, priority: e.Pod.Priority()}
			r.groups[key] = g
		}
		p.group = g
	}
	if e.Node != "" {
		p.running = true
		r.place(p, e.Node, e.At)
		return
	}
	r.setPending(p, true)
}

// bind records a binding; the first one ends the pod's wait.
func (r *Recorder) bind(e gangsim.Event) {
	p := r.pods[e.Pod.Key()]
	if p == nil {
		return
	}
	r.setPending(p, false)
	if !p.bound && !p.running {
		r.waits = append(r.waits, sample{pod: p.info.Key(), workload: p.workload, priority: p.info.Priority(), arrived: p.arrived, wait: e.At - p.arrived})
	}
	p.reason = ""
	r.place(p, e.Node, e.At)
}

// place puts a pod on a node.
func (r *Recorder) place(p *podState, node string, t time.Duration) {
	if !p.bound {
		p.bound, p.firstBind = true, t
	}
	if g := p.group; g != nil && !g.bound {
		g.bound, g.firstBind = true, t
	}
	p.node = node
	r.move(p, node, 1)
}

// move adds (1) or takes away (-1) a pod's request on a node.
func (r *Recorder) move(p *podState, node string, sign int64) {
	ns := r.nodes[node]
	if ns == nil {
		return
	}
	addTo(&ns.used, p.vec, sign)
	ns.pods += int(sign)
	r.allocated.add(p.vec, sign)
	for _, d := range ns.domains {
		d.allocated.add(p.vec, sign)
	}
	r.frag.nodeChanged(node)
	if ns.dev != nil {
		r.dev.frag.nodeChanged(ns)
	}
}

// leave records a pod leaving its node (if on one) or the queue; pending
// says whether it waits again (terminated) or is gone.
func (r *Recorder) leave(e gangsim.Event, pending bool) {
	p := r.pods[e.Pod.Key()]
	if p == nil {
		return
	}
	if p.node != "" {
		r.move(p, p.node, -1)
		p.node = ""
	}
	if pending {
		p.since, p.reason = e.At, e.Reason
	}
	r.setPending(p, pending)
}

// setPending moves a pod in or out of the pending pods, keeping the
// pending groups and the pending request shapes in step.
func (r *Recorder) setPending(p *podState, pending bool) {
	if p.pending == pending {
		return
	}
	p.pending = pending
	d := int64(-1)
	if pending {
		d = 1
	}
	r.pendingPods.cur += d
	r.frag.pending(p, d)
	if g := p.group; g != nil {
		was := g.pendingNow > 0
		g.pendingNow += int(d)
		if now := g.pendingNow > 0; now != was {
			r.pendingGroups.cur += d
		}
	}
}
