package controllers_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// The Job controller against a brute-force model of its rules, on tiny
// Jobs: 1 to 3 completions or none (a work queue), parallelism 1 to 3,
// backoffLimit 0 to 3, NonIndexed or Indexed, an active deadline or none, each pod succeeding after a random time or
// failing (deleted) after a random time, on a cluster where every pod
// binds at once. The model is a plain event loop written from the rules
// (kube's syncJob and its backoff), with no scheduler: the pods made, in
// order, the Job's end, its counts and when it ended must be the same.

// podPlan is what one pod does once bound: it succeeds after d, or fails
// (is deleted) after d.
type podPlan struct {
	d     time.Duration
	fails bool
}

// planner gives each pod name its plan, drawn from the seed and the name,
// so that the model and the run agree whatever the order pods are made
// in. Times are in milliseconds, so that two pods almost never end at
// once; pFail is the chance of a failure.
func planner(seed uint64, pFail float64) func(name string) podPlan {
	return func(name string) podPlan {
		h := fnv.New64a()
		_, _ = h.Write([]byte(name))
		r := rand.New(rand.NewPCG(seed, h.Sum64()))
		d := time.Minute + time.Duration(r.IntN(59*60*1000))*time.Millisecond
		if r.Float64() < pFail {
			return podPlan{d: time.Second + time.Duration(r.IntN(int(d/time.Millisecond)))*time.Millisecond, fails: true}
		}
		return podPlan{d: d}
	}
}

// jobModel is the model's Job.
type jobModel struct {
	name               string // "j" unless set
	comp, par, backoff int    // comp 0: a work queue (no completions)
	indexed            bool
	deadline           time.Duration // activeDeadlineSeconds from the start; 0 for none
	plan               func(string) podPlan
	out                *[]string // where the pods made are listed; nil: made

	now        time.Duration
	active     []modelPod
	succeeded  int
	failed     int
	since      int // failures since the last success
	lastFail   time.Duration
	done       map[int]bool
	next       int         // the next NonIndexed name
	madeAt     map[int]int // pods made by index
	wake       time.Duration
	waking     bool
	made       []string
	state      string
	reason     string
	finishedAt time.Duration
}

type modelPod struct {
	name  string
	index int
	end   time.Duration
	fails bool
}

// backoffDelay is kube's delay after failures since the last success:
// 10s, doubled for each further failure, at most 6 minutes.
func backoffDelay(failures int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= 6*time.Minute {
			return 6 * time.Minute
		}
	}
	return d
}

func (j *jobModel) makePod(name string, index int) {
	p := j.plan(name)
	j.active = append(j.active, modelPod{name: name, index: index, end: j.now + p.d, fails: p.fails})
	if j.out == nil {
		j.out = &j.made
	}
	*j.out = append(*j.out, name)
}

// prefix is the Job's name and a dash.
func (j *jobModel) prefix() string {
	if j.name == "" {
		return "j-"
	}
	return j.name + "-"
}

func (j *jobModel) sync() {
	if j.state != "Running" {
		return
	}
	if j.failed > j.backoff {
		j.state, j.reason, j.finishedAt = "Failed", "BackoffLimitExceeded", j.now
		j.failed += len(j.active) // the pods still running are deleted, and fail
		j.active = nil
		return
	}
	if j.deadline > 0 && j.now >= j.deadline {
		j.state, j.reason, j.finishedAt = "Failed", "DeadlineExceeded", j.now
		j.failed += len(j.active)
		j.active = nil
		return
	}
	want := max(0, min(j.par, j.comp-j.succeeded))
	if j.comp == 0 { // a work queue: no new pod after the first success
		want = j.par
		if j.succeeded > 0 {
			want = len(j.active)
		}
	}
	if n := want - len(j.active); n > 0 {
		if j.since > 0 && j.now < j.lastFail+backoffDelay(j.since) {
			j.wake, j.waking = j.lastFail+backoffDelay(j.since), true
		} else {
			for range n {
				if !j.indexed {
					j.makePod(j.prefix()+strconv.Itoa(j.next), -1)
					j.next++
					continue
				}
				for i := 0; i < j.comp; i++ {
					taken := false
					for _, p := range j.active {
						taken = taken || p.index == i
					}
					if !j.done[i] && !taken {
						j.makePod(fmt.Sprintf("%s%d-%d", j.prefix(), i, j.madeAt[i]), i)
						j.madeAt[i]++
						break
					}
				}
			}
		}
	}
	if len(j.active) == 0 && j.succeeded >= j.comp && (j.comp > 0 || j.succeeded > 0) {
		j.state, j.finishedAt = "Complete", j.now
	}
}

