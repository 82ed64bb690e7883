package controllers

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Parents and their children: a JobSet runs Jobs, an MPIJob a launcher Job
// and worker pods, a PyTorchJob its master and worker pods. The parent is
// a workload of its own, with Parent set and no pods; each child follows
// it in the list, with Of set to the same Parent. A child Job runs by the
// Job controller's rules; a child of replicas (Role set, no Job) keeps one
// pod per index, named <name>-<role>-<index> and made again under that
// name when it is deleted, until it succeeds, as the Kubeflow operators
// keep their replicas. The parent's controller, as JobSet's:
//
//   - starts its children role by role: a role whose dependsOn are not
//     reached waits (Ready: each of the role's children is ready, failed
//     or complete; Complete: each is complete), and under InOrder each
//     role waits until the one before has all its children started;
//   - completes when the children of its success targets complete (All of
//     them, or Any one);
//   - on a child Job's failure applies its failure policy: without one it
//     fails; otherwise the first rule whose reasons and targets match
//     acts (no rule: RestartJobSet): fail, or restart every child (or the
//     failed one alone) with the next restart attempt, counted against
//     maxRestarts unless the action says otherwise;
//   - when it finishes, deletes its children's pods by its clean policy.
//
// A child Job is ready when its pods that succeeded and those bound reach
// min(parallelism, completions), a child of replicas when each index is
// bound or done: the simulator's pods are ready once bound.

// The kinds of parents.
const (
	KindJobSet     = "JobSet"
	KindMPIJob     = "MPIJob"
	KindPyTorchJob = "PyTorchJob"
)

// Parent is the rules of a workload whose controller runs other workloads.
type Parent struct {
	// Roles are its children's roles, in order: a JobSet's replicated
	// jobs, an MPIJob's worker and launcher, a PyTorchJob's replica types.
	Roles []Role
	// InOrder starts each role once every child of the one before is
	// started (ready, failed or complete): JobSet's startupPolicy InOrder.
	InOrder bool
	// Suspended holds every child: nothing is started.
	Suspended bool
	// SuccessAny completes the parent when one child of the success
	// targets completes, rather than all of them; SuccessTargets are roles
	// (none: every role).
	SuccessAny     bool
	SuccessTargets []string
	// Failure is the failure policy; nil: the first child that fails
	// fails the parent.
	Failure *FailurePolicy
	// Clean says which of its children's pods the parent deletes when it
	// finishes.
	Clean CleanPolicy
	// AttemptLabel is the label giving the children's pods the restart
	// attempt (JobSet's restart-attempt); "" for none. IndexLabel gives
	// the pods of a child of replicas their index.
	AttemptLabel, IndexLabel string
	// ReportedAs is the kind of the object the parent stands for, when it
	// is not the parent's own (the JobSet a TrainJob makes is reported as
	// the TrainJob, of the same name); "" for the parent's kind.
	ReportedAs string
}

// Role is one role of a parent's children. FirstLabels are the labels
// the pod of index 0 of a child of replicas gets over its template's: a
// PyTorchJob without a Master labels worker 0 as its master.
type Role struct {
	Name        string
	DependsOn   []Dependency
	FirstLabels map[string]string
}

// Dependency holds a role until the children of another, earlier role are
// ready (or complete).
type Dependency struct {
	Role     string
	Complete bool // false: Ready
}

// FailurePolicy is what a parent does when a child Job fails.
type FailurePolicy struct {
	MaxRestarts int
	Rules       []FailureRule
}

// FailureRule matches a failed child Job by its failure's reason and its
// role (empty: any) and says what the parent does.
type FailureRule struct {
	Action  FailureAction
	Reasons []string
	Roles   []string
}

// FailureAction is JobSet's failure policy action.
type FailureAction string

// The failure actions.
const (
	FailParent          FailureAction = "FailJobSet"
	RestartAll          FailureAction = "RestartJobSet"
	RestartAllUncounted FailureAction = "RestartJobSetAndIgnoreMaxRestarts"
	RestartChild        FailureAction = "RestartJob"
	RestartChildFree    FailureAction = "RestartJobAndIgnoreMaxRestarts"
)

// CleanPolicy says which pods of its children a finished parent deletes.
type CleanPolicy string

