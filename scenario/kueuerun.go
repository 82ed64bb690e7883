package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/admission"
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
//     Kueue stops a pod group: plain pods have no controller to make them
//     again, so the workload is done once they are gone, and its quota is
//     released.
//   - A pod the scheduler preempts (or whose node goes) is deleted once
//     it has left its node, as Kubernetes deletes a victim, not sent back
//     to the queue (kueuegroups.go).
//   - The workload finishes when each of its pods has succeeded or been
//     deleted, and its quota is released; an admitted pod group that lost
//     a pod waits for replacements instead, as Kueue's pod integration
//     decides (waitsForReplacements).

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
	// paused: see asked the scheduler to pause since resume
	paused bool
	m      *controllers.Manager
	// limits are the namespaces' LimitRanges, whose defaults Kueue counts
	// in a workload's requests as the API server will fill them
	limits admission.LimitRanger
	// the jobs Kueue holds: by reference, in input order, and the pods of
	// time 0 they had, left out
	byRef    map[controllers.WorkloadRef]*kueueUnit
	jobOrder []*kueueUnit
	skip     map[cluster.PodKey]bool
	// byOwner finds a job's unit from its pods' owner: the job, or a
	// parent's child; podOrder is the pod units in the order made
	byOwner  map[ownerKey]*kueueUnit
	podOrder []*kueueUnit
	log      []kueue.Event // every event of the Admitter, in order
	// groups are the units of LeaderWorkerSet groups, by groupKey
	groups map[string]*kueueUnit
	// dumped are the pods of a dump's Workloads, by key: the unit and
	// the pod set; admitted are those Workloads' admissions, by unit
	dumped   map[cluster.PodKey]dumpedPod
	admitted map[*kueueUnit]kueue.DumpedWorkload
	// ownedBy finds the dump's Workloads of jobs (owned)
	ownedBy ownedIndex
	// topo are the pods' topology requests (kueuetas.go); tasPods the
	// pods placed in a topology domain, whose requests Kueue counts as
	// TAS usage
	topo    map[cluster.PodKey]*kueue.TopologyRequest
	tasPods map[cluster.PodKey]bool
	// nodeList is the last list of nodes given to the Admitter, to be
	// read again when nodesDirty
	nodeList   []kueue.TASNode
	nodesDirty bool
	// roles are the pod sets of the jobs' pods, by their owner (a Job's
	// "main", a parent's child's role): the pods a job makes are steered
	// to their domains by them (kueuetas.go, steer)
	roles map[ownerKey]string
	// hasTAS: a ResourceFlavor names a Topology
	hasTAS bool
	// kueueGroups are the Kueue groups of the scenario's pods, as their
	// annotations give them (kueuegroups.go), by pod
	kueueGroups map[cluster.PodKey]groupMeta
	// doomed are plain pods the scheduler preempted, to be deleted: a
	// bare pod has no controller to make it again (react)
	doomed []cluster.PodKey
}

// kueueUnit is a workload of plain pods: its pods, as added, and where
// they are.
type kueueUnit struct {
	w   kueue.Workload
	ref *controllers.WorkloadRef // a job's; nil for pods
	// job is a Job's rules (nil for other kinds), and succeeded its pods
	// that succeeded: its pods Kueue may reclaim the quota of
	job       *controllers.Job
	succeeded int
	// refs are the workloads of the Manager it holds: ref, or a RayJob's
	// cluster and submitter Job (submitter)
	refs      []controllers.WorkloadRef
	submitter *controllers.WorkloadRef
	owner     string // the object it was made for: "Job default/a"
	// what the result tells: its admissions and evictions, Kueue's last
	// word while pending, and its pods bound since its admission
	admission        *kueue.Admission
	firstAdmitted    time.Duration // -1 until admitted
	admittedAt       time.Duration // its last admission
	evicted          bool          // evicted since its last admission
	allBound         time.Duration // -1 until its admitted pods were all bound
	bound, evictions int
	reason, message  string
	total            int
	pods             []*heldPod
	added            bool // given to the Admitter
	// slots are, by pod set, the domains of its TopologyAssignment, one a
	// pod (node selector entries), and the pod in each: a job's pods are
	// given them as its controller makes them (kueuetas.go, steer)
	slots map[string][]slot
	// group is a LeaderWorkerSet group's unit (of the set set): its pods
	// are the Manager's, gated as it makes them (gate); draining are those
	// Kueue deleted to evict it, not gone yet
	group    bool
	set      *controllers.PodSet
	draining map[cluster.PodKey]bool
	state    unitState
	created  time.Duration
	// inGroup: a Kueue pod group's (kueue.x-k8s.io/pod-group-name);
	// unretriable: a pod of it says kueue.x-k8s.io/retriable-in-group
	// "false"; serving: kueue.x-k8s.io/pod-group-serving "true"
	inGroup, unretriable, serving bool
	// replacing: admitted, its pods all ended, it waits for pods to
	// replace those lost (waitsForReplacements)
	replacing bool
	// dumped is the admission of a job's Workload in a dump (Objects.Owned):
	// it holds it from the start, its running pods kept; nil for none
	dumped *kueue.OwnedWorkload
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
	ended    bool // succeeded, or deleted
	// succeeded: it ran its course (ended, and not deleted)
	succeeded bool
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
		cfg.PodsReady = podsReadyConfig(c.WaitForPodsReady)
		cfg.FairSharing = c.FairSharing
		// admission fair sharing runs when configured and its gate (on by
		// default in v0.19) is not turned off
		if on, set := c.FeatureGates["AdmissionFairSharing"]; !set || on {
			cfg.AdmissionFairSharing = c.AdmissionFairSharing
		}
		if c.ClientQPS != nil {
			cfg.QPS = float64(*c.ClientQPS)
		}
		if c.ClientBurst != nil {
			cfg.Burst = int(*c.ClientBurst)
		}
	}
	a, err := kueue.New(sc.Kueue, cfg)
	if err != nil {
		return nil, sc.runError(Source{Path: "kueue"}, err)
	}
	for _, ns := range sc.Namespaces {
		a.SetNamespace(ns.Name, ns.Labels)
	}
	kr := &kueueRun{sc: sc, a: a, objs: sc.Kueue, units: map[string]*kueueUnit{}, byPod: map[cluster.PodKey]*kueueUnit{},
		topo: map[cluster.PodKey]*kueue.TopologyRequest{}, tasPods: map[cluster.PodKey]bool{}, kueueGroups: map[cluster.PodKey]groupMeta{}}
	for i := range sc.Pods {
		if t := sc.Pods[i].Topology; t != nil {
			kr.topo[sc.Pods[i].Pod.Key()] = t
		}
		if g := sc.Pods[i].kueue; g != (groupMeta{}) {
			kr.kueueGroups[sc.Pods[i].Pod.Key()] = g
		}
	}
	a.SetNodes(kr.tasNodes)
	for _, f := range sc.Kueue.ResourceFlavors {
		kr.hasTAS = kr.hasTAS || f.TopologyName != ""
	}
	for _, lr := range sc.LimitRanges {
		if err := kr.limits.Set(lr); err != nil {
			return nil, sc.runError(Source{Path: "limitRanges (" + lr.Name + ")"}, err)
		}
	}
	if err := kr.jobUnits(); err != nil {
		return nil, err
	}
	if err := kr.dumpUnits(); err != nil {
		return nil, err
	}
	return kr, nil
}

