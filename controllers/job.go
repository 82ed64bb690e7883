package controllers

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim"
)

// The Job controller's rules, as Kubernetes' job controller applies them:
// pods are made up to parallelism, never more than the completions left
// (an Indexed Job's lowest indexes neither done nor running, each index
// done once); a pod that succeeds is a completion; a pod that fails
// (evicted by preemption, terminated with its node, or deleted) counts
// against backoffLimit, and new pods wait out a backoff of 10s doubling
// with each failure since the last success (later in time than it), up
// to 6 minutes; an Indexed Job deletes the pods of no index, of an index
// past its completions, and the extra pods of an index; the Job
// fails when its failures exceed backoffLimit or it has run for
// activeDeadlineSeconds, and its running pods are deleted then.

// Job is what the Job controller follows: a Job's spec, and what the pods
// it had before the run did.
type Job struct {
	Completions  *int32 // nil: the work queue, done at its first success
	Parallelism  int32
	Indexed      bool
	BackoffLimit int32
	// ActiveDeadline is spec.activeDeadlineSeconds (0: none, unless
	// DeadlineSet): the Job fails when it has been running that long.
	ActiveDeadline time.Duration
	// DeadlineSet makes an ActiveDeadline of 0 a deadline (the API takes
	// activeDeadlineSeconds: 0): the Job fails as soon as it starts.
	DeadlineSet bool
	// ReplaceFailedOnly is podReplacementPolicy Failed: a pod being
	// deleted is replaced, and counted as failed, only once it is gone.
	ReplaceFailedOnly bool
	Suspended         bool
	// Succeeded and Failed count the pods that finished before the run;
	// SucceededIndexes are, for an Indexed Job, the indexes they completed.
	Succeeded        int
	Failed           int
	SucceededIndexes []int
}

// FailsAtStart reports whether the Job fails as it starts, making no pod:
// its activeDeadlineSeconds is 0, which the API server takes for a Job,
// and the Job controller finds the deadline passed at its first sync,
// before it makes a pod (DeadlineExceeded). An importer makes no pod of
// such a Job at time 0, whoever owns it (a Job, a JobSet's child).
func (j *Job) FailsAtStart() bool { return j.DeadlineSet && j.ActiveDeadline == 0 }

// WantActive is how many pods the Job wants running, with succeeded pods
// done and the rest of its state aside (kube's manageJob): parallelism
// pods, never more than the completions left; without completions,
// parallelism until the first success, and from then on no new pod.
func (j *Job) WantActive(succeeded, active int) int {
	par := int(j.Parallelism)
	if j.Completions == nil {
		if succeeded > 0 {
			return active
		}
		return par
	}
	return max(0, min(par, int(*j.Completions)-succeeded))
}

// PendingIndexes returns, in increasing order, the first n indexes of an
// Indexed Job below its completions that are neither done nor taken (a pod
// of the index is active), as kube's firstPendingIndexes picks them.
func (j *Job) PendingIndexes(n int, done, taken func(int) bool) []int {
	var out []int
	for i := 0; j.Completions != nil && i < int(*j.Completions) && len(out) < n; i++ {
		if !done(i) && !taken(i) {
			out = append(out, i)
		}
	}
	return out
}

// JobPodName names a Job's pod: <job>-<k> for the k-th pod of a
// NonIndexed Job, <job>-<index>-<k> for the k-th pod of an index, where
// Kubernetes adds a random suffix to the prefixes <job>- and
// <job>-<index>-.
func JobPodName(job string, indexed bool, index, k int) string {
	if indexed {
		return job + "-" + strconv.Itoa(index) + "-" + strconv.Itoa(k)
	}
	return job + "-" + strconv.Itoa(k)
}

// The Job controller's pod backoff: its first delay and its cap.
const (
	jobBackoff    = 10 * time.Second
	jobBackoffCap = 6 * time.Minute
)

// JobState is the state of a Job, as kubectl shows it.
type JobState string

// The states of a Job.
const (
	JobRunning   JobState = "Running"
	JobComplete  JobState = "Complete"
	JobFailed    JobState = "Failed"
	JobSuspended JobState = "Suspended"
	// JobDeleted is a parent's Job deleted as its parent finished
	// (owners.go): a JobSet deletes its Jobs still running.
	JobDeleted JobState = "Deleted"
)

