package scenario

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// fleet is one run's controllers: their state, the pods they made, and
// what the event stream told them since they last acted. It watches the
// stream through the Scheduler's pause hook (see), which asks for a pause
// whenever a controller has something to do; the runner then calls react
// at that simulated time, and the controllers act through the Scheduler's
// public API, as Kubernetes' controllers act through the API server.
type fleet struct {
	sc      *Scenario
	s       *gangsim.Scheduler
	ctls    []*ctlRun
	pods    map[cluster.PodKey]*ctlPod
	todo    []podChange // what the stream told, in order
	dirty   []int       // controllers to sync, by index
	wakeups wakeups
	paused  bool // see asked for a pause since the runner last cleared it

	makes  int                     // pods made while running
	made   []cluster.PodKey        // pods made while running, in order, each once
	listed map[cluster.PodKey]bool // the keys of made
	failed map[cluster.PodKey]bool // Job pods counted as failed

	// the end of the run: finite are the pods with a run time that no
	// service controller made; running those bound now; terminating the
	// evicted pods in their graceful termination
	finite, running, terminating map[cluster.PodKey]bool
}

// podChange is an event about a controller's pod, for it to act on.
type podChange struct {
	kind   gangsim.EventKind
	pod    *ctlPod
	reason string
	at     time.Duration
}

// ctlRun is one controller's state in a run.
type ctlRun struct {
	c      *Controller
	index  int
	pods   []*ctlPod // every pod it had or made, in that order
	active int       // its pods not ended
	next   int       // where to look for the next name (ReplicaSets, NonIndexed Jobs)
	// by index (a Job's completion index, a StatefulSet's ordinal): its
	// active pods, and how many it made
	activeAt, madeAt map[int]int
	// by node (DaemonSets): its active pods, how many it made, and the
	// nodes whose pod ended, to be given a new one
	onNode, madeOn map[string]int
	vacant         []string
	// refused: admission refused one of its pods; it makes none until
	// one of its pods changes (trying at once would meet the same refusal)
	refused bool
	job     *jobRun
	wake    time.Duration // its pending wakeup; -1 for none
	dirty   bool
}

// ctlPod is a controller's pod.
type ctlPod struct {
	ctl   *ctlRun
	key   cluster.PodKey
	index int    // its completion index or ordinal; -1 for none
	node  string // a DaemonSet's: the node it is pinned to
	state ctlPodState
	byUs  bool // its controller deleted it: the deletion's event is its own
}

type ctlPodState uint8

const (
	podActive  ctlPodState = iota // pending, bound, or terminating and back in the queue
	podFailing                    // a Job's pod evicted and counted failed, terminating: deleted once it has
	podLeaving                    // a Job's pod evicted under podReplacementPolicy Failed: counted once terminated
	podEnded                      // succeeded, deleted or failed
)

// newFleet returns the run state of the scenario's controllers; nil when
// the scenario has none, and runs as it would without them.
func (sc *Scenario) newFleet() *fleet {
	if len(sc.Controllers) == 0 {
		return nil
	}
	return sc.fleet()
}

// fleet returns the run state of the scenario's controllers, each with
// the pods it has at time 0 and a first sync due then.
func (sc *Scenario) fleet() *fleet {
	f := &fleet{sc: sc, pods: map[cluster.PodKey]*ctlPod{}, listed: map[cluster.PodKey]bool{}, failed: map[cluster.PodKey]bool{},
		finite: map[cluster.PodKey]bool{}, running: map[cluster.PodKey]bool{}, terminating: map[cluster.PodKey]bool{}}
	for i := range sc.Controllers {
		c := &ctlRun{c: &sc.Controllers[i], index: i, activeAt: map[int]int{}, madeAt: map[int]int{},
			onNode: map[string]int{}, madeOn: map[string]int{}, wake: -1}
		if c.c.Kind == "Job" {
			c.job = newJobRun(c.c)
		}
		for _, at := range c.c.pods {
			p := &sc.Pods[at].Pod
			f.adopt(c, p.Key(), c.c.podIndex(p), daemonNode(p))
		}
		f.ctls = append(f.ctls, c)
		f.wakeAt(c, 0)
	}
	for i := range sc.Pods {
		if p := &sc.Pods[i]; p.Duration > 0 {
			if cp := f.pods[p.Pod.Key()]; cp == nil || !cp.ctl.c.service() {
				f.finite[p.Pod.Key()] = true
			}
		}
	}
	return f
}

// adopt counts a pod as the controller's, active.
func (f *fleet) adopt(c *ctlRun, key cluster.PodKey, index int, node string) *ctlPod {
	cp := &ctlPod{ctl: c, key: key, index: index, node: node}
	f.pods[key] = cp
	c.pods = append(c.pods, cp)
	c.active++
	if index >= 0 {
		c.activeAt[index]++
		c.madeAt[index]++
	}
	if node != "" {
		c.onNode[node]++
		c.madeOn[node]++
	}
	return cp
}

