package controllers

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// The controllers of the kinds that keep a fixed list of pods, each of
// its own name and template, in groups restarted together: a
// LeaderWorkerSet (a leader and its workers per group), a RayCluster (a
// head and worker groups) and a Volcano Job (tasks of replicas). The
// importer works out the list from the object (lws.go, ray.go and
// volcano.go in package scenario/kube say how each controller names and
// labels its pods); the Manager keeps it:
//
//   - it makes each member's pod once the member it follows (After) is
//     bound, pinned to that pod's domain of a node label when it follows
//     it there (Follow): LeaderWorkerSet's workers after their leader;
//   - a pod that ends or fails starts the action of the set's rules:
//     make it again (ActionRestartPod), delete its group and make it again
//     (ActionRestartGroup), or the whole set (ActionRestartAll), or end the
//     set (ActionAbort, ActionTerminate, ActionComplete);
//   - a finite set (a Volcano Job) completes when its pods have all
//     succeeded, or MinSuccess of them, and fails when its restarts reach
//     MaxRetry.
//
// As for the services, a pod evicted by preemption or whose node is
// drained or removed goes back to the scheduling queue and is its own
// replacement, unless the rules restart more than the pod.

// Member is one pod a PodSet keeps.
type Member struct {
	// Name is the pod's name; with Renamed, the prefix of its names,
	// <Name>-0, <Name>-1, ... in the order made (where the controller
	// names its pods with generateName, as KubeRay does).
	Name    string
	Renamed bool
	// Template is the index of its template in PodSet.Templates; Labels
	// are its own labels, over the template's (read-only).
	Template int
	Labels   map[string]string
	// Group is the group it is restarted with (an LWS group, a task).
	Group int
	// After is the index of the member whose pod must be bound before
	// this one's is made; -1 for none. Follow, with After, is a node label
	// whose value on that pod's node the pod gets as a node selector.
	After  int
	Follow string
	// Lead is set for the member whose pod owns the rest of its group's
	// (an LWS leader owns its workers' StatefulSet): when the pod goes,
	// the group goes with it, whatever the rules say of a pod alone.
	Lead bool
}

// SetAction is what a PodSet's controller does when one of its pods ends
// or fails, or a task completes: Volcano's actions, by their names.
type SetAction string

// The actions of a PodSet.
const (
	ActionRestartPod   SetAction = "RestartPod"   // make the pod again (its own replacement when it is back in the queue)
	ActionRestartGroup SetAction = "RestartTask"  // delete the pods of its group and make them again
	ActionRestartAll   SetAction = "RestartJob"   // delete every pod and make them all again
	ActionAbort        SetAction = "AbortJob"     // delete every pod; the set is Aborted
	ActionTerminate    SetAction = "TerminateJob" // delete every pod; the set is Terminated
	ActionComplete     SetAction = "CompleteJob"  // delete every pod; the set is Completed
)

// SetEvent is what happened to a PodSet's pods, as Volcano's policies
// name it.
type SetEvent string

// The events a PodSet's policies react to.
const (
	SetPodEvicted    SetEvent = "PodEvicted"    // a pod was deleted, evicted, or lost its node
	SetTaskCompleted SetEvent = "TaskCompleted" // every pod of a group succeeded
	SetAnyEvent      SetEvent = "*"
)

// SetPolicy maps an event to an action, for the whole set (Group -1) or
// one group (a Volcano task's policies, which come first).
type SetPolicy struct {
	Event  SetEvent
	Group  int
	Action SetAction
}

