package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/kueue"
)

// Kueue in a run (docs/kueue.md): the Admitter, and Kueue's integration
// of plain pods and pod groups, which feeds it workloads and acts on its
// decisions through the Scheduler's public API, as Kueue acts through
// the API server.
//
//   - A pod with the kueue.x-k8s.io/queue-name label arrives with Kueue's
//     admission gate (kueue.x-k8s.io/admission), as Kueue's pod webhook
//     adds it. A pod alone is a workload of one pod set "main" of one pod;
//     the pods of one kueue.x-k8s.io/pod-group-name form one workload
//     once the group's total count of them exists, one pod set per kind
//     of pod (pods alike in requests and scheduling terms).
//   - When the Admitter admits the workload, each pod gets the admitted
//     flavor's node labels as node selector entries and its tolerations
//     (NarrowNodeSelection), and its gate is removed: the scheduler
//     places it from then on.
//   - When the Admitter evicts it (preemption), its pods are deleted, as
//     Kueue stops a pod group, and made again, gated, once gone, as their
//     owner would make them again; the workload's quota is then released
//     and it queues again. (A pod the scheduler preempts is pending again
//     the same way: the simulator's pods are never lost.)
//   - The workload finishes when each of its pods has succeeded or been
//     deleted, and its quota is released.

// kueueGate is the scheduling gate Kueue's webhook gives the pods it
// manages.
const kueueGate = "kueue.x-k8s.io/admission"

// Kueue's labels and annotations read from pods.
const (
	kueueQueueLabel    = "kueue.x-k8s.io/queue-name"
	kueuePriorityLabel = "kueue.x-k8s.io/priority-class"
	kueueGroupLabel    = "kueue.x-k8s.io/pod-group-name"
	kueueTotalCount    = "kueue.x-k8s.io/pod-group-total-count"
)

// kueueRun is Kueue beside one run's Scheduler.
type kueueRun struct {
	sc    *Scenario
	a     *kueue.Admitter
	objs  *kueue.Objects
	s     *gangsim.Scheduler
	units map[string]*kueueUnit // by workload key
	byPod map[cluster.PodKey]*kueueUnit
	err   error // the first failure seen in the event stream
	// wait is, for each workload key, its admission and the binding of
	// its last pod: the waits for quota and for nodes
	log []kueue.Event
}

// kueueUnit is a workload of plain pods: its pods, as added, and where
// they are.
type kueueUnit struct {
	w       kueue.Workload
	total   int
	pods    []*heldPod
	added   bool // given to the Admitter
	state   unitState
	created time.Duration
}

type unitState uint8

const (
	unitWaiting  unitState = iota // its pods are gated
	unitAdmitted                  // ungated
	unitEvicting                  // its pods being deleted
	unitDone
)

// heldPod is one pod of a unit: the pod as its owner makes it (with the
// gate), its run time, its pod set, and whether it has ended.
type heldPod struct {
	pod      cluster.Pod
	duration time.Duration
	podSet   int
	gone     bool // deleted (by Kueue) and not made again yet
	ended    bool // succeeded, or deleted by the scenario
}

// newKueueRun returns Kueue for a run of the scenario, nil when the
// scenario has no Kueue objects.
func (sc *Scenario) newKueueRun() (*kueueRun, error) {
	if sc.Kueue.Empty() {
		return nil, nil
	}
	cfg := kueue.DefaultConfig()
	if c := sc.Kueue.Configuration; c != nil {
		if on, set := c.FeatureGates["PartialAdmission"]; set {
			cfg.PartialAdmission = on
		}
	}
	a, err := kueue.New(sc.Kueue, cfg)
	if err != nil {
		return nil, sc.runError(Source{Path: "kueue"}, err)
	}
	for _, ns := range sc.Namespaces {
		a.SetNamespace(ns.Name, ns.Labels)
	}
	return &kueueRun{sc: sc, a: a, objs: sc.Kueue, units: map[string]*kueueUnit{}, byPod: map[cluster.PodKey]*kueueUnit{}}, nil
}

// manages reports whether Kueue manages the pod: it names a queue and no
// controller of the run owns it.
func (kr *kueueRun) manages(p *cluster.Pod) bool {
	return kr != nil && p.Labels[kueueQueueLabel] != "" && p.Owner == nil
}

// arrive adds a managed pod, gated, and gives its workload to the
// Admitter once all its pods exist.
func (kr *kueueRun) arrive(s *gangsim.Scheduler, pod cluster.Pod, d time.Duration) error {
	pod.SchedulingGates = append(slices.Clip(pod.SchedulingGates), kueueGate)
	if err := s.AddPod(pod, d); err != nil {
		return err
	}
	u, err := kr.unitOf(&pod)
	if err != nil {
		return err
	}
	hp := &heldPod{pod: pod, duration: d, podSet: kr.podSet(u, &pod)}
	u.pods = append(u.pods, hp)
	kr.byPod[pod.Key()] = u
	if u.added || len(u.pods) < u.total {
		return nil
	}
	u.added, u.created = true, s.Now()
	u.w.Created = s.Now()
	if err := kr.a.AdvanceTo(s.Now()); err != nil {
		return err
	}
	if err := kr.a.Add(&u.w); err != nil {
		return err
	}
	kr.log = append(kr.log, kr.a.Events()...)
	return nil
}