// jobRun is a Job's state in a run.
type jobRun struct {
	rules        *Job
	succeeded    int
	failed       int
	done         map[int]bool // an Indexed Job's completed indexes
	sinceSuccess int          // failures since the last success, for the backoff
	lastFailure  time.Duration
	// lastSuccess is when a pod last succeeded in the run (hadSuccess): a
	// failure at that same time does not count for the backoff
	lastSuccess time.Duration
	hadSuccess  bool
	start       time.Duration // when the Job was made (0, or when its parent made it: owners.go) or last resumed
	suspended   bool          // spec.suspend: it makes no pod (suspend.go)
	leaving     int           // pods being deleted that podReplacementPolicy Failed waits for
	state       JobState
	reason      string
	finishedAt  time.Duration
}

func newJobRun(w *Workload) *jobRun {
	r := w.Job
	j := &jobRun{rules: r, succeeded: r.Succeeded, failed: r.Failed, done: map[int]bool{}, state: JobRunning}
	for _, i := range r.SucceededIndexes {
		j.done[i] = true
	}
	if r.Suspended {
		j.state, j.suspended = JobSuspended, true
	}
	return j
}

// finished reports whether the Job completed or failed.
func (j *jobRun) finished() bool { return j.state == JobComplete || j.state == JobFailed }

// fail counts a failed pod at time at: against the backoff limit, and
// for the backoff unless a pod succeeded at that same time (kube counts
// for the backoff only the failures after the last success, by time).
func (m *Manager) fail(cp *ownedPod, at time.Duration) {
	j := cp.ctl.job
	j.failed++
	if !j.hadSuccess || at > j.lastSuccess {
		j.sinceSuccess++
		j.lastFailure = at
	}
	m.failed[cp.key] = true
}

// jobChange acts on an event of a Job's pod.
func (m *Manager) jobChange(ch podChange) error {
	cp, c := ch.pod, ch.pod.ctl
	j := c.job
	if ch.kind != gangsim.EventPodRejected {
		c.refused = false
	}
	switch ch.kind {
	case gangsim.EventPodSucceeded:
		if cp.state != podActive {
			return nil
		}
		m.end(cp, podEnded)
		j.sinceSuccess, j.lastSuccess, j.hadSuccess = 0, ch.at, true
		if !j.rules.Indexed {
			j.succeeded++
		} else if cp.index >= 0 && cp.index < int(*j.rules.Completions) && !j.done[cp.index] {
			j.done[cp.index] = true
			j.succeeded++
		}
	case gangsim.EventPodRejected: // not created: neither a success nor a failure
		m.end(cp, podEnded)
		c.refused = true
		return nil
	case gangsim.EventPodEvicted:
		if cp.state != podActive {
			return nil
		}
		if j.rules.ReplaceFailedOnly {
			m.end(cp, podLeaving)
			j.leaving++
		} else {
			m.end(cp, podFailing) // deleted: a failure now, and a new pod may come
			m.fail(cp, ch.at)
		}
	case gangsim.EventPodTerminated:
		// back in the queue: a Job's pod that lost its node failed, and is
		// no longer scheduled
		switch cp.state {
		case podEnded:
			return nil
		case podLeaving:
			j.leaving--
			m.fail(cp, ch.at)
		case podActive:
			m.fail(cp, ch.at)
		}
		if err := m.remove(cp, podEnded); err != nil {
			return err
		}
	case gangsim.EventPodDeleted:
		switch cp.state {
		case podLeaving:
			j.leaving--
			m.fail(cp, ch.at)
		case podActive:
			m.fail(cp, ch.at)
		}
		m.end(cp, podEnded)
	}
	m.markDirty(c)
	return nil
}

// syncJob is the Job controller's sync: the Job fails, completes, or gets
// the pods it lacks.
func (m *Manager) syncJob(c *controller) error {
	j, now := c.job, m.s.Now()
	if j.finished() || j.suspended {
		return nil
	}
	deadline := j.rules.ActiveDeadline > 0 || j.rules.DeadlineSet
	switch d := j.rules.ActiveDeadline; {
	case j.failed > int(j.rules.BackoffLimit):
		return m.failJob(c, "BackoffLimitExceeded")
	case deadline && now >= j.start+d:
		return m.failJob(c, "DeadlineExceeded")
	case deadline:
		m.wakeAt(c, j.start+d)
	}
	if j.rules.Indexed {
		if err := m.dropBadIndexes(c); err != nil {
			return err
		}
	}
	want := j.rules.WantActive(j.succeeded, c.active)
	if c.active > want {
		if err := m.trimJob(c, c.active-want); err != nil {
			return err
		}
	} else if n := want - c.active - j.leaving; n > 0 { // podReplacementPolicy Failed waits for the pods leaving
		if left := j.backoffLeft(now); left > 0 {
			m.wakeAt(c, now+left)
		} else if err := m.makeJobPods(c, n); err != nil {
			return err
		}
	}
	if done := j.rules.Completions; c.active == 0 && (done == nil && j.succeeded > 0 || done != nil && j.succeeded >= int(*done)) {
		j.state, j.finishedAt = JobComplete, now
		m.finished(c)
	}
	return nil
}