// end counts an active pod as ended.
func (f *fleet) end(cp *ctlPod, state ctlPodState) {
	if cp.state != podActive {
		cp.state = state
		return
	}
	cp.state = state
	c := cp.ctl
	c.active--
	if cp.index >= 0 {
		c.activeAt[cp.index]--
	}
	if cp.node != "" {
		c.onNode[cp.node]--
	}
}

// see follows the event stream (the Scheduler's pause hook): it keeps the
// accounts of what is left to happen, and notes what the controllers must
// act on, asking for a pause so that they act at this time.
func (f *fleet) see(e gangsim.Event) bool {
	key := e.PodKey()
	if key == "" {
		return false
	}
	pause := f.track(e, key)
	cp := f.pods[key]
	if cp == nil || !cp.ctl.cares(e, cp) {
		if pause {
			f.paused = true
		}
		return pause
	}
	f.todo = append(f.todo, podChange{kind: e.Kind, pod: cp, reason: e.Reason, at: e.At})
	f.paused = true
	return true
}

// cares reports whether the controller acts on an event of its pod: one
// ending or refused by admission (a Job's pods also when evicted, or terminated as their node is
// removed or drained; a DaemonSet's when its node is removed).
func (c *ctlRun) cares(e gangsim.Event, cp *ctlPod) bool {
	switch e.Kind {
	case gangsim.EventPodSucceeded, gangsim.EventPodRejected:
		return true
	case gangsim.EventPodDeleted:
		return !cp.byUs
	case gangsim.EventPodEvicted:
		return c.job != nil
	case gangsim.EventPodTerminated:
		return c.job != nil || c.c.Kind == "DaemonSet" && e.Reason == gangsim.TerminatedNodeRemoved
	}
	return false
}

// track keeps the accounts of the finite work in progress; it asks for a
// pause when the last of it ends, for the runner to see whether anything
// but the services' pods is left to happen.
func (f *fleet) track(e gangsim.Event, key cluster.PodKey) bool {
	before := len(f.running) + len(f.terminating)
	switch e.Kind {
	case gangsim.EventPodArrived:
		if e.Node != "" && f.finite[key] {
			f.running[key] = true
		}
	case gangsim.EventPodBound:
		if f.finite[key] {
			f.running[key] = true
		}
	case gangsim.EventPodEvicted:
		delete(f.running, key)
		f.terminating[key] = true
	case gangsim.EventPodSucceeded, gangsim.EventPodTerminated, gangsim.EventPodDeleted:
		delete(f.running, key)
		delete(f.terminating, key)
	default:
		return false
	}
	return before > 0 && len(f.running)+len(f.terminating) == 0
}

// otherWork reports whether something besides the services' pods ending
// is in progress: a pod with a run time bound, or a victim terminating.
func (f *fleet) otherWork() bool { return len(f.running)+len(f.terminating) > 0 }

// busy reports whether the controllers have something to act on now.
func (f *fleet) busy() bool { return len(f.todo) > 0 || len(f.dirty) > 0 }