// unitOf finds or makes the workload of a pod: its pod group's, or its
// own.
func (kr *kueueRun) unitOf(p *cluster.Pod) (*kueueUnit, error) {
	group, total := p.Labels[kueueGroupLabel], 1
	name := p.Name
	kind := "Pod"
	if group != "" {
		name, kind = group, "Pod group"
		n, err := kr.groupCount(p, group)
		if err != nil {
			return nil, err
		}
		total = n
	}
	ns := p.Namespace
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	key := ns + "/" + kueue.WorkloadName("pod", "", name)
	if u := kr.units[key]; u != nil {
		return u, nil
	}
	prio, err := kr.priority(p)
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, p.Namespace, name, err)
	}
	u := &kueueUnit{total: total, w: kueue.Workload{Namespace: ns, Name: kueue.WorkloadName("pod", "", name),
		Queue: p.Labels[kueueQueueLabel], Priority: prio, PriorityClass: p.Labels[kueuePriorityLabel]}}
	kr.units[key] = u
	return u, nil
}

// groupCount is a pod group's total count: the minCount of the PodGroup
// the importer made of it (from its total count annotation), else the
// count a pod of the native format gives as a label.
func (kr *kueueRun) groupCount(p *cluster.Pod, group string) (int, error) {
	for _, g := range kr.sc.PodGroups {
		if g.Name == group && g.Namespace == p.Namespace && p.PodGroup != "" {
			return int(g.MinCount), nil
		}
	}
	text := p.Labels[kueueTotalCount]
	var n int
	if _, err := fmt.Sscanf(text, "%d", &n); err != nil || n < 1 {
		return 0, fmt.Errorf("pod %s: %s %q: a pod group needs a total count of at least 1", p.Key(), kueueTotalCount, text)
	}
	return n, nil
}

// priority is the workload's priority as Kueue takes it: its
// WorkloadPriorityClass's value, else its pod's PriorityClass's (or the
// pod's own, or the global default's).
func (kr *kueueRun) priority(p *cluster.Pod) (int32, error) {
	if c := p.Labels[kueuePriorityLabel]; c != "" {
		v, ok := kr.a.Priority(c, 0)
		if !ok {
			return 0, fmt.Errorf("%s %q: no such WorkloadPriorityClass", kueuePriorityLabel, c)
		}
		return v, nil
	}
	if p.Priority != nil {
		return *p.Priority, nil
	}
	for _, pc := range kr.sc.PriorityClasses {
		if pc.Name == p.PriorityClassName && p.PriorityClassName != "" || p.PriorityClassName == "" && pc.GlobalDefault {
			return pc.Value, nil
		}
	}
	return 0, nil
}

// podSet is the index of the pod's pod set in its workload, made when the
// pod is the first of its kind: "main" for a pod alone, else the first
// eight hex digits of a hash of its shape, as Kueue names a pod group's
// roles by a hash of their pods.
func (kr *kueueRun) podSet(u *kueueUnit, p *cluster.Pod) int {
	name := "main"
	if u.total > 1 || p.Labels[kueueGroupLabel] != "" {
		sum := sha256.Sum256([]byte(p.Shape()))
		name = hex.EncodeToString(sum[:])[:8]
	}
	for i := range u.w.PodSets {
		if u.w.PodSets[i].Name == name {
			u.w.PodSets[i].Count++
			return i
		}
	}
	ps := kueue.PodSet{Name: name, Count: 1, Requests: cluster.ListOf(p.Requests), NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}
	if p.Affinity != nil {
		ps.Affinity = p.Affinity.NodeAffinity
	}
	u.w.PodSets = append(u.w.PodSets, ps)
	return len(u.w.PodSets) - 1
}

// see follows the event stream: a unit's pod that ends, or is gone after
// Kueue deleted it. It asks for a pause when Kueue has something to do at
// once (a workload finished or released frees quota; a pod to make again).
func (kr *kueueRun) see(e gangsim.Event) bool {
	key := e.PodKey()
	u := kr.byPod[key]
	if u == nil || kr.err != nil {
		return false
	}
	switch e.Kind {
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
	default:
		return false
	}
	hp := u.pod(key)
	if u.state == unitEvicting && e.Kind == gangsim.EventPodDeleted {
		hp.gone = true
	} else {
		hp.ended = true
	}
	if err := kr.a.AdvanceTo(e.At); err != nil {
		kr.err = err
		return true
	}
	return kr.settleUnit(u)
}

