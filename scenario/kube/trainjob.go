package kube

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Kubeflow Trainer's TrainJob (trainer.kubeflow.org/v1alpha1) names a
// runtime, a ClusterTrainingRuntime or a TrainingRuntime of its namespace,
// whose template is a JobSet's spec: the trainer makes that JobSet, named
// as the TrainJob, with the TrainJob's choices applied, and the importer
// reads it as a JobSet (jobset.go). The replicated job labelled
// trainer.kubeflow.org/trainjob-ancestor-step: trainer runs the nodes:
// one Job of numNodes pods (the TrainJob's, or the runtime's mlPolicy's),
// whose container "node" takes resourcesPerNode over its own resources;
// every other replicated job (the initializers) runs parallelism pods. The
// runtime's podGroupPolicy puts every pod in one gang named as the
// TrainJob, of minMember the pods of all its replicated jobs, as the
// trainer's coscheduling and Volcano plugins make it.

// trainerVersion is the API version of the Trainer's kinds.
const trainerVersion = "trainer.kubeflow.org/v1alpha1"

// The Trainer's label of a replicated job's step, and its value for the
// nodes; the container resourcesPerNode applies to.
const (
	trainerAncestor = "trainer.kubeflow.org/trainjob-ancestor-step"
	trainerStep     = "trainer"
	trainerNode     = "node"
)

