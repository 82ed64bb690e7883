package kube

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The Kubeflow operators' jobs: the MPI operator's MPIJob
// (kubeflow.org/v2beta1) runs a launcher Job <job>-launcher and worker
// pods <job>-worker-<i>, which serve ssh until deleted; the training
// operator's PyTorchJob (kubeflow.org/v1) runs pods <job>-master-0 and
// <job>-worker-<i> (without a Master, worker 0 carries the master's
// job-role label, as the operator gives it). Each is a parent
// (controllers.Parent) of its replica
// types; the operators make a replica's pod again under its name when it
// is deleted, and the job succeeds with its launcher Job, or its master
// (its workers without one); runPolicy.cleanPodPolicy says which pods it
// deletes then. With runPolicy.schedulingPolicy, or pods for Volcano, the
// operator makes a PodGroup named as the job, of minMember
// schedulingPolicy.minAvailable (every pod by default), which the
// importer reads as a gang.

// The labels the Kubeflow operators give their pods.
const (
	kfLabel        = "training.kubeflow.org/"
	kfReplicaIndex = kfLabel + "replica-index"
)

type kubeRunPolicy struct {
	CleanPodPolicy          string  `yaml:"cleanPodPolicy"`
	TTLSecondsAfterFinished skipped `yaml:"ttlSecondsAfterFinished"`
	ActiveDeadlineSeconds   *int64  `yaml:"activeDeadlineSeconds"`
	BackoffLimit            *int32  `yaml:"backoffLimit"`
	Suspend                 *bool   `yaml:"suspend"`
	ManagedBy               string  `yaml:"managedBy"`
	SchedulingPolicy        *struct {
		MinAvailable           *int32     `yaml:"minAvailable"`
		Queue                  unmodelled `yaml:"queue"`
		MinResources           unmodelled `yaml:"minResources"`
		PriorityClass          unmodelled `yaml:"priorityClass"`
		ScheduleTimeoutSeconds unmodelled `yaml:"scheduleTimeoutSeconds"`
	} `yaml:"schedulingPolicy"`
}

type kubeReplicaSpec struct {
	Replicas      *int32          `yaml:"replicas"`
	Template      kubePodTemplate `yaml:"template"`
	RestartPolicy string          `yaml:"restartPolicy"`
}

type kubeMPIJob struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		SlotsPerWorker         skipped       `yaml:"slotsPerWorker"`
		RunLauncherAsWorker    *bool         `yaml:"runLauncherAsWorker"`
		RunPolicy              kubeRunPolicy `yaml:"runPolicy"`
		SSHAuthMountPath       skipped       `yaml:"sshAuthMountPath"`
		LauncherCreationPolicy string        `yaml:"launcherCreationPolicy"`
		MPIImplementation      skipped       `yaml:"mpiImplementation"`
		MPIReplicaSpecs        struct {
			Launcher *kubeReplicaSpec `yaml:"Launcher"`
			Worker   *kubeReplicaSpec `yaml:"Worker"`
		} `yaml:"mpiReplicaSpecs"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type kubePyTorchJob struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		RunPolicy           kubeRunPolicy `yaml:"runPolicy"`
		ElasticPolicy       unmodelled    `yaml:"elasticPolicy"`
		NprocPerNode        skipped       `yaml:"nprocPerNode"`
		PyTorchReplicaSpecs struct {
			Master *kubeReplicaSpec `yaml:"Master"`
			Worker *kubeReplicaSpec `yaml:"Worker"`
		} `yaml:"pytorchReplicaSpecs"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// kubeflowJob is what the two kinds share: the parent, and its gang.
type kubeflowJob struct {
	o        *Object
	src      *jobSetSource
	policy   *kubeRunPolicy
	parent   *controllers.Parent
	operator string // the operator-name label
	pods     int32  // every pod, the default minMember
	volcano  bool   // a template names Volcano's scheduler
}

