package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// The rules of the workload kinds that TestRandomWorkloadKinds checks
// over a run, each computed from the event stream (every pod's arrival,
// bindings and end, with its labels, owner and group) and the result,
// against what the generator wrote, not against the importer's or the
// controllers' own bookkeeping:
//
//   - shape: every pod of an object is one its kind makes: its name is
//     one of the kind's (indexes in range), its labels and owner
//     reference are the controller's; at no time are two pods of one
//     slot (a Job's index, a StatefulSet's ordinal) alive, nor more pods
//     of a role than the kind keeps (a Job's parallelism, a worker
//     group's replicas); at time 0 the object has the pods its kind makes
//     at once (checkKindShape);
//   - gangs: a cycle that binds pods of an object's gang leaves at
//     least the kind's minimum bound (checkKindGang);
//   - ends: once an object's controller says it finished, none of its
//     pods is bound and none runs on (checkKindEnd);
//   - restarts: a Job fails once its failures pass its backoff limit
//     and not before; a JobSet restarts at most maxRestarts times, a
//     Volcano Job at most maxRetry and fails when it gets there
//     (checkKindRestarts);
//   - the pods made stay within the limit of pods (checkPodLimit).

// podTrace is one pod's life: what it was when it arrived, and its
// events (indexes into podTraces.log).
type podTrace struct {
	key    cluster.PodKey
	name   string
	labels map[string]string
	owner  string // "Kind/name"; "" for none
	group  string // its leaf PodGroup
}

// podEvent is a change of one pod (an index into podTraces.pods), or the
// end of a cycle (pod -1).
type podEvent struct {
	at    time.Duration
	kind  gangsim.EventKind
	pod   int
	cycle int
}

// podTraces records the pods of a run from its event stream.
type podTraces struct {
	pods  []*podTrace
	log   []podEvent
	alive map[cluster.PodKey]int // the pods that exist, by key
	twice []string               // pods that arrived while one of the same key existed
	last  time.Duration
}

func newPodTraces() *podTraces { return &podTraces{alive: map[cluster.PodKey]int{}} }

// see is an observer of the run.
func (tr *podTraces) see(e gangsim.Event) {
	tr.last = e.At
	switch e.Kind {
	case gangsim.EventPodArrived:
		p := e.Pod.Pod()
		t := &podTrace{key: e.Pod.Key(), name: p.Name, labels: p.Labels, group: p.PodGroup}
		if p.Owner != nil {
			t.owner = p.Owner.Kind + "/" + p.Owner.Name
		}
		if _, ok := tr.alive[t.key]; ok {
			tr.twice = append(tr.twice, fmt.Sprintf("%v: %s", e.At, t.key))
		}
		tr.alive[t.key] = len(tr.pods)
		tr.pods = append(tr.pods, t)
		tr.log = append(tr.log, podEvent{at: e.At, kind: e.Kind, pod: len(tr.pods) - 1})
	case gangsim.EventPodBound, gangsim.EventPodEvicted, gangsim.EventPodTerminated, gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
		i, ok := tr.alive[e.Pod.Key()]
		if !ok {
			return
		}
		tr.log = append(tr.log, podEvent{at: e.At, kind: e.Kind, pod: i, cycle: e.Cycle})
		if e.Kind == gangsim.EventPodSucceeded || e.Kind == gangsim.EventPodDeleted {
			delete(tr.alive, e.Pod.Key())
		}
	case gangsim.EventCycle:
		tr.log = append(tr.log, podEvent{at: e.At, kind: e.Kind, pod: -1, cycle: e.Cycle})
	}
}

func (tr *podTraces) end() {}

// podState is a pod's state while a log is replayed.
type podState struct {
	alive, bound, terminating bool
}

// running: on a node and not being deleted.
func (s podState) running() bool { return s.bound && !s.terminating }

// active: alive, and not being deleted (a pending pod counts).
func (s podState) active() bool { return s.alive && !s.terminating }

