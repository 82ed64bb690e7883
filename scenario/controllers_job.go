package scenario

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The Job controller's rules, as Kubernetes' job controller applies them:
// pods are made up to parallelism, never more than
// the completions left (an Indexed Job's lowest indexes neither done nor
// running, each index done once); a pod that succeeds is a completion; a
// pod that fails (evicted by preemption, terminated with its node, or
// deleted) counts against backoffLimit, and new pods wait out a backoff of
// 10s doubling with each failure since the last success, up to 6 minutes;
// the Job fails when its failures exceed backoffLimit or it has run for
// activeDeadlineSeconds, and its running pods are deleted then.

// The Job controller's pod backoff: its first delay and its cap.
const (
	jobBackoff    = 10 * time.Second
	jobBackoffCap = 6 * time.Minute
)

// The states of a Job in the result, as kubectl shows them.
const (
	jobRunning   = "Running"
	jobComplete  = "Complete"
	jobFailed    = "Failed"
	jobSuspended = "Suspended"
)

// jobRun is a Job's state in a run.
type jobRun struct {
	rules        *schema.Job
	succeeded    int
	failed       int
	done         map[int]bool // an Indexed Job's completed indexes
	sinceSuccess int          // failures since the last success, for the backoff
	lastFailure  time.Duration
	leaving      int // pods being deleted that podReplacementPolicy Failed waits for
	status       string
	reason       string
	finishedAt   time.Duration
}

func newJobRun(c *Controller) *jobRun {
	r := c.def.Job
	j := &jobRun{rules: r, succeeded: r.Succeeded, failed: r.Failed, done: map[int]bool{}, status: jobRunning}
	for _, i := range r.SucceededIndexes {
		j.done[i] = true
	}
	if r.Suspended {
		j.status = jobSuspended
	}
	return j
}

// finished reports whether the Job completed or failed.
func (j *jobRun) finished() bool { return j.status == jobComplete || j.status == jobFailed }

// fail counts a failed pod at time at.
func (f *fleet) fail(cp *ctlPod, at time.Duration) {
	j := cp.ctl.job
	j.failed++
	j.sinceSuccess++
	j.lastFailure = at
	f.failed[cp.key] = true
}

// jobChange acts on an event of a Job's pod.
func (f *fleet) jobChange(ch podChange) error {
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
		f.end(cp, podEnded)
		j.sinceSuccess = 0
		if !j.rules.Indexed {
			j.succeeded++
		} else if cp.index >= 0 && cp.index < int(*j.rules.Completions) && !j.done[cp.index] {
			j.done[cp.index] = true
			j.succeeded++
		}
	case gangsim.EventPodRejected: // not created: neither a success nor a failure
		f.end(cp, podEnded)
		c.refused = true
		return nil
	case gangsim.EventPodEvicted:
		if cp.state != podActive {
			return nil
		}
		if j.rules.ReplaceFailedOnly {
			f.end(cp, podLeaving)
			j.leaving++
		} else {
			f.end(cp, podFailing) // deleted: a failure now, and a new pod may come
			f.fail(cp, ch.at)
		}
	case gangsim.EventPodTerminated:
		// back in the queue: a Job's pod that lost its node failed, and is
		// no longer scheduled
		switch cp.state {
		case podEnded:
			return nil
		case podLeaving:
			j.leaving--
			f.fail(cp, ch.at)
		case podActive:
			f.fail(cp, ch.at)
		}
		if err := f.remove(cp, podEnded); err != nil {
			return err
		}
	case gangsim.EventPodDeleted:
		switch cp.state {
		case podLeaving:
			j.leaving--
			f.fail(cp, ch.at)
		case podActive:
			f.fail(cp, ch.at)
		}
		f.end(cp, podEnded)
	}
	f.markDirty(c)
	return nil
}

// syncJob is the Job controller's sync: the Job fails, completes, or gets
// the pods it lacks.
func (f *fleet) syncJob(c *ctlRun) error {
	j, now := c.job, f.s.Now()
	if j.finished() || j.rules.Suspended {
		return nil
	}
	switch d := j.rules.ActiveDeadline; {
	case j.failed > int(j.rules.BackoffLimit):
		return f.failJob(c, "BackoffLimitExceeded")
	case d > 0 && now >= d:
		return f.failJob(c, "DeadlineExceeded")
	case d > 0:
		f.wakeAt(c, d)
	}
	want := j.rules.WantActive(j.succeeded, c.active)
	if c.active > want {
		if err := f.trimJob(c, c.active-want); err != nil {
			return err
		}
	} else if n := want - c.active - j.leaving; n > 0 { // podReplacementPolicy Failed waits for the pods leaving
		if left := j.backoffLeft(now); left > 0 {
			f.wakeAt(c, now+left)
		} else if err := f.makeJobPods(c, n); err != nil {
			return err
		}
	}
	if done := j.rules.Completions; c.active == 0 && (done == nil && j.succeeded > 0 || done != nil && j.succeeded >= int(*done)) {
		j.status, j.finishedAt = jobComplete, now
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
func (f *fleet) makeJobPods(c *ctlRun, n int) error {
	j := c.job
	if c.refused {
		return nil
	}
	if !j.rules.Indexed {
		for range n {
			name := f.freeName(c.c.Namespace, &c.next, func(k int) string { return schema.JobPodName(c.c.Name, false, 0, k) })
			if err := f.make(c, name, -1, "", 0); err != nil {
				return err
			}
		}
		return nil
	}
	done := func(i int) bool { return j.done[i] }
	taken := func(i int) bool { return c.activeAt[i] > 0 }
	for _, i := range j.rules.PendingIndexes(n, done, taken) {
		k := c.madeAt[i]
		name := f.freeName(c.c.Namespace, &k, func(k int) string { return schema.JobPodName(c.c.Name, true, i, k) })
		if err := f.make(c, name, i, "", 0); err != nil {
			return err
		}
		c.madeAt[i] = k
	}
	return nil
}

// failJob fails the Job: its active pods are deleted, and count as
// failed, as Kubernetes counts the pods of a Job that fails.
func (f *fleet) failJob(c *ctlRun, reason string) error {
	j := c.job
	j.status, j.reason, j.finishedAt = jobFailed, reason, f.s.Now()
	for _, cp := range c.pods {
		if cp.state != podActive {
			continue
		}
		f.fail(cp, j.finishedAt)
		if err := f.remove(cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}

// trimJob deletes n active pods of a Job that has more than it wants, as
// kube's activePodsForRemoval orders them: pending before bound, then the
// newest first.
func (f *fleet) trimJob(c *ctlRun, n int) error {
	type candidate struct {
		cp    *ctlPod
		bound bool
		order int
	}
	var cands []candidate
	for i, cp := range c.pods {
		if cp.state == podActive {
			st, _ := f.s.Pod(cp.key)
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
		if err := f.remove(cand.cp, podEnded); err != nil {
			return err
		}
	}
	return nil
}

// errNameTooLong is a name a controller would make past Kubernetes' limit.
var errNameTooLong = errors.New("the name is longer than 253 characters")