// start checks the run policy and records the parent; false when another
// controller manages the job.
func (k *kubeImport) kubeflowStart(j *kubeflowJob, managers []string, f *schema.File) (bool, error) {
	o, rp := j.o, j.policy
	if m := rp.ManagedBy; m != "" && m != managers[0] {
		k.ws.Add(o.kind, "spec.runPolicy.managedBy", "another controller makes the pods: none are made", o.file+": "+o.ref())
		return false, nil
	}
	switch rp.CleanPodPolicy {
	case "", "None":
		j.parent.Clean = controllers.CleanNone
	case "Running":
		j.parent.Clean = controllers.CleanRunning
	case "All":
		j.parent.Clean = controllers.CleanAll
	default:
		return false, o.failf(nil, "spec.runPolicy.cleanPodPolicy", "%q is not None, Running or All", rp.CleanPodPolicy)
	}
	j.parent.Suspended = rp.Suspend != nil && *rp.Suspend
	j.parent.IndexLabel = kfReplicaIndex
	f.Controllers = append(f.Controllers, schema.Controller{Kind: o.kind, Namespace: o.namespace, Name: o.name,
		Object: o.ref(), File: o.file, Line: o.line, Parent: j.parent})
	return true, nil
}

// gang makes the job's PodGroup when the operator would: with
// runPolicy.schedulingPolicy, or pods for Volcano.
func (k *kubeImport) kubeflowGang(j *kubeflowJob, f *schema.File) error {
	o, sp := j.o, j.policy.SchedulingPolicy
	if sp == nil && !j.volcano {
		return nil
	}
	n := j.pods
	if sp != nil && sp.MinAvailable != nil {
		if *sp.MinAvailable < 0 || *sp.MinAvailable > j.pods {
			return o.failf(nil, "spec.runPolicy.schedulingPolicy.minAvailable", "%d is not in 0..%d, the job's pods", *sp.MinAvailable, j.pods)
		}
		n = *sp.MinAvailable
	}
	scheduler := "scheduler-plugins' Coscheduling (the operator's gang scheduler)"
	if j.volcano {
		scheduler = "Volcano (the operator's gang scheduler); kube-scheduler schedules the pods here, the gang kept"
	} else {
		j.src.podLabels = map[string]string{pluginsLabel: o.name}
	}
	k.ws.Add(o.kind, "spec.runPolicy.schedulingPolicy", fmt.Sprintf("read as a gang: a PodGroup named as the job, of minCount minAvailable "+
		"(every pod by default); the real cluster needs %s", scheduler), o.file+": "+o.ref())
	j.src.podGroup = o.name
	f.PodGroups = append(f.PodGroups, schema.PodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: o.name, Namespace: o.namespace,
		Origin: newOrigin(o, map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "minCount": "spec.runPolicy.schedulingPolicy.minAvailable", "": "spec"})},
		MinCount: &n})
	if !j.volcano {
		k.madeGroups[pluginsLabel+" "+o.namespace+"/"+o.name] = madeGroup{f, len(f.PodGroups) - 1}
	}
	return nil
}

// replicaCount reads a replica spec's replicas (def when not given).
func replicaCount(o *Object, r *kubeReplicaSpec, at string, def int32) (int32, error) {
	n := def
	if r.Replicas != nil {
		n = *r.Replicas
	}
	if n < 0 {
		return 0, o.failf(nil, at+".replicas", "%d is negative", n)
	}
	switch r.RestartPolicy {
	case "", "Always", "OnFailure", "Never", "ExitCode":
	default:
		return 0, o.failf(nil, at+".restartPolicy", "%q is not Always, OnFailure, Never or ExitCode", r.RestartPolicy)
	}
	return n, nil
}

// replicaEntry makes the pod entry of a replica spec, with the operator's
// labels and the gang.
func (k *kubeImport) replicaEntry(j *kubeflowJob, r *kubeReplicaSpec, at string, labels map[string]string, owner *cluster.Owner) (schema.Pod, error) {
	e, err := k.childTemplate(j.src, &r.Template.Metadata, &r.Template.Spec, at+".template")
	if err != nil {
		return e, err
	}
	all := maps.Clone(r.Template.Metadata.Labels)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, j.src.podLabels)
	maps.Copy(all, labels)
	e.Labels, e.Controller = all, owner
	if j.volcano && e.SchedulerName == "volcano" && j.src.podGroup != "" {
		e.SchedulerName = ""
	}
	return e, nil
}

