package kube

import (
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// defaultBackoffLimit is the API server's default of spec.backoffLimit.
const defaultBackoffLimit = 6

// job records a Job's controller and makes the pods that run at once:
// parallelism of them, no more than the completions left after the pods
// of the inputs that succeeded, less those running; for an Indexed Job
// the lowest indexes neither done nor running. A suspended Job, or one
// whose failures are past its backoff limit already, makes none.
func (k *kubeImport) job(o *Object, v *kubeJob, f *schema.File) error {
	spec := &v.Spec
	if k.madeByParent(o, &v.Metadata) {
		return nil
	}
	if spec.ManagedBy != "" && spec.ManagedBy != "kubernetes.io/job-controller" {
		k.ws.Add(o.kind, "spec.managedBy", "another controller makes the pods: none are made", o.file+": "+o.ref())
		return nil
	}
	sel := spec.Selector
	if spec.ManualSelector == nil || !*spec.ManualSelector {
		sel = nil // the controller selects by its own labels
	}
	t, err := k.template(o, &v.Metadata, &spec.Template, sel, false)
	if err != nil {
		return err
	}
	have := k.owned[kubeOwnerKey{o.namespace, o.kind, o.name}]
	js, err := jobRules(o, v, have)
	if err != nil {
		return err
	}
	labels := map[string]string{"batch.kubernetes.io/job-name": o.name, "job-name": o.name}
	if uid := v.Metadata.UID; uid != "" {
		labels["batch.kubernetes.io/controller-uid"], labels["controller-uid"] = uid, uid
	}
	if t.owner.Selector == nil {
		t.owner.Selector = &cluster.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/job-name": o.name}}
	}
	c := t.controller(labels)
	c.Job = js
	f.Controllers = append(f.Controllers, c)
	if js.Suspended || js.Failed > int(js.BackoffLimit) || js.FailsAtStart() {
		return nil // no pod at time 0: held, failed, or failing as it starts
	}
	if c := js.Completions; c != nil {
		// the run makes at least the completions left: a Job of 2^31-1
		// completions is refused now, not after hours of a run
		if err := k.tally.Room(int(*c) - js.Succeeded - have.activeCount()); err != nil {
			return o.fail(nil, "spec.completions", err)
		}
	}
	want := max(0, js.WantActive(js.Succeeded, have.activeCount())-have.activeCount())
	if !js.Indexed {
		return k.addIndexed(f, t, o.name, want, "spec.parallelism", func(int) map[string]string { return labels })
	}
	return k.addIndexedJobPods(f, t, &c, want, "spec.parallelism", have)
}

// addIndexedJobPods adds the first pending indexes' pods, named
// <job>-<index>-<k> for the first k not taken; field is the parallelism's,
// which errors name.
func (k *kubeImport) addIndexedJobPods(f *schema.File, t *kubeTemplate, c *schema.Controller, want int, field string, have *kubeOwnedCount) error {
	done := func(i int) bool { return have != nil && have.succeededIndexes[i] }
	taken := func(i int) bool { return have != nil && have.activeIndexes[i] }
	indexes := c.Job.PendingIndexes(want, done, taken)
	if err := k.room(t.o, field, len(indexes)); err != nil {
		return err
	}
	for _, i := range indexes {
		name := ""
		for n := 0; name == "" || k.podNames[cluster.MakePodKey(t.o.namespace, name)]; n++ {
			name = controllers.JobPodName(c.Name, true, i, n)
		}
		k.podNames[cluster.MakePodKey(t.o.namespace, name)] = true
		p := t.pod(name, nil)
		p.Labels = c.PodLabels(name, i)
		f.Pods = append(f.Pods, p)
	}
	return nil
}

// jobRules reads and checks what the Job controller follows, with the
// pods of the inputs the Job has.
func jobRules(o *Object, v *kubeJob, have *kubeOwnedCount) (*controllers.Job, error) {
	return jobRulesAt(o, &v.Spec, "spec", have)
}

// jobRulesAt reads the Job spec at the path at of o (a JobSet's template
// of Jobs is deeper down).
func jobRulesAt(o *Object, spec *kubeJobSpec, at string, have *kubeOwnedCount) (*controllers.Job, error) {
	js := &controllers.Job{Parallelism: 1, BackoffLimit: defaultBackoffLimit, Completions: spec.Completions,
		Suspended: spec.Suspend != nil && *spec.Suspend}
	if p := spec.Parallelism; p != nil {
		if *p < 0 {
			return nil, o.failf(nil, at+".parallelism", "%d is negative", *p)
		}
		js.Parallelism = *p
	}
	if c := spec.Completions; c != nil && *c < 0 {
		return nil, o.failf(nil, at+".completions", "%d is negative", *c)
	}
	switch spec.CompletionMode {
	case "", "NonIndexed":
	case "Indexed":
		if spec.Completions == nil {
			return nil, o.failf(nil, at+".completions", "required when completionMode is Indexed")
		}
		js.Indexed = true
	default:
		return nil, o.failf(nil, at+".completionMode", "%q is not NonIndexed or Indexed", spec.CompletionMode)
	}
	if b := spec.BackoffLimit; b != nil {
		if *b < 0 {
			return nil, o.failf(nil, at+".backoffLimit", "%d is negative", *b)
		}
		js.BackoffLimit = *b
	}
	if d := spec.ActiveDeadlineSeconds; d != nil {
		// the API server takes 0 (ValidateNonnegativeField): such a Job
		// fails as soon as it starts
		if *d < 0 {
			return nil, o.failf(nil, at+".activeDeadlineSeconds", "%d is negative", *d)
		}
		js.ActiveDeadline = time.Duration(min(*d, int64(maxDeadlineSeconds))) * time.Second
		js.DeadlineSet = true
	}
	switch spec.PodReplacementPolicy {
	case "", "TerminatingOrFailed":
	case "Failed":
		js.ReplaceFailedOnly = true
	default:
		return nil, o.failf(nil, at+".podReplacementPolicy", "%q is not TerminatingOrFailed or Failed", spec.PodReplacementPolicy)
	}
	js.Succeeded, js.Failed = have.succeededCount(), have.failedCount()
	if js.Indexed && have != nil {
		// an index counts once, however many of its pods succeeded
		for i := range have.succeededIndexes {
			if i < int(*js.Completions) {
				js.SucceededIndexes = append(js.SucceededIndexes, i)
			}
		}
		slices.Sort(js.SucceededIndexes)
		js.Succeeded = len(js.SucceededIndexes)
	}
	return js, nil
}

// maxDeadlineSeconds caps activeDeadlineSeconds at a hundred years, the
// largest simulated time.
const maxDeadlineSeconds = 100 * 365 * 24 * 3600

func (c *kubeOwnedCount) failedCount() int {
	if c == nil {
		return 0
	}
	return c.failed
}