// The clean policies: every pod of the children (a JobSet deletes its
// Jobs), those pending or running (Kubeflow's cleanPodPolicy Running and
// All, which delete the same pods here), or none.
const (
	CleanAll     CleanPolicy = "All"
	CleanRunning CleanPolicy = "Running"
	CleanNone    CleanPolicy = "None"
)

// ParentState is where a parent stands.
type ParentState string

// The states of a parent; a JobSet completes as Completed, the Kubeflow
// jobs as Succeeded.
const (
	ParentRunning   ParentState = "Running"
	ParentCompleted ParentState = "Completed"
	ParentSucceeded ParentState = "Succeeded"
	ParentFailed    ParentState = "Failed"
	ParentSuspended ParentState = "Suspended"
)

// The reasons a JobSet finishes with, as its conditions give them; an
// MPIJob or a PyTorchJob finishes with <kind>Succeeded or <kind>Failed.
const (
	ReasonAllJobsCompleted   = "AllJobsCompleted"
	ReasonFailedJobs         = "FailedJobs"
	ReasonFailJobSetAction   = "FailJobSetFailurePolicyAction"
	ReasonReachedMaxRestarts = "ReachedMaxRestarts"
)

// parentRun is a parent's state in a run.
type parentRun struct {
	p          *Parent
	ctl        *controller
	kids       []*controller
	state      ParentState
	reason     string
	finishedAt time.Duration
	restarts   int  // restart attempts so far
	counted    int  // those counted against maxRestarts
	suspended  bool // its spec's suspend: its children make no pod (suspend.go)
}

// kidRun is a child's state in a run.
type kidRun struct {
	par     *parentRun
	started bool // its parent made it (a Job exists, or its replicas are wanted)
	stopped bool // its parent finished: it makes no pod
	gone    bool // deleted with its parent before it finished
	attempt int
	held    bool         // its Job was suspended with its parent, and is not resumed yet (suspend.go)
	done    map[int]bool // a child of replicas' indexes that succeeded
	// leader and domain: an exclusive Job's leader pod and the topology
	// domain it was placed in, which its followers are pinned to
	leader cluster.PodKey
	domain string
}

// link joins each child to its parent: a child's Of is the Parent of a
// workload before it.
func (m *Manager) link() {
	byParent := map[*Parent]*parentRun{}
	for _, c := range m.ctls {
		w := c.w
		switch {
		case w.Parent != nil:
			c.par = &parentRun{p: w.Parent, ctl: c, state: ParentRunning, suspended: w.Parent.Suspended}
			byParent[w.Parent] = c.par
		case w.Of != nil:
			pr := byParent[w.Of]
			if pr == nil {
				continue // no parent before it: a workload of its own
			}
			c.kid = &kidRun{par: pr, done: map[int]bool{}}
			pr.kids = append(pr.kids, c)
		}
	}
}

// live reports whether a child's controller acts: its parent made it and
// has not finished.
func (k *kidRun) live() bool { return k.started && !k.stopped }

// kidBound follows the binding of a child's pod: its Job's followers may
// be made, its parent may start the next role.
func (m *Manager) kidBound(ch podChange) {
	c := ch.pod.ctl
	m.markDirty(c)
	m.markDirty(c.kid.par.ctl)
}

// syncParent is the parent's controller: it finishes on its children's
// success or failure, or starts the roles that may start.
func (m *Manager) syncParent(c *controller) error {
	pr := c.par
	if pr.state != ParentRunning {
		return nil
	}
	if pr.suspended {
		pr.state = ParentSuspended
		return nil
	}
	if failed := pr.failedKids(); len(failed) > 0 {
		return m.onFailure(pr, failed)
	}
	if pr.succeeded() {
		if c.w.Kind != KindJobSet { // the Kubeflow operators' condition
			return m.finish(pr, ParentSucceeded, c.w.Kind+"Succeeded")
		}
		return m.finish(pr, ParentCompleted, ReasonAllJobsCompleted)
	}
	m.startRoles(pr)
	return nil
}

// kidState is a child's status as its parent counts it.
type kidState uint8

const (
	kidPending kidState = iota // not made, or not ready
	kidReady
	kidComplete
	kidFailed
)

