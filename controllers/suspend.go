package controllers

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Suspension while running, as a queue in front of the scheduler (Kueue)
// drives a workload: it holds the workload suspended until it admits it,
// resumes it with the pods' template changed (the node selector and the
// tolerations of the flavor it admitted it to), and suspends it again to
// evict it. The Manager does what the workload's own controller does when
// its spec.suspend changes:
//
//   - a Job deletes its active pods, and counts none of them as failed;
//     its succeeded pods and indexes stay done, and its active deadline
//     counts from its resumption (Kubernetes clears the Job's startTime
//     while it is suspended);
//   - a JobSet suspends its Jobs, and the Kubeflow operators (MPIJob,
//     PyTorchJob: runPolicy.suspend) suspend their launcher Job and
//     delete their replicas' pods: the parent's children make no pod.
//     Resumed, a Kubeflow job resumes them all at once, and a JobSet
//     resumes its Jobs as it starts them: role by role under InOrder, a
//     role once its dependsOn are reached again (its Jobs that completed
//     stay complete);
//   - a RayCluster (KubeRay's suspend) deletes all its pods.
//
// A LeaderWorkerSet, a Volcano Job and the services have no suspend, nor
// has a parent's child apart from its parent: Suspend and Unsuspend refuse
// them with ErrNoSuspend. Pods evicted before the suspension and still in
// their graceful termination end as they would have (Active counts them),
// and a pod whose end the Manager has not been told of yet is left to it.

// ErrUnknownWorkload is a reference to no workload of the Manager.
var ErrUnknownWorkload = errors.New("no such workload")

// ErrNoSuspend is a workload whose controller has no suspend.
var ErrNoSuspend = errors.New("no suspend")

// suspension is a workload's suspension while running.
type suspension struct {
	suspended bool // suspended by Suspend or WithSuspended: its controller makes no pod
	purge     bool // its active pods are to be deleted at its next sync (suspended before Start)
	draining  bool // suspended, its pods not all gone: WithWorkloadChange's hook is due when they are
	told      bool // the hook was told of its finish
	// admission is the change to its template Unsuspend gave; nil for none
	admission func(role string, p *cluster.Pod)
}

// WithSuspended holds from the start the workloads for which held returns
// true, as if their spec said suspend: true (Kueue's webhook suspends the
// workloads it manages as they are made): each stays suspended until
// Unsuspend. It is asked once for each workload that has a suspend (a
// Job, a parent, a RayCluster), in NewManager, with the kind the workload
// is reported as (a TrainJob's JobSet is the TrainJob) and its namespace
// filled in ("default" for none); not of a workload whose spec says
// suspend: true, suspended already until Unsuspend. A held workload's
// Pods are deleted at its first sync, as its controller deletes the pods
// of a suspended workload: a caller that holds a workload from time 0
// leaves them out.
func WithSuspended(held func(WorkloadRef) bool) Option {
	return func(m *Manager) { m.hold = held }
}

// WithWorkloadChange gives the Manager a hook it calls, from React, when a
// workload Suspend suspended has no pod left (Active is 0: a queue
// releases its quota then) and when a workload finishes (Finished), each
// in the order it happened. A workload stopped by another (Workload.Stops)
// finishes then. Suspend notes a workload with no pod left at once: Busy
// is true until React tells it. The hook may call Suspend and Unsuspend;
// React then goes on until nothing is left to act on.
func WithWorkloadChange(changed func(WorkloadRef)) Option {
	return func(m *Manager) { m.onChange = changed }
}

// Suspend suspends the workload ref names, as its controller does when its
// spec.suspend becomes true: its active pods are deleted (DeletePod), none
// counted as failed, and it makes none until Unsuspend. Suspending a
// suspended or finished workload does nothing. The error wraps
// ErrUnknownWorkload, ErrNoSuspend, or is a *PodError.
func (m *Manager) Suspend(ref WorkloadRef) error {
	c, err := m.suspendable(ref)
	if err != nil || c.suspended {
		return err
	}
	if done, _ := c.over(); done {
		return nil
	}
	m.suspend(c)
	if m.onChange != nil {
		c.draining = true
		m.draining = append(m.draining, c)
	}
	if m.s == nil {
		c.purge = true
		return nil
	}
	if err := m.halt(c); err != nil {
		return err
	}
	m.drained()
	return nil
}

// Unsuspend resumes the workload ref names, as its controller does when
// its spec.suspend becomes false: it makes the pods it lacks again, at the
// next React, each made from its template changed by patch (given a copy
// it may change, and the role of the pod: a parent's child's Role, a
// PodSet's template's Roles entry, "" for a Job). A later Unsuspend
// replaces the patch; nil is none. The pods it has are not changed.
// Unsuspending a workload not suspended does nothing, patch included. The
// error wraps ErrUnknownWorkload or ErrNoSuspend.
func (m *Manager) Unsuspend(ref WorkloadRef, patch func(role string, p *cluster.Pod)) error {
	c, err := m.suspendable(ref)
	if err != nil || !c.suspended {
		return err
	}
	c.suspended, c.purge, c.draining, c.admission = false, false, false, patch
	var now time.Duration
	if m.s != nil {
		now = m.s.Now()
	}
	if c.job != nil {
		resumeJob(c.job, now)
	}
	if pr := c.par; pr != nil {
		pr.suspended = false
		if pr.state == ParentSuspended {
			pr.state = ParentRunning
		}
		for _, k := range pr.kids {
			if k.kid.held && c.w.Kind != KindJobSet { // a JobSet resumes them as it starts them (startRoles)
				k.kid.held = false
				resumeJob(k.job, now)
			}
			m.markDirty(k)
		}
	}
	m.markDirty(c)
	return nil
}

