package scenario

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
)

// Run simulates the scenario until nothing more can happen and returns
// the result, built from the simulation's event stream. opts are passed to
// the Scheduler (observers of the stream, for example; the controllers of
// Kubernetes workloads take its pause hook, WithPause). An error means the
// scenario asked for something impossible at run time (a pre-bound pod
// that does not fit its node, an event on a node that is gone); it names
// the file, the entry and its line.
func (sc *Scenario) Run(opts ...gangsim.Option) (*Result, error) {
	return sc.run(nil, opts...)
}

// RunUntil is Run that ends early: done sees every event of the run, as
// a pause hook (gangsim.WithPause) does, and once it returns true the run
// stops right after the step that made that event, before anything else
// happens. The result is what the simulation held then, with Stopped
// saying so; everything that happened up to that moment is what Run
// reports of it, since nothing later changes the past. A question about
// the first hours of a long day (when does this job start?) is answered
// without running the rest of the day.
func (sc *Scenario) RunUntil(done func(gangsim.Event) bool, opts ...gangsim.Option) (*Result, error) {
	if done == nil {
		return sc.run(nil, opts...)
	}
	return sc.run(&stopper{done: done}, opts...)
}

// stopper ends a run early (RunUntil).
type stopper struct {
	done func(gangsim.Event) bool
	hit  bool
}

// see is the stopper's pause hook: it pauses the run from the event that
// done accepts on.
func (st *stopper) see(e gangsim.Event) bool {
	if !st.hit && st.done(e) {
		st.hit = true
	}
	return st.hit
}

// stopped reports whether the run is to end now.
func (st *stopper) stopped() bool { return st != nil && st.hit }

func (sc *Scenario) run(st *stopper, opts ...gangsim.Option) (*Result, error) {
	if sc == nil {
		return nil, ErrNilScenario
	}
	rec := newRecorder()
	own := []gangsim.Option{gangsim.WithObserverOf(rec.observe, gangsim.EventPodEvicted, gangsim.EventPodRejected)}
	if len(sc.Explain) > 0 {
		own = append(own, gangsim.WithExplain(sc.Explain...))
	}
	opts = append(own, opts...)
	rc, err := sc.ResourceClaims()
	if err != nil {
		return nil, err
	}
	if rc != nil {
		opts = append(opts, rc.Attach())
	}
	kr, err := sc.newKueueRun()
	if err != nil {
		return nil, err
	}
	m := sc.newManager(rc, kr)
	if m != nil {
		opts = append(opts, m.Attach())
	}
	if kr != nil {
		opts = append(opts, gangsim.WithPause(kr.see))
	}
	if st != nil {
		opts = append(opts, gangsim.WithPause(st.see))
	}
	as, err := sc.newScaler()
	if err != nil {
		return nil, err
	}
	if as != nil {
		opts = append(opts, as.a.Attach())
	}
	s, err := sc.NewScheduler(opts...)
	if err != nil {
		return nil, err
	}
	if err := as.start(sc, s); err != nil {
		return nil, err
	}
	if err := kr.start(s, m); err != nil {
		return nil, err
	}
	if rc != nil {
		if err := rc.Start(s); err != nil {
			return nil, err
		}
	}
	err = sc.drive(s, m, as, rc, kr, st)
	if err != nil && !errors.Is(err, gangsim.ErrNoProgress) {
		return nil, err
	}
	res := rec.result(sc, s, m, kr)
	as.addResult(res, s.Now())
	if err != nil {
		// a run that never settles still has its result so far
		res.Stopped = strings.TrimPrefix(err.Error(), gangsim.ErrNoProgress.Error()+": ")
	} else if st.stopped() {
		res.Stopped = fmt.Sprintf("stopped at %v, as asked (RunUntil)", s.Now())
	}
	return res, nil
}

// NewScheduler returns a scheduler holding the scenario's configuration,
// priority classes, nodes, budgets and groups, at time 0, with no pod
// added yet.
func (sc *Scenario) NewScheduler(opts ...gangsim.Option) (*gangsim.Scheduler, error) {
	if sc == nil {
		return nil, ErrNilScenario
	}
	s, err := gangsim.New(sc.Config, append([]gangsim.Option{gangsim.WithRegistry(sc.registry), gangsim.WithSharedPods(), gangsim.WithExpectedPods(len(sc.Pods))}, opts...)...)
	if err != nil {
		return nil, sc.runError(Source{Path: "config"}, err)
	}
	for _, pc := range sc.PriorityClasses {
		if err := s.AddPriorityClass(pc); err != nil {
			return nil, sc.runError(Source{Path: "priorityClasses (" + pc.Name + ")"}, err)
		}
	}
	for _, ns := range sc.Namespaces {
		if err := s.SetNamespace(ns); err != nil {
			return nil, sc.runError(Source{Path: "namespaces (" + ns.Name + ")"}, err)
		}
	}
	if err := sc.addAdmission(s); err != nil {
		return nil, err
	}
	if err := sc.addDevices(s); err != nil {
		return nil, err
	}
	for _, n := range sc.Nodes {
		if err := s.AddNode(n); err != nil {
			return nil, sc.runError(Source{Path: "nodes (" + n.Name + ")"}, err)
		}
	}
	for _, b := range sc.Budgets {
		if err := s.AddPodDisruptionBudget(b); err != nil {
			return nil, sc.runError(Source{Path: "podDisruptionBudgets (" + b.Name + ")"}, err)
		}
	}
	for _, c := range sc.CompositePodGroups {
		if err := s.AddCompositePodGroup(c); err != nil {
			return nil, sc.runError(Source{Path: "compositePodGroups (" + c.Name + ")"}, err)
		}
	}
	for _, g := range sc.PodGroups {
		if err := s.AddPodGroup(g); err != nil {
			return nil, sc.runError(Source{Path: "podGroups (" + g.Name + ")"}, err)
		}
	}
	return s, nil
}