// state is a started child's status.
func (m *Manager) state(c *controller) kidState {
	if !c.kid.started {
		return kidPending
	}
	if j := c.job; j != nil {
		switch j.state {
		case JobComplete:
			return kidComplete
		case JobFailed:
			return kidFailed
		}
		want := int(j.rules.Parallelism)
		if j.rules.Completions != nil {
			want = min(want, int(*j.rules.Completions))
		}
		if j.succeeded+m.bound(c) >= want {
			return kidReady
		}
		return kidPending
	}
	if len(c.kid.done) >= c.w.Replicas {
		return kidComplete
	}
	if len(c.kid.done)+m.bound(c) >= c.w.Replicas {
		return kidReady
	}
	return kidPending
}

// bound counts a controller's active pods bound to a node.
func (m *Manager) bound(c *controller) int {
	n := 0
	for _, cp := range c.pods {
		if cp.state != podActive {
			continue
		}
		if st, ok := m.s.Pod(cp.key); ok && st.Node != "" && st.Phase != gangsim.PhasePending {
			n++
		}
	}
	return n
}

// failedKids are the children whose Job failed in the current attempt, in
// the order they failed (workload order at equal times).
func (pr *parentRun) failedKids() []*controller {
	var out []*controller
	for _, c := range pr.kids {
		if c.kid.live() && c.job != nil && c.job.state == JobFailed {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *controller) int { return cmp.Compare(a.job.finishedAt, b.job.finishedAt) })
	return out
}

// inRoles reports whether role is among roles (none: every role).
func inRoles(roles []string, role string) bool {
	return len(roles) == 0 || slices.Contains(roles, role)
}

// succeeded reports whether the children of the success targets have
// completed: one of them (Any), or all.
func (pr *parentRun) succeeded() bool {
	want, done := 0, 0
	for _, c := range pr.kids {
		if !inRoles(pr.p.SuccessTargets, c.w.Role) {
			continue
		}
		want++
		if c.kid.started && (c.job != nil && c.job.state == JobComplete || c.job == nil && len(c.kid.done) >= c.w.Replicas) {
			done++
		}
	}
	if pr.p.SuccessAny {
		return done > 0
	}
	return want > 0 && done == want
}

// onFailure applies the failure policy to the children that failed.
func (m *Manager) onFailure(pr *parentRun, failed []*controller) error {
	fp := pr.p.Failure
	if fp == nil {
		if k := pr.ctl.w.Kind; k != KindJobSet {
			return m.finish(pr, ParentFailed, k+"Failed")
		}
		return m.finish(pr, ParentFailed, ReasonFailedJobs)
	}
	action, kid := RestartAll, failed[0]
	for _, r := range fp.Rules {
		if i := slices.IndexFunc(failed, func(c *controller) bool {
			return inRoles(r.Roles, c.w.Role) && (len(r.Reasons) == 0 || slices.Contains(r.Reasons, c.job.reason))
		}); i >= 0 {
			action, kid = r.Action, failed[i]
			break
		}
	}
	counted := action == RestartAll || action == RestartChild
	switch {
	case action == FailParent:
		return m.finish(pr, ParentFailed, ReasonFailJobSetAction)
	case counted && pr.counted >= fp.MaxRestarts:
		return m.finish(pr, ParentFailed, ReasonReachedMaxRestarts)
	}
	if counted {
		pr.counted++
	}
	if action == RestartChild || action == RestartChildFree {
		if err := m.reset(kid, kid.kid.attempt); err != nil {
			return err
		}
	} else {
		pr.restarts++
		for _, c := range pr.kids {
			if err := m.reset(c, pr.restarts); err != nil {
				return err
			}
		}
	}
	m.startRoles(pr)
	return nil
}

// reset deletes a child's pods and makes it anew, not started, with the
// restart attempt given: its Job starts over.
func (m *Manager) reset(c *controller, attempt int) error {
	for _, cp := range c.pods {
		if cp.state == podActive {
			if err := m.remove(cp, podEnded); err != nil {
				return err
			}
		}
	}
	k := c.kid
	k.started, k.attempt, k.leader, k.domain, k.held = false, attempt, "", "", false
	clear(k.done)
	if c.job != nil {
		c.job = newJobRun(c.w)
	}
	c.refused = false
	return nil
}

