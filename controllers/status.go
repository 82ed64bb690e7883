package controllers

import (
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// What the controllers did, for a caller's result: the pods they made,
// which of them failed, and where each Job stands.

// Made lists the pods the controllers made while running, in the order
// they first made them, each once (a StatefulSet makes web-0 again).
func (m *Manager) Made() []cluster.PodKey { return slices.Clone(m.made) }

// Pod returns the pod a controller made or owns under key, as it made it
// last (its maps are the controller's, read-only); false when no
// controller owns a pod of that key.
func (m *Manager) Pod(key cluster.PodKey) (cluster.Pod, bool) {
	cp := m.pods[key]
	if cp == nil {
		return cluster.Pod{}, false
	}
	role := cp.ctl.role(cp.index)
	if s := cp.ctl.w.Set; s != nil && cp.index >= 0 {
		return patched(s.MemberPod(cp.index, podName(key), cp.domain), role, cp.patch), true
	}
	p := patched(cp.ctl.w.pod(podName(key), cp.index, cp.node), role, cp.patch)
	if cp.ctl.kid != nil {
		m.decorate(cp.ctl, &p, cp.index)
	}
	return p, true
}

// Failed reports whether the Job controller counted the pod key as
// failed: it was evicted by preemption, its node was removed or drained,
// it was deleted, or its Job failed while it ran. Kubernetes marks such a
// pod Failed, or deletes it, and counts it the same.
func (m *Manager) Failed(key cluster.PodKey) bool { return m.failed[key] }

// Deleted reports whether a controller deleted the pod key and is done
// with it (a Job's pod that failed): a deletion the caller planned for it
// is moot.
func (m *Manager) Deleted(key cluster.PodKey) bool {
	cp := m.pods[key]
	return cp != nil && cp.byUs && cp.state == podEnded
}

// JobStatus is where a Job stands, as its controller left it.
type JobStatus struct {
	Namespace, Name string
	State           JobState
	Reason          string // why it failed: BackoffLimitExceeded, DeadlineExceeded
	Succeeded       int
	Failed          int
	Active          int           // its pods not ended
	FinishedAt      time.Duration // when it completed or failed (Finished)
}

// Finished reports whether the Job completed, failed or was deleted.
func (j JobStatus) Finished() bool {
	return j.State == JobComplete || j.State == JobFailed || j.State == JobDeleted
}

// Jobs are the Jobs as their controllers left them, in workload order.
func (m *Manager) Jobs() []JobStatus {
	var out []JobStatus
	for _, c := range m.ctls {
		j := c.job
		if j == nil || c.kid != nil && !c.kid.started && !c.kid.gone {
			continue // a parent's Job not made
		}
		st := JobStatus{Namespace: c.w.Namespace, Name: c.w.Name, State: j.state, Reason: j.reason,
			Succeeded: j.succeeded, Failed: j.failed, Active: c.active, FinishedAt: j.finishedAt}
		if c.kid != nil && c.kid.gone {
			st.State, st.FinishedAt = JobDeleted, c.kid.par.finishedAt
		}
		out = append(out, st)
	}
	return out
}

// podName is the name part of a pod key.
func podName(key cluster.PodKey) string {
	s := string(key)
	return s[strings.IndexByte(s, '/')+1:]
}