// Active counts the pods of the workload ref names (with its children's)
// that have not ended: pending, bound, or terminating after an eviction.
// It is 0 for a reference to no workload.
func (m *Manager) Active(ref WorkloadRef) int {
	c := m.byRef[normal(ref)]
	if c == nil {
		return 0
	}
	return activeOf(c)
}

// Finished reports whether the workload ref names finished (done), and
// whether it failed: a Job Complete or Failed, a parent Completed,
// Succeeded or Failed, a PodSet Completed, or Failed, Aborted or
// Terminated, or stopped by another workload (not failed). False for a
// reference to no workload.
func (m *Manager) Finished(ref WorkloadRef) (done, failed bool) {
	if c := m.byRef[normal(ref)]; c != nil {
		return c.over()
	}
	return false, false
}

// over reports whether the controller's workload finished, and whether it
// failed (Finished).
func (c *controller) over() (done, failed bool) {
	switch {
	case c.job != nil && c.job.finished():
		return true, c.job.state == JobFailed
	case c.par != nil && c.par.state != ParentRunning && c.par.state != ParentSuspended:
		return true, c.par.state == ParentFailed
	case c.set != nil && c.set.finished():
		return true, c.set.phase != SetCompleted
	}
	return c.stopped, false
}

// normal is ref with its namespace filled in.
func normal(ref WorkloadRef) WorkloadRef {
	if ref.Namespace == "" {
		ref.Namespace = cluster.DefaultNamespace
	}
	return ref
}

// ref is the reference to the controller's workload: its kind as reported
// (a TrainJob's JobSet is the TrainJob), its name and namespace.
func (c *controller) ref() WorkloadRef {
	kind := c.w.Kind
	if c.par != nil && c.par.p.ReportedAs != "" {
		kind = c.par.p.ReportedAs
	}
	return normal(WorkloadRef{Kind: kind, Name: c.w.Name, Namespace: c.w.Namespace})
}

// indexRefs indexes the workloads by reference (the first of a
// reference, by its kind and its reported kind), notes those whose spec
// says suspend, and holds those WithSuspended holds.
func (m *Manager) indexRefs() {
	m.byRef = make(map[WorkloadRef]*controller, len(m.ctls))
	for _, c := range m.ctls {
		ref := c.ref()
		own := normal(WorkloadRef{Kind: c.w.Kind, Name: c.w.Name, Namespace: c.w.Namespace})
		for _, r := range []WorkloadRef{ref, own} {
			if m.byRef[r] == nil {
				m.byRef[r] = c
			}
		}
		c.suspended = c.job != nil && c.kid == nil && c.job.suspended || c.par != nil && c.par.suspended
		if c.suspended || m.hold == nil || c.canSuspend() != nil || !m.hold(ref) {
			continue
		}
		m.suspend(c)
		c.purge = activeOf(c) > 0
	}
}

// canSuspend is nil for a workload with a suspend, else why it has none.
func (c *controller) canSuspend() error {
	switch {
	case c.kid != nil:
		return fmt.Errorf("%w: a child of %s %s is suspended with it", ErrNoSuspend, c.kid.par.ctl.w.Kind, c.kid.par.ctl.w.Name)
	case c.job != nil, c.par != nil, c.set != nil && c.w.Kind == KindRayCluster:
		return nil
	case c.w.Kind == KindLeaderWorkerSet:
		return fmt.Errorf("%w: a LeaderWorkerSet is held group by group, through its pods", ErrNoSuspend)
	}
	return fmt.Errorf("%w: a %s has none", ErrNoSuspend, c.w.Kind)
}

