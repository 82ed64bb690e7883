package kube

import (
	"fmt"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A RayCluster (ray.io/v1) is a head pod and worker groups. KubeRay's
// controller keeps one head, <cluster>-head-<suffix>, and in each group
// its desired workers, <cluster>-<group>-worker-<suffix> (the prefix cut
// to 50 characters, lowercase): replicas bounded by minReplicas and
// maxReplicas, times numOfHosts, none when the group or the cluster is
// suspended. The simulator's suffix is the index of the pod in the order
// made (-0, -1, ...). A pod that ends or is deleted is replaced by a new
// one of the next name. Its labels are KubeRay's (ray.io/cluster,
// ray.io/node-type, ray.io/group, ray.io/identifier, ray.io/is-ray-node,
// app.kubernetes.io/name and created-by) over the template's.
//
// The gang: with a batch scheduler, KubeRay makes a PodGroup of the head
// and the desired workers (minMember desired + 1; Volcano's, minimum + 1
// with the autoscaler). The label ray.io/gang-scheduling-enabled asks for it with
// scheduler-plugins (or YuniKorn): a PodGroup <cluster>, which the pods
// join by scheduling.x-k8s.io/pod-group; a volcano.sh/queue-name label,
// or templates naming schedulerName volcano, with Volcano: a PodGroup
// ray-<cluster>-pg (ray-<rayjob>-pg for a RayJob's cluster). A sign of
// Volcano wins over the gang label: it names the batch scheduler the
// operator runs with, which the label does not.
//
// A RayJob makes a RayCluster <rayjob>-<suffix> (here <rayjob>-0) from
// its rayClusterSpec, or uses the one its clusterSelector names. In
// submissionMode K8sJobMode (the default) its submitter is a Job <rayjob>
// (backoffLimit submitterConfig.backoffLimit, 2 by default) made once the
// cluster is ready, from submitterPodTemplate or KubeRay's default
// (requests 500m cpu and 200Mi); the Job's rules are Kubernetes' Job's.
// HTTPMode and InteractiveMode make no submitter pod. With
// shutdownAfterJobFinishes the cluster is deleted when the Job finishes.

// The labels KubeRay reads and writes.
const (
	rayClusterLabel  = "ray.io/cluster"
	rayNodeTypeLabel = "ray.io/node-type"
	rayGroupLabel    = "ray.io/group"
	rayGangLabel     = "ray.io/gang-scheduling-enabled"
	rayQueueLabel    = "volcano.sh/queue-name"
	rayHeadGroup     = "headgroup"
	rayJobCluster    = "ray.io/cluster" // the clusterSelector key naming a RayCluster
)

type kubeRayHead struct {
	Template       kubePodTemplate `yaml:"template"`
	Replicas       skipped         `yaml:"replicas"` // deprecated: one head
	HeadService    skipped         `yaml:"headService"`
	EnableIngress  skipped         `yaml:"enableIngress"`
	IngressOptions skipped         `yaml:"ingressOptions"`
	Resources      skipped         `yaml:"resources"` // Ray's logical resources
	Labels         skipped         `yaml:"labels"`    // Ray's node labels
	RayStartParams skipped         `yaml:"rayStartParams"`
	ServiceType    skipped         `yaml:"serviceType"`
}

type kubeRayWorkers struct {
	Suspend            *bool           `yaml:"suspend"`
	GroupName          string          `yaml:"groupName"`
	Replicas           *int32          `yaml:"replicas"`
	MinReplicas        *int32          `yaml:"minReplicas"`
	MaxReplicas        *int32          `yaml:"maxReplicas"`
	NumOfHosts         *int32          `yaml:"numOfHosts"`
	Template           kubePodTemplate `yaml:"template"`
	IdleTimeoutSeconds skipped         `yaml:"idleTimeoutSeconds"`
	Priority           skipped         `yaml:"priority"`
	Resources          skipped         `yaml:"resources"`
	Labels             skipped         `yaml:"labels"`
	RayStartParams     skipped         `yaml:"rayStartParams"`
	ScaleStrategy      skipped         `yaml:"scaleStrategy"`
}

type kubeRayClusterSpec struct {
	HeadGroupSpec            kubeRayHead      `yaml:"headGroupSpec"`
	WorkerGroupSpecs         []kubeRayWorkers `yaml:"workerGroupSpecs"`
	Suspend                  *bool            `yaml:"suspend"`
	ManagedBy                string           `yaml:"managedBy"`
	EnableInTreeAutoscaling  *bool            `yaml:"enableInTreeAutoscaling"`
	AutoscalerOptions        skipped          `yaml:"autoscalerOptions"`
	UpgradeStrategy          skipped          `yaml:"upgradeStrategy"`
	AuthOptions              skipped          `yaml:"authOptions"`
	HeadServiceAnnotations   skipped          `yaml:"headServiceAnnotations"`
	GcsFaultToleranceOptions skipped          `yaml:"gcsFaultToleranceOptions"`
	HistoryServerOptions     skipped          `yaml:"historyServerOptions"`
	NetworkPolicy            skipped          `yaml:"networkPolicy"`
	TLSOptions               skipped          `yaml:"tlsOptions"`
	RayVersion               skipped          `yaml:"rayVersion"`
}

type kubeRayCluster struct {
	kubeHead `yaml:",inline"`
	Spec     kubeRayClusterSpec `yaml:"spec"`
	Status   skipped            `yaml:"status"`
}

type kubeRayJob struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		RayClusterSpec       *kubeRayClusterSpec `yaml:"rayClusterSpec"`
		ClusterSelector      map[string]string   `yaml:"clusterSelector"`
		SubmissionMode       string              `yaml:"submissionMode"`
		SubmitterPodTemplate *kubePodTemplate    `yaml:"submitterPodTemplate"`
		SubmitterConfig      *struct {
			BackoffLimit *int32 `yaml:"backoffLimit"`
		} `yaml:"submitterConfig"`
		ShutdownAfterJobFinishes  bool       `yaml:"shutdownAfterJobFinishes"`
		Suspend                   bool       `yaml:"suspend"`
		ManagedBy                 string     `yaml:"managedBy"`
		ActiveDeadlineSeconds     unmodelled `yaml:"activeDeadlineSeconds"`
		BackoffLimit              unmodelled `yaml:"backoffLimit"`
		DeletionStrategy          unmodelled `yaml:"deletionStrategy"`
		PreRunningDeadlineSeconds unmodelled `yaml:"preRunningDeadlineSeconds"`
		TTLSecondsAfterFinished   skipped    `yaml:"ttlSecondsAfterFinished"` // the cluster's deletion is at once
		Metadata                  skipped    `yaml:"metadata"`
		Entrypoint                skipped    `yaml:"entrypoint"`
		RuntimeEnvYAML            skipped    `yaml:"runtimeEnvYAML"`
		JobID                     skipped    `yaml:"jobId"`
		EntrypointResources       skipped    `yaml:"entrypointResources"`
		EntrypointNumCpus         skipped    `yaml:"entrypointNumCpus"`
		EntrypointNumGpus         skipped    `yaml:"entrypointNumGpus"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// rayFields translate a RayCluster's PodGroup fields.
var rayFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "": "spec"}

// rayCluster converts a RayCluster.
func (k *kubeImport) rayCluster(o *Object, v *kubeRayCluster, f *schema.File) error {
	if err := checkName(o, true); err != nil {
		return err
	}
	_, err := k.rayClusterPods(o, &v.Metadata, &v.Spec, "spec", o.name, v.Metadata.Labels, "ray-"+o.name+"-pg", f)
	return err
}

// rayGroup is a group of a RayCluster's pods: its template and how many.
type rayGroup struct {
	name     string // the group label's value
	prefix   string // the names' prefix
	template int
	count    int
}

// rayClusterPods converts the spec of the RayCluster named name (at path
// of o: "spec", or a RayJob's "spec.rayClusterSpec"), with the labels of
// the cluster object; volcanoGroup names its Volcano PodGroup. It
// reports whether the cluster makes pods.
func (k *kubeImport) rayClusterPods(o *Object, meta *kubeMeta, spec *kubeRayClusterSpec, path, name string, labels map[string]string, volcanoGroup string, f *schema.File) (bool, error) {
	first := o.file + ": " + o.ref()
	if spec.ManagedBy != "" && spec.ManagedBy != "ray.io/kuberay-operator" {
		k.ws.Add(o.kind, path+".managedBy", "another controller makes the pods: none are made", first)
		return false, nil
	}
	if len(name) > 63 {
		return false, o.failf(nil, "metadata.name", "the RayCluster name %s is longer than 63 characters", name)
	}
	created, err := creationTime(o, meta)
	if err != nil {
		return false, err
	}
	autoscaling := spec.EnableInTreeAutoscaling != nil && *spec.EnableInTreeAutoscaling
	if autoscaling {
		k.ws.Add(o.kind, path+".enableInTreeAutoscaling",
			"the Ray autoscaler is not modelled: each group keeps its replicas (bounded by minReplicas and maxReplicas), and the head gets no autoscaler container", first)
	}
	owner := &cluster.Owner{Kind: controllers.KindRayCluster, Name: name}
	head, err := k.setTemplate(o, created, &spec.HeadGroupSpec.Template, path+".headGroupSpec.template", rayLabels(spec.HeadGroupSpec.Template.Metadata.Labels, name, "head", rayHeadGroup), owner)
	if err != nil {
		return false, err
	}
	templates := []schema.Pod{head}
	groups := []rayGroup{{name: rayHeadGroup, prefix: rayPodName(name, "head"), template: 0, count: 1}}
	desired, least := 0, 0
	seen := map[string]bool{}
	for i := range spec.WorkerGroupSpecs {
		w := &spec.WorkerGroupSpecs[i]
		field := fmt.Sprintf("%s.workerGroupSpecs[%d]", path, i)
		n, low, err := rayWorkers(o, w, field)
		if err != nil {
			return false, err
		}
		if h := w.NumOfHosts; h != nil && *h < 1 {
			k.ws.Add(o.kind, path+".workerGroupSpecs[].numOfHosts", fmt.Sprintf("%d: KubeRay makes replicas times numOfHosts workers, none here", *h), first)
		}
		if seen[w.GroupName] {
			return false, o.failf(nil, field+".groupName", "%q names two worker groups", w.GroupName)
		}
		seen[w.GroupName] = true
		t, err := k.setTemplate(o, created, &w.Template, field+".template", rayLabels(w.Template.Metadata.Labels, name, "worker", w.GroupName), owner)
		if err != nil {
			return false, err
		}
		groups = append(groups, rayGroup{name: w.GroupName, prefix: rayPodName(name+"-"+w.GroupName, "worker"), template: len(templates), count: n})
		templates = append(templates, t)
		desired, least = desired+n, least+low
	}
	if spec.Suspend != nil && *spec.Suspend && !k.heldByKueue(o.kind, meta) {
		k.ws.Add(o.kind, path+".suspend", "true: KubeRay deletes the cluster's pods; none are made", first)
		return false, nil
	}
	// Volcano's PodGroup counts the minimum replicas with the autoscaler,
	// scheduler-plugins' the desired ones always
	volcanoMin := desired + 1
	if autoscaling {
		volcanoMin = least + 1
	}
	k.rayGang(o, templates, path, name, labels, volcanoGroup, int32(desired+1), int32(volcanoMin), f)
	total := 0
	for _, g := range groups {
		total += g.count
		if err := k.room(o, path+".workerGroupSpecs", g.count); err != nil { // before a member is made
			return false, err
		}
	}
	set := &controllers.PodSet{OnFailure: controllers.ActionRestartPod, Members: make([]controllers.Member, 0, total)}
	// Kueue names the pod sets of a RayCluster "head" and each worker
	// group's name, in template order
	set.Roles = make([]string, len(templates))
	for _, g := range groups[1:] {
		set.Roles[g.template] = g.name
	}
	set.Roles[0] = "head"
	for _, g := range groups {
		for range g.count {
			set.Members = append(set.Members, controllers.Member{Name: g.prefix, Renamed: true, Template: g.template, Group: len(set.Members), After: -1})
		}
	}
	c := setController(o, controllers.KindRayCluster, name, templates)
	c.Set = set
	f.Controllers = append(f.Controllers, c)
	for _, g := range groups {
		for i := range g.count {
			k.addSetPod(f, o, &templates[g.template], fmt.Sprintf("%s-%d", g.prefix, i), nil)
		}
	}
	return true, nil
}

// heldByKueue reports whether a suspended RayCluster or RayJob is
// suspended by Kueue, which runs: it names a queue, and Kueue holds it
// until it admits it (a dump shows a pending one suspended), so it is
// read as made, its pods left to its controller once admitted.
func (k *kubeImport) heldByKueue(kind string, meta *kubeMeta) bool {
	return k.kueueRuns && meta.Labels[kueueQueueName] != "" && kueueJobKinds[kind]
}

// rayWorkers is how many pods a worker group wants, and its minimum (for
// the autoscaler's gang), checked as KubeRay's validation does; the CRD's
// defaults fill in minReplicas 0 and maxReplicas 2147483647, so that
// KubeRay's check that both are set never fails on a created object.
func rayWorkers(o *Object, w *kubeRayWorkers, field string) (n, least int, err error) {
	if w.GroupName == "" {
		return 0, 0, o.failf(nil, field+".groupName", "required")
	}
	lo, hi := int32(0), int32(1<<31-1)
	if w.MinReplicas != nil {
		if lo = *w.MinReplicas; lo < 0 {
			return 0, 0, o.failf(nil, field+".minReplicas", "%d is negative", lo)
		}
	}
	if w.MaxReplicas != nil {
		if hi = *w.MaxReplicas; hi < 0 {
			return 0, 0, o.failf(nil, field+".maxReplicas", "%d is negative", hi)
		}
	}
	if lo > hi {
		return 0, 0, o.failf(nil, field+".minReplicas", "%d is greater than maxReplicas %d", lo, hi)
	}
	if w.Replicas != nil && *w.Replicas < 0 {
		return 0, 0, o.failf(nil, field+".replicas", "%d is negative", *w.Replicas)
	}
	hosts := int64(1) // the CRD's default
	if w.NumOfHosts != nil {
		hosts = max(int64(*w.NumOfHosts), 0) // KubeRay wants replicas times hosts: none for 0 or fewer
	}
	if w.Suspend != nil && *w.Suspend {
		return 0, 0, nil
	}
	r := lo
	if w.Replicas != nil && *w.Replicas >= lo {
		r = min(*w.Replicas, hi)
	}
	const most = 1 << 30
	return int(min(int64(r)*hosts, most)), int(min(int64(lo)*hosts, most)), nil
}

// rayGang makes the PodGroup of the cluster's gang, when a batch
// scheduler would: the pods of templates join it.
func (k *kubeImport) rayGang(o *Object, templates []schema.Pod, path, name string, labels map[string]string, volcanoGroup string, minMember, volcanoMin int32, f *schema.File) {
	first := o.file + ": " + o.ref()
	volcano := false
	for i := range templates {
		if byVolcano(&templates[i]) {
			volcano = true
		}
	}
	_, queue := labels[rayQueueLabel]
	_, gang := labels[rayGangLabel]
	switch {
	case queue || volcano:
		// a Volcano queue or scheduler name says which batch scheduler
		// KubeRay runs with: Volcano's gang, the gang label or not
		for i := range templates {
			templates[i].PodGroup = volcanoGroup
		}
		setGang(f, o, volcanoGroup, volcanoMin, rayFields, &templates[0])
		also := ""
		if gang {
			also = "; its " + rayGangLabel + " label is read as Volcano's gang, the Volcano signs naming the batch scheduler"
		}
		k.ws.Add(o.kind, path+".headGroupSpec.template.spec.schedulerName", fmt.Sprintf("volcano: the head and desired workers are a gang, "+
			"a PodGroup of minMember %d (KubeRay's Volcano PodGroup), scheduled by the simulator; the real cluster needs KubeRay's batch "+
			"scheduler set to Volcano, and Volcano's scheduler%s", volcanoMin, also), first)
	case gang:
		for i := range templates {
			if own := templates[i].Labels[pluginsLabel]; own != "" && own != name {
				// KubeRay sets the label to its own PodGroup, over the user's
				k.ws.Add(o.kind, "metadata.labels["+rayGangLabel+"]", fmt.Sprintf("the template's %s label %q is replaced by the "+
					"cluster's own PodGroup %q, as KubeRay replaces it: the pods do not join %q", pluginsLabel, own, name, own), first)
			}
			templates[i].Labels = withLabels(templates[i].Labels, map[string]string{pluginsLabel: name})
			templates[i].PodGroup = name
		}
		setGang(f, o, name, minMember, rayFields, nil)                                           // joinPlugins gives it its first pod's priority
		k.madeGroups[pluginsLabel+" "+o.namespace+"/"+name] = madeGroup{f, len(f.PodGroups) - 1} // its pods join it by the label
		k.ws.Add(o.kind, "metadata.labels["+rayGangLabel+"]", fmt.Sprintf("the head and desired workers are a gang, a PodGroup of minMember %d "+
			"(KubeRay's scheduler-plugins PodGroup), scheduled by the simulator; the real cluster needs KubeRay's batch scheduler "+
			"for it (scheduler-plugins' Coscheduling, YuniKorn, or kube-scheduler's own PodGroups)", minMember), first)
	}
}

// rayLabels are the labels of a RayCluster's pod: KubeRay's, with the
// template's over them but for the node type, group and cluster.
func rayLabels(template map[string]string, cluster, nodeType, group string) map[string]string {
	own := map[string]string{
		"ray.io/is-ray-node": "yes", rayClusterLabel: cluster, rayNodeTypeLabel: nodeType, rayGroupLabel: group,
		"ray.io/identifier": rayCheckLabel(cluster + "-" + nodeType), "app.kubernetes.io/name": "kuberay",
		"app.kubernetes.io/created-by": "kuberay-operator",
	}
	for key, v := range template {
		if key != rayNodeTypeLabel && key != rayGroupLabel && key != rayClusterLabel {
			own[key] = v
		}
	}
	return own
}

// rayPodName is KubeRay's prefix of its pods' names: the prefix cut to
// 50 characters, then -head or -worker, lowercase.
func rayPodName(prefix, nodeType string) string {
	if len(prefix) > 50 {
		prefix = prefix[:50]
	}
	return strings.ToLower(prefix + "-" + nodeType)
}

// rayCheckLabel keeps the last 63 characters of a label value, not
// starting with punctuation, as KubeRay does.
func rayCheckLabel(s string) string {
	if len(s) > 63 {
		s = s[len(s)-63:]
	}
	if s != "" && strings.ContainsRune("-_.", rune(s[0])) {
		s = "r" + s[1:]
	}
	return s
}

// rayJob converts a RayJob: its RayCluster, and its submitter Job.
func (k *kubeImport) rayJob(o *Object, v *kubeRayJob, f *schema.File) error {
	if err := checkName(o, true); err != nil {
		return err
	}
	spec := &v.Spec
	first := o.file + ": " + o.ref()
	if spec.ManagedBy != "" && spec.ManagedBy != "ray.io/kuberay-operator" {
		k.ws.Add(o.kind, "spec.managedBy", "another controller runs the job: no pods are made", first)
		return nil
	}
	mode := spec.SubmissionMode
	switch mode {
	case "":
		mode = "K8sJobMode"
	case "K8sJobMode", "HTTPMode", "InteractiveMode":
	case "SidecarMode":
		k.ws.Add(o.kind, "spec.submissionMode", "SidecarMode: the submitter container KubeRay adds to the head pod is not added to its requests", first)
	default:
		return o.failf(nil, "spec.submissionMode", "%q is not K8sJobMode, HTTPMode, InteractiveMode or SidecarMode", spec.SubmissionMode)
	}
	selected := spec.ClusterSelector[rayJobCluster]
	switch {
	case spec.RayClusterSpec == nil && len(spec.ClusterSelector) == 0:
		return o.failf(nil, "spec.rayClusterSpec", "required: one of rayClusterSpec or clusterSelector")
	case spec.RayClusterSpec != nil && len(spec.ClusterSelector) > 0:
		return o.failf(nil, "spec.clusterSelector", "set with rayClusterSpec: give one of them")
	case len(spec.ClusterSelector) > 0 && selected == "":
		return o.failf(nil, "spec.clusterSelector", "names no cluster: KubeRay selects it by the key %s", rayJobCluster)
	case spec.Suspend && !k.heldByKueue(o.kind, &v.Metadata):
		k.ws.Add(o.kind, "spec.suspend", "true: the RayJob makes no cluster and no pods", first)
		return nil
	}
	if spec.ShutdownAfterJobFinishes && selected != "" {
		k.ws.Add(o.kind, "spec.shutdownAfterJobFinishes", "not applied to a cluster chosen by clusterSelector, as KubeRay leaves it", first)
	}
	clusterName := selected
	if selected != "" && !k.holds(o.namespace, "RayCluster", selected) {
		k.ws.Add(o.kind, "spec.clusterSelector", "names a RayCluster the inputs do not hold: KubeRay waits for it, and the job makes no pods", first)
		return nil
	}
	if spec.RayClusterSpec != nil {
		clusterName = o.name + "-0"
		labels := withLabels(v.Metadata.Labels, map[string]string{"ray.io/originated-from-cr-name": o.name, "ray.io/originated-from-crd": "RayJob"})
		if _, err := k.rayClusterPods(o, &v.Metadata, spec.RayClusterSpec, "spec.rayClusterSpec", clusterName, labels, "ray-"+o.name+"-pg", f); err != nil {
			return err
		}
	}
	if mode != "K8sJobMode" {
		return nil
	}
	return k.raySubmitter(o, v, clusterName, f)
}

// raySubmitter adds the submitter Job of a RayJob, made once its cluster
// is ready, which stops the cluster when it finishes with
// shutdownAfterJobFinishes.
func (k *kubeImport) raySubmitter(o *Object, v *kubeRayJob, clusterName string, f *schema.File) error {
	spec := &v.Spec
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	t, path := spec.SubmitterPodTemplate, "spec.submitterPodTemplate"
	if t == nil {
		t, path = raySubmitterTemplate(v), "metadata" // KubeRay's: the run-time annotation is the RayJob's
	}
	labels := map[string]string{"ray.io/originated-from-cr-name": o.name, "ray.io/originated-from-crd": "RayJob",
		"app.kubernetes.io/created-by": "kuberay-operator", "batch.kubernetes.io/job-name": o.name, "job-name": o.name}
	owner := &cluster.Owner{Kind: controllers.KindJob, Name: o.name,
		Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/job-name": o.name}}}
	entry, err := k.setTemplate(o, created, t, path, labels, owner)
	if err != nil {
		return err
	}
	if spec.SubmitterPodTemplate == nil {
		entry.Origin.Spec = "spec" // errors about KubeRay's template name the RayJob
	}
	limit := int32(2)
	if c := spec.SubmitterConfig; c != nil && c.BackoffLimit != nil {
		if limit = *c.BackoffLimit; limit < 0 {
			return o.failf(nil, "spec.submitterConfig.backoffLimit", "%d is negative", limit)
		}
	}
	one := int32(1)
	c := schema.Controller{Kind: controllers.KindJob, Namespace: o.namespace, Name: o.name, Object: o.ref(), File: o.file, Line: o.line,
		Template: entry, Job: &controllers.Job{Completions: &one, Parallelism: 1, BackoffLimit: limit},
		After: &controllers.WorkloadRef{Kind: controllers.KindRayCluster, Name: clusterName}}
	if spec.ShutdownAfterJobFinishes && len(spec.ClusterSelector) == 0 {
		c.Stops = c.After
	}
	f.Controllers = append(f.Controllers, c)
	return nil
}

// raySubmitterTemplate is KubeRay's submitter pod: one container asking
// 500m cpu and 200Mi (limits 1 cpu and 1Gi), with the RayJob's
// annotations (for a run time).
func raySubmitterTemplate(v *kubeRayJob) *kubePodTemplate {
	t := &kubePodTemplate{}
	t.Metadata.Annotations = v.Metadata.Annotations
	t.Spec.Containers = []kubeContainer{{Name: "ray-job-submitter", Resources: kubeResources{
		Requests: map[string]string{"cpu": "500m", "memory": "200Mi"}, Limits: map[string]string{"cpu": "1", "memory": "1Gi"}}}}
	return t
}

// holds reports whether the inputs hold an object of the kind named name
// in namespace.
func (k *kubeImport) holds(namespace, kind, name string) bool {
	for _, d := range k.objs {
		if d.o.kind == kind && d.o.namespace == namespace && d.o.name == name {
			return true
		}
	}
	return false
}