// backoffLeft is how long new pods still wait after the last failure:
// 10s doubling with each failure since the last success, up to 6 minutes.
func (j *jobRun) backoffLeft(now time.Duration) time.Duration {
	if j.sinceSuccess == 0 {
		return 0
	}
	delay := jobBackoff
	for i := 1; i < j.sinceSuccess && delay < jobBackoffCap; i++ {
		delay = min(2*delay, jobBackoffCap)
	}
	if elapsed := now - j.lastFailure; elapsed < delay {
		return delay - elapsed
	}
	return 0
}

// makeJobPods makes n pods: the next names of a NonIndexed Job, the first
// pending indexes of an Indexed one.
func (m *Manager) makeJobPods(c *controller, n int) error {
	j, w := c.job, c.w
	if c.refused {
		return nil
	}
	if !j.rules.Indexed {
		for range n {
			name := m.freeName(w.Namespace, &c.next, func(k int) string { return JobPodName(w.Name, false, 0, k) })
			if err := m.make(c, name, -1, "", 0); err != nil {
				return err
			}
		}
		return nil
	}
	done := func(i int) bool { return j.done[i] }
	taken := func(i int) bool { return c.activeAt[i] > 0 }
	for _, i := range j.rules.PendingIndexes(n, done, taken) {
		if c.kid != nil && !m.mayMake(c, i) {
			continue // an exclusive Job's follower waits for its leader
		}
		k := c.madeAt[i]
		name := m.freeName(w.Namespace, &k, func(k int) string { return JobPodName(w.Name, true, i, k) })
		if err := m.make(c, name, i, "", 0); err != nil {
			return err
		}
		c.madeAt[i] = k
	}
	return nil
}

// failJob fails the Job: its active pods are deleted, and count as
// failed, as Kubernetes counts the pods of a Job that fails.
func (m *Manager) failJob(c *controller, reason string) error {
	j := c.job
	j.state, j.reason, j.finishedAt = JobFailed, reason, m.s.Now()
	m.finished(c)
	for _, cp := range c.pods {
		if cp.state != podActive {
			continue
		}
		m.fail(cp, j.finishedAt)
		if err := m.remove(cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}

// dropBadIndexes deletes the active pods of an Indexed Job that kube's
// job controller deletes before it counts what it lacks: those of no
// completion index, or of one past completions, and all but one of the
// pods of an index that has several (a bound one kept before a pending
// one, the oldest before the newer). Like the pods trimJob deletes, they
// do not count as failed: kube takes its tracking finalizer off such a
// pod before it deletes it, so the pod is never counted.
func (m *Manager) dropBadIndexes(c *controller) error {
	if c.job.rules.Completions == nil {
		return nil // the API refuses an Indexed Job without completions
	}
	n := int(*c.job.rules.Completions)
	kept := map[int]*ownedPod{}
	for _, cp := range c.pods {
		if cp.state != podActive {
			continue
		}
		i := cp.index
		if i < 0 || i >= n {
			if err := m.remove(cp, podEnded); err != nil {
				return err
			}
			continue
		}
		if c.activeAt[i] < 2 {
			continue
		}
		k := kept[i]
		if k == nil {
			kept[i] = cp
			continue
		}
		drop := cp
		if !m.isBound(k) && m.isBound(cp) {
			drop, kept[i] = k, cp
		}
		if err := m.remove(drop, podEnded); err != nil {
			return err
		}
	}
	return nil
}

// isBound reports whether a pod is on a node.
func (m *Manager) isBound(cp *ownedPod) bool {
	st, ok := m.s.Pod(cp.key)
	return ok && st.Phase != gangsim.PhasePending
}

// trimJob deletes n active pods of a Job that has more than it wants, as
// kube's activePodsForRemoval orders them: pending before bound, then the
// newest first.
func (m *Manager) trimJob(c *controller, n int) error {
	type candidate struct {
		cp    *ownedPod
		bound bool
		order int
	}
	var cands []candidate
	for i, cp := range c.pods {
		if cp.state == podActive {
			st, _ := m.s.Pod(cp.key)
			cands = append(cands, candidate{cp, st.Phase != gangsim.PhasePending, i})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if a.bound != b.bound {
			if a.bound {
				return 1
			}
			return -1
		}
		return cmp.Compare(b.order, a.order)
	})
	for _, cand := range cands[:min(n, len(cands))] {
		if err := m.remove(cand.cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}