// podsReadyConfig is the Configuration's waitForPodsReady for the
// Admitter: off when nil.
func podsReadyConfig(w *kueue.WaitForPodsReady) kueue.PodsReadyConfig {
	if w == nil {
		return kueue.PodsReadyConfig{}
	}
	pr := kueue.DefaultPodsReady()
	pr.Timeout = time.Duration(w.Timeout)
	pr.BackoffLimit = w.BackoffLimitCount
	pr.CreationTimestamp = w.Timestamp == "Creation"
	if w.BackoffBaseSeconds != nil {
		pr.BackoffBase = time.Duration(*w.BackoffBaseSeconds) * time.Second
	}
	if w.BackoffMaxSeconds != nil {
		pr.BackoffMax = time.Duration(*w.BackoffMaxSeconds) * time.Second
	}
	return pr
}

// manages reports whether Kueue manages the pod: it names a queue and no
// controller of the run owns it.
func (kr *kueueRun) manages(p *cluster.Pod) bool {
	return kr != nil && p.Labels[kueueQueueLabel] != "" && p.Owner == nil && p.NodeName == ""
}

// arrive adds a managed pod, gated, and gives its workload to the
// Admitter once all its pods exist.
func (kr *kueueRun) arrive(s *gangsim.Scheduler, pod cluster.Pod, d time.Duration) error {
	if !slices.Contains(pod.SchedulingGates, kueueGate) { // a dump's pod has it already
		pod.SchedulingGates = append(slices.Clip(pod.SchedulingGates), kueueGate)
	}
	if kr.gatedForTopology(&pod) && !slices.Contains(pod.SchedulingGates, topologyGate) {
		pod.SchedulingGates = append(slices.Clip(pod.SchedulingGates), topologyGate)
	}
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
	g := kr.kueueGroups[p.Key()]
	if u := kr.units[key]; u != nil {
		u.unretriable = u.unretriable || g.unretriable
		u.serving = u.serving || g.serving
		return u, nil
	}
	prio, err := kr.priority(p)
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, p.Namespace, name, err)
	}
	u := &kueueUnit{total: total, owner: kind + " " + cluster.MakePodKey(ns, name).Display(), firstAdmitted: -1, allBound: -1,
		inGroup: group != "", unretriable: g.unretriable, serving: g.serving,
		w: kueue.Workload{Namespace: ns, Name: kueue.WorkloadName("pod", "", name),
			Queue: p.Labels[kueueQueueLabel], Priority: prio, PriorityClass: p.Labels[kueuePriorityLabel]}}
	kr.units[key] = u
	kr.podOrder = append(kr.podOrder, u)
	return u, nil
}

// groupCount is a pod group's total count: the minCount of the PodGroup
// the importer made of it (from its total count annotation), else the
// count its pod of a scenario file gives in the same annotation, read
// and checked as the file was loaded (kueuegroups.go).
func (kr *kueueRun) groupCount(p *cluster.Pod, group string) (int, error) {
	for _, g := range kr.sc.PodGroups {
		if g.Name == group && g.Namespace == p.Namespace && p.PodGroup != "" {
			return int(g.MinCount), nil
		}
	}
	if g := kr.kueueGroups[p.Key()]; g.total > 0 {
		return g.total, nil
	}
	return 0, fmt.Errorf("pod %s: labels[%s] %q: annotations[%s]: Required value: the pod group's total count, as Kueue reads it",
		p.Key(), kueueGroupLabel, group, kueueTotalCount)
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
	ps := kueue.PodSet{Name: name, Count: 1, Requests: kr.requests(p), NodeSelector: p.NodeSelector, Tolerations: p.Tolerations, Topology: kr.topo[p.Key()]}
	if p.Affinity != nil {
		ps.Affinity = p.Affinity.NodeAffinity
	}
	u.w.PodSets = append(u.w.PodSets, ps)
	return len(u.w.PodSets) - 1
}

// resume forgets the last pause.
func (kr *kueueRun) resume() {
	if kr != nil {
		kr.paused = false
	}
}

// see follows the event stream: a unit's pod that ends, or is gone after
// Kueue deleted it. It asks for a pause when Kueue has something to do at
// once (a workload finished or released frees quota; a pod to make again).
func (kr *kueueRun) see(e gangsim.Event) bool {
	freed := kr.noteNodes(e)
	p := kr.observe(e) || freed
	kr.paused = kr.paused || p
	return p
}