// replay walks the log in order, calling step after each event with the
// states so far, and moment once all the events of a time are done, and
// then once more at the end of the run (tr.last, or the end of the log
// if later) when no event happened then.
func (tr *podTraces) replay(step func(e podEvent, st []podState) error, moment func(at time.Duration, st []podState) error) error {
	st := make([]podState, len(tr.pods))
	for i, e := range tr.log {
		if e.pod >= 0 {
			s := &st[e.pod]
			switch e.kind {
			case gangsim.EventPodArrived:
				s.alive = true
			case gangsim.EventPodBound:
				s.bound, s.terminating = true, false
			case gangsim.EventPodEvicted:
				s.terminating = true
			case gangsim.EventPodTerminated:
				s.bound, s.terminating = false, false
			case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
				*s = podState{}
			}
		}
		if step != nil {
			if err := step(e, st); err != nil {
				return err
			}
		}
		if moment != nil && (i == len(tr.log)-1 || tr.log[i+1].at != e.at) {
			if err := moment(e.at, st); err != nil {
				return err
			}
		}
	}
	if moment != nil && (len(tr.log) == 0 || tr.log[len(tr.log)-1].at < tr.last) {
		return moment(tr.last, st)
	}
	return nil
}

// member is a pod of an object: which role and indexes.
type member struct {
	pod     int
	role    *podRole
	indexes []int
}

// members assigns the traced pods to the objects, by each object's
// selector, and checks each against its object's roles (names, ranges,
// labels, owner). A pod no object claims must be one of the scenario
// file's own (burst).
func members(objs []*kindObject, tr *podTraces) (map[*kindObject][]member, error) {
	out := map[*kindObject][]member{}
	for i, p := range tr.pods {
		var of *kindObject
		for _, o := range objs {
			for _, sel := range o.selector {
				if v, ok := p.labels[sel[0]]; ok && v == sel[1] && of == nil {
					of = o
				}
			}
		}
		if of == nil {
			if strings.HasPrefix(p.name, "burst") {
				continue
			}
			return nil, fmt.Errorf("pod %s (labels %v) is of no object the generator wrote", p.key, p.labels)
		}
		m, err := of.member(p)
		if err != nil {
			return nil, err
		}
		m.pod = i
		out[of] = append(out[of], m)
	}
	return out, nil
}

// member finds the role of p among o's, and checks its indexes, labels
// and owner.
func (o *kindObject) member(p *podTrace) (member, error) {
	for _, r := range o.roles {
		sub := r.re.FindStringSubmatch(p.name)
		if sub == nil {
			continue
		}
		m := member{role: r}
		for j, s := range sub[1:] {
			n, err := strconv.Atoi(s)
			if err != nil || len(s) > 1 && s[0] == '0' {
				return m, fmt.Errorf("%s %s: pod %s: index %q is not a number", o.kind, o.name, p.key, s)
			}
			if lo, hi := r.ranges[j][0], r.ranges[j][1]; n < lo || hi > 0 && n >= hi {
				return m, fmt.Errorf("%s %s: pod %s: index %d is outside %d..%d", o.kind, o.name, p.key, n, lo, hi-1)
			}
			m.indexes = append(m.indexes, n)
		}
		for label, j := range r.labels {
			if got := p.labels[label]; got != sub[1+j] {
				return m, fmt.Errorf("%s %s: pod %s: label %s is %q, not %q", o.kind, o.name, p.key, label, got, sub[1+j])
			}
		}
		for label, want := range r.fixed {
			if got := p.labels[label]; got != want {
				return m, fmt.Errorf("%s %s: pod %s: label %s is %q, not %q", o.kind, o.name, p.key, label, got, want)
			}
		}
		if want := r.expand(r.owner, m.indexes); !matches(want, p.owner) {
			return m, fmt.Errorf("%s %s: pod %s: owner %q, not %q", o.kind, o.name, p.key, p.owner, want)
		}
		return m, nil
	}
	return member{}, fmt.Errorf("%s %s: pod %s is not a pod its kind makes", o.kind, o.name, p.key)
}

// expand puts the first index for {0} in a pattern.
func (r *podRole) expand(pattern string, indexes []int) string {
	if len(indexes) > 0 {
		pattern = strings.ReplaceAll(pattern, "{0}", strconv.Itoa(indexes[0]))
	}
	return pattern
}

