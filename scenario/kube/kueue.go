package kube

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Kueue admits a group of plain pods whole: the pods with one
// kueue.x-k8s.io/pod-group-name form a workload of the size their
// kueue.x-k8s.io/pod-group-total-count gives, admitted once that many
// exist. Its topology-aware scheduling places a PodSet (a Job's pods, a
// pod group's) in one domain of the node label a
// kueue.x-k8s.io/podset-required-topology annotation names before the pods
// are scheduled. The importer reads the first as a gang of minCount the
// total count, and the second as a gang of every pod of the set with that
// topology key. Kueue's queues and quotas are read and checked
// (kueueobjects.go) but not run: its pods are taken as admitted (notes.go).

// Kueue's keys.
const (
	kueueGroupName     = "kueue.x-k8s.io/pod-group-name"
	kueueTotalCount    = "kueue.x-k8s.io/pod-group-total-count"
	kueueRetriable     = "kueue.x-k8s.io/retriable-in-group"
	kueueServing       = "kueue.x-k8s.io/pod-group-serving"
	kueueRequired      = "kueue.x-k8s.io/podset-required-topology"
	kueuePreferred     = "kueue.x-k8s.io/podset-preferred-topology"
	kueueUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology"
	kueueSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology"
	kueueSliceSize     = "kueue.x-k8s.io/podset-slice-size"
)

// checkKueueCount checks what Kueue's webhook checks: the total count and
// the group name come together.
func (k *kubeImport) checkKueueCount(m *member, refs []gangRef) error {
	_, hasCount := m.ann[kueueTotalCount]
	inKueue := len(refs) == 1 && refs[0].key == kueueGroupName
	both := fmt.Sprintf("Required value: both the %q annotation and the %q label should be set", kueueTotalCount, kueueGroupName)
	switch {
	case hasCount && !inKueue:
		return m.failf("annotations", kueueTotalCount, "%s", both)
	case inKueue && !hasCount:
		return m.failf(refs[0].sub, kueueGroupName, "%s", both)
	}
	return nil
}

// kueueMember is a pod of a Kueue pod group and where it names it.
type kueueMember struct {
	*member
	sub string // "labels" or "annotations"
}

// kueueGang is a Kueue pod group: its pods and their total count.
type kueueGang struct {
	namespace, name string
	members         []kueueMember
	count           int
}

// kueueGangs are the pod groups of the inputs, in the order first met,
// and the pods beyond their total counts, which Kueue deletes.
type kueueGangs struct {
	byKey  map[string]*kueueGang
	order  []*kueueGang
	excess []*member
	// maxPods is the load's limit of pods: no group of a larger total
	// count could ever be complete
	maxPods int
}

func newKueueGangs(maxPods int) *kueueGangs {
	return &kueueGangs{byKey: map[string]*kueueGang{}, maxPods: maxPods}
}

// add counts a pod in its group, checking its name and total count as
// Kueue does.
func (g *kueueGangs) add(m *member, r gangRef) error {
	if err := schema.NameError(r.name, false); err != nil {
		return m.failf(r.sub, r.key, "%v", err)
	}
	if len(r.name) > 63 {
		return m.failf(r.sub, r.key, "%q is longer than 63 characters, the most of a label value", r.name)
	}
	// Kueue reads it with strconv.Atoi, a 64-bit int: any whole number
	// from 1 up is valid there, and a group waits for that many pods.
	text := m.ann[kueueTotalCount]
	count, err := strconv.ParseInt(text, 10, 64)
	if err != nil || count < 1 {
		return m.failf("annotations", kueueTotalCount, "Invalid value: %q: group total count should be a whole number greater than zero", text)
	}
	if count > int64(g.maxPods) {
		return m.failf("annotations", kueueTotalCount, "%s is more than the %s pods all inputs may hold: the group could never be complete",
			text, schema.Commas(g.maxPods))
	}
	key := m.pod().Namespace + "/" + r.name
	gang := g.byKey[key]
	if gang == nil {
		gang = &kueueGang{namespace: m.pod().Namespace, name: r.name, count: int(count)}
		g.byKey[key] = gang
		g.order = append(g.order, gang)
	}
	if int(count) != gang.count {
		return m.failf("annotations", kueueTotalCount, "%d, where %s of the same pod group gives %d: the pods of a group give one total count",
			count, gang.members[0].ref(), gang.count)
	}
	gang.members = append(gang.members, kueueMember{m, r.sub})
	return nil
}