// react lets the controllers act on what the stream told them, and sync
// those it concerns, until nothing is left to act on.
func (f *fleet) react() error {
	for f.busy() {
		todo := f.todo
		f.todo = nil
		for _, ch := range todo {
			if err := f.change(ch); err != nil {
				return err
			}
		}
		dirty := f.dirty
		f.dirty = nil
		slices.Sort(dirty)
		for _, i := range dirty {
			c := f.ctls[i]
			c.dirty = false
			if err := f.sync(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fleet) change(ch podChange) error {
	if ch.pod.ctl.job != nil {
		return f.jobChange(ch)
	}
	return f.serviceChange(ch)
}

func (f *fleet) sync(c *ctlRun) error {
	var err error
	if c.job != nil {
		err = f.syncJob(c)
	} else {
		err = f.syncService(c)
	}
	if errors.Is(err, errRefused) {
		return nil
	}
	return err
}

// markDirty asks for the controller's sync.
func (f *fleet) markDirty(c *ctlRun) {
	if !c.dirty {
		c.dirty = true
		f.dirty = append(f.dirty, c.index)
	}
}

// remove deletes a controller's pod, as its controller, or Kubernetes'
// pod garbage collector, does.
func (f *fleet) remove(cp *ctlPod, state ctlPodState) error {
	f.end(cp, state)
	cp.byUs = true
	if err := f.s.DeletePod(cp.key); err != nil {
		return f.sc.runError(cp.ctl.c.podSource(cp.key.Display()), &atError{At: f.s.Now(), Err: err})
	}
	return nil
}

// make adds the controller's pod named name, with its index and node, made
// for the n-th time under that name.
func (f *fleet) make(c *ctlRun, name string, index int, node string, n int) error {
	p := c.c.pod(name, index, node)
	key := p.Key()
	if len(name) > 253 {
		return f.sc.runError(c.c.podSource(name), &atError{At: f.s.Now(), Err: errNameTooLong})
	}
	if f.makes++; len(f.sc.Pods)+f.makes > f.sc.podLimit {
		return f.sc.runError(c.c.podSource(name), &atError{At: f.s.Now(), Err: fmt.Errorf("%w: %d", ErrPodLimit, f.sc.podLimit)})
	}
	d := c.c.runTimeFor(key, n)
	if d > 0 && !c.c.service() {
		f.finite[key] = true
	}
	if !f.sc.podNames[key] && !f.listed[key] {
		f.listed[key] = true
		f.made = append(f.made, key)
	}
	cp := f.adopt(c, key, index, node)
	if err := f.s.AdoptPod(p, d); err != nil { // its maps are the controller's, read-only
		if errors.Is(err, gangsim.ErrRejected) {
			// the API server refused it (a quota): not created; the
			// controller tries again when one of its pods changes
			f.end(cp, podEnded)
			c.refused = true
			return errRefused
		}
		return f.sc.runError(c.c.podSource(name), &atError{At: f.s.Now(), Err: err})
	}
	return nil
}

// errRefused ends a controller's sync whose pod admission refused.
var errRefused = errors.New("scenario: pod creation refused")

// freeName returns the first name, from name(*k) on, that no pod of the
// scenario has or had, and moves *k past it.
func (f *fleet) freeName(namespace string, k *int, name func(int) string) string {
	for ; ; *k++ {
		n := name(*k)
		key := cluster.MakePodKey(namespace, n)
		if _, known := f.s.Pod(key); !known && !f.sc.podNames[key] {
			*k++
			return n
		}
	}
}

// suffixed names pods prefix-<k>.
func suffixed(prefix string) func(int) string {
	return func(k int) string { return prefix + "-" + strconv.Itoa(k) }
}

// wakeAt asks for the controller's sync at t, unless one is due before.
func (f *fleet) wakeAt(c *ctlRun, t time.Duration) {
	if c.wake >= 0 && c.wake <= t {
		return
	}
	c.wake = t
	heap.Push(&f.wakeups, wakeup{at: t, ctl: c.index})
}

// nextWakeup returns when the next controller sync is due.
func (f *fleet) nextWakeup() (time.Duration, bool) {
	for len(f.wakeups) > 0 {
		w := f.wakeups[0]
		if f.ctls[w.ctl].wake == w.at {
			return w.at, true
		}
		heap.Pop(&f.wakeups) // superseded by an earlier one
	}
	return 0, false
}

// wake marks dirty the controllers whose sync is due at t or before.
func (f *fleet) wake(t time.Duration) {
	for {
		at, ok := f.nextWakeup()
		if !ok || at > t {
			return
		}
		w := heap.Pop(&f.wakeups).(wakeup)
		c := f.ctls[w.ctl]
		c.wake = -1
		f.markDirty(c)
	}
}

// wakeup is a controller's sync due at a time.
type wakeup struct {
	at  time.Duration
	ctl int
}

// wakeups is a heap of wakeups, by time then controller.
type wakeups []wakeup

func (w wakeups) Len() int { return len(w) }
func (w wakeups) Less(i, j int) bool {
	return w[i].at < w[j].at || w[i].at == w[j].at && w[i].ctl < w[j].ctl
}
func (w wakeups) Swap(i, j int) { w[i], w[j] = w[j], w[i] }
func (w *wakeups) Push(x any)   { *w = append(*w, x.(wakeup)) }
func (w *wakeups) Pop() any {
	old := *w
	x := old[len(old)-1]
	*w = old[:len(old)-1]
	return x
}

// madeCount is how many pods the controllers made while running.
func (f *fleet) madeCount() int {
	if f == nil {
		return 0
	}
	return len(f.made)
}

// podSpec is the pod a controller made under key, for the result: its
// controller's pod of that name.
func (f *fleet) podSpec(key cluster.PodKey) *cluster.Pod {
	cp := f.pods[key]
	p := cp.ctl.c.pod(podName(key), cp.index, cp.node)
	return &p
}

// jobResults are the Jobs as their controllers left them, in input order.
func (f *fleet) jobResults() []JobResult {
	var out []JobResult
	for _, c := range f.ctls {
		j := c.job
		if j == nil {
			continue
		}
		r := JobResult{Name: cluster.MakePodKey(c.c.Namespace, c.c.Name).Display(), Status: j.status, Reason: j.reason,
			Succeeded: j.succeeded, Failed: j.failed, Active: c.active}
		if j.finished() {
			r.FinishedAt = j.finishedAt.String()
		}
		out = append(out, r)
	}
	return out
}

// podName is the name part of a pod key.
func podName(key cluster.PodKey) string {
	s := string(key)
	return s[strings.IndexByte(s, '/')+1:]
}
