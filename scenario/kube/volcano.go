package kube

import (
	"fmt"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A Volcano Job (batch.volcano.sh/v1alpha1) runs tasks of replicas pods,
// named <job>-<task>-<index> and labelled as Volcano's job controller
// labels them (volcano.sh/job-name, job-namespace, task-spec, task-index,
// queue-name). Volcano's webhook fills in what the spec leaves out: a
// task without a name is default<i>, a task's minAvailable is its
// replicas, the job's minAvailable the sum of its tasks', maxRetry 3, the
// queue default and the scheduler volcano. Its gang is Volcano's PodGroup
// <job>-<uid> (<job>-0 when the object has no uid): minMember
// minAvailable; with tasks whose minimum is below their replicas, a
// CompositePodGroup of that name over a PodGroup per task of its minimum
// (Volcano's minTaskMember). The pods run to completion: the job completes when they
// have all succeeded (or minSuccess of them). Its policies map events to
// actions: a pod deleted, evicted or losing its node is PodEvicted, a task
// whose pods all succeeded TaskCompleted; without a policy the pod is made
// again (Volcano's SyncJob). RestartJob deletes every pod and makes them
// again, RestartTask the pods of the task; when the restarts reach
// maxRetry the job fails. AbortJob, TerminateJob and CompleteJob end it,
// deleting its running pods.

// volcanoBatchGroup is the API group of Volcano's Job.
const volcanoBatchGroup = "batch.volcano.sh"

type volcanoJob struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		SchedulerName           string          `yaml:"schedulerName"`
		MinAvailable            *int32          `yaml:"minAvailable"`
		MinSuccess              *int32          `yaml:"minSuccess"`
		MaxRetry                *int32          `yaml:"maxRetry"`
		Queue                   string          `yaml:"queue"`
		PriorityClassName       string          `yaml:"priorityClassName"`
		Tasks                   []volcanoTask   `yaml:"tasks"`
		Policies                []volcanoPolicy `yaml:"policies"`
		Volumes                 skipped         `yaml:"volumes"`
		Plugins                 skipped         `yaml:"plugins"` // ssh, svc, env: no bearing on scheduling
		RunningEstimate         skipped         `yaml:"runningEstimate"`
		TTLSecondsAfterFinished skipped         `yaml:"ttlSecondsAfterFinished"`
		NetworkTopology         unmodelled      `yaml:"networkTopology"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

type volcanoTask struct {
	Name            string          `yaml:"name"`
	Replicas        *int32          `yaml:"replicas"`
	MinAvailable    *int32          `yaml:"minAvailable"`
	Template        kubePodTemplate `yaml:"template"`
	Policies        []volcanoPolicy `yaml:"policies"`
	MaxRetry        skipped         `yaml:"maxRetry"` // the job's maxRetry counts the restarts
	TopologyPolicy  unmodelled      `yaml:"topologyPolicy"`
	DependsOn       unmodelled      `yaml:"dependsOn"`
	PartitionPolicy unmodelled      `yaml:"partitionPolicy"`
}

type volcanoPolicy struct {
	Action   string     `yaml:"action"`
	Event    string     `yaml:"event"`
	Events   []string   `yaml:"events"`
	ExitCode *int32     `yaml:"exitCode"`
	Timeout  unmodelled `yaml:"timeout"`
}

// volcanoFields translate a Volcano Job's PodGroup fields.
var volcanoFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "minCount": "spec.minAvailable", "": "spec"}

// volcanoEvents are the events a policy may name; those the simulator
// gives are mapped, the others never happen in it.
var volcanoEvents = map[string]controllers.SetEvent{
	"*": controllers.SetAnyEvent, "PodEvicted": controllers.SetPodEvicted, "TaskCompleted": controllers.SetTaskCompleted,
	"PodFailed": "", "PodPending": "", "PodRunning": "", "Unknown": "", "TaskFailed": "", "JobUpdated": "", "OutOfSync": "", "CommandIssued": "",
}

// volcanoActions are the actions a policy may name.
var volcanoActions = map[string]controllers.SetAction{
	"RestartJob": controllers.ActionRestartAll, "RestartTask": controllers.ActionRestartGroup, "RestartPartition": controllers.ActionRestartGroup,
	"RestartPod": controllers.ActionRestartPod, "SyncJob": controllers.ActionRestartPod, "AbortJob": controllers.ActionAbort,
	"TerminateJob": controllers.ActionTerminate, "CompleteJob": controllers.ActionComplete,
}

// volcanoJob converts a Volcano Job.
func (k *kubeImport) volcanoJob(o *Object, v *volcanoJob, f *schema.File) error {
	if err := checkName(o, true); err != nil {
		return err
	}
	spec := &v.Spec
	if len(spec.Tasks) == 0 {
		return o.failf(nil, "spec.tasks", "required: no task specified in the job")
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	first := o.file + ": " + o.ref()
	queue := spec.Queue
	if queue == "" {
		queue = "default"
	}
	set := &controllers.PodSet{Finite: true, OnFailure: controllers.ActionRestartPod, MaxRetry: 3}
	if r := spec.MaxRetry; r != nil {
		if *r < 0 {
			return o.failf(nil, "spec.maxRetry", "%d is negative", *r)
		}
		if *r > 0 {
			set.MaxRetry = int(*r)
		}
	}
	pg := o.name + "-0"
	if uid := v.Metadata.UID; uid != "" {
		pg = o.name + "-" + uid
	}
	owner := &cluster.Owner{Kind: "Job", Name: o.name}
	var templates []schema.Pod
	total, taskMin, volcano := 0, 0, false
	var mins []int // by task, its minimum
	var taskNames []string
	names := map[string]bool{}
	for i := range spec.Tasks {
		t := &spec.Tasks[i]
		field := fmt.Sprintf("spec.tasks[%d]", i)
		name := t.Name
		if name == "" {
			name = "default" + strconv.Itoa(i)
		} else if err := schema.NameError(name, true); err != nil {
			return o.fail(nil, field+".name", err)
		}
		if names[name] {
			return o.failf(nil, field+".name", "duplicated task name %s", name)
		}
		names[name] = true
		replicas := 0
		if t.Replicas != nil {
			if *t.Replicas < 0 {
				return o.failf(nil, field+".replicas", "%d is negative", *t.Replicas)
			}
			replicas = int(*t.Replicas)
		}
		least := replicas
		if t.MinAvailable != nil {
			if *t.MinAvailable < 0 || int(*t.MinAvailable) > replicas {
				return o.failf(nil, field+".minAvailable", "%d is not in 0..replicas (%d)", *t.MinAvailable, replicas)
			}
			least = int(*t.MinAvailable)
		}
		total, taskMin = total+replicas, taskMin+least
		mins, taskNames = append(mins, least), append(taskNames, name)
		labels := map[string]string{"volcano.sh/job-name": o.name, "volcano.sh/job-namespace": o.namespace, "volcano.sh/task-spec": name,
			"volcano.sh/queue-name": queue}
		entry, err := k.setTemplate(o, created, &t.Template, field+".template", labels, owner)
		if err != nil {
			return err
		}
		if entry.SchedulerName == "" {
			entry.SchedulerName = cmpOr(spec.SchedulerName, volcanoScheduler)
		}
		if entry.PriorityClassName == "" {
			entry.PriorityClassName = spec.PriorityClassName
		}
		if byVolcano(&entry) {
			volcano = true
		}
		entry.PodGroup = pg
		templates = append(templates, entry)
		if err := k.room(o, field+".replicas", replicas); err != nil { // before a member is made
			return err
		}
		for j := range replicas {
			set.Members = append(set.Members, controllers.Member{Name: fmt.Sprintf("%s-%s-%d", o.name, name, j), Template: i,
				Labels: map[string]string{"volcano.sh/task-index": strconv.Itoa(j)}, Group: i, After: -1})
		}
		if err := volcanoPolicies(o, t.Policies, field+".policies", i, set, k.ws, first); err != nil {
			return err
		}
	}
	if err := volcanoPolicies(o, spec.Policies, "spec.policies", -1, set, k.ws, first); err != nil {
		return err
	}
	minAvailable := taskMin
	if m := spec.MinAvailable; m != nil && *m != 0 {
		if *m < 0 || int(*m) > total {
			return o.failf(nil, "spec.minAvailable", "%d is not in 0..the total replicas of the tasks (%d)", *m, total)
		}
		minAvailable = int(*m)
	}
	if m := spec.MinSuccess; m != nil {
		if *m < 1 || int(*m) > total {
			return o.failf(nil, "spec.minSuccess", "%d is not in 1..the total replicas of the tasks (%d)", *m, total)
		}
		set.MinSuccess = int(*m)
	}
	if total == 0 {
		return nil
	}
	detail := fmt.Sprintf("a gang, Volcano's PodGroup %s of minMember %d (spec.minAvailable), scheduled by the simulator", pg, minAvailable)
	if taskMin != total && taskMin > 0 {
		volcanoTaskGangs(f, o, pg, mins, taskNames, templates)
		detail = fmt.Sprintf("a gang, Volcano's PodGroup %s with each task's minimum (minTaskMember): a CompositePodGroup %s of a PodGroup "+
			"%s-<task> per task with a minimum, scheduled by the simulator", pg, pg, pg)
		if minAvailable > taskMin {
			detail += fmt.Sprintf("; minAvailable %d above the tasks' minimums (%d) is not modelled", minAvailable, taskMin)
		}
	} else {
		setGang(f, o, pg, int32(minAvailable), volcanoFields, &templates[0])
	}
	if volcano {
		detail += "; the real cluster needs Volcano's scheduler for it"
	}
	k.ws.Add(o.kind, "spec.minAvailable", detail, first)
	if spec.Queue != "" && spec.Queue != "default" {
		k.ws.Add(o.kind, "spec.queue", "Volcano's queues are not modelled: the job is scheduled as if its queue had room", first)
	}
	c := setController(o, controllers.KindVolcanoJob, o.name, templates)
	c.Set = set
	f.Controllers = append(f.Controllers, c)
	for i, mb := range set.Members {
		k.addSetPod(f, o, &templates[mb.Template], mb.Name, set.Members[i].Labels)
	}
	return nil
}

// volcanoPolicies reads the policies of a task (group i) or of the job
// (-1) into the set's, checked as Volcano's webhook checks them.
func volcanoPolicies(o *Object, ps []volcanoPolicy, field string, group int, set *controllers.PodSet, ws Warnings, first string) error {
	seen := map[string]bool{}
	for j, p := range ps {
		at := fmt.Sprintf("%s[%d]", field, j)
		act, ok := volcanoActions[p.Action]
		if !ok {
			return o.failf(nil, at+".action", "%q is not a policy action (RestartJob, RestartTask, RestartPod, AbortJob, TerminateJob, CompleteJob)", p.Action)
		}
		events := p.Events
		if p.Event != "" {
			events = append([]string{p.Event}, events...)
		}
		switch {
		case p.ExitCode != nil && len(events) > 0:
			return o.failf(nil, at+".exitCode", "must not be set with an event")
		case p.ExitCode != nil:
			if *p.ExitCode == 0 {
				return o.failf(nil, at+".exitCode", "0 is not a failure's exit code")
			}
			ws.Add(o.kind, field+"[].exitCode", "never matches: the simulator's pods have no exit codes", first)
			continue
		case len(events) == 0:
			return o.failf(nil, at+".event", "required: an event or an exit code")
		}
		for _, e := range events {
			ev, known := volcanoEvents[e]
			if !known {
				return o.failf(nil, at+".event", "%q is not a Volcano event", e)
			}
			if seen[e] {
				return o.failf(nil, at+".event", "duplicate event %s", e)
			}
			seen[e] = true
			if ev == "" {
				ws.Add(o.kind, field+"[].event", e+" never happens in the simulator (a pod fails only by deletion or eviction: PodEvicted)", first)
				continue
			}
			set.Policies = append(set.Policies, controllers.SetPolicy{Event: ev, Group: group, Action: act})
		}
	}
	return nil
}

// volcanoTaskGangs makes the gang of a Volcano Job whose tasks have
// minimums of their own (minTaskMember): a CompositePodGroup pg that
// needs every task with a minimum, and under it a PodGroup <pg>-<task> of
// that minimum, which the task's pods join; a task of minimum 0 needs no
// gang, and its pods go on their own.
func volcanoTaskGangs(f *schema.File, o *Object, pg string, mins []int, tasks []string, templates []schema.Pod) {
	children := int32(0)
	var first *schema.Pod // the root's priority, its children's
	for i, least := range mins {
		templates[i].PodGroup = ""
		if least == 0 {
			continue
		}
		children++
		if first == nil {
			first = &templates[i]
		}
		child := pg + "-" + tasks[i]
		templates[i].PodGroup = child
		setGang(f, o, child, int32(least), volcanoFields, nil)
		f.PodGroups[len(f.PodGroups)-1].Parent = pg
	}
	root := schema.CompositePodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: pg,
		Namespace: o.namespace, Origin: newOrigin(o, volcanoFields)}, MinGroupCount: &children}
	if first != nil {
		root.PriorityClassName, root.Priority = first.PriorityClassName, first.Priority
	}
	f.CompositePodGroups = append(f.CompositePodGroups, root)
}
