package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Controllers of Kubernetes objects (docs/kubernetes-inputs.md,
// "Controllers"). The importer expands each workload into the pods it has
// at time 0; the builder turns each into a controllers.Workload, and the
// runner starts a controllers.Manager beside the Scheduler, which follows
// the event stream and acts through the Scheduler's public API at the
// simulated time the controller would (drive.go interleaves it with the
// timeline and the autoscaler): a Job runs pods until its completions are
// done or its failures exceed its backoff limit; a ReplicaSet, a
// StatefulSet and a DaemonSet keep their pods, making a new one for each
// that ends or is deleted.

// PhaseFailed is the phase the result gives a Job's pod that failed: it
// was evicted by preemption, its node was removed or drained, it was
// deleted, or its Job failed while it ran. The Job controller counted it
// against the Job's backoff limit (Kubernetes marks such a pod Failed, or
// deletes it, and counts it the same).
const PhaseFailed gangsim.Phase = "Failed"

// Controller is a workload controller of the inputs: a Job, a ReplicaSet
// (one of the inputs, or the one a Deployment makes), a StatefulSet, a
// DaemonSet, or the controller of a LeaderWorkerSet, a RayCluster (a
// RayJob's is one, its submitter a Job) or a Volcano Job. It is
// read-only, like the rest of a Scenario.
type Controller struct {
	Kind      string // "Job", "ReplicaSet", "StatefulSet", "DaemonSet", "LeaderWorkerSet", "RayCluster" or "Job.batch.volcano.sh"
	Namespace string
	Name      string // as its pods' owner names it: a Deployment's ReplicaSet is <deployment>-<hash>
	Source    Source // the object it comes from ("Deployment shop/web")

	workload controllers.Workload // what its controller runs, without its Pods
	pods     []int32              // indexes in Scenario.Pods of its pods at time 0
	// queue, priorityClass and minCount are its Kueue labels (the top
	// workload of an object only): Kueue manages it when queue is set
	queue, priorityClass string
	minCount             int32
	// kueueOf names the RayJob whose one workload this is a part of; ""
	// for none
	kueueOf string
}

// Key is the controller's "namespace/name".
func (c *Controller) Key() string { return c.Namespace + "/" + c.Name }

// ownerKey names a controller as its pods' owner does.
type ownerKey struct{ namespace, kind, name string }

// controllers converts the controllers the importer found, and links
// each to the pods of the scenario it controls at time 0: those it made,
// and those of the inputs whose controller owner reference names it.
func (b *builder) controllers(ins []*input) error {
	ws := b.ws
	b.ws = nil // the templates were warned about with their pods
	defer func() { b.ws = ws }()
	n := 0
	for _, in := range ins {
		n += len(in.spec.Controllers)
	}
	b.sc.Controllers = slices.Grow(b.sc.Controllers, n) // at least one each: grown once
	for _, in := range ins {
		b.file = in.name
		for i := range in.spec.Controllers {
			if err := b.controller(&in.spec.Controllers[i]); err != nil {
				return err
			}
		}
	}
	if len(b.sc.Controllers) == 0 {
		return nil
	}
	// a parent and its replicas share their owner's name: a pod goes to
	// the replicas of its role (<name>-<role>-<index>)
	byOwner := make(map[ownerKey][]int, len(b.sc.Controllers))
	byName := map[cluster.PodKey]int{} // the pods a set keeps, by their first names
	for i, c := range b.sc.Controllers {
		if c.workload.Parent == nil {
			key := ownerKey{c.Namespace, c.Kind, c.Name}
			byOwner[key] = append(byOwner[key], i)
		}
		if set := c.workload.Set; set != nil {
			for _, mb := range set.Members {
				name := mb.Name
				if mb.Renamed {
					name += "-0"
				}
				byName[cluster.MakePodKey(c.Namespace, name)] = i
			}
		}
	}
	for i := range b.sc.Pods {
		p := &b.sc.Pods[i].Pod
		if c, ok := byName[p.Key()]; ok && len(byName) > 0 {
			b.sc.Controllers[c].pods = append(b.sc.Controllers[c].pods, int32(i))
			continue
		}
		if p.Owner == nil {
			continue
		}
		ns := p.Namespace
		if ns == "" {
			ns = cluster.DefaultNamespace
		}
		for _, c := range byOwner[ownerKey{ns, p.Owner.Kind, p.Owner.Name}] {
			w := &b.sc.Controllers[c].workload
			if w.Of == nil || w.Job != nil || strings.HasPrefix(p.Name, w.Name+"-"+w.Role+"-") {
				b.sc.Controllers[c].pods = append(b.sc.Controllers[c].pods, int32(i))
				break
			}
		}
	}
	b.sc.podNames = b.podNames // names the controllers' new pods must not take
	b.sc.podLimit = b.opts.limits.Pods
	return nil
}

// ErrPodLimit is returned by a run whose controllers would make more pods
// than Limits.Pods, counted with the scenario's own: a Job of a billion
// completions is a mistake to report, not a run to wait for.
var ErrPodLimit = errors.New("the pods the controllers make go past the limit of pods (Limits.Pods)")

// controller converts one controller: its template becomes a pod as every
// pod it makes has it, checked as the pods of the inputs are.
func (b *builder) controller(s *schema.Controller) error {
	if s.Parent != nil { // a parent makes no pod: its children do
		b.sc.Controllers = append(b.sc.Controllers, Controller{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name,
			queue: s.Queue, priorityClass: s.PriorityClass,
			Source:   Source{File: s.File, Line: s.Line, Path: s.Object},
			workload: controllers.Workload{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Parent: s.Parent}})
		return nil
	}
	spec := s.Template
	b.cur = spec.Origin
	where := b.entry(spec.Origin, "", 0, s.Name)
	spec.Name = s.Name
	p, err := b.podTemplate(&spec, where)
	if err != nil {
		return err
	}
	if p.ResourceClaims, _, err = b.podClaims(&spec, where); err != nil {
		return err
	}
	rt, err := b.controllerRunTime(&spec, where, s.KeepRunning)
	if err != nil {
		return err
	}
	c := Controller{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Source: Source{File: s.File, Line: s.Line, Path: s.Object},
		queue: s.Queue, priorityClass: s.PriorityClass, minCount: s.MinCount, kueueOf: s.KueueOf,
		workload: controllers.Workload{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Template: p,
			Replicas: s.Replicas, OrdinalStart: s.OrdinalStart, Job: s.Job, Of: s.Of, Role: s.Role, Exclusive: s.Exclusive,
			After: s.After, Stops: s.Stops}}
	c.workload.RunTime = rt
	if s.Set != nil {
		if c.workload.Set, err = b.podSet(s); err != nil {
			return err
		}
	}
	b.sc.Controllers = append(b.sc.Controllers, c)
	return nil
}

// controllerRunTime is the run time of a controller's pods made from the
// template spec: its duration, else the run's default; nil for none.
func (b *builder) controllerRunTime(spec *schema.Pod, where string, keepRunning bool) (func(cluster.PodKey, int) time.Duration, error) {
	rt := b.opts.runTime
	if keepRunning {
		rt = RunTime{}
	}
	if spec.Duration != "" {
		d, err := parseTime(spec.Duration)
		if err != nil {
			return nil, b.fail(spec.Line, where+".duration", err)
		}
		rt = FixedRunTime(d)
	}
	if rt.IsZero() {
		return nil, nil
	}
	return func(key cluster.PodKey, n int) time.Duration { return rt.draw(string(key), n) }, nil
}

// podSet converts the templates of a set's controller, each checked as
// the pods of the inputs are, with its run time.
func (b *builder) podSet(s *schema.Controller) (*controllers.PodSet, error) {
	set := *s.Set
	set.Templates = make([]cluster.Pod, len(s.SetTemplates))
	set.RunTimes = make([]func(cluster.PodKey, int) time.Duration, len(s.SetTemplates))
	for i := range s.SetTemplates {
		spec := s.SetTemplates[i]
		b.cur = spec.Origin
		where := b.entry(spec.Origin, "", 0, s.Name)
		spec.Name = s.Name
		p, err := b.podTemplate(&spec, where)
		if err != nil {
			return nil, err
		}
		if p.ResourceClaims, _, err = b.podClaims(&spec, where); err != nil {
			return nil, err
		}
		set.Templates[i] = p
		if set.RunTimes[i], err = b.controllerRunTime(&spec, where, false); err != nil {
			return nil, err
		}
	}
	return &set, nil
}

// newManager returns the controllers of the scenario's workloads for one
// run; nil when the scenario has none, and runs as it would without them.
//
// With Kueue (always) there is a Manager even without controllers: its
// loop (drive.go) is the one that interleaves Kueue's times.
func (sc *Scenario) newManager(rc *controllers.ResourceClaims, kr *kueueRun) *controllers.Manager {
	if len(sc.Controllers) == 0 && kr == nil {
		return nil
	}
	opts := []controllers.Option{controllers.WithResourceClaims(rc)}
	if kr != nil {
		// a held job's pods of time 0 are left out: its controller makes
		// them again under the same names once admitted
		opts = append(opts, controllers.WithSuspended(kr.holds), controllers.WithWorkloadChange(kr.changed), controllers.WithPodHook(kr.gate),
			controllers.WithReservedNames(func(key cluster.PodKey) bool { return sc.podNames[key] && !kr.skips(key) }))
	}
	return sc.manager(opts...)
}

// manager returns the controllers of the scenario's workloads, each with
// the pods it has at time 0; the pods with a run time that no service
// keeps are the work a run waits for.
func (sc *Scenario) manager(opts ...controllers.Option) *controllers.Manager {
	ws := make([]controllers.Workload, len(sc.Controllers))
	owned := ownedWorkloads(sc.Kueue)
	held := map[int32]bool{} // the pods of time 0 of the controllers Kueue holds

	for i := range sc.Controllers {
		c := &sc.Controllers[i]
		ws[i] = c.workload
		if sc.ExtendedResourceToleration {
			ws[i].Template = withExtendedTolerations(ws[i].Template)
		}
		if ow := owned.of(c); c.queue != "" && sc.Kueue != nil && (ow == nil || ow.Admission == nil) {
			for _, at := range c.pods {
				held[at] = true
			}
			continue // Kueue holds it: its pods of time 0 are left out (kueueRun)
		}
		ws[i].Pods = make([]*cluster.Pod, len(c.pods))
		for k, at := range c.pods {
			ws[i].Pods[k] = &sc.Pods[at].Pod
		}
	}
	opts = append([]controllers.Option{controllers.WithReservedNames(func(key cluster.PodKey) bool { return sc.podNames[key] }),
		controllers.WithPodLimit(sc.podLimit - len(sc.Pods))}, opts...) // later options win
	m := controllers.NewManager(ws, opts...)
	for i := range sc.Pods {
		// a held controller's pods are made again once Kueue admits it,
		// and counted then if they are not a service's (which would
		// otherwise keep the run going for ever, its pods ending and
		// being made again under the same names)
		if p := &sc.Pods[i]; p.Duration > 0 && !held[int32(i)] {
			m.WaitFor(p.Pod.Key())
		}
	}
	return m
}

// controllerError names the controller a run-time failure of the
// Manager is about, and the pod: "Deployment shop/web (pod web-7f9c-5)".
func (sc *Scenario) controllerError(err error) error {
	var pe *controllers.PodError
	if !errors.As(err, &pe) {
		return err
	}
	src := Source{Path: pe.Kind + " " + pe.Namespace + "/" + pe.Name}
	for i := range sc.Controllers {
		if c := &sc.Controllers[i]; c.Kind == pe.Kind && c.Namespace == pe.Namespace && c.Name == pe.Name {
			src = c.Source
			break
		}
	}
	src.Path += " (pod " + pe.Pod + ")"
	inner := pe.Err
	if errors.Is(inner, controllers.ErrPodLimit) {
		inner = fmt.Errorf("%w: %d", ErrPodLimit, sc.podLimit)
	}
	return sc.runError(src, &atError{At: pe.At, Err: inner})
}