// runError names the entry a run-time failure is about.
func (sc *Scenario) runError(src Source, err error) error {
	var fe *cluster.FieldError
	if errors.As(err, &fe) {
		src.Path = cluster.JoinField(src.Path, fe.Field)
	}
	file := src.File
	if file == "" {
		file = sc.Name
	}
	return &FieldError{File: file, Line: src.Line, Path: src.Path, Err: err}
}

// atError is a run-time failure at a simulated time.
type atError struct {
	At  time.Duration
	Err error
}

func (e *atError) Error() string { return fmt.Sprintf("at %v: %v", e.At, e.Err) }
func (e *atError) Unwrap() error { return e.Err }

// apply does one action of the timeline; a pod's claims from templates
// are made first (rc, when the scenario has templates), and a pod Kueue
// manages goes to it (kr).
func (sc *Scenario) apply(s *gangsim.Scheduler, a action, rc *controllers.ResourceClaims, kr *kueueRun) error {
	if p := a.pod; p != nil {
		pod := &p.Pod // read-only: every run shares its maps and slices
		if sc.ExtendedResourceToleration || rc != nil {
			changed := *pod
			if sc.ExtendedResourceToleration {
				changed = withExtendedTolerations(changed)
			}
			if rc != nil {
				if err := rc.Prepare(&changed); err != nil {
					return sc.runError(p.Source, &atError{At: a.at, Err: err})
				}
			}
			pod = &changed
		}
		var key cluster.PodKey // made only for Kueue: a million pods pass here
		if kr != nil {
			key = pod.Key()
		}
		if kr.skips(key) {
			return nil // a pod of a job Kueue holds: its controller makes it again once admitted
		}
		add := s.AddPod
		switch {
		case kr.manages(pod):
			add = func(pod cluster.Pod, d time.Duration) error { return kr.arrive(s, pod, d) }
		case kr.dumps(key):
			add = func(pod cluster.Pod, d time.Duration) error { return kr.arriveDumped(s, pod, d) }
		case pod == &p.Pod:
			// the scenario's own pod, unchanged: the scheduler may keep it
			// rather than a copy (every run reads it, none writes it)
			add = nil
		}
		var err error
		if add == nil {
			err = s.AddSharedPod(pod, p.Duration)
		} else {
			err = add(*pod, p.Duration)
		}
		if err != nil && !errors.Is(err, gangsim.ErrRejected) {
			return sc.runError(p.Source, &atError{At: a.at, Err: err})
		}
		return nil // a pod admission refused is a result (recorder), not an error
	}
	e := a.event
	var err error
	switch e.Kind {
	case AddNode:
		if e.Node == nil {
			err = errors.New("addNode without a node")
			break
		}
		err = s.AddNode(*e.Node)
	case CordonNode:
		err = s.CordonNode(e.Name)
	case UncordonNode:
		err = s.UncordonNode(e.Name)
	case RemoveNode:
		err = s.RemoveNode(e.Name)
	case DrainNode:
		err = s.DrainNode(e.Name)
	case DeletePod:
		if st, ok := s.Pod(podKeyOf(e.Name)); !ok || st.Phase == gangsim.PhaseSucceeded {
			break // it has run its course, or was refused at its creation: nothing changes
		}
		err = s.DeletePod(podKeyOf(e.Name))
	case UngatePod:
		if _, ok := s.Pod(podKeyOf(e.Name)); !ok {
			break // refused at its creation (the load checked it arrives first)
		}
		err = s.UngatePod(podKeyOf(e.Name))
	}
	if err != nil {
		src := e.Source
		src.Path += "." + string(e.Kind)
		return sc.runError(src, &atError{At: e.At, Err: err})
	}
	return nil
}

// ErrNilScenario is returned when a nil *Scenario is run.
var ErrNilScenario = errors.New("scenario: nil *Scenario (use Load or Parse)")

// addDevices gives the scheduler the scenario's device objects: classes,
// slices and claims, in that order. The templates are the resourceclaim
// controller's (ResourceClaims).
func (sc *Scenario) addDevices(s *gangsim.Scheduler) error {
	d := &sc.Devices
	for _, c := range d.Classes {
		if err := s.AddDeviceClass(c); err != nil {
			return sc.runError(Source{Path: "deviceClasses (" + c.Name + ")"}, err)
		}
	}
	for _, sl := range d.Slices {
		if err := s.AddResourceSlice(sl); err != nil {
			return sc.runError(Source{Path: "resourceSlices (" + sl.Name + ")"}, err)
		}
	}
	for _, c := range d.Claims {
		if err := s.AddResourceClaim(c); err != nil {
			return sc.runError(Source{Path: "resourceClaims (" + c.Name + ")"}, err)
		}
	}
	return nil
}

// ResourceClaims returns the resourceclaim controller of one run, holding
// the scenario's ResourceClaimTemplates, for a Scheduler made with its
// Attach and given to its Start: it makes the claims of the pods that
// name a template (Prepare, as each pod is added). Nil when the scenario
// has no template: a pod naming one then waits for ever, as it would in
// a cluster without the template.
func (sc *Scenario) ResourceClaims() (*controllers.ResourceClaims, error) {
	if sc == nil || len(sc.Devices.Templates) == 0 {
		return nil, nil
	}
	rc := controllers.NewResourceClaims()
	for _, t := range sc.Devices.Templates {
		if err := rc.AddTemplate(t); err != nil {
			return nil, sc.runError(Source{Path: "resourceClaimTemplates (" + t.Name + ")"}, err)
		}
	}
	return rc, nil
}