// observe is see without the pause's record.
func (kr *kueueRun) observe(e gangsim.Event) bool {
	key := e.PodKey()
	u := kr.byPod[key]
	if u == nil && (e.Kind == gangsim.EventPodBound || e.Kind == gangsim.EventPodSucceeded) && e.Pod.Pod().Owner != nil {
		ns := e.Pod.Pod().Namespace
		if ns == "" {
			ns = cluster.DefaultNamespace
		}
		u = kr.byOwner[ownerKey{ns, e.Pod.Pod().Owner.Kind, e.Pod.Pod().Owner.Name}]
	}
	if u == nil || kr.err != nil {
		return false
	}
	if e.Kind == gangsim.EventPodBound {
		if u.sawBound(e.At) {
			if err := kr.a.AdvanceTo(max(e.At, kr.a.Now())); err != nil {
				kr.err = err
				return true
			}
			kr.err = kr.a.PodsReady(u.w.Key())
		}
		return false
	}
	if u.ref != nil {
		if e.Kind == gangsim.EventPodSucceeded && u.job != nil {
			u.succeeded++
			if err := kr.a.AdvanceTo(max(e.At, kr.a.Now())); err != nil {
				kr.err = err
				return true
			}
			return kr.reclaim(u)
		}
		return false
	}
	switch e.Kind {
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted:
	case gangsim.EventPodTerminated:
		return kr.lost(u, key)
	default:
		return false
	}
	if u.group {
		return kr.drained(u, key, e.At)
	}
	hp := u.pod(key)
	hp.ended = true
	hp.succeeded = hp.succeeded || e.Kind == gangsim.EventPodSucceeded
	if err := kr.a.AdvanceTo(e.At); err != nil {
		kr.err = err
		return true
	}
	return kr.settleUnit(u)
}

// sawBound counts a pod of the unit bound: the first time the pods
// bound since its last admission reach its admitted count is the end of
// its wait for nodes. It reports whether they just reached it: its pods
// are ready (the simulator's pods are ready once bound).
func (u *kueueUnit) sawBound(at time.Duration) bool {
	if u.admission == nil {
		return false
	}
	u.bound++
	var want int32
	for _, ps := range u.admission.PodSets {
		want += ps.Count
	}
	if u.allBound < 0 && int32(u.bound) >= want {
		u.allBound = at
	}
	return int32(u.bound) == want
}

func (u *kueueUnit) pod(key cluster.PodKey) *heldPod {
	for _, hp := range u.pods {
		if hp.pod.Key() == key {
			return hp
		}
	}
	return nil
}

// settleUnit tells the Admitter that a unit whose pods have all ended
// is done (its quota released), unless, as Kueue, it waits for pods to
// replace those that failed (waitsForReplacements). It reports whether
// the run must pause for the runner to run what that made due (a cycle).
func (kr *kueueRun) settleUnit(u *kueueUnit) bool {
	succeeded := 0
	for _, hp := range u.pods {
		if !hp.ended {
			return false
		}
		if hp.succeeded {
			succeeded++
		}
	}
	if !u.added || u.state == unitDone {
		return false
	}
	if u.replacing = u.waitsForReplacements(succeeded); u.replacing {
		return false
	}
	u.state = unitDone
	kr.err = kr.a.Finish(u.w.Key())
	kr.log = append(kr.log, kr.a.Events()...)
	return true
}

// nextTime is when Kueue next acts.
func (kr *kueueRun) nextTime() (time.Duration, bool) {
	if kr == nil {
		return 0, false
	}
	return kr.a.NextTime()
}