// startRoles starts the children of the roles that may start, as JobSet's
// reconcileReplicatedJobs creates its Jobs.
func (m *Manager) startRoles(pr *parentRun) {
	status := map[string][2]int{} // by role: children started-and-settled (ready, failed, complete), complete
	count := map[string]int{}
	for _, c := range pr.kids {
		s, n := m.state(c), status[c.w.Role]
		if s != kidPending {
			n[0]++
		}
		if s == kidComplete {
			n[1]++
		}
		status[c.w.Role] = n
		count[c.w.Role]++
	}
	for _, role := range pr.p.Roles {
		reached := true
		for _, d := range role.DependsOn {
			n, i := status[d.Role], 0
			if d.Complete {
				i = 1
			}
			if n[i] != count[d.Role] {
				reached = false
			}
		}
		if !reached {
			continue
		}
		if pr.p.InOrder && status[role.Name][0] == count[role.Name] {
			continue
		}
		for _, c := range pr.kids {
			switch {
			case c.w.Role != role.Name:
			case !c.kid.started:
				c.kid.started = true
				if c.job != nil {
					c.job.start = m.s.Now() // its active deadline counts from here
				}
				m.markDirty(c)
			case c.kid.held: // a JobSet resumes its Jobs role by role, as it starts them
				c.kid.held = false
				resumeJob(c.job, m.s.Now())
				m.markDirty(c)
			}
		}
		if pr.p.InOrder {
			return
		}
	}
}

// finish ends the parent: its children make no more pods, and its clean
// policy deletes theirs.
func (m *Manager) finish(pr *parentRun, state ParentState, reason string) error {
	pr.state, pr.reason, pr.finishedAt = state, reason, m.s.Now()
	m.finished(pr.ctl)
	for _, c := range pr.kids {
		c.kid.stopped = true
		if pr.p.Clean == CleanNone {
			continue
		}
		if pr.p.Clean == CleanAll && c.kid.started && (c.job == nil || !c.job.finished()) {
			c.kid.gone = true
		}
		for _, cp := range c.pods {
			if cp.state == podActive {
				if err := m.remove(cp, podEnded); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mayMake reports whether a child Job may make the pod of index i now:
// under exclusive placement a follower waits for its leader (index 0) to
// be placed, as JobSet's pod webhook refuses it until then, and is pinned
// to the leader's topology domain.
func (m *Manager) mayMake(c *controller, i int) bool {
	key := c.w.Exclusive
	if key == "" || i == 0 {
		return true
	}
	var leader *ownedPod
	for _, cp := range c.pods {
		if cp.index == 0 && cp.state == podActive {
			leader = cp
		}
	}
	if leader == nil {
		return false
	}
	k := c.kid
	if k.leader == leader.key && k.domain != "" {
		return true
	}
	st, ok := m.s.Pod(leader.key)
	if !ok || st.Node == "" {
		return false
	}
	ni, ok := m.s.Node(st.Node)
	if !ok {
		return false
	}
	v, ok := ni.Node().Labels[key]
	if !ok {
		return false // the webhook refuses the follower: the leader's node has no such label
	}
	k.leader, k.domain = leader.key, v
	return true
}

// The label JobSet's exclusive placement selects a Job's pods by.
const jobKeyLabel = "jobset.sigs.k8s.io/job-key"

// decorate gives a child's pod what its parent adds: the restart attempt
// and the index labels, and under exclusive placement the leader's
// affinities or the follower's node selector.
func (m *Manager) decorate(c *controller, p *cluster.Pod, index int) {
	pr, k := c.kid.par, c.kid
	own := map[string]string{}
	if l := pr.p.AttemptLabel; l != "" {
		own[l] = strconv.Itoa(k.attempt)
	}
	if l := pr.p.IndexLabel; l != "" && c.job == nil && index >= 0 {
		own[l] = strconv.Itoa(index)
	}
	if c.job == nil && index == 0 {
		for _, r := range pr.p.Roles {
			if r.Name == c.w.Role {
				maps.Copy(own, r.FirstLabels)
			}
		}
	}
	if len(own) > 0 {
		labels := maps.Clone(p.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, own)
		p.Labels = labels
	}
	key := c.w.Exclusive
	if key == "" || index < 0 {
		return
	}
	if index > 0 {
		if k.domain == "" {
			return // a follower of the inputs, or made before its leader was placed
		}
		sel := maps.Clone(p.NodeSelector)
		if sel == nil {
			sel = map[string]string{}
		}
		sel[key] = k.domain
		p.NodeSelector = sel
		return
	}
	p.Affinity = exclusiveAffinity(p.Affinity, key, p.Labels[jobKeyLabel])
}

// exclusiveAffinity returns a copy of a with the terms JobSet's webhook
// gives a leader pod: affinity to its own Job's pods, anti-affinity to
// other Jobs' pods, on the topology key.
func exclusiveAffinity(a *cluster.Affinity, key, job string) *cluster.Affinity {
	var out cluster.Affinity
	if a != nil {
		out = *a
	}
	all := &cluster.LabelSelector{}
	var aff, anti cluster.PodAffinity
	if out.PodAffinity != nil {
		aff = *out.PodAffinity
	}
	if out.PodAntiAffinity != nil {
		anti = *out.PodAntiAffinity
	}
	aff.Required = append(slices.Clip(aff.Required), cluster.PodAffinityTerm{TopologyKey: key, NamespaceSelector: all,
		LabelSelector: &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: jobKeyLabel, Operator: cluster.LabelIn, Values: []string{job}}}}})
	anti.Required = append(slices.Clip(anti.Required), cluster.PodAffinityTerm{TopologyKey: key, NamespaceSelector: all,
		LabelSelector: &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{
			{Key: jobKeyLabel, Operator: cluster.LabelExists}, {Key: jobKeyLabel, Operator: cluster.LabelNotIn, Values: []string{job}}}}})
	out.PodAffinity, out.PodAntiAffinity = &aff, &anti
	return &out
}