// matches: s is pattern, or starts with it less its trailing *.
func matches(pattern, s string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(s, p)
	}
	return s == pattern
}

// checkKinds checks every object of a run against its kind's rules.
func checkKinds(objs []*kindObject, tr *podTraces, res *Result) error {
	if len(tr.twice) > 0 {
		return fmt.Errorf("a pod arrived while another of its name existed: %s", strings.Join(tr.twice, ", "))
	}
	ms, err := members(objs, tr)
	if err != nil {
		return err
	}
	for _, o := range objs {
		for _, check := range []func(*kindObject, []member, *podTraces, *Result) error{checkKindShape, checkKindGang, checkKindEnd, checkKindRestarts} {
			if err := check(o, ms[o], tr, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKindShape checks that at every moment no two pods of one slot are
// active, nor more of a role than its most, and that at time 0 the object
// has the pods its kind makes at once.
func checkKindShape(o *kindObject, ms []member, tr *podTraces, _ *Result) error {
	at0 := 0
	byPod := map[int]member{}
	for _, m := range ms {
		byPod[m.pod] = m
	}
	for _, e := range tr.log {
		if m, ok := byPod[e.pod]; ok && !m.role.later && e.kind == gangsim.EventPodArrived && e.at == 0 {
			at0++
		}
	}
	if o.initial >= 0 && at0 != o.initial {
		return fmt.Errorf("%s %s: %d pods made at once at time 0, not %d", o.kind, o.name, at0, o.initial)
	}
	return tr.replay(nil, func(at time.Duration, st []podState) error {
		slots := map[string][]string{}
		perRole := map[*podRole]int{}
		for _, m := range ms {
			if !st[m.pod].active() {
				continue
			}
			perRole[m.role]++
			slot := fmt.Sprint(m.role.re, m.indexes[:m.role.slot])
			slots[slot] = append(slots[slot], tr.pods[m.pod].name)
			if m.role.slot > 0 && len(slots[slot]) > 1 {
				return fmt.Errorf("%v: %s %s: pods %s are active at once, of one slot", at, o.kind, o.name, strings.Join(slots[slot], " and "))
			}
		}
		for _, r := range o.roles {
			if perRole[r] > r.max {
				return fmt.Errorf("%v: %s %s: %d pods of %s active, more than %d", at, o.kind, o.name, perRole[r], r.re, r.max)
			}
		}
		return nil
	})
}

// checkKindGang checks that the pods of an object with a gang are in
// its PodGroup, and that a cycle binding any of them leaves at least
// gangMin of the group bound.
func checkKindGang(o *kindObject, ms []member, tr *podTraces, _ *Result) error {
	if o.gang == "" {
		return nil
	}
	group := map[int]string{} // pod -> its group
	for _, m := range ms {
		want := m.role.expand(o.gang, m.indexes)
		if got := tr.pods[m.pod].group; !matches(want, got) {
			return fmt.Errorf("%s %s: pod %s is in group %q, not %q", o.kind, o.name, tr.pods[m.pod].key, got, want)
		}
		group[m.pod] = tr.pods[m.pod].group
	}
	bound := map[string]bool{} // groups that bound pods in the cycle under way
	return tr.replay(func(e podEvent, st []podState) error {
		if g, ok := group[e.pod]; ok && e.kind == gangsim.EventPodBound && e.cycle > 0 {
			bound[g] = true
		}
		if e.kind != gangsim.EventCycle {
			return nil
		}
		for _, g := range slices.Sorted(mapKeys(bound)) {
			n := 0
			for p, pg := range group {
				if pg == g && st[p].bound {
					n++
				}
			}
			if n < o.gangMin {
				return fmt.Errorf("%v: %s %s: cycle %d bound pods of gang %s, leaving %d bound, fewer than its minimum %d", e.at, o.kind, o.name, e.cycle, g, n, o.gangMin)
			}
		}
		clear(bound)
		return nil
	}, nil)
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

// finished is when the result says an object finished, and its status.
// A Volcano Job's result says that it finished but not when: the end of
// the run (runEnd) stands for it, and only its pods running then are
// caught.
func finished(o *kindObject, res *Result, runEnd time.Duration) (at time.Duration, status string, ok bool) {
	kind, name, _ := strings.Cut(o.result, " ")
	for _, j := range res.Jobs {
		if kind == "Job" && j.Name == name && j.FinishedAt != "" {
			at, _ = time.ParseDuration(j.FinishedAt)
			return at, j.Status, true
		}
	}
	for _, w := range res.Workloads {
		if w.Kind == kind && w.Name == name && w.FinishedAt != "" {
			at, _ = time.ParseDuration(w.FinishedAt)
			return at, w.Status, true
		}
		if w.Kind == kind && w.Name == name && slices.Contains([]string{"Completed", "Failed", "Aborted", "Terminated"}, w.Status) {
			return runEnd, w.Status, true
		}
	}
	return 0, "", false
}

// checkKindEnd checks that once an object that ends has finished, none
// of its pods (but a role's that keeps them) is bound, and none runs
// after that moment.
func checkKindEnd(o *kindObject, ms []member, tr *podTraces, res *Result) error {
	if !o.ends {
		return nil
	}
	end, status, ok := finished(o, res, tr.last)
	if !ok {
		return nil
	}
	mine := map[int]bool{}
	for _, m := range ms {
		if !m.role.keeps {
			mine[m.pod] = true
		}
	}
	return tr.replay(func(e podEvent, _ []podState) error {
		if mine[e.pod] && e.kind == gangsim.EventPodBound && e.at > end {
			return fmt.Errorf("%v: %s %s finished (%s) at %v, and its pod %s is bound after", e.at, o.kind, o.name, status, end, tr.pods[e.pod].key)
		}
		return nil
	}, func(at time.Duration, st []podState) error {
		if at < end {
			return nil
		}
		for p := range mine {
			if st[p].running() {
				return fmt.Errorf("%v: %s %s finished (%s) at %v, and its pod %s still runs", at, o.kind, o.name, status, end, tr.pods[p].key)
			}
		}
		return nil
	})
}

// checkKindRestarts checks the bounds of an object's restarts: a Job's
// backoff limit, a JobSet's maxRestarts, a Volcano Job's maxRetry.
func checkKindRestarts(o *kindObject, ms []member, tr *podTraces, res *Result) error {
	if o.backoff >= 0 {
		for _, j := range res.Jobs {
			if j.Name != cmpOr(o.backoffJob, o.name) {
				continue
			}
			failed := j.Status == "Failed" && j.Reason == "BackoffLimitExceeded"
			if failed != (j.Failed > o.backoff) && j.Reason != "DeadlineExceeded" {
				return fmt.Errorf("%s %s: Job %s %s (%s) with %d failures, its backoffLimit %d", o.kind, o.name, j.Name, j.Status, j.Reason, j.Failed, o.backoff)
			}
		}
	}
	if o.maxRestarts < 0 {
		return nil
	}
	for _, m := range ms {
		if a := tr.pods[m.pod].labels["jobset.sigs.k8s.io/restart-attempt"]; a != "" {
			if n, err := strconv.Atoi(a); err != nil || n > o.maxRestarts {
				return fmt.Errorf("%s %s: pod %s of restart attempt %s, past maxRestarts %d", o.kind, o.name, tr.pods[m.pod].key, a, o.maxRestarts)
			}
		}
	}
	kind, name, _ := strings.Cut(o.result, " ")
	for _, w := range res.Workloads {
		if w.Kind != kind || w.Name != name {
			continue
		}
		if w.Restarts > o.maxRestarts {
			return fmt.Errorf("%s %s: %d restarts, past its bound %d", o.kind, o.name, w.Restarts, o.maxRestarts)
		}
		if o.kind == "VolcanoJob" && w.Restarts == o.maxRestarts && w.Status != "Failed" {
			return fmt.Errorf("%s %s: %d restarts, its maxRetry, and %s, not Failed", o.kind, o.name, w.Restarts, w.Status)
		}
	}
	return nil
}

// checkPodLimit checks that no more pods were made than the limit.
func checkPodLimit(tr *podTraces, limit int) error {
	if len(tr.pods) > limit {
		return fmt.Errorf("%d pods made, past the limit of %d", len(tr.pods), limit)
	}
	return nil
}