// kubeTrainingRuntime is a ClusterTrainingRuntime or a TrainingRuntime.
type kubeTrainingRuntime struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		MLPolicy *struct {
			openFields
			NumNodes *int32 `yaml:"numNodes"`
			MPI      *struct {
				openFields
				RunLauncherAsNode *bool `yaml:"runLauncherAsNode"`
			} `yaml:"mpi"`
		} `yaml:"mlPolicy"`
		PodGroupPolicy *struct {
			Coscheduling *struct {
				ScheduleTimeoutSeconds *int32 `yaml:"scheduleTimeoutSeconds"`
			} `yaml:"coscheduling"`
			Volcano *struct{ openFields } `yaml:"volcano"`
		} `yaml:"podGroupPolicy"`
		Template struct {
			Metadata kubeMeta       `yaml:"metadata"`
			Spec     kubeJobSetSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubeTrainJob struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		RuntimeRef struct {
			Name     string `yaml:"name"`
			APIGroup string `yaml:"apiGroup"`
			Kind     string `yaml:"kind"`
		} `yaml:"runtimeRef"`
		Initializer skipped `yaml:"initializer"` // where the initializers read: no meaning for scheduling
		Trainer     *struct {
			Image            skipped        `yaml:"image"`
			Command          skipped        `yaml:"command"`
			Args             skipped        `yaml:"args"`
			Env              skipped        `yaml:"env"`
			NumNodes         *int32         `yaml:"numNodes"`
			ResourcesPerNode *kubeResources `yaml:"resourcesPerNode"`
			NumProcPerNode   skipped        `yaml:"numProcPerNode"`
		} `yaml:"trainer"`
		RuntimePatches        unmodelled `yaml:"runtimePatches"`
		PodTemplateOverrides  unmodelled `yaml:"podTemplateOverrides"`
		Labels                skipped    `yaml:"labels"`
		Annotations           skipped    `yaml:"annotations"`
		Suspend               *bool      `yaml:"suspend"`
		ActiveDeadlineSeconds unmodelled `yaml:"activeDeadlineSeconds"`
		ManagedBy             string     `yaml:"managedBy"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// trainJob makes the JobSet of a TrainJob from its runtime.
func (k *kubeImport) trainJob(o *Object, v *kubeTrainJob, f *schema.File) error {
	spec := &v.Spec
	first := o.file + ": " + o.ref()
	if m := spec.ManagedBy; m != "" && m != "trainer.kubeflow.org/trainjob-controller" {
		k.ws.Add(o.kind, "spec.managedBy", "another controller makes the JobSet: no pod is made", first)
		return nil
	}
	rt, ro, err := k.runtimeOf(o, v)
	if err != nil {
		return err
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	js := rt.Spec.Template.Spec // a copy: the runtime's serves every TrainJob
	js.ReplicatedJobs = slices.Clone(js.ReplicatedJobs)
	if spec.Suspend != nil {
		js.Suspend = spec.Suspend
	}
	ml := rt.Spec.MLPolicy
	trainer := func(i int) bool {
		return ml != nil && js.ReplicatedJobs[i].Template.Metadata.Labels[trainerAncestor] == trainerStep
	}
	launcherAsNode := func(i int) bool {
		return ml != nil && ml.MPI != nil && ml.MPI.RunLauncherAsNode != nil && *ml.MPI.RunLauncherAsNode && js.ReplicatedJobs[i].Name == trainerNode
	}
	nodes, from, field := int32(1), ro, "spec.mlPolicy.numNodes"
	if ml != nil && ml.NumNodes != nil {
		nodes = *ml.NumNodes
	}
	if t := spec.Trainer; t != nil && t.NumNodes != nil {
		if *t.NumNodes < 1 {
			return o.failf(nil, "spec.trainer.numNodes", "%d is not positive", *t.NumNodes)
		}
		nodes, from, field = *t.NumNodes, o, "spec.trainer.numNodes"
	}
	// the trainer's Job makes a pod per node: refused now against the
	// limit of pods, naming where the count comes from (the JobSet's
	// errors name the runtime's template)
	if err := k.tally.Room(int(nodes)); err != nil {
		return from.fail(nil, field, err)
	}
	counts := make([]int32, len(js.ReplicatedJobs))
	members := int32(0)
	for i := range js.ReplicatedJobs {
		rj := &js.ReplicatedJobs[i]
		counts[i] = 1
		if p := rj.Template.Spec.Parallelism; p != nil {
			counts[i] = *p
		}
		if trainer(i) {
			one := int32(1)
			rj.Replicas, counts[i] = &one, nodes // the trainer runs one Job of the nodes
		}
		members += counts[i]
	}
	src := &jobSetSource{o: ro, at: "spec.template.spec", ref: o.ref(), refFile: o.file, name: o.name, namespace: o.namespace, kind: o.kind,
		annotations: rt.Spec.Template.Metadata.Annotations, uid: v.Metadata.UID, created: created,
		count: func(i int) *int32 { return &counts[i] }}
	if t := spec.Trainer; t != nil && t.ResourcesPerNode != nil {
		per := t.ResourcesPerNode
		src.resources = func(i int, ps *kubePodSpec) (*kubePodSpec, bool) {
			if !trainer(i) && !launcherAsNode(i) {
				return nil, false
			}
			out := *ps
			out.Containers = slices.Clone(ps.Containers)
			for c := range out.Containers {
				if out.Containers[c].Name == trainerNode {
					r := &out.Containers[c].Resources
					r.Requests, r.Limits = merged(r.Requests, per.Requests), merged(r.Limits, per.Limits)
					if len(per.Claims) > 0 {
						r.Claims = per.Claims
					}
					break
				}
			}
			return &out, true
		}
	}
	if pg := rt.Spec.PodGroupPolicy; pg != nil {
		if err := k.trainJobGang(o, ro, pg.Coscheduling != nil, pg.Volcano != nil, members, src, f); err != nil {
			return err
		}
		if c := pg.Coscheduling; c != nil && c.ScheduleTimeoutSeconds != nil {
			k.ws.Add(ro.kind, "spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds",
				"not modelled: the gang waits until it can be placed whole (Coscheduling gives up after the timeout, then tries again)", ro.file+": "+ro.ref())
		}
	}
	return k.jobSetOf(src, &js, f)
}

// runtimeOf finds the runtime a TrainJob names among the inputs.
func (k *kubeImport) runtimeOf(o *Object, v *kubeTrainJob) (*kubeTrainingRuntime, *Object, error) {
	ref := &v.Spec.RuntimeRef
	if ref.Name == "" {
		return nil, nil, o.failf(nil, "spec.runtimeRef.name", "required")
	}
	if g := ref.APIGroup; g != "" && g != apiGroup(trainerVersion) {
		return nil, nil, o.failf(nil, "spec.runtimeRef.apiGroup", "%q is not %s", g, apiGroup(trainerVersion))
	}
	kind := ref.Kind
	switch kind {
	case "":
		kind = "ClusterTrainingRuntime"
	case "ClusterTrainingRuntime", "TrainingRuntime":
	default:
		return nil, nil, o.failf(nil, "spec.runtimeRef.kind", "%q is not ClusterTrainingRuntime or TrainingRuntime", kind)
	}
	for _, d := range k.objs {
		if rt, ok := d.v.(*kubeTrainingRuntime); ok && d.o.kind == kind && d.o.name == ref.Name &&
			(kind == "ClusterTrainingRuntime" || d.o.namespace == o.namespace) {
			return rt, d.o, nil
		}
	}
	where := ""
	if kind == "TrainingRuntime" {
		where = " in namespace " + o.namespace
	}
	return nil, nil, o.failf(nil, "spec.runtimeRef.name", "names the %s %q, which no input defines%s: add the runtime's file "+
		"(the Trainer's Helm chart installs its ClusterTrainingRuntimes)", kind, ref.Name, where)
}

// trainJobGang makes the gang of a runtime's podGroupPolicy: a PodGroup
// named as the TrainJob, of minMember every pod of its JobSet.
func (k *kubeImport) trainJobGang(o, ro *Object, coscheduling, volcano bool, members int32, src *jobSetSource, f *schema.File) error {
	if !coscheduling && !volcano {
		return nil
	}
	first := o.file + ": " + o.ref()
	scheduler := "scheduler-plugins' Coscheduling"
	if volcano {
		scheduler = "Volcano"
	}
	k.ws.Add(ro.kind, "spec.podGroupPolicy", fmt.Sprintf("read as a gang: a PodGroup named as the TrainJob, of minCount its JobSet's pods; "+
		"the real cluster needs %s to schedule it so", scheduler), first)
	src.podGroup = o.name
	if coscheduling {
		src.podLabels = map[string]string{pluginsLabel: o.name}
	}
	n := members
	f.PodGroups = append(f.PodGroups, schema.PodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: o.name, Namespace: o.namespace,
		Origin: newOrigin(o, map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "": "spec"})}, MinCount: &n})
	if coscheduling {
		k.madeGroups[pluginsLabel+" "+o.namespace+"/"+o.name] = madeGroup{f, len(f.PodGroups) - 1}
	}
	return nil
}

// merged is base with over's values on top.
func merged(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}