// mpiJob converts an MPIJob: its launcher Job and its workers.
func (k *kubeImport) mpiJob(o *Object, v *kubeMPIJob, f *schema.File) error {
	spec := &v.Spec
	rs := &spec.MPIReplicaSpecs
	if rs.Launcher == nil {
		return o.failf(nil, "spec.mpiReplicaSpecs.Launcher", "required")
	}
	if _, err := replicaCount(o, rs.Launcher, "spec.mpiReplicaSpecs.Launcher", 1); err != nil {
		return err
	}
	if n := rs.Launcher.Replicas; n != nil && *n != 1 {
		return o.failf(nil, "spec.mpiReplicaSpecs.Launcher.replicas", "%d: an MPIJob has one launcher", *n)
	}
	workers := int32(0)
	if rs.Worker != nil {
		var err error
		if workers, err = replicaCount(o, rs.Worker, "spec.mpiReplicaSpecs.Worker", 0); err != nil {
			return err
		}
		if rs.Worker.Replicas != nil && workers < 1 {
			return o.failf(nil, "spec.mpiReplicaSpecs.Worker.replicas", "%d: the MPI operator's webhook asks for at least 1", workers)
		}
	}
	// the operator's webhook checks the name by the last worker's
	// hostname, a DNS-1035 label
	if err := dns1035Name(o, fmt.Sprintf("%s-worker-%d", o.name, max(workers, 1)-1)); err != nil {
		return err
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	p := &controllers.Parent{Roles: []controllers.Role{{Name: "worker"}, {Name: "launcher"}}, SuccessTargets: []string{"launcher"}}
	switch spec.LauncherCreationPolicy {
	case "", "AtStartup":
	case "WaitForWorkersReady":
		p.Roles[1].DependsOn = []controllers.Dependency{{Role: "worker"}}
	default:
		return o.failf(nil, "spec.launcherCreationPolicy", "%q is not AtStartup or WaitForWorkersReady", spec.LauncherCreationPolicy)
	}
	j := &kubeflowJob{o: o, policy: &spec.RunPolicy, parent: p, pods: workers + 1,
		src: &jobSetSource{o: o, ref: o.ref(), name: o.name, namespace: o.namespace, created: created}}
	j.volcano = rs.Launcher.Template.Spec.SchedulerName == "volcano" || rs.Worker != nil && rs.Worker.Template.Spec.SchedulerName == "volcano"
	if ok, err := k.kubeflowStart(j, []string{"kubeflow.org/mpi-operator", "kueue.x-k8s.io/multikueue"}, f); !ok || err != nil {
		return err
	}
	if err := k.kubeflowGang(j, f); err != nil {
		return err
	}
	if spec.RunLauncherAsWorker != nil && *spec.RunLauncherAsWorker {
		k.ws.Add(o.kind, "spec.runLauncherAsWorker", "the launcher runs as it would; the workers' replica-index labels start at 0, not 1", o.file+": "+o.ref())
	}
	// the launcher Job
	launcher := o.name + "-launcher"
	rules := &controllers.Job{Parallelism: 1, Completions: new(int32(1)), BackoffLimit: defaultBackoffLimit, ReplaceFailedOnly: true,
		Suspended: p.Suspended}
	rp := &spec.RunPolicy
	if b := rp.BackoffLimit; b != nil {
		if *b < 0 {
			return o.failf(nil, "spec.runPolicy.backoffLimit", "%d is negative", *b)
		}
		rules.BackoffLimit = *b
	}
	if d := rp.ActiveDeadlineSeconds; d != nil {
		if *d <= 0 {
			return o.failf(nil, "spec.runPolicy.activeDeadlineSeconds", "%d is not positive", *d)
		}
		rules.ActiveDeadline = secondsOf(*d)
	}
	le, err := k.replicaEntry(j, rs.Launcher, "spec.mpiReplicaSpecs.Launcher", map[string]string{
		kfLabel + "operator-name": "mpi-operator", kfLabel + "job-name": o.name, kfLabel + "job-role": "launcher",
		"batch.kubernetes.io/job-name": launcher, "job-name": launcher},
		&cluster.Owner{Kind: controllers.KindJob, Name: launcher, Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/job-name": launcher}}})
	if err != nil {
		return err
	}
	if rs.Worker != nil {
		we, err := k.replicaEntry(j, rs.Worker, "spec.mpiReplicaSpecs.Worker", map[string]string{
			kfLabel + "operator-name": "mpi-operator", kfLabel + "job-name": o.name, kfLabel + "job-role": "worker"},
			&cluster.Owner{Kind: o.kind, Name: o.name})
		if err != nil {
			return err
		}
		we.KeepRunning = true
		c := schema.Controller{Kind: o.kind, Namespace: o.namespace, Name: o.name, Object: o.ref(),
			File: o.file, Line: o.line, Template: we, Replicas: int(workers), Of: p, Role: "worker", KeepRunning: true}
		f.Controllers = append(f.Controllers, c)
		if err := k.firstReplicaPods(o, &c, p, "spec.mpiReplicaSpecs.Worker.replicas", f); err != nil {
			return err
		}
	}
	c := schema.Controller{Kind: controllers.KindJob, Namespace: o.namespace, Name: launcher, Object: o.ref(),
		File: o.file, Line: o.line, Template: le, Job: rules, Of: p, Role: "launcher"}
	f.Controllers = append(f.Controllers, c)
	if p.Suspended || len(p.Roles[1].DependsOn) > 0 && workers > 0 {
		return nil // the launcher waits for its workers
	}
	have := k.owned[kubeOwnerKey{o.namespace, controllers.KindJob, launcher}]
	t := &kubeTemplate{o: o, entry: le, labels: le.Labels, owner: le.Controller}
	from := len(f.Pods)
	err = k.addIndexed(f, t, launcher, max(0, 1-have.activeCount()-have.succeededCount()), "spec.mpiReplicaSpecs.Launcher", func(int) map[string]string { return nil })
	for i := from; i < len(f.Pods); i++ {
		f.Pods[i] = labelGang(f.Pods[i])
	}
	return err
}

// firstReplicaPods adds the pods <name>-<role>-<index> of a Kubeflow
// job's replicas that the inputs lack, made at once (none while the job
// is suspended); field is the replicas', which errors name.
func (k *kubeImport) firstReplicaPods(o *Object, c *schema.Controller, p *controllers.Parent, field string, f *schema.File) error {
	if p.Suspended {
		return nil
	}
	if err := k.room(o, field, c.Replicas); err != nil {
		return err
	}
	t := &kubeTemplate{o: o, entry: c.Template, labels: c.Template.Labels, owner: c.Template.Controller}
	for i := range c.Replicas {
		name := c.Name + "-" + c.Role + "-" + strconv.Itoa(i)
		key := cluster.MakePodKey(o.namespace, name)
		if k.podNames[key] {
			continue // a pod of the inputs (a dump's)
		}
		k.podNames[key] = true
		own := map[string]string{kfReplicaIndex: strconv.Itoa(i)}
		if i == 0 {
			if r := slices.IndexFunc(p.Roles, func(r controllers.Role) bool { return r.Name == c.Role }); r >= 0 {
				maps.Copy(own, p.Roles[r].FirstLabels)
			}
		}
		f.Pods = append(f.Pods, labelGang(t.pod(name, own)))
	}
	return nil
}

// labelGang leaves a pod made at time 0 to join its gang by its
// scheduler-plugins label, as the pods of the inputs do (members.go),
// when the label names the gang its template joins.
func labelGang(p schema.Pod) schema.Pod {
	for _, key := range []string{pluginsLabel, legacyLabel} {
		if v, ok := p.Labels[key]; ok && v == p.PodGroup {
			p.PodGroup = ""
		}
	}
	return p
}

// pyTorchJob converts a PyTorchJob: its master and its workers.
func (k *kubeImport) pyTorchJob(o *Object, v *kubePyTorchJob, f *schema.File) error {
	spec := &v.Spec
	rs := &spec.PyTorchReplicaSpecs
	if rs.Master == nil && rs.Worker == nil {
		return o.failf(nil, "spec.pytorchReplicaSpecs", "required: a Master or Worker replica spec")
	}
	types := []struct {
		role string
		spec *kubeReplicaSpec
		at   string
		n    int32
	}{{"master", rs.Master, "spec.pytorchReplicaSpecs.Master", 0}, {"worker", rs.Worker, "spec.pytorchReplicaSpecs.Worker", 0}}
	total := int32(0)
	volcano := false
	for i := range types {
		t := &types[i]
		if t.spec == nil {
			continue
		}
		var err error
		if t.n, err = replicaCount(o, t.spec, t.at, 1); err != nil {
			return err
		}
		total += t.n
		volcano = volcano || t.spec.Template.Spec.SchedulerName == "volcano"
	}
	if rs.Master != nil && types[0].n != 1 {
		return o.failf(nil, "spec.pytorchReplicaSpecs.Master.replicas", "%d: a PyTorchJob has one master", types[0].n)
	}
	// the training operator's webhook: a DNS-1035 name, workers at least
	// 1, a container named pytorch in each replica type
	if err := dns1035Name(o, o.name); err != nil {
		return err
	}
	if rs.Worker != nil && rs.Worker.Replicas != nil && types[1].n < 1 {
		return o.failf(nil, "spec.pytorchReplicaSpecs.Worker.replicas", "%d: the training operator's webhook asks for at least 1", types[1].n)
	}
	for _, t := range types {
		if t.spec != nil && !slices.ContainsFunc(t.spec.Template.Spec.Containers, func(c kubeContainer) bool { return c.Name == "pytorch" }) {
			return o.failf(nil, t.at+".template.spec.containers", "required: a container named pytorch (the training operator's webhook asks for one)")
		}
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	p := &controllers.Parent{SuccessTargets: []string{"worker"}}
	if rs.Master != nil {
		p.SuccessTargets = []string{"master"}
	}
	j := &kubeflowJob{o: o, policy: &spec.RunPolicy, parent: p, pods: total, volcano: volcano,
		src: &jobSetSource{o: o, ref: o.ref(), name: o.name, namespace: o.namespace, created: created}}
	for _, t := range types {
		if t.spec != nil {
			p.Roles = append(p.Roles, controllers.Role{Name: t.role})
		}
	}
	if rs.Master == nil { // the operator's master is then worker 0
		p.Roles[0].FirstLabels = map[string]string{kfLabel + "job-role": "master"}
	}
	if ok, err := k.kubeflowStart(j, []string{"kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue"}, f); !ok || err != nil {
		return err
	}
	if spec.RunPolicy.BackoffLimit != nil {
		k.ws.Add(o.kind, "spec.runPolicy.backoffLimit", schema.NotModelled, o.file+": "+o.ref())
	}
	if spec.RunPolicy.ActiveDeadlineSeconds != nil {
		k.ws.Add(o.kind, "spec.runPolicy.activeDeadlineSeconds", schema.NotModelled, o.file+": "+o.ref())
	}
	if err := k.kubeflowGang(j, f); err != nil {
		return err
	}
	for _, t := range types {
		if t.spec == nil {
			continue
		}
		labels := map[string]string{kfLabel + "operator-name": "pytorchjob-controller", kfLabel + "job-name": o.name, kfLabel + "replica-type": t.role}
		if t.role == "master" {
			labels[kfLabel+"job-role"] = "master"
		}
		e, err := k.replicaEntry(j, t.spec, t.at, labels, &cluster.Owner{Kind: o.kind, Name: o.name})
		if err != nil {
			return err
		}
		c := schema.Controller{Kind: o.kind, Namespace: o.namespace, Name: o.name, Object: o.ref(),
			File: o.file, Line: o.line, Template: e, Replicas: int(t.n), Of: p, Role: t.role}
		f.Controllers = append(f.Controllers, c)
		if err := k.firstReplicaPods(o, &c, p, t.at+".replicas", f); err != nil {
			return err
		}
	}
	return nil
}

// secondsOf is a run policy's seconds, capped as a Job's deadline is.
func secondsOf(s int64) time.Duration {
	return time.Duration(min(s, int64(maxDeadlineSeconds))) * time.Second
}

// dns1035Name checks the object's name as the Kubeflow operators'
// webhooks do, by host, a name made from it: a DNS-1035 label, which
// starts with a letter.
func dns1035Name(o *Object, host string) error {
	if err := checkName(o, true); err != nil {
		return err
	}
	if err := schema.NameError(host, true); err != nil {
		return o.failf(nil, "metadata.name", "the pod hostname %s: %v", host, err)
	}
	if c := host[0]; c < 'a' || c > 'z' {
		return o.failf(nil, "metadata.name", "%q must start with a letter (a DNS-1035 label)", host)
	}
	return nil
}