// build makes a PodGroup of every Kueue pod group, in the input of its
// first pod: minCount its total count, its topology the pods' required
// one. Pods beyond the total count (the last created) are marked for
// removal; a group with fewer pods waits for the rest.
func (g *kueueGangs) build(k *kubeImport) error {
	for _, gang := range g.order {
		slices.SortStableFunc(gang.members, func(a, b kueueMember) int {
			return a.pod().Origin.Created.Compare(b.pod().Origin.Created)
		})
		kept := gang.members
		first := kept[0]
		countField := first.field("annotations", kueueTotalCount)
		if len(kept) > gang.count {
			for _, m := range kept[gang.count:] {
				g.excess = append(g.excess, m.member)
			}
			kept = kept[:gang.count]
			k.ws.Add(first.o.kind, countField+" (pods beyond it)", "the pods created last beyond a group's total count are left out, as Kueue deletes them", first.first())
		} else if len(kept) < gang.count {
			k.ws.Add(first.o.kind, countField+" (above the pods present)", "the group waits for the rest of its pods, as Kueue does: its pods stay pending", first.first())
		}
		topology, err := requiredTopology(kept)
		if err != nil {
			return err
		}
		n := int32(gang.count)
		s := first.pod()
		entry := schema.PodGroup{GroupCommon: schema.GroupCommon{Line: keyLine(first.o, first.meta+"."+first.sub, kueueGroupName), Name: gang.name,
			Namespace: gang.namespace, TopologyKey: topology, PriorityClassName: s.PriorityClassName, Priority: s.Priority,
			Origin: madeOrigin(fmt.Sprintf("Kueue pod group %s/%s (of %s)", gang.namespace, gang.name, first.ref()))}, MinCount: &n}
		first.in.File.PodGroups = append(first.in.File.PodGroups, entry)
		for _, m := range kept {
			m.join(gang.name, m.sub, kueueGroupName)
		}
		k.ws.Add(first.o.kind, first.field(first.sub, kueueGroupName), "read as a gang: the pods of one group name form a PodGroup of that name, all or nothing, "+
			"of minCount the "+kueueTotalCount+" (Kueue admits a pod group whole); its priority is its first pod's", first.first())
	}
	return nil
}

// madeOrigin is the origin of a group the importer makes: its errors name
// it, and the field paths are the builder's.
func madeOrigin(object string) *schema.Origin {
	return &schema.Origin{Object: object, Where: object, Fields: map[string]string{}}
}

// requiredTopology is the topology the pods of a group require: the one
// every pod that has the annotation names ("" when none has it).
func requiredTopology(ms []kueueMember) (string, error) {
	var key string
	var from *member
	for _, m := range ms {
		v, ok := m.ann[kueueRequired]
		switch {
		case !ok:
		case from == nil:
			key, from = v, m.member
		case v != key:
			return "", m.failf("annotations", kueueRequired, "%q, where %s of the same group requires %q: a group has one topology", v, from.ref(), key)
		}
	}
	return key, nil
}

// podTopology reads a pod's topology annotations, checked as Kueue checks
// them. A required topology is a group's: its Kueue pod group's, or, for
// the pods of one controller (a Job's), a gang of them all (lone).
func (k *kubeImport) podTopology(m *member, refs []gangRef, lone *topologyGangs) error {
	// the annotations go on to Kueue's topology-aware scheduling, and to
	// its pod integration (how a pod group ends)
	for _, key := range []string{kueueRequired, kueuePreferred, kueueUnconstrained, kueueSliceRequired, kueueSliceSize, kueueRetriable, kueueServing} {
		if v, ok := m.ann[key]; ok {
			p := m.pod()
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations[key] = v
		}
	}
	req, hasReq := m.ann[kueueRequired]
	pref, hasPref := m.ann[kueuePreferred]
	unc, hasUnc := m.ann[kueueUnconstrained]
	if boolCount(hasReq, hasPref, hasUnc) > 1 {
		return m.failf("annotations", kueueRequired, "Invalid value: must not contain more than one topology annotation: [%q, %q, %q]", kueueRequired, kueuePreferred, kueueUnconstrained)
	}
	for _, a := range []struct {
		key, value string
		has        bool
	}{{kueueRequired, req, hasReq}, {kueuePreferred, pref, hasPref}} {
		if err := schema.LabelKeyError(a.value); a.has && err != nil {
			return m.failf("annotations", a.key, "%v", err)
		}
	}
	if _, err := strconv.ParseBool(unc); hasUnc && err != nil {
		return m.failf("annotations", kueueUnconstrained, "Invalid value: %q: must be a boolean value", unc)
	}
	switch {
	case hasPref:
		k.ws.Add(m.o.kind, m.field("annotations", kueuePreferred), "approximated: Kueue tries one domain of this level, then larger ones, "+
			"then several; the simulator places the pods without a topology constraint", m.first())
	case hasUnc:
		k.ws.Add(m.o.kind, m.field("annotations", kueueUnconstrained), "no topology constraint, as without the annotation", m.first())
	case !hasReq:
	case len(refs) == 1 && refs[0].key == kueueGroupName: // the group's (requiredTopology)
	case len(refs) == 1:
		k.ws.Add(m.o.kind, m.field("annotations", kueueRequired), "not read: the pod is in a PodGroup, whose topology applies", m.first())
	case m.pod().Controller == nil:
		k.ws.Add(m.o.kind, m.field("annotations", kueueRequired), "nothing to place together: a pod alone is always within one domain", m.first())
	default:
		return lone.add(m, req)
	}
	return nil
}

