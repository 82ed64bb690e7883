package autoscaler

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Autoscaler is the cluster autoscaler in simulated time, beside one
// Scheduler: every scan interval it looks at the pods the scheduler
// marked unschedulable and at each node's use, and adds and removes nodes.
// It is single-threaded, like the Scheduler it serves.
type Autoscaler struct {
	cfg    Config
	groups []*groupState
	rng    *rand.Rand
	prios  []priorityRule
	events []Event

	s       *gangsim.Scheduler
	sb      *gangsim.Sandbox
	started bool
	origin  time.Duration // scans fall at origin + k*ScanInterval

	nodes    map[string]*nodeState // the nodes the autoscaler made, by name
	names    []string              // nodeNames's, nil when to be made again
	upcoming []*nodeState          // requested, not ready yet, by arrival then name

	// dirty: the cluster changed (an event other than a cycle) at
	// lastChange or later, since the scan at lastScan
	dirty      bool
	lastChange time.Duration
	scanned    bool
	lastScan   time.Duration
	lastStep   time.Duration // the latest Step
	// arrivedAt is when nodes last joined (while arrived)
	arrived   bool
	arrivedAt time.Duration
	// wake is when a scan may change something though the cluster does
	// not (an unneeded node due, a cooldown or a backoff ending); valid
	// while hasWake
	wake    time.Duration
	hasWake bool

	lastScaleUp, lastDelete, lastFailure time.Duration
	scaledUp, deleted, failed            bool
	unneeded                             map[string]time.Duration // since when each candidate is unneeded

	waits     map[cluster.PodKey]*podWait
	waitOrder []cluster.PodKey
	pending   map[cluster.PodKey]time.Duration // pods told unschedulable (when last), not bound since
	// freed is, by node, when room last appeared on it (a pod left, the
	// node joined or changed): a pod marked unschedulable before that
	// may fit there now, though the scheduler has not retried it yet
	freed map[string]time.Duration
	// lastFreed is the latest of freed's times
	lastFreed time.Duration
	// checks counts the pod-on-node checks of the estimates so far (the
	// work MaxBinpackingChecks bounds)
	checks int64
}

// groupState is a NodeGroup and what it did.
type groupState struct {
	NodeGroup
	index      int
	created    int // nodes named so far (the next is Name-(created+1))
	racks      int // racks opened so far
	rackFill   int // nodes in the last rack
	live       int // ready or provisioning now
	added      int
	removed    int
	maxNodes   int
	closedHrs  float64 // node-hours of the nodes gone
	backoffTil time.Duration
	// backoff is the length of the latest back-off; failures the
	// timeouts since the group last gave a node (or since a reset), the
	// latest at lastFailure
	backoff     time.Duration
	failures    int
	lastFailure time.Duration
	resources   cluster.Resources
	gpu         bool
}

// nodeState is one node the autoscaler made.
type nodeState struct {
	name      string
	group     *groupState
	node      cluster.Node
	requested time.Duration
	arrives   time.Duration
	ready     bool
	gone      bool
	goneAt    time.Duration
	req       *request
}

// request is one scale-up: its pods wait for a node from at to end (the
// nodes' arrival, or the timeout).
type request struct {
	at, end time.Duration
}

type priorityRule struct {
	priority int
	re       *regexp.Regexp
}

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("autoscaler: invalid configuration")

func configErr(object, field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s", ErrConfig, object, field, fmt.Sprintf(format, args...))
}

// New validates cfg and groups and returns an autoscaler; rng seeds
// delays drawn from distributions and the random expander (nil: a fixed
// seed).
func New(cfg Config, groups []NodeGroup, rng *rand.Rand) (*Autoscaler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	a := &Autoscaler{cfg: cfg, rng: rng, nodes: map[string]*nodeState{}, unneeded: map[string]time.Duration{},
		waits: map[cluster.PodKey]*podWait{}, pending: map[cluster.PodKey]time.Duration{}, freed: map[string]time.Duration{}}
	seen := map[string]bool{}
	for i, g := range groups {
		if err := validateGroup(g, fmt.Sprintf("nodeGroups[%d]", i)); err != nil {
			return nil, err
		}
		if seen[g.Name] {
			return nil, configErr(fmt.Sprintf("nodeGroups[%d] %q", i, g.Name), "name", "another group has this name")
		}
		seen[g.Name] = true
		if g.RackLabel == "" {
			g.RackLabel = "rack"
		}
		gs := &groupState{NodeGroup: g, index: i, resources: g.Template.Allocatable}
		gs.gpu = g.Template.Allocatable.Get(ResourceGPU) > 0
		a.groups = append(a.groups, gs)
	}
	for _, p := range slices.Sorted(mapKeys(cfg.Priorities)) {
		for _, expr := range cfg.Priorities[p] {
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, configErr("autoscaler", fmt.Sprintf("priorities[%d]", p), "%q: %v", expr, err)
			}
			a.prios = append(a.prios, priorityRule{priority: p, re: re})
		}
	}
	return a, nil
}