// suspendable is the controller of the workload ref names, which has a
// suspend.
func (m *Manager) suspendable(ref WorkloadRef) (*controller, error) {
	r := normal(ref)
	c := m.byRef[r]
	if c == nil {
		return nil, fmt.Errorf("controllers: %s %s/%s: %w", r.Kind, r.Namespace, r.Name, ErrUnknownWorkload)
	}
	if err := c.canSuspend(); err != nil {
		return nil, fmt.Errorf("controllers: %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
	}
	return c, nil
}

// suspend marks the controller suspended: its Job's, or its parent's and
// its children Jobs' spec.suspend.
func (m *Manager) suspend(c *controller) {
	c.suspended = true
	if c.job != nil {
		c.job.suspended, c.job.state = true, JobSuspended
	}
	if pr := c.par; pr != nil {
		pr.suspended, pr.state = true, ParentSuspended
		for _, k := range pr.kids {
			if k.kid.started && k.job != nil && !k.job.finished() {
				k.job.suspended, k.job.state, k.kid.held = true, JobSuspended, true
			}
		}
	}
}

// resumeJob resumes a Job not finished: its active deadline counts from
// now.
func resumeJob(j *jobRun, now time.Duration) {
	if j.finished() {
		return
	}
	j.suspended, j.state, j.start = false, JobRunning, now
}

// halt deletes the active pods of a suspended workload, and its
// children's.
func (m *Manager) halt(c *controller) error {
	c.purge = false
	if err := m.haltPods(c); err != nil {
		return err
	}
	if pr := c.par; pr != nil {
		for _, k := range pr.kids {
			if err := m.haltPods(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// haltPods deletes a controller's active pods, as a suspended workload's
// controller does: none counts as failed. A pod the Scheduler has not been
// given (a held workload's Pods left out) is only forgotten; one that
// ended before the Manager was told is left to its event.
func (m *Manager) haltPods(c *controller) error {
	for _, cp := range c.pods {
		if cp.state != podActive {
			continue
		}
		st, known := m.s.Pod(cp.key)
		if known && st.Phase != gangsim.PhasePending && st.Phase != gangsim.PhaseBound && st.Phase != gangsim.PhaseTerminating {
			continue
		}
		if c.set != nil && cp.index >= 0 && cp.index < len(c.set.cur) && c.set.cur[cp.index] == cp {
			c.set.cur[cp.index] = nil
		}
		if !known {
			m.end(cp, podEnded)
			cp.byUs = true
			continue
		}
		if err := m.remove(cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}

// activeOf counts a controller's pods not ended, with its children's.
func activeOf(c *controller) int {
	n := c.active + c.going
	if c.par != nil {
		for _, k := range c.par.kids {
			n += k.active + k.going
		}
	}
	return n
}

// finished notes, for WithWorkloadChange's hook, that a workload not a
// child finished.
func (m *Manager) finished(c *controller) {
	if m.onChange != nil && c.kid == nil && !c.told {
		c.told = true
		m.changes = append(m.changes, c)
	}
}

// drained notes, for WithWorkloadChange's hook, the suspended workloads
// whose pods are all gone.
func (m *Manager) drained() {
	if len(m.draining) == 0 {
		return
	}
	left := m.draining[:0]
	for _, c := range m.draining {
		switch {
		case !c.draining: // resumed, or already noted
		case activeOf(c) == 0:
			c.draining = false
			m.changes = append(m.changes, c)
		default:
			left = append(left, c)
		}
	}
	clear(m.draining[len(left):])
	m.draining = left
}

// tell calls WithWorkloadChange's hook with the changes noted, in order,
// and those the hook's own calls note.
func (m *Manager) tell() {
	for len(m.changes) > 0 {
		changes := m.changes
		m.changes = nil
		for _, c := range changes {
			m.onChange(c.ref())
		}
	}
}

// patch is the change to the template in force for the controller's new
// pods: its own, or its parent's.
func (c *controller) patch() func(role string, p *cluster.Pod) {
	if c.kid != nil {
		return c.kid.par.ctl.admission
	}
	return c.admission
}

// role is the role a patch is given for the controller's pod of index i
// (a PodSet's member).
func (c *controller) role(i int) string {
	switch {
	case c.kid != nil:
		return c.w.Role
	case c.set != nil && i >= 0 && i < len(c.w.Set.Members):
		if t := c.w.Set.Members[i].Template; t < len(c.w.Set.Roles) {
			return c.w.Set.Roles[t]
		}
	}
	return ""
}

// patched is p changed by patch (a copy of p, whose maps and lists are
// its own); p itself without one.
func patched(p cluster.Pod, role string, patch func(string, *cluster.Pod)) cluster.Pod {
	if patch == nil {
		return p
	}
	q := p.Clone()
	patch(role, &q)
	return q
}

// SetParallelism changes the spec.parallelism of a suspended Job, as Kueue
// writes the count it admitted a Job with (partial admission) before it
// unsuspends it: the Job runs at most n pods at once from then on. Its
// completions stay. The error wraps ErrUnknownWorkload, or says the
// workload is not a suspended Job or n is below 1.
func (m *Manager) SetParallelism(ref WorkloadRef, n int32) error {
	c, err := m.suspendable(ref)
	if err != nil {
		return err
	}
	if c.job == nil || !c.suspended {
		return fmt.Errorf("controllers: %s %s/%s: parallelism is set on a suspended Job", ref.Kind, ref.Namespace, ref.Name)
	}
	if n < 1 {
		return fmt.Errorf("controllers: %s %s/%s: parallelism %d is below 1", ref.Kind, ref.Namespace, ref.Name, n)
	}
	rules := *c.job.rules // the workload's rules are shared, read-only
	rules.Parallelism = n
	c.job.rules = &rules
	return nil
}
