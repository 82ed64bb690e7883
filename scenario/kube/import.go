package kube

import (
	"slices"
	"time"

	fw "github.com/gangsim/gangsim/framework"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// kubeImport turns the Kubernetes objects of every input into scenario
// entries of the same input, in object order. It decodes every object
// first, so that a workload can see the pods it already has and a
// DaemonSet every node, whichever file they are in.
type kubeImport struct {
	// kueueOn: the inputs hold Kueue objects, so Kueue runs (its keys on
	// pods and jobs are read, not warned about)
	kueueOn bool
	// kueueRuns: some input holds a Kueue object, wherever it is (a
	// dumped Workload's queue and admission are read then)
	kueueRuns bool
	tally     *schema.Tally // the pods and nodes of the inputs so far
	ws        Warnings
	plugins   fw.Registry // the plugins a configuration may name
	// skipUnknown leaves plugins no registry has out of a configuration,
	// with a warning, instead of failing (SkipUnknownPlugins)
	skipUnknown bool
	objs        []kubeDecoded

	nodes     []cluster.Node                   // every node at time 0, for DaemonSets
	owned     map[kubeOwnerKey]*kubeOwnedCount // pods and replica sets by controller
	selectors map[kubeOwnerKey]*schema.LabelSelector
	podNames  map[cluster.PodKey]bool // every pod of the inputs, made ones too

	// v1alpha1 are the v1.35 Workloads by namespace and name, refUses the
	// pods that name their groups (versions.go)
	v1alpha1  map[[2]string]*v1alpha1Workload
	refUses   []workloadRefUse
	workloads map[[2]string]*Object // every Workload, by namespace and name

	// madeGroups are the scheduler-plugins PodGroups the importer makes
	// for an operator (a TrainJob's coscheduling, a Kubeflow job's gang),
	// by "label namespace/name", which their pods join by that label
	madeGroups map[string]madeGroup

	// byKindName are the objects of the inputs by namespace, kind and
	// name, made when a Kueue Workload looks for its owner
	byKindName map[kubeOwnerKey]*Object
	// templates are the pod templates of the kinds whose operators make
	// the pods (JobSet, TrainJob, the Kubeflow jobs, LeaderWorkerSet, Ray,
	// Volcano), by where the pod entries made from them point: the gang
	// formats and the notes read them as a Deployment's template
	// (members.go)
	templates map[templateKey]templateMeta
}

// madeGroup is a PodGroup entry the importer made: File.PodGroups[i].
type madeGroup struct {
	f *schema.File
	i int
}

// kubeDecoded is a decoded object, the input it belongs to, and the
// paths of the fields it holds that are not modelled.
type kubeDecoded struct {
	in         *Input
	o          *Object
	v          any
	unmodelled []string
}

// kubeOwnerKey identifies a controller: namespace, kind and name.
type kubeOwnerKey struct{ namespace, kind, name string }

// kubeOwnedCount is what a controller has in the inputs already.
type kubeOwnedCount struct {
	active    int             // pods not finished
	succeeded int             // pods that succeeded (a Job counts them)
	failed    int             // pods that failed (a Job counts them)
	nodes     map[string]bool // nodes with one of its pods (a DaemonSet's)
	children  int             // ReplicaSets (a Deployment's)
	// the completion indexes of an Indexed Job's pods, by their label
	activeIndexes, succeededIndexes map[int]bool
}

// Input is one input file as the importer sees it: the scenario entries
// it holds (none for a file of objects) and its objects. Import adds the
// entries the objects make to File.
type Input struct {
	File    *schema.File
	Objects []*Object
}

// Warnings receives what the objects hold that the simulator does not
// model: a kind's field (or a whole kind, field ""), what is done about
// it, and the object, as "file: Kind ns/name".
type Warnings interface {
	Add(kind, field, detail, object string)
}

// ImportOption changes how Import reads the objects.
type ImportOption func(*kubeImport)

// SkipUnknownPlugins makes a plugin that neither the registry nor
// kube-scheduler has (an out-of-tree plugin, or a misspelt name), named in
// a KubeSchedulerConfiguration, a warning: it is left out of its profile,
// with its arguments. Without it, such a name is an error at its entry.
func SkipUnknownPlugins() ImportOption { return func(k *kubeImport) { k.skipUnknown = true } }

// Import converts the objects of every input into entries of its File,
// counting the nodes and pods they make with t. plugins are the plugins a
// KubeSchedulerConfiguration may configure (the scheduler's and the
// user's); an error is an *Error naming the object and its field, or,
// when several objects are wrong, a *schema.Errors of them (each
// object's first, up to schema.MaxErrors).
func Import(ins []*Input, plugins fw.Registry, ws Warnings, t *schema.Tally, opts ...ImportOption) error {
	if err := nameGenerated(ins); err != nil {
		return err
	}
	d := &schema.Decoder{} // one cache of struct fields for every object
	k := &kubeImport{tally: t, ws: ws, plugins: plugins, owned: map[kubeOwnerKey]*kubeOwnedCount{},
		selectors: map[kubeOwnerKey]*schema.LabelSelector{}, podNames: map[cluster.PodKey]bool{}, madeGroups: map[string]madeGroup{},
		templates: map[templateKey]templateMeta{}}
	for _, opt := range opts {
		opt(k)
	}
	var errs schema.Errors // every object's first error, up to schema.MaxErrors
	for _, in := range ins {
		for _, obj := range in.Objects {
			v, unmodelled, err := decodeKube(obj, ws, d)
			if !errs.Add(err) {
				return errs.Err()
			}
			if v != nil && err == nil {
				k.objs = append(k.objs, kubeDecoded{in, obj, v, unmodelled})
			}
		}
	}
	k.index(ins)
	for _, d := range k.objs {
		switch d.v.(type) {
		case *kueueFlavorObject, *kueueClusterQueueObject, *kueueLocalQueueObject, *kueueCohortObject,
			*kueuePriorityClassObject, *kueueTopologyObject, *kueueConfigObject:
			k.kueueRuns = true
		}
	}
	// each input's pods and controllers grown once to what its objects
	// make at least (a Pod one pod, a Job one controller), not by copies
	for _, in := range ins {
		pods, ctls := 0, 0
		for _, d := range k.objs {
			if d.in != in {
				continue
			}
			switch d.v.(type) {
			case *kubePod:
				pods++
			case *kubeJob:
				ctls++
			}
		}
		in.File.Pods = slices.Grow(in.File.Pods, pods)
		in.File.Controllers = slices.Grow(in.File.Controllers, ctls)
	}
	made := make([]madePods, 0, len(k.objs)) // the pods each object made, for the gang formats
	for _, d := range k.objs {
		from, ctls := len(d.in.File.Pods), len(d.in.File.Controllers)
		if err := k.convert(d); err != nil {
			if !errs.Add(err) {
				return errs.Err()
			}
			continue
		}
		if err := kueueQueue(d, d.in.File.Controllers[ctls:]); !errs.Add(err) {
			return errs.Err()
		}
		made = append(made, madePods{d, from, len(d.in.File.Pods)})
		if !finished(d.v) { // a finished pod is left out, and what it holds with it
			for _, path := range d.unmodelled {
				ws.Add(d.o.kind, schema.FieldOf(path), schema.NotModelled, d.o.file+": "+d.o.ref())
			}
		}
	}
	if err := errs.Err(); err != nil {
		return err // the gangs of objects in error would only repeat them
	}
	k.workloadRefs()
	if err := k.readGangs(made); err != nil {
		return err
	}
	for _, in := range ins {
		sortPods(in.File)
	}
	return nil
}

// convert adds the entries an object makes to its input.
func (k *kubeImport) convert(d kubeDecoded) error {
	f, o := d.in.File, d.o
	switch v := d.v.(type) {
	case *kubeNode:
		if err := k.tally.AddNodes(1); err != nil {
			return o.fail(nil, "metadata.name", err)
		}
		s, err := k.node(o, v)
		f.Nodes = append(f.Nodes, s)
		return err
	case *kubePod:
		return k.pod(o, v, f)
	case *kubeNamespace:
		f.Namespaces = append(f.Namespaces, schema.Namespace{Line: o.line, Name: o.name, Labels: v.Metadata.Labels, Origin: newOrigin(o, kubeMetaFields)})
		return checkName(o, true)
	case *kubePriorityClass:
		return k.priorityClass(o, v, f)
	case *kubeBudget:
		return k.budget(o, v, f)
	case *kubePodGroup:
		return k.podGroup(o, v, f)
	case *kubeCompositePodGroup:
		return k.compositePodGroup(o, v, f)
	case *kubePodGroupV1alpha2:
		return k.podGroupV1alpha2(o, v, f)
	case *kubeWorkloadV1alpha1:
		return k.workloadV1alpha1(o, v, f)
	case *kubeWorkloadV1alpha2:
		return k.workloadV1alpha2(o, v)
	case *kubeWorkload:
		return k.workloadV1(o, v)
	case *pluginsPodGroup:
		return k.pluginsPodGroup(o, v, f)
	case *kubeLeaderWorkerSet:
		return k.leaderWorkerSet(o, v, f)
	case *kubeRayCluster:
		return k.rayCluster(o, v, f)
	case *kubeRayJob:
		return k.rayJob(o, v, f)
	case *volcanoJob:
		return k.volcanoJob(o, v, f)
	case *kueueWorkload:
		return k.kueueWorkload(o, v, f)
	case *kueueFlavorObject:
		return k.kueueRead(o, k.kueueFlavor(o, v, f))
	case *kueueClusterQueueObject:
		return k.kueueRead(o, k.kueueClusterQueue(o, v, f))
	case *kueueLocalQueueObject:
		return k.kueueRead(o, k.kueueLocalQueue(o, v, f))
	case *kueueCohortObject:
		return k.kueueRead(o, k.kueueCohort(o, v, f))
	case *kueuePriorityClassObject:
		return k.kueueRead(o, k.kueuePriorityClass(o, v, f))
	case *kueueTopologyObject:
		return k.kueueRead(o, k.kueueTopology(o, v, f))
	case *kueueConfigObject:
		return k.kueueRead(o, k.kueueConfig(o, v, f))
	case *kubeSchedulerConfig:
		return k.config(o, v, f)
	case *kubeDeviceClass, *kubeResourceSlice, *kubeResourceClaim, *kubeResourceClaimTemplate:
		return k.devices(o, v, f)
	case *kubeLimitRange:
		f.LimitRanges = append(f.LimitRanges, schema.LimitRange{Line: o.line, Name: o.name, Namespace: o.namespace,
			Limits: v.Spec.Limits, Origin: newOrigin(o, kubeBudgetFields)})
		return nil
	case *kubeResourceQuota:
		f.ResourceQuotas = append(f.ResourceQuotas, schema.ResourceQuota{Line: o.line, Name: o.name, Namespace: o.namespace,
			Hard: v.Spec.Hard, Scopes: v.Spec.Scopes, ScopeSelector: v.Spec.ScopeSelector, Origin: newOrigin(o, kubeBudgetFields)})
		return nil
	}
	return k.workload(o, d.v, f)
}

// finished reports whether v is a pod that has finished (Succeeded or
// Failed), which the importer leaves out.
func finished(v any) bool {
	p, ok := v.(*kubePod)
	return ok && (p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed")
}

// sortPods orders the pods made from objects by creation time, as the
// scheduling queue meets them (first seen first, at equal priority); pods
// created at the same time, or without a time, keep their order. A
// scenario file's pods are left as they are.
func sortPods(f *schema.File) {
	created := func(p *schema.Pod) time.Time {
		if p.Origin == nil {
			return time.Time{}
		}
		return p.Origin.Created
	}
	slices.SortStableFunc(f.Pods, func(a, b schema.Pod) int { return created(&a).Compare(created(&b)) })
}

// room counts n pods an object makes; the error names the object and the
// field that asks for them.
func (k *kubeImport) room(o *Object, field string, n int) error {
	if n <= 0 {
		return nil
	}
	if err := k.tally.AddPods(n); err != nil {
		return o.fail(nil, field, err)
	}
	return nil
}