// step does what Kueue has to do at t (the scheduler's clock): the
// Admitter's step, and its decisions carried out.
func (kr *kueueRun) step(s *gangsim.Scheduler, m *controllers.Manager, t time.Duration) error {
	if kr.err != nil {
		return kr.err
	}
	if err := kr.a.AdvanceTo(t); err != nil {
		return err
	}
	evs := kr.a.Step()
	kr.log = append(kr.log, evs...)
	for _, e := range evs {
		u := kr.units[e.Workload]
		if u == nil {
			continue
		}
		u.note(e)
		var err error
		switch {
		case e.Kind == kueue.QuotaReserved && u.ref != nil:
			err = kr.admitJob(u, e.Admission)
		case e.Kind == kueue.QuotaReserved:
			err = kr.admit(s, u, e.Admission)
		case e.Kind == kueue.Evicted && u.ref != nil:
			u.state = unitEvicting
			for _, ref := range u.refs {
				if err = m.Suspend(ref); err != nil {
					break
				}
			}
		case e.Kind == kueue.Evicted:
			err = kr.evict(s, u)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// admit writes each pod's flavor into it and lifts its gate.
func (kr *kueueRun) admit(s *gangsim.Scheduler, u *kueueUnit, ad *kueue.Admission) error {
	u.state = unitAdmitted
	if err := kr.placeTopology(s, u, ad); err != nil {
		return err
	}
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
		gates := []string{kueueGate}
		if slices.Contains(hp.pod.SchedulingGates, topologyGate) {
			gates = append(gates, topologyGate)
		}
		if err := s.UngatePod(key, gates...); err != nil {
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

// evict deletes the unit's pods that have not ended. A group's quota is
// released once they are gone (drained): its controller makes them
// again, gated, and it queues again.
func (kr *kueueRun) evict(s *gangsim.Scheduler, u *kueueUnit) error {
	u.state = unitEvicting
	if u.group {
		u.draining = map[cluster.PodKey]bool{}
		for _, hp := range u.pods {
			if _, ok := s.Pod(hp.pod.Key()); ok && !hp.ended {
				u.draining[hp.pod.Key()] = true
			}
		}
	}
	for _, hp := range u.pods {
		if hp.ended {
			continue
		}
		if err := s.DeletePod(hp.pod.Key()); err != nil && !errors.Is(err, gangsim.ErrUnknownPod) {
			return fmt.Errorf("Kueue: evicting pod %s: %w", hp.pod.Key(), err)
		}
	}
	if u.group && u.state == unitEvicting && len(u.draining) == 0 {
		kr.release(u)
	}
	if !u.group && u.state == unitEvicting {
		kr.settleUnit(u) // its pods were gone already (a group waiting for replacements)
	}
	return kr.err
}

// drained notes a group's pod gone: while the group is evicted, the last
// of the pods Kueue deleted releases its quota. It reports whether the
// run must pause (quota freed).
func (kr *kueueRun) drained(u *kueueUnit, key cluster.PodKey, at time.Duration) bool {
	if hp := u.pod(key); hp != nil {
		hp.ended = true
	}
	if u.state != unitEvicting || !u.draining[key] {
		return false
	}
	delete(u.draining, key)
	if len(u.draining) > 0 {
		return false
	}
	if err := kr.a.AdvanceTo(max(at, kr.a.Now())); err != nil {
		kr.err = err
		return true
	}
	kr.release(u)
	return true
}

// release tells the Admitter an evicted group's pods are gone.
func (kr *kueueRun) release(u *kueueUnit) {
	u.state, u.draining = unitWaiting, nil
	if err := kr.a.Released(u.w.Key()); err != nil && kr.err == nil {
		kr.err = err
	}
	kr.log = append(kr.log, kr.a.Events()...)
}

// Kueue's job integrations: a Job, a JobSet, an MPIJob, a PyTorchJob, a
// TrainJob or a RayCluster naming a queue is held suspended from the
// start (Kueue's webhook suspends it on creation), and so are a RayJob's
// cluster and submitter Job, one workload; its workload is given to the
// Admitter at time 0, in input order; on admission it is unsuspended with
// the flavor's node labels and tolerations in the template of each pod
// set; on eviction it is suspended, and its quota released once its
// controller has no pod left; it finishes when its controller does (a
// RayJob's submitter; a RayCluster never does).
//
// A LeaderWorkerSet has no suspend: each of its groups is a workload
// given to the Admitter at time 0, and the pods the Manager makes for it
// are gated (the Manager's pod hook, gate) until the group is admitted;
// evicted, its pods are deleted, the LeaderWorkerSet makes them again,
// gated, and its quota is released once the deleted ones are gone.
//
// A dump's Workload whose job is not in the inputs (dumpUnits) is a
// workload of the pods the importer made of it: with its admission it
// holds its quota from time 0, else it queues then, its pods gated.

// jobGroups are the API groups of the job kinds, for workload names.
var jobGroups = map[string]string{controllers.KindJob: "batch", controllers.KindJobSet: "jobset.x-k8s.io",
	controllers.KindMPIJob: "kubeflow.org", controllers.KindPyTorchJob: "kubeflow.org", "TrainJob": "trainer.kubeflow.org",
	controllers.KindRayCluster: "ray.io"}

// jobUnits makes the workload of every job Kueue manages.
func (kr *kueueRun) jobUnits() error {
	kr.skip = map[cluster.PodKey]bool{}
	kr.byRef = map[controllers.WorkloadRef]*kueueUnit{}
	kr.byOwner = map[ownerKey]*kueueUnit{}
	kr.roles = map[ownerKey]string{}
	ctls := kr.sc.Controllers
	rayJobs := map[string]*kueueUnit{}
	for i := range ctls {
		c := &ctls[i]
		if c.queue == "" {
			continue
		}
		if c.kueueOf != "" {
			if err := kr.rayJobPart(c, rayJobs); err != nil {
				return err
			}
			continue
		}
		w := kueue.Workload{Namespace: c.Namespace, Name: kueue.WorkloadName(strings.ToLower(c.Kind), jobGroups[c.Kind], c.Name),
			Queue: c.queue, PriorityClass: c.priorityClass}
		prio, err := kr.jobPriority(c)
		if err != nil {
			return kr.sc.runError(c.Source, err)
		}
		w.Priority = prio
		switch {
		case c.workload.Parent != nil:
			for k := i + 1; k < len(ctls) && ctls[k].workload.Of == c.workload.Parent; k++ {
				kid := &ctls[k].workload
				n := kueueJobPods(kid)
				if j := slices.IndexFunc(w.PodSets, func(ps kueue.PodSet) bool { return ps.Name == kid.Role }); j >= 0 {
					w.PodSets[j].Count += n
					continue
				}
				ps := kr.podSetOf(kid.Role, n, &kid.Template)
				ps.Topology = kr.controllerTopology(&ctls[k])
				w.PodSets = append(w.PodSets, ps)
			}
		case c.workload.Job != nil:
			ps := kr.podSetOf("main", kueueJobPods(&c.workload), &c.workload.Template)
			ps.MinCount = c.minCount
			ps.Topology = kr.controllerTopology(c)
			w.PodSets = append(w.PodSets, ps)
		case c.workload.Set != nil && c.Kind == controllers.KindRayCluster:
			// a pod set per role (the head, each worker group), of the
			// members made from its templates
			set := c.workload.Set
			for _, mb := range set.Members {
				role := ""
				if mb.Template < len(set.Roles) {
					role = set.Roles[mb.Template]
				}
				if j := slices.IndexFunc(w.PodSets, func(ps kueue.PodSet) bool { return ps.Name == role }); j >= 0 {
					w.PodSets[j].Count++
					continue
				}
				w.PodSets = append(w.PodSets, kr.podSetOf(role, 1, &set.Templates[mb.Template]))
			}
		case c.workload.Set != nil && c.Kind == controllers.KindLeaderWorkerSet:
			kr.groupUnits(c, w)
			continue
		default:
			continue // a kind Kueue's integrations here do not hold
		}
		ref := controllers.WorkloadRef{Kind: c.Kind, Name: c.Name, Namespace: c.Namespace}
		ow := kr.owned(c)
		if ow != nil {
			w.Name = ow.Name
		}
		u := &kueueUnit{w: w, ref: &ref, refs: []controllers.WorkloadRef{ref}, owner: c.Kind + " " + cluster.MakePodKey(c.Namespace, c.Name).Display(), firstAdmitted: -1, allBound: -1,
			job: c.workload.Job}
		if j := c.workload.Job; j != nil {
			u.succeeded = j.Succeeded
		}
		if ow != nil && ow.Admission != nil {
			u.dumped = ow
		}
		if kr.units[w.Key()] != nil {
			return kr.sc.runError(c.Source, fmt.Errorf("a second Kueue workload %s", w.Key()))
		}
		kr.units[w.Key()] = u
		kr.byRef[ref] = u
		kr.jobOrder = append(kr.jobOrder, u)
		for k := i; k < len(ctls) && (k == i || ctls[k].workload.Of == c.workload.Parent && c.workload.Parent != nil); k++ {
			for _, at := range ctls[k].pods {
				if u.dumped == nil { // admitted in the dump, its running pods stay
					kr.skip[kr.sc.Pods[at].Pod.Key()] = true
				}
			}
			kr.byOwner[ownerKey{ctls[k].Namespace, ctls[k].Kind, ctls[k].Name}] = u
			if c.workload.Job != nil && k == i {
				kr.roles[ownerKey{ctls[k].Namespace, ctls[k].Kind, ctls[k].Name}] = "main"
			} else if k > i {
				kr.roles[ownerKey{ctls[k].Namespace, ctls[k].Kind, ctls[k].Name}] = ctls[k].workload.Role
			}
		}
	}
	return nil
}

// owned is the dump's Workload of a job, or nil (ownedWorkloads).
func (kr *kueueRun) owned(c *Controller) *kueue.OwnedWorkload {
	if kr.ownedBy == nil {
		kr.ownedBy = ownedWorkloads(kr.objs)
	}
	return kr.ownedBy.of(c)
}

// ownedIndex finds the dump's Workload of a job: the Workload whose
// owner is the job's object, by its kind as the inputs name it (a
// TrainJob's JobSet is the TrainJob).
type ownedIndex map[ownerKey]*kueue.OwnedWorkload

// ownedWorkloads indexes the dump's Workloads of jobs (Objects.Owned);
// the first of an owner counts.
func ownedWorkloads(objs *kueue.Objects) ownedIndex {
	idx := ownedIndex{}
	if objs == nil {
		return idx
	}
	for i := range objs.Owned {
		ow := &objs.Owned[i]
		if k := (ownerKey{ow.Namespace, ow.OwnerKind, ow.OwnerName}); idx[k] == nil {
			idx[k] = ow
		}
	}
	return idx
}

// of is the dump's Workload of a controller's job, or nil.
func (idx ownedIndex) of(c *Controller) *kueue.OwnedWorkload {
	if p := c.workload.Parent; p != nil && p.ReportedAs != "" {
		if ow := idx[ownerKey{c.Namespace, p.ReportedAs, c.Name}]; ow != nil {
			return ow
		}
	}
	return idx[ownerKey{c.Namespace, c.Kind, c.Name}]
}

// rayJobPart adds a RayJob's cluster or submitter Job to the RayJob's
// workload (made with its first part, the cluster): the cluster's pod
// sets, head and its worker groups, then the submitter's, as Kueue's
// RayJob integration makes them. Kueue suspends the RayJob, and KubeRay
// its cluster and Job with it: both are held, and resumed together.
func (kr *kueueRun) rayJobPart(c *Controller, rayJobs map[string]*kueueUnit) error {
	key := string(cluster.MakePodKey(c.Namespace, c.kueueOf))
	u := rayJobs[key]
	if u == nil {
		w := kueue.Workload{Namespace: c.Namespace, Name: kueue.WorkloadName("rayjob", "ray.io", c.kueueOf),
			Queue: c.queue, PriorityClass: c.priorityClass}
		if w.Namespace == "" {
			w.Namespace = cluster.DefaultNamespace
		}
		prio, err := kr.jobPriority(c)
		if err != nil {
			return kr.sc.runError(c.Source, err)
		}
		w.Priority = prio
		u = &kueueUnit{w: w, owner: "RayJob " + cluster.MakePodKey(c.Namespace, c.kueueOf).Display(), firstAdmitted: -1, allBound: -1}
		rayJobs[key] = u
		kr.units[w.Key()] = u
		kr.jobOrder = append(kr.jobOrder, u)
	}
	ref := controllers.WorkloadRef{Kind: c.Kind, Name: c.Name, Namespace: c.Namespace}
	switch {
	case c.workload.Set != nil:
		set := c.workload.Set
		for _, mb := range set.Members {
			role := set.Roles[mb.Template]
			if j := slices.IndexFunc(u.w.PodSets, func(ps kueue.PodSet) bool { return ps.Name == role }); j >= 0 {
				u.w.PodSets[j].Count++
				continue
			}
			u.w.PodSets = append(u.w.PodSets, kr.podSetOf(role, 1, &set.Templates[mb.Template]))
		}
	case c.workload.Job != nil:
		u.w.PodSets = append(u.w.PodSets, kr.podSetOf("submitter", kueueJobPods(&c.workload), &c.workload.Template))
		u.submitter = &ref
	}
	if u.ref == nil {
		u.ref = &ref
	}
	u.refs = append(u.refs, ref)
	kr.byRef[ref] = u
	for _, at := range c.pods {
		kr.skip[kr.sc.Pods[at].Pod.Key()] = true
	}
	kr.byOwner[ownerKey{c.Namespace, c.Kind, c.Name}] = u
	return nil
}

// groupUnits makes the workload of each group of a LeaderWorkerSet
// Kueue manages, from the workload w of the set (its queue and
// priority): <lws>-<group index>, of the pod sets its Roles name
// (leader and worker, or main), as Kueue's LeaderWorkerSet integration
// makes them. Its pods of time 0 are left out: the Manager makes them,
// gated (gate).
func (kr *kueueRun) groupUnits(c *Controller, w kueue.Workload) {
	set := c.workload.Set
	if kr.groups == nil {
		kr.groups = map[string]*kueueUnit{}
	}
	for _, mb := range set.Members {
		key := groupKey(c.Namespace, c.Name, strconv.Itoa(mb.Group))
		u := kr.groups[key]
		if u == nil {
			gw := w
			gw.Name = kueue.WorkloadName("leaderworkerset", "leaderworkerset.x-k8s.io", c.Name+"-"+strconv.Itoa(mb.Group))
			gw.PodSets = nil
			u = &kueueUnit{w: gw, group: true, set: set, owner: c.Kind + " " + cluster.MakePodKey(c.Namespace, c.Name).Display(), firstAdmitted: -1, allBound: -1}
			kr.groups[key] = u
			kr.units[gw.Key()] = u
			kr.jobOrder = append(kr.jobOrder, u)
		}
		role := "main"
		if mb.Template < len(set.Roles) && set.Roles[mb.Template] != "" {
			role = set.Roles[mb.Template]
		}
		u.total++
		if j := slices.IndexFunc(u.w.PodSets, func(ps kueue.PodSet) bool { return ps.Name == role }); j >= 0 {
			u.w.PodSets[j].Count++
			continue
		}
		u.w.PodSets = append(u.w.PodSets, kr.podSetOf(role, 1, &set.Templates[mb.Template]))
	}
	for _, at := range c.pods {
		kr.skip[kr.sc.Pods[at].Pod.Key()] = true
	}
}

// dumpedPod is a pod of a dump's Workload: its unit and pod set.
type dumpedPod struct {
	u      *kueueUnit
	podSet int
}

// dumpUnits makes the unit of each Workload of a dump that stands for
// its job (kueue.Objects.Dumped): its pod sets are the Workload's, their
// requests its first pod's; one with an admission holds its quota from
// the start, one without queues at time 0 (start). Its pods arrive as
// the timeline adds them (arriveDumped).
func (kr *kueueRun) dumpUnits() error {
	kr.dumped = map[cluster.PodKey]dumpedPod{}
	kr.admitted = map[*kueueUnit]kueue.DumpedWorkload{}
	byKey := map[cluster.PodKey]*cluster.Pod{}
	for i := range kr.sc.Pods {
		byKey[kr.sc.Pods[i].Pod.Key()] = &kr.sc.Pods[i].Pod
	}
	for _, d := range kr.objs.Dumped {
		w := kueue.Workload{Namespace: d.Namespace, Name: d.Name, Queue: d.Queue, PriorityClass: d.PriorityClass}
		u := &kueueUnit{owner: "Workload " + cluster.MakePodKey(d.Namespace, d.Name).Display(), firstAdmitted: -1, allBound: -1}
		for _, ps := range d.PodSets {
			if len(ps.Pods) == 0 {
				continue
			}
			first := byKey[ps.Pods[0]]
			if first == nil {
				return fmt.Errorf("%s: pod set %s: its pod %s is not among the pods", d.Source, ps.Name, ps.Pods[0])
			}
			if len(w.PodSets) == 0 {
				switch prio, err := kr.priority(first); {
				case d.Priority != nil:
					w.Priority = *d.Priority
				case err != nil:
					return fmt.Errorf("%s: %w", d.Source, err)
				default:
					w.Priority = prio
				}
			}
			for _, key := range ps.Pods {
				kr.dumped[key] = dumpedPod{u, len(w.PodSets)}
			}
			u.total += len(ps.Pods)
			w.PodSets = append(w.PodSets, kr.podSetOf(ps.Name, int32(len(ps.Pods)), first))
		}
		if len(w.PodSets) == 0 {
			continue
		}
		u.w = w
		if kr.units[w.Key()] != nil {
			return fmt.Errorf("%s: a second Workload %s", d.Source, w.Key())
		}
		kr.units[w.Key()] = u
		kr.jobOrder = append(kr.jobOrder, u)
		if d.Admission != nil {
			kr.admitted[u] = d
		}
	}
	return nil
}

// arriveDumped adds a pod of a dump's Workload: gated while its Workload
// waits, with its flavor once admitted.
func (kr *kueueRun) arriveDumped(s *gangsim.Scheduler, pod cluster.Pod, d time.Duration) error {
	dp := kr.dumped[pod.Key()]
	u := dp.u
	if u.state == unitAdmitted {
		kr.patch(u.admission, u.w.PodSets[dp.podSet].Name, &pod)
	} else if !slices.Contains(pod.SchedulingGates, kueueGate) {
		pod.SchedulingGates = append(slices.Clip(pod.SchedulingGates), kueueGate)
	}
	if err := s.AddPod(pod, d); err != nil {
		return err
	}
	u.pods = append(u.pods, &heldPod{pod: pod, duration: d, podSet: dp.podSet})
	kr.byPod[pod.Key()] = u
	return nil
}

// dumps reports whether a pod of the timeline is a dumped Workload's.
func (kr *kueueRun) dumps(key cluster.PodKey) bool {
	if kr == nil {
		return false
	}
	_, ok := kr.dumped[key]
	return ok
}

// groupKey names a LeaderWorkerSet's group: its namespace, set and index.
func groupKey(ns, lws, index string) string {
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	return ns + "/" + lws + "/" + index
}

// The labels by which a LeaderWorkerSet's pod names its group.
const (
	lwsNameLabel  = "leaderworkerset.sigs.k8s.io/name"
	lwsGroupLabel = "leaderworkerset.sigs.k8s.io/group-index"
)

// gate is the Manager's hook (WithPodHook): a pod of a LeaderWorkerSet
// group Kueue manages gets the labels of its pod group (its workload's
// name, the group's size), as Kueue's integration gives them, and Kueue's
// gate; once the group is admitted, its flavor instead, as Kueue ungates
// the pods of an admitted group as they come. It joins its unit.
func (kr *kueueRun) gate(p *cluster.Pod) error {
	if kr.groups == nil || p.Labels[lwsGroupLabel] == "" {
		return kr.steer(p)
	}
	u := kr.groups[groupKey(p.Namespace, p.Labels[lwsNameLabel], p.Labels[lwsGroupLabel])]
	if u == nil {
		return nil
	}
	labels := maps.Clone(p.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[kueueGroupLabel] = u.w.Name
	labels[kueueTotalCount] = strconv.Itoa(u.total)
	p.Labels = labels
	role := u.roleOf(p)
	if u.state == unitAdmitted {
		kr.patch(u.admission, role, p)
	} else {
		p.SchedulingGates = append(slices.Clip(p.SchedulingGates), kueueGate)
	}
	ps := slices.IndexFunc(u.w.PodSets, func(s kueue.PodSet) bool { return s.Name == role })
	if hp := u.pod(p.Key()); hp != nil {
		hp.pod, hp.podSet, hp.ended = *p, ps, false
	} else {
		u.pods = append(u.pods, &heldPod{pod: *p, podSet: ps})
	}
	kr.byPod[p.Key()] = u
	return nil
}

// roleOf is the pod set of a group's pod: its template's role, found by
// its name in its set.
func (u *kueueUnit) roleOf(p *cluster.Pod) string {
	if i := u.set.MemberIndex(p.Name); i >= 0 {
		if t := u.set.Members[i].Template; t < len(u.set.Roles) && u.set.Roles[t] != "" {
			return u.set.Roles[t]
		}
	}
	return u.w.PodSets[0].Name
}

// jobPods is how many pods a job (or a parent's child) runs at once, as
// Kueue counts a Job's pod set: its parallelism, or its completions when
// fewer; a child of replicas, its replicas.
func kueueJobPods(w *controllers.Workload) int32 {
	if j := w.Job; j != nil {
		if j.Completions != nil && *j.Completions < j.Parallelism {
			return *j.Completions
		}
		return j.Parallelism
	}
	return int32(w.Replicas)
}

// podSetOf is a pod set of n pods made from a template.
func (kr *kueueRun) podSetOf(name string, n int32, t *cluster.Pod) kueue.PodSet {
	ps := kueue.PodSet{Name: name, Count: n, Requests: kr.requests(t), NodeSelector: t.NodeSelector, Tolerations: t.Tolerations}
	if t.Affinity != nil {
		ps.Affinity = t.Affinity.NodeAffinity
	}
	return ps
}

// requests are a pod's requests as Kueue counts them: with its
// namespace's LimitRange defaults filled in, as the API server will fill
// them when the pod is made.
func (kr *kueueRun) requests(p *cluster.Pod) cluster.ResourceList {
	q := *p
	if q.Namespace == "" {
		q.Namespace = cluster.DefaultNamespace
	}
	kr.limits.Default(&q)
	return cluster.ListOf(q.Requests)
}

// jobPriority is a job's priority as Kueue takes it: its
// WorkloadPriorityClass's, else its pod template's class's.
func (kr *kueueRun) jobPriority(c *Controller) (int32, error) {
	t := &c.workload.Template
	if c.workload.Parent != nil {
		for k := range kr.sc.Controllers {
			if kid := &kr.sc.Controllers[k].workload; kid.Of == c.workload.Parent {
				t = &kid.Template
				break
			}
		}
	}
	p := *t
	if p.Labels == nil || p.Labels[kueuePriorityLabel] != c.priorityClass {
		p.Labels = map[string]string{kueuePriorityLabel: c.priorityClass}
	}
	return kr.priority(&p)
}

// holds reports whether Kueue holds the workload suspended (the
// Manager's WithSuspended): a job it manages.
func (kr *kueueRun) holds(ref controllers.WorkloadRef) bool {
	return kr.byRef[ref] != nil
}

// skips reports whether a pod of the timeline belongs to a job Kueue
// holds.
func (kr *kueueRun) skips(key cluster.PodKey) bool { return kr != nil && kr.skip[key] }

// start gives the Admitter the jobs' workloads, at time 0.
func (kr *kueueRun) start(s *gangsim.Scheduler, m *controllers.Manager) error {
	if kr == nil {
		return nil
	}
	kr.s, kr.m = s, m
	for _, u := range kr.jobOrder {
		u.added = true
		if u.dumped != nil {
			if err := kr.startAdmitted(u); err != nil {
				return err
			}
			continue
		}
		d, admitted := kr.admitted[u]
		if !admitted {
			if err := kr.a.Add(&u.w); err != nil {
				return err
			}
			continue
		}
		if err := kr.a.AddAdmitted(&u.w, *d.Admission); err != nil {
			return fmt.Errorf("%s: status.admission: %w", d.Source, err)
		}
		for _, e := range kr.a.Events() {
			kr.log = append(kr.log, e)
			if e.Kind == kueue.QuotaReserved && e.Workload == u.w.Key() {
				u.note(e)
				u.state = unitAdmitted
			}
		}
	}
	kr.log = append(kr.log, kr.a.Events()...)
	return nil
}

// startAdmitted gives the Admitter a job admitted in the dump, holding
// its reservation from time 0, and resumes the job with its flavors: its
// running pods are the dump's, the pods it makes get the flavors.
func (kr *kueueRun) startAdmitted(u *kueueUnit) error {
	if err := kr.a.AddAdmitted(&u.w, *u.dumped.Admission); err != nil {
		return fmt.Errorf("%s: status.admission: %w", u.dumped.Source, err)
	}
	for _, e := range kr.a.Events() {
		kr.log = append(kr.log, e)
		if e.Kind == kueue.QuotaReserved && e.Workload == u.w.Key() {
			u.note(e)
		}
	}
	if u.admission == nil {
		return fmt.Errorf("%s: status.admission: not taken", u.dumped.Source)
	}
	return kr.admitJob(u, u.admission)
}

// changed is told by the Manager (WithWorkloadChange) that a job
// finished, or that its suspension left it no pod: the workload finishes,
// or its quota is released and it queues again.
func (kr *kueueRun) changed(ref controllers.WorkloadRef) {
	u := kr.byRef[ref]
	if u == nil || kr.err != nil {
		return
	}
	if err := kr.a.AdvanceTo(kr.s.Now()); err != nil {
		kr.err = err
		return
	}
	key := u.w.Key()
	// a RayJob is done when its submitter Job is (its cluster never is)
	ended, active := *u.ref, 0
	if u.submitter != nil {
		ended = *u.submitter
	}
	for _, r := range u.refs {
		active += kr.m.Active(r)
	}
	switch done, _ := kr.m.Finished(ended); {
	case done && u.state != unitDone:
		u.state = unitDone
		kr.err = kr.a.Finish(key)
	case u.state == unitEvicting && active == 0:
		u.state = unitWaiting
		kr.err = kr.a.Released(key)
	}
	kr.log = append(kr.log, kr.a.Events()...)
}

// admitJob unsuspends a job with the flavors of its pod sets.
func (kr *kueueRun) admitJob(u *kueueUnit, ad *kueue.Admission) error {
	u.state = unitAdmitted
	u.slots = slotsOf(ad)
	patch := func(role string, p *cluster.Pod) { kr.patch(ad, role, p) }
	submitter := func(_ string, p *cluster.Pod) { kr.patch(ad, "submitter", p) }
	if w := &u.w; len(w.PodSets) == 1 && w.PodSets[0].MinCount > 0 {
		// a Job that may be admitted partially: Kueue writes the count it
		// admitted into its parallelism (and restores it before the next
		// admission)
		if err := kr.m.SetParallelism(*u.ref, ad.PodSets[0].Count); err != nil {
			return err
		}
	}
	for _, ref := range u.refs {
		pt := patch
		if u.submitter != nil && ref == *u.submitter {
			pt = submitter
		}
		if err := kr.m.Unsuspend(ref, pt); err != nil {
			return err
		}
	}
	kr.reclaim(u)
	return kr.err
}

// reclaim tells the Admitter how many of a Job's admitted pods will not
// be made again, as Kueue's reclaimablePods counts them: the admitted
// count beyond the completions left. It reports whether that released
// quota (a cycle may be due).
func (kr *kueueRun) reclaim(u *kueueUnit) bool {
	j := u.job
	if j == nil || j.Completions == nil || u.admission == nil || u.evicted {
		return false
	}
	n := u.admission.PodSets[0].Count - max(0, *j.Completions-int32(u.succeeded))
	if n <= 0 {
		return false
	}
	if err := kr.a.SetReclaimable(u.w.Key(), u.admission.PodSets[0].Name, n); err != nil {
		kr.err = err
	}
	return true
}

// patch writes the flavor admitted to a pod set (role; "" for main)
// into a pod: its node labels into the node selector, its tolerations.
func (kr *kueueRun) patch(ad *kueue.Admission, role string, p *cluster.Pod) {
	ps := role
	if ps == "" {
		ps = "main"
	}
	f := kr.flavor(ad.Flavor(ps))
	if f == nil {
		return
	}
	sel := maps.Clone(p.NodeSelector)
	if sel == nil {
		sel = map[string]string{}
	}
	maps.Copy(sel, f.NodeLabels)
	p.NodeSelector = sel
	p.Tolerations = slices.Clip(p.Tolerations)
	for _, t := range f.Tolerations {
		p.Tolerations = append(p.Tolerations, t.Toleration)
	}
}

// note keeps what the result tells of a unit's event.
func (u *kueueUnit) note(e kueue.Event) {
	switch e.Kind {
	case kueue.QuotaReserved:
		u.admission, u.bound, u.reason, u.message = e.Admission, 0, "", ""
		u.admittedAt, u.evicted = e.At, false
		if u.firstAdmitted < 0 {
			u.firstAdmitted = e.At
		}
	case kueue.Evicted:
		u.evictions++
		u.evicted = true
		u.reason, u.message = e.Reason, e.Message
	case kueue.Pending:
		u.reason, u.message = e.Reason, e.Message
	}
}

// results are the Kueue Workloads of the run, for the result: the jobs'
// in input order, then the pods' in the order made; end is the end of
// the run.
func (kr *kueueRun) results(end time.Duration) []WorkloadResult {
	if kr == nil {
		return nil
	}
	// the Pending events of workloads never stepped on (added while
	// waiting for their LocalQueue) are in the log
	for _, e := range kr.log {
		if u := kr.units[e.Workload]; u != nil && e.Kind == kueue.Pending && u.admission == nil {
			u.reason, u.message = e.Reason, e.Message
		}
	}
	out := make([]WorkloadResult, 0, len(kr.jobOrder)+len(kr.podOrder))
	for _, u := range append(slices.Clone(kr.jobOrder), kr.podOrder...) {
		if !u.added {
			continue
		}
		w := WorkloadResult{Kind: "Workload", Name: cluster.MakePodKey(u.w.Namespace, u.w.Name).Display(), Owner: u.owner,
			Queue: u.w.Queue, Priority: &u.w.Priority, Evictions: u.evictions, CreatedAt: u.w.Created.String()}
		st := kr.a.Status(u.w.Key())
		admitted := u.admission != nil && !u.evicted
		w.Admitted = &admitted
		w.Status = st.Phase
		if admitted {
			w.ClusterQueue = u.admission.ClusterQueue
		}
		if !admitted {
			w.Reason, w.Message = u.reason, u.message
		}
		if admitted && u.replacing { // Kueue's condition WaitingForReplacementPods
			w.Reason, w.Message = "WaitingForReplacementPods", "Some Failed pods need replacement"
		}
		psCounts := map[string]kueue.PodSetAssignment{}
		if admitted {
			w.AdmittedAt = u.admittedAt.String()
			for _, ps := range u.admission.PodSets {
				psCounts[ps.Name] = ps
			}
		}
		for _, ps := range u.w.PodSets {
			r := WorkloadPodSetResult{Name: ps.Name, Count: ps.Count}
			if a, ok := psCounts[ps.Name]; ok {
				r.Count, r.Flavors = a.Count, map[string]string{}
				for res, f := range a.Flavors {
					r.Flavors[string(res)] = f
				}
				if a.TopologyAssignment != nil {
					r.Topology = a.TopologyAssignment.String()
				}
			}
			w.PodSets = append(w.PodSets, r)
		}
		switch {
		case u.firstAdmitted >= 0:
			w.WaitForQuota = (u.firstAdmitted - u.w.Created).String()
		default:
			w.WaitForQuota = (end - u.w.Created).String()
		}
		if u.allBound >= 0 {
			w.WaitForNodes = (u.allBound - u.firstAdmitted).String()
		}
		out = append(out, w)
	}
	return out
}