func (u *kueueUnit) pod(key cluster.PodKey) *heldPod {
	for _, hp := range u.pods {
		if hp.pod.Key() == key {
			return hp
		}
	}
	return nil
}

// settleUnit tells the Admitter what became of a unit whose pod ended:
// finished when every pod ended; released when Kueue's eviction has
// deleted every pod it had. It reports whether the run must pause for the
// runner to act (make the pods again, run a cycle).
func (kr *kueueRun) settleUnit(u *kueueUnit) bool {
	live, gone := 0, 0
	for _, hp := range u.pods {
		switch {
		case hp.gone:
			gone++
		case !hp.ended:
			live++
		}
	}
	if live > 0 {
		return false
	}
	key := u.w.Key()
	switch {
	case gone == 0 && u.added && u.state != unitDone:
		u.state = unitDone
		kr.err = kr.a.Finish(key)
	case gone > 0 && u.state == unitEvicting:
		return true // step makes the pods again and releases the quota
	default:
		return false
	}
	kr.log = append(kr.log, kr.a.Events()...)
	return true
}

// nextTime is when Kueue next acts.
func (kr *kueueRun) nextTime() (time.Duration, bool) {
	if kr == nil {
		return 0, false
	}
	if kr.evicting() {
		return kr.a.Now(), true
	}
	return kr.a.NextTime()
}

// evicting reports whether a unit's evicted pods are all gone, to be made
// again.
func (kr *kueueRun) evicting() bool {
	for _, u := range kr.units {
		if u.state == unitEvicting && u.allGone() {
			return true
		}
	}
	return false
}

func (u *kueueUnit) allGone() bool {
	for _, hp := range u.pods {
		if !hp.gone && !hp.ended {
			return false
		}
	}
	return true
}

// step does what Kueue has to do at t (the scheduler's clock): the pods
// of evicted units made again and their quota released, then the
// Admitter's step, and its decisions carried out.
func (kr *kueueRun) step(s *gangsim.Scheduler, m *controllers.Manager, t time.Duration) error {
	if kr.err != nil {
		return kr.err
	}
	if err := kr.a.AdvanceTo(t); err != nil {
		return err
	}
	for _, key := range sortedUnitKeys(kr.units) {
		u := kr.units[key]
		if u.state != unitEvicting || !u.allGone() {
			continue
		}
		for _, hp := range u.pods {
			if hp.gone {
				if err := s.AddPod(hp.pod, hp.duration); err != nil {
					return fmt.Errorf("Kueue: making pod %s again after its eviction: %w", hp.pod.Key(), err)
				}
				if hp.duration > 0 {
					m.WaitFor(hp.pod.Key())
				}
				hp.gone = false
			}
		}
		u.state = unitWaiting
		if err := kr.a.Released(key); err != nil {
			return err
		}
	}
	evs := kr.a.Step()
	kr.log = append(kr.log, evs...)
	for _, e := range evs {
		u := kr.units[e.Workload]
		if u == nil {
			continue
		}
		switch e.Kind {
		case kueue.QuotaReserved:
			if err := kr.admit(s, u, e.Admission); err != nil {
				return err
			}
		case kueue.Evicted:
			if err := kr.evict(s, u); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedUnitKeys(m map[string]*kueueUnit) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// admit writes each pod's flavor into it and lifts its gate.
func (kr *kueueRun) admit(s *gangsim.Scheduler, u *kueueUnit, ad *kueue.Admission) error {
	u.state = unitAdmitted
	for _, hp := range u.pods {
		if hp.ended {
			continue
		}
		flavor := kr.flavor(ad.Flavor(u.w.PodSets[hp.podSet].Name))
		key := hp.pod.Key()
		if flavor != nil {
			var tols []cluster.Toleration
			for _, t := range flavor.Tolerations {
				tols = append(tols, t.Toleration)
			}
			if err := s.NarrowNodeSelection(key, flavor.NodeLabels, tols); err != nil {
				return fmt.Errorf("Kueue: admitting pod %s: %w", key, err)
			}
		}
		if err := s.UngatePod(key, kueueGate); err != nil {
			return fmt.Errorf("Kueue: admitting pod %s: %w", key, err)
		}
	}
	return nil
}

func (kr *kueueRun) flavor(name string) *kueue.ResourceFlavor {
	for i := range kr.objs.ResourceFlavors {
		if kr.objs.ResourceFlavors[i].Name == name {
			return &kr.objs.ResourceFlavors[i]
		}
	}
	return nil
}

// evict deletes the unit's pods that have not ended.
func (kr *kueueRun) evict(s *gangsim.Scheduler, u *kueueUnit) error {
	u.state = unitEvicting
	for _, hp := range u.pods {
		if hp.ended {
			continue
		}
		if err := s.DeletePod(hp.pod.Key()); err != nil && !errors.Is(err, gangsim.ErrUnknownPod) {
			return fmt.Errorf("Kueue: evicting pod %s: %w", hp.pod.Key(), err)
		}
	}
	return nil
}