func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// topologyGangs are the pods of one controller that require a topology,
// by namespace and controller, in the order first met.
type topologyGangs struct {
	byKey map[string]*topologyGang
	order []*topologyGang
}

type topologyGang struct {
	namespace, name string // the group's: "<kind>-<controller>"
	key             string // the node label
	members         []*member
}

func newTopologyGangs() *topologyGangs { return &topologyGangs{byKey: map[string]*topologyGang{}} }

// add counts a pod in its controller's gang.
func (g *topologyGangs) add(m *member, key string) error {
	s := m.pod()
	name := strings.ToLower(s.Controller.Kind) + "-" + cmpOr(m.set, s.Controller.Name)
	id := s.Namespace + "/" + name
	gang := g.byKey[id]
	if gang == nil {
		gang = &topologyGang{namespace: s.Namespace, name: name, key: key}
		g.byKey[id] = gang
		g.order = append(g.order, gang)
	}
	if key != gang.key {
		return m.failf("annotations", kueueRequired, "%q, where %s of the same %s requires %q: the pods of a PodSet have one topology",
			key, gang.members[0].ref(), s.Controller.Kind, gang.key)
	}
	gang.members = append(gang.members, m)
	return nil
}

// build makes a gang of every controller's pods.
func (g *topologyGangs) build(k *kubeImport) error {
	for _, gang := range g.order {
		first := gang.members[0]
		n := int32(len(gang.members))
		s := first.pod()
		entry := schema.PodGroup{GroupCommon: schema.GroupCommon{Line: keyLine(first.o, first.meta+".annotations", kueueRequired), Name: gang.name,
			Namespace: gang.namespace, TopologyKey: gang.key, PriorityClassName: s.PriorityClassName, Priority: s.Priority,
			Origin: madeOrigin(fmt.Sprintf("topology group %s/%s (of %s)", gang.namespace, gang.name, first.ref()))}, MinCount: &n}
		if err := schema.NameError(gang.name, false); err != nil {
			return first.failf("annotations", kueueRequired, "the group of the pods, %q: %v", gang.name, err)
		}
		first.in.File.PodGroups = append(first.in.File.PodGroups, entry)
		for _, m := range gang.members {
			m.join(gang.name, "annotations", kueueRequired)
		}
		detail := "read as a topology constraint: the pods of one controller form a gang, " +
			"a PodGroup named <kind>-<name> of minCount all of them, in one domain of the node label named, as Kueue places a PodSet before its pods are scheduled"
		if first.set != "" {
			detail = "read as a topology constraint: the pods of one pod set form a gang, " +
				"a PodGroup named workload-<workload>-<podset> of minCount all of them, in one domain of the node label named, as Kueue places a PodSet before its pods are scheduled"
		}
		k.ws.Add(first.o.kind, first.field("annotations", kueueRequired), detail, first.first())
	}
	return nil
}

// kueueGatePrefix starts the names of Kueue's scheduling gates: admission
// (kueue.x-k8s.io/admission), topology (kueue.x-k8s.io/topology).
const kueueGatePrefix = "kueue.x-k8s.io/"