// PodSet is the rules of a workload that keeps a fixed list of pods.
type PodSet struct {
	// Templates are the pods the members are made from, before their
	// names and own labels; read-only.
	Templates []cluster.Pod
	// RunTimes are, by template, how long its pod key runs made for the
	// n-th time (nil, or a nil entry: the Workload's RunTime).
	RunTimes []func(key cluster.PodKey, n int) time.Duration
	// Roles name the templates, by template, as Kueue names the pod sets
	// of the workload (a RayCluster's head and its worker groups): the
	// role a patch of Manager.Unsuspend is given for a member's pod ("" for
	// a template without one).
	Roles   []string
	Members []Member
	// Finite sets run their pods to completion (a Volcano Job); the others
	// are services, whose pods ending stand for their going away.
	Finite bool
	// OnFailure is the action for a pod that ends (a service's) or fails,
	// when no policy says otherwise.
	OnFailure SetAction
	Policies  []SetPolicy
	// MaxRetry fails a finite set when its restarts reach it (0: never).
	MaxRetry int
	// MinSuccess completes a finite set once that many pods succeeded (0:
	// when all have).
	MinSuccess int
}

// SetPhase is where a PodSet stands.
type SetPhase string

// The phases of a PodSet.
const (
	SetRunning    SetPhase = "Running"
	SetCompleted  SetPhase = "Completed"
	SetFailed     SetPhase = "Failed"
	SetAborted    SetPhase = "Aborted"
	SetTerminated SetPhase = "Terminated"
	// SetSuspended is a set suspended while it runs (Manager.Suspend: a
	// RayCluster's suspend), its pods deleted; it is Running again once
	// resumed.
	SetSuspended SetPhase = "Suspended"
)

// MemberIndex is the member whose pod is named name: its Name, or for a
// Renamed member <Name>-<k>; -1 for none.
func (s *PodSet) MemberIndex(name string) int {
	for i, mb := range s.Members {
		if !mb.Renamed && mb.Name == name {
			return i
		}
	}
	// the k-th pod of a prefix is the k-th member's of that prefix (as
	// the importer names them), counting round them past the last
	var same []int
	k := -1
	for i, mb := range s.Members {
		if rest, ok := strings.CutPrefix(name, mb.Name+"-"); mb.Renamed && ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
				same, k = append(same, i), n
			}
		}
	}
	if len(same) == 0 {
		return -1
	}
	return same[k%len(same)]
}