// ResourceGPU is the extended resource that makes a node a GPU node: its
// utilisation is its GPUs' (the cluster autoscaler's GPU label and
// resource, nvidia.com/gpu).
const ResourceGPU cluster.ResourceName = "nvidia.com/gpu"

func validateGroup(g NodeGroup, where string) error {
	obj := where
	if g.Name != "" {
		obj = fmt.Sprintf("%s %q", where, g.Name)
	}
	switch {
	case g.Name == "":
		return configErr(obj, "name", "must not be empty")
	case g.Min < 0:
		return configErr(obj, "min", "%d is negative", g.Min)
	case g.Max < g.Min || g.Max < 1:
		return configErr(obj, "max", "%d must be at least 1 and at least min (%d)", g.Max, g.Min)
	case g.Template.Allocatable.IsNegative():
		return configErr(obj, "template.allocatable", "%v is negative", g.Template.Allocatable)
	case g.RackSize < 0:
		return configErr(obj, "rackSize", "%d is negative", g.RackSize)
	case g.ProvisioningDelay.Dist == nil && g.ProvisioningDelay.Fixed < 0:
		return configErr(obj, "provisioningDelay", "%v is negative", g.ProvisioningDelay.Fixed)
	case g.PricePerHour < 0:
		return configErr(obj, "pricePerHour", "%v is negative", g.PricePerHour)
	}
	n := g.Template
	n.Name = g.Name + "-1"
	if err := n.Validate(); err != nil {
		return configErr(obj, "template", "%v", err)
	}
	return nil
}

// Attach returns the option that lets the autoscaler watch the
// scheduler's event stream; pass it to gangsim.New.
func (a *Autoscaler) Attach() gangsim.Option { return gangsim.WithObserver(a.observe) }

// observe follows the scheduler: which pods arrived, were bound or
// marked unschedulable, and whether anything changed since the last scan.
func (a *Autoscaler) observe(e gangsim.Event) {
	key := e.PodKey()
	switch e.Kind {
	case gangsim.EventCycle, gangsim.EventGroupFailed:
		return // a cycle, or a group's failure, whose pods say what they are
	case gangsim.EventPodUnschedulable:
		// a failed retry changes nothing a scan decides, unless room
		// appeared since the pod's last mark: then the retry says the
		// room was not for it (notOnUpcoming). Were every retry a change,
		// a gang's retries at each backoff would keep the autoscaler
		// scanning for ever.
		if last, known := a.pending[key]; !known || a.lastFreed >= last {
			a.dirty, a.lastChange = true, e.At
		}
		a.pending[key] = e.At
		return
	}
	a.dirty, a.lastChange = true, e.At
	switch e.Kind {
	case gangsim.EventPodArrived:
		if a.waits[key] == nil {
			a.waits[key] = &podWait{arrived: e.At}
			a.waitOrder = append(a.waitOrder, key)
		}
	case gangsim.EventNodeAdded, gangsim.EventNodeUpdated, gangsim.EventNodeUncordoned:
		a.free(e.Node, e.At)
	case gangsim.EventPodTerminated:
		a.free(e.Node, e.At)
	case gangsim.EventPodBound:
		delete(a.pending, key)
		if w := a.waits[key]; w != nil && !w.bound {
			w.bound, w.boundAt = true, e.At
		}
	case gangsim.EventPodDeleted, gangsim.EventPodSucceeded:
		delete(a.pending, key)
		if e.Node != "" {
			a.free(e.Node, e.At)
		}
	}
}

// free notes that room appeared on node at t.
func (a *Autoscaler) free(node string, t time.Duration) {
	a.freed[node], a.lastFreed = t, max(a.lastFreed, t)
}