// dropKueueGates removes Kueue's gates from a pod: Kueue removes them when
// it admits the pod (and, for topology, once it has chosen the domain,
// which the pod's gang stands for here), and its admission is not
// modelled: the pod is taken as admitted.
func (k *kubeImport) dropKueueGates(m *member) {
	s := m.pod()
	if !slices.ContainsFunc(s.SchedulingGates, func(g schema.SchedulingGate) bool { return strings.HasPrefix(g.Name, kueueGatePrefix) }) {
		return
	}
	var kept []schema.SchedulingGate
	for _, g := range s.SchedulingGates {
		if k.kueueOn && g.Name == kueueAdmissionGate {
			kept = append(kept, g) // Kueue runs: it lifts the gate when it admits the pod
			continue
		}
		if strings.HasPrefix(g.Name, kueueGatePrefix) {
			k.ws.Add(m.o.kind, strings.TrimSuffix(m.meta, "metadata")+"spec.schedulingGates["+g.Name+"]",
				"Kueue's gate, which Kueue removes when it admits the pod: removed, since the pod is taken as admitted", m.first())
			continue
		}
		kept = append(kept, g)
	}
	s.SchedulingGates = kept
}

// suspendedByKueue warns about a Job that Kueue holds suspended: Kueue
// suspends the Jobs of its queues until it admits them, so a dump shows
// them with spec.suspend, and a suspended Job makes no pods.
func (k *kubeImport) suspendedByKueue(d kubeDecoded) {
	j, ok := d.v.(*kubeJob)
	if !ok || k.kueueOn || j.Spec.Suspend == nil || !*j.Spec.Suspend || j.Metadata.Labels[kueueQueueName] == "" {
		return
	}
	k.ws.Add(d.o.kind, "spec.suspend", "Kueue suspends a Job until it admits it, and Kueue's admission is not modelled: the Job makes no pods; "+
		"give spec.suspend: false to simulate it admitted", d.o.file+": "+d.o.ref())
}

// kueueAdmissionGate is the gate Kueue's webhook gives the pods it
// manages.
const kueueAdmissionGate = "kueue.x-k8s.io/admission"

// kueueQueueName is the label that puts a workload in a Kueue queue.
const kueueQueueName = "kueue.x-k8s.io/queue-name"

// Kueue's keys on a job's own metadata.
const (
	kueuePriorityClass = "kueue.x-k8s.io/priority-class"
	kueueMinParallel   = "kueue.x-k8s.io/job-min-parallelism"
)

// kueueJobKinds are the kinds whose object Kueue's job integrations
// manage when it names a queue: Kueue suspends it until it admits it.
var kueueJobKinds = map[string]bool{"Job": true, "JobSet": true, "MPIJob": true, "PyTorchJob": true, "TrainJob": true, "RayCluster": true,
	"LeaderWorkerSet": true, "RayJob": true}

// kueueQueue gives the top workload an object made its Kueue labels: the
// queue, the WorkloadPriorityClass, and a Job's min-parallelism, checked
// as Kueue's webhook checks them.
func kueueQueue(d kubeDecoded, made []schema.Controller) error {
	if !kueueJobKinds[d.o.kind] {
		return nil
	}
	meta := metadataOf(d.v)
	if meta == nil || meta.Labels[kueueQueueName] == "" {
		return nil
	}
	if rj, ok := d.v.(*kubeRayJob); ok {
		if len(rj.Spec.ClusterSelector) > 0 {
			return nil // Kueue does not manage a RayJob of an existing cluster
		}
		// the cluster and the submitter Job are one workload, the RayJob's
		for i := range made {
			made[i].Queue, made[i].PriorityClass, made[i].KueueOf = meta.Labels[kueueQueueName], meta.Labels[kueuePriorityClass], d.o.name
		}
		return nil
	}
	for i := range made {
		c := &made[i]
		if c.Of != nil {
			continue
		}
		c.Queue, c.PriorityClass = meta.Labels[kueueQueueName], meta.Labels[kueuePriorityClass]
		if text, ok := meta.Annotations[kueueMinParallel]; ok && d.o.kind == "Job" {
			n, err := strconv.Atoi(text)
			if err != nil || n < 1 || c.Job == nil || int32(n) > c.Job.Parallelism {
				return d.o.failf(nil, "metadata.annotations["+kueueMinParallel+"]", "Invalid value: %q: must be a whole number from 1 to the Job's parallelism", text)
			}
			c.MinCount = int32(n)
		}
		return nil
	}
	return nil
}

// metadataOf is the metadata of a decoded object, nil for a kind without
// one.
func metadataOf(v any) *kubeMeta {
	f := reflect.ValueOf(v)
	if f.Kind() != reflect.Pointer || f.Elem().Kind() != reflect.Struct {
		return nil
	}
	m := f.Elem().FieldByName("Metadata")
	if !m.IsValid() {
		return nil
	}
	meta, ok := m.Addr().Interface().(*kubeMeta)
	if !ok {
		return nil
	}
	return meta
}