// MemberPod is the pod of member i named name, pinned to domain (the
// value of the member's Follow label; "" for none). Its maps are the
// template's, or new when the pod has its own.
func (s *PodSet) MemberPod(i int, name, domain string) cluster.Pod {
	mb := &s.Members[i]
	p := s.Templates[mb.Template]
	p.Name = name
	if len(mb.Labels) > 0 {
		p.Labels = maps.Clone(p.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		maps.Copy(p.Labels, mb.Labels)
	}
	if mb.Follow != "" && domain != "" {
		p.NodeSelector = maps.Clone(p.NodeSelector)
		if p.NodeSelector == nil {
			p.NodeSelector = map[string]string{}
		}
		p.NodeSelector[mb.Follow] = domain
	}
	return p
}

// Action is the action for an event of a pod of group: the group's
// policy, else the set's, else OnFailure for a pod's eviction and nothing
// ("") for a task's completion.
func (s *PodSet) Action(ev SetEvent, group int) SetAction {
	for _, pass := range []int{group, -1} {
		for _, p := range s.Policies {
			if p.Group == pass && (p.Event == ev || p.Event == SetAnyEvent) {
				return p.Action
			}
		}
	}
	if ev == SetPodEvicted {
		return s.OnFailure
	}
	return ""
}

// setRun is a PodSet's state in a run.
type setRun struct {
	rules   *PodSet
	cur     []*ownedPod // by member: its active pod, nil for none
	led     []bool      // by member: another member follows it
	domain  []string    // by member: the domain its pod was pinned to
	done    []bool      // by member: its pod succeeded (a finite set's)
	phase   SetPhase
	retries int
}

func newSetRun(c *controller) *setRun {
	n := len(c.w.Set.Members)
	r := &setRun{rules: c.w.Set, cur: make([]*ownedPod, n), led: make([]bool, n), domain: make([]string, n), done: make([]bool, n), phase: SetRunning}
	for _, mb := range c.w.Set.Members {
		if mb.After >= 0 && mb.After < n {
			r.led[mb.After] = true
		}
	}
	for _, cp := range c.pods {
		if cp.index >= 0 && cp.index < n {
			r.cur[cp.index] = cp
		}
	}
	return r
}

// finished reports whether the set has ended.
func (r *setRun) finished() bool { return r.phase != SetRunning }

// setChange acts on an event of a PodSet's pod.
func (m *Manager) setChange(ch podChange) error {
	cp, c := ch.pod, ch.pod.ctl
	r := c.set
	if ch.kind != gangsim.EventPodRejected {
		c.refused = false
	}
	if ch.kind == gangsim.EventPodBound {
		m.markDirty(c) // its followers may be made now
		m.wakeWaiters(c)
		return nil
	}
	if cp.state != podActive || r.finished() {
		return nil
	}
	group := r.rules.Members[cp.index].Group
	lead := r.rules.Members[cp.index].Lead
	switch ch.kind {
	case gangsim.EventPodRejected:
		m.ended(cp)
		c.refused = true
		return nil
	case gangsim.EventPodSucceeded:
		m.ended(cp)
		if !r.rules.Finite {
			return m.setAct(c, led(r.rules.Action(SetPodEvicted, group), lead), cp)
		}
		r.done[cp.index] = true
		if m.groupDone(c, group) {
			if act := r.rules.Action(SetTaskCompleted, group); act != "" {
				return m.setAct(c, act, cp)
			}
		}
	case gangsim.EventPodDeleted:
		m.ended(cp)
		return m.setAct(c, led(r.rules.Action(SetPodEvicted, group), lead), cp)
	case gangsim.EventPodEvicted, gangsim.EventPodTerminated:
		// back in the queue, its own replacement, unless the rules
		// restart more than the pod
		if act := led(r.rules.Action(SetPodEvicted, group), lead); act != ActionRestartPod {
			return m.setAct(c, act, cp)
		}
		return nil
	}
	m.markDirty(c)
	return nil
}

// led is the action for a pod that goes: a group's lead takes its group
// with it.
func led(act SetAction, lead bool) SetAction {
	if lead && act == ActionRestartPod {
		return ActionRestartGroup
	}
	return act
}

// ended counts a PodSet's pod as ended.
func (m *Manager) ended(cp *ownedPod) {
	m.end(cp, podEnded)
	if r := cp.ctl.set; r.cur[cp.index] == cp {
		r.cur[cp.index] = nil
	}
}

// groupDone reports whether every pod of a finite set's group succeeded.
func (m *Manager) groupDone(c *controller, group int) bool {
	for i, mb := range c.set.rules.Members {
		if mb.Group == group && !c.set.done[i] {
			return false
		}
	}
	return true
}

// setAct carries out an action about the pod cp.
func (m *Manager) setAct(c *controller, act SetAction, cp *ownedPod) error {
	r := c.set
	switch act {
	case ActionRestartGroup, ActionRestartAll:
		group := r.rules.Members[cp.index].Group
		for i, mb := range r.rules.Members {
			if act == ActionRestartGroup && mb.Group != group {
				continue
			}
			r.done[i] = false
			if err := m.deleteMember(c, i); err != nil {
				return err
			}
		}
		r.retries++
		if r.rules.Finite && r.rules.MaxRetry > 0 && r.retries >= r.rules.MaxRetry {
			return m.endSet(c, SetFailed)
		}
	case ActionAbort:
		return m.endSet(c, SetAborted)
	case ActionTerminate:
		return m.endSet(c, SetTerminated)
	case ActionComplete:
		return m.endSet(c, SetCompleted)
	}
	m.markDirty(c)
	return nil
}

// deleteMember deletes member i's active pod, if it has one.
func (m *Manager) deleteMember(c *controller, i int) error {
	cp := c.set.cur[i]
	if cp == nil {
		return nil
	}
	c.set.cur[i] = nil
	return m.remove(cp, podEnded)
}

// endSet ends the set in phase, deleting its active pods.
func (m *Manager) endSet(c *controller, phase SetPhase) error {
	c.set.phase = phase
	m.finished(c)
	for i := range c.set.cur {
		if err := m.deleteMember(c, i); err != nil {
			return err
		}
	}
	return nil
}

// syncSet makes the pods a PodSet lacks, and completes a finite one.
func (m *Manager) syncSet(c *controller) error {
	r := c.set
	if r.finished() || c.suspended {
		return nil
	}
	if r.rules.Finite {
		succeeded := 0
		for _, d := range r.done {
			if d {
				succeeded++
			}
		}
		if succeeded == len(r.done) || r.rules.MinSuccess > 0 && succeeded >= r.rules.MinSuccess {
			return m.endSet(c, SetCompleted)
		}
	}
	if c.refused {
		return nil
	}
	for i := range r.rules.Members {
		if r.cur[i] != nil || r.done[i] {
			continue
		}
		domain, ok := m.followed(c, i)
		if !ok {
			continue
		}
		if err := m.makeMember(c, i, domain); err != nil {
			return err
		}
	}
	return nil
}

// followed reports whether member i's pod may be made: the member it
// follows has its pod bound; domain is the value of the Follow label on
// that pod's node.
func (m *Manager) followed(c *controller, i int) (domain string, ok bool) {
	mb := &c.set.rules.Members[i]
	if mb.After < 0 {
		return "", true
	}
	lead := c.set.cur[mb.After]
	if lead == nil {
		return "", false
	}
	st, _ := m.s.Pod(lead.key)
	if st.Phase != gangsim.PhaseBound {
		return "", false
	}
	if mb.Follow == "" {
		return "", true
	}
	n, there := m.s.Node(st.Node)
	if !there {
		return "", false
	}
	v, has := n.Node().Labels[mb.Follow]
	return v, has // a node without the label: the controller cannot pin the pod, and waits
}

// makeMember makes member i's pod: its name, or its next name.
func (m *Manager) makeMember(c *controller, i int, domain string) error {
	mb := &c.set.rules.Members[i]
	name, n := mb.Name, c.madeAt[i]
	if mb.Renamed {
		k := c.madeAt[i]
		name = m.freeName(c.w.Namespace, &k, suffixed(mb.Name))
		defer func() { c.madeAt[i] = k }()
		n = 0
	}
	patch := c.patch()
	p := patched(c.w.Set.MemberPod(i, name, domain), c.role(i), patch)
	cp, err := m.add(c, p, i, "", c.w.Set.runTime(mb.Template, p.Key(), n))
	if cp != nil {
		cp.domain, cp.patch = domain, patch
		c.set.cur[i], c.set.domain[i] = cp, domain
	}
	return err
}

// runTime is the run time of a pod of template t.
func (s *PodSet) runTime(t int, key cluster.PodKey, n int) time.Duration {
	if t < len(s.RunTimes) && s.RunTimes[t] != nil {
		return s.RunTimes[t](key, n)
	}
	return 0
}

// setReady reports whether every pod a PodSet wants is bound: a
// RayCluster is ready.
func (m *Manager) setReady(c *controller) bool {
	r := c.set
	if r == nil || r.finished() {
		return false
	}
	for i, cp := range r.cur {
		if r.done[i] {
			continue
		}
		if cp == nil {
			return false
		}
		if st, _ := m.s.Pod(cp.key); st.Phase != gangsim.PhaseBound {
			return false
		}
	}
	return true
}

// SetStatus is where a PodSet stands, as its controller left it.
type SetStatus struct {
	Kind, Namespace, Name string
	Phase                 SetPhase
	Restarts              int // restarts of a group or of the whole set
	Active                int
}

// Sets are the PodSets as their controllers left them, in workload order.
func (m *Manager) Sets() []SetStatus {
	var out []SetStatus
	for _, c := range m.ctls {
		if r := c.set; r != nil {
			phase := r.phase
			if c.suspended && phase == SetRunning {
				phase = SetSuspended
			}
			out = append(out, SetStatus{Kind: c.w.Kind, Namespace: c.w.Namespace, Name: c.w.Name, Phase: phase, Restarts: r.retries, Active: c.active})
		}
	}
	return out
}