// replicaChange acts on an event of a child of replicas' pod: one that
// succeeded is done, one deleted is made again under its name.
func (m *Manager) replicaChange(ch podChange) error {
	cp, c := ch.pod, ch.pod.ctl
	if cp.state != podActive {
		return nil
	}
	if ch.kind != gangsim.EventPodRejected {
		c.refused = false
	}
	switch ch.kind {
	case gangsim.EventPodRejected:
		m.end(cp, podEnded)
		c.refused = true
		return nil
	case gangsim.EventPodSucceeded:
		m.end(cp, podEnded)
		if cp.index >= 0 && cp.index < c.w.Replicas {
			c.kid.done[cp.index] = true
		}
	case gangsim.EventPodDeleted:
		m.end(cp, podEnded)
	}
	m.markDirty(c)
	return nil
}

// syncReplicas makes the pods of the indexes neither done nor active.
func (m *Manager) syncReplicas(c *controller) error {
	if c.refused {
		return nil
	}
	for i := range c.w.Replicas {
		if c.kid.done[i] || c.activeAt[i] > 0 {
			continue
		}
		name := c.w.Name + "-" + c.w.Role + "-" + strconv.Itoa(i)
		if err := m.make(c, name, i, "", c.madeAt[i]); err != nil {
			return err
		}
	}
	return nil
}

// ParentStatus is where a parent stands, as its controller left it.
type ParentStatus struct {
	Kind, Namespace, Name string
	State                 ParentState
	Reason                string
	Restarts              int
	FinishedAt            time.Duration // when it completed or failed (Finished)
}

// Finished reports whether the parent completed, succeeded or failed.
func (p ParentStatus) Finished() bool {
	return p.State == ParentCompleted || p.State == ParentSucceeded || p.State == ParentFailed
}

// Parents are the parents as their controllers left them, in workload
// order.
func (m *Manager) Parents() []ParentStatus {
	var out []ParentStatus
	for _, c := range m.ctls {
		if pr := c.par; pr != nil {
			kind := c.w.Kind
			if pr.p.ReportedAs != "" {
				kind = pr.p.ReportedAs
			}
			out = append(out, ParentStatus{Kind: kind, Namespace: c.w.Namespace, Name: c.w.Name, State: pr.state,
				Reason: pr.reason, Restarts: pr.restarts, FinishedAt: pr.finishedAt})
		}
	}
	return out
}