// Start creates each group's Min nodes at the scheduler's current time.
func (a *Autoscaler) Start(s *gangsim.Scheduler) error {
	if a.started {
		return errors.New("autoscaler: Start called twice")
	}
	sb, err := s.NewSandbox()
	if err != nil {
		return err
	}
	a.s, a.sb, a.started, a.origin, a.lastStep = s, sb, true, s.Now(), s.Now()-1
	now := s.Now()
	for _, g := range a.groups {
		if g.Min == 0 {
			continue
		}
		nodes := a.newNodes(g, g.Min, false, now, now)
		for _, n := range nodes {
			if err := a.join(n); err != nil {
				return err
			}
		}
		a.emit(Event{At: now, Kind: EventNodeReady, Group: g.Name, Nodes: names(nodes), Reason: fmt.Sprintf("min size %d", g.Min)})
	}
	return nil
}

// Events returns the decisions so far, in order.
func (a *Autoscaler) Events() []Event {
	out := slices.Clone(a.events)
	for i := range out {
		out[i].Nodes, out[i].Pods = slices.Clone(out[i].Nodes), slices.Clone(out[i].Pods)
	}
	return out
}

func (a *Autoscaler) emit(e Event) { a.events = append(a.events, e) }

// Groups summarises each group up to end, in the order New got them.
// NodeHours count from each node's scale-up request (the cloud bills
// from creation) to its removal, its timeout, or end.
func (a *Autoscaler) Groups(end time.Duration) []GroupSummary {
	out := make([]GroupSummary, len(a.groups))
	open := make([]float64, len(a.groups))
	for _, n := range a.nodes {
		if !n.gone && end > n.requested {
			open[n.group.index] += (end - n.requested).Hours()
		}
	}
	for i, g := range a.groups {
		h := g.closedHrs + open[i]
		out[i] = GroupSummary{Name: g.Name, NodesAdded: g.added, NodesRemoved: g.removed, MaxNodes: g.maxNodes,
			NodeHours: h, Cost: finite(h * g.PricePerHour)}
	}
	return out
}

// finite is v, or the largest float64 of its sign when v overflowed: a
// cost is a number a report can print and JSON can carry, never +Inf.
func finite(v float64) float64 {
	switch {
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

// Run drives s and a together until nothing more can happen and returns
// the end time. Users with other actions (scenario events) to interleave
// call a.Advance(s, t) to each action's time t, act, and end with Run:
//
//	for _, act := range actions { a.Advance(s, act.at); act.do(s) }
//	end, err := autoscaler.Run(s, a)
//
// Run starts a when it was not started.
func Run(s *gangsim.Scheduler, a *Autoscaler) (time.Duration, error) {
	if !a.started {
		if err := a.Start(s); err != nil {
			return s.Now(), err
		}
	}
	for {
		if t, ok := a.NextTime(); ok {
			t = max(t, a.tickAtOrAfter(s.Now()))
			if err := s.RunUntil(t); err != nil {
				return s.Now(), err
			}
			if err := a.Step(s, t); err != nil {
				return s.Now(), err
			}
			continue
		}
		// nothing for the autoscaler until the cluster changes: the
		// scheduler goes on to its next timer
		if err := s.Settle(); err != nil {
			return s.Now(), err
		}
		if _, ok := a.NextTime(); ok {
			continue
		}
		t, ok := s.NextTimer()
		if !ok {
			return s.Now(), nil
		}
		if err := s.RunUntil(t); err != nil {
			return s.Now(), err
		}
		if err := s.Settle(); err != nil {
			return s.Now(), err
		}
	}
}

// Advance drives s and a together up to t and leaves s at t: the
// autoscaler steps at each of its times (NextTime), and while it has
// nothing to do it looks at every scan interval whether the scheduler
// changed something meanwhile (pods it gave up on, pods that ended). A
// loop with actions of its own calls Advance to each action's time, acts,
// and ends with Run.
func (a *Autoscaler) Advance(s *gangsim.Scheduler, t time.Duration) error {
	if !a.started {
		if err := a.Start(s); err != nil {
			return err
		}
	}
	for {
		next, ok := a.NextTime()
		if !ok {
			next = a.tickAtOrAfter(s.Now() + 1) // look again then
		}
		if next > t {
			return s.RunUntil(t)
		}
		next = max(next, s.Now())
		if err := s.RunUntil(next); err != nil {
			return err
		}
		if ok {
			if err := a.Step(s, next); err != nil {
				return err
			}
		}
	}
}

func names(nodes []*nodeState) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.name
	}
	return out
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