// start (re)makes the Job at now, as new: its counts start again, and
// its pods take the names after those made before.
func (j *jobModel) start(now time.Duration) {
	j.now, j.state, j.reason, j.done = now, "Running", "", map[int]bool{}
	j.active, j.succeeded, j.failed, j.since, j.waking = nil, 0, 0, 0, false
	if j.madeAt == nil {
		j.madeAt = map[int]int{}
	}
	j.sync()
}

// nextAt is when the Job's next event comes: a pod's end or its backoff's.
func (j *jobModel) nextAt() (time.Duration, bool) {
	if j.state != "Running" {
		return 0, false
	}
	at, ok := j.wake, j.waking
	if j.deadline > 0 && (!ok || j.deadline < at) {
		at, ok = j.deadline, true
	}
	for _, p := range j.active {
		if !ok || p.end < at {
			at, ok = p.end, true
		}
	}
	return at, ok
}

// step acts on the Job's next event.
func (j *jobModel) step() {
	first := -1
	for i, p := range j.active {
		if first < 0 || p.end < j.active[first].end {
			first = i
		}
	}
	next := func(t time.Duration) bool { return first < 0 || t <= j.active[first].end }
	if j.deadline > 0 && next(j.deadline) && (!j.waking || j.deadline <= j.wake) {
		j.now = j.deadline
		j.sync()
		return
	}
	if j.waking && next(j.wake) {
		j.now, j.waking = j.wake, false
		j.sync()
		return
	}
	p := j.active[first]
	j.active = append(j.active[:first], j.active[first+1:]...)
	j.now = p.end
	if p.fails {
		j.failed++
		j.since++
		j.lastFail = j.now
	} else {
		j.since = 0
		if !j.indexed || !j.done[p.index] {
			j.succeeded++
			j.done[p.index] = true
		}
	}
	j.sync()
}

// run runs the model to its end.
func (j *jobModel) run() {
	j.start(0)
	for {
		if _, ok := j.nextAt(); !ok {
			return
		}
		j.step()
	}
}

func TestJobAgainstModel(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 60
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 48))
		model := &jobModel{comp: r.IntN(4), par: 1 + r.IntN(3), backoff: r.IntN(4), indexed: r.IntN(2) == 0,
			plan: planner(uint64(seed), []float64{0, 0.3, 0.6}[r.IntN(3)])}
		if model.comp == 0 {
			model.indexed = false // the API wants completions of an Indexed Job
		}
		if r.IntN(3) == 0 {
			model.deadline = time.Minute + time.Duration(r.IntN(2*60*60*1000))*time.Millisecond
		}
		model.run()

		rules := controllers.Job{Parallelism: int32(model.par), BackoffLimit: int32(model.backoff), Indexed: model.indexed,
			ActiveDeadline: model.deadline}
		if model.comp > 0 {
			rules.Completions = int32p(int32(model.comp))
		}
		w := controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: "j",
			Template: gt.MakePod("").CPU("1").Obj(), Job: &rules,
			RunTime: func(key cluster.PodKey, _ int) time.Duration {
				if p := model.plan(key.Display()); !p.fails {
					return p.d
				}
				return 1000 * time.Hour // deleted before it ends
			}}
		m, events, err := runFailing(t, []cluster.Node{gt.MakeNode("n1").CPU("64").Obj()}, []controllers.Workload{w},
			func(key cluster.PodKey, _ int) (time.Duration, bool) {
				p := model.plan(key.Display())
				return p.d, p.fails
			})
		name := fmt.Sprintf("seed %d: completions %d (0: none), parallelism %d, backoffLimit %d, indexed %v, deadline %v", seed, model.comp, model.par, model.backoff, model.indexed, model.deadline)
		require.NoError(t, err, name)
		var made []string
		for _, k := range m.Made() {
			made = append(made, k.Display())
		}
		require.Equal(t, model.made, made, "%s: the pods made\n%v", name, events)
		js := m.Jobs()
		require.Len(t, js, 1)
		got := fmt.Sprintf("%s %s %d/%d %v", js[0].State, js[0].Reason, js[0].Succeeded, js[0].Failed, js[0].FinishedAt)
		want := fmt.Sprintf("%s %s %d/%d %v", model.state, model.reason, model.succeeded, model.failed, model.finishedAt)
		require.Equal(t, want, got, "%s\n%v", name, events)
	}
}
