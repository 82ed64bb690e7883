package scenario

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Controllers of Kubernetes objects (docs/kubernetes-inputs.md,
// "Controllers"). The importer expands each workload into the pods it has
// at time 0; while the scenario runs, the runner follows the workload's
// controller on the event stream (controllers_run.go) and acts through
// the Scheduler's public API at the simulated time the controller would:
// a Job runs pods until its completions are done or its failures exceed
// its backoff limit; a ReplicaSet, a StatefulSet and a DaemonSet keep
// their pods, making a new one for each that ends or is deleted.

// PhaseFailed is the phase the result gives a Job's pod that failed: it
// was evicted by preemption, its node was removed or drained, it was
// deleted, or its Job failed while it ran. The Job controller counted it
// against the Job's backoff limit (Kubernetes marks such a pod Failed, or
// deletes it, and counts it the same).
const PhaseFailed gangsim.Phase = "Failed"

// Controller is a workload controller of the inputs: a Job, a ReplicaSet
// (one of the inputs, or the one a Deployment makes), a StatefulSet or a
// DaemonSet. It is read-only, like the rest of a Scenario.
type Controller struct {
	Kind      string // "Job", "ReplicaSet", "StatefulSet" or "DaemonSet"
	Namespace string
	Name      string // as its pods' owner names it: a Deployment's ReplicaSet is <deployment>-<hash>
	Source    Source // the object it comes from ("Deployment shop/web")

	def      schema.Controller
	template cluster.Pod // the pods it makes, before their name and labels
	runTime  RunTime     // the template's annotation, or the default
	pods     []int32     // indexes in Scenario.Pods of its pods at time 0
}

// Key is the controller's "namespace/name".
func (c *Controller) Key() string { return c.Namespace + "/" + c.Name }

// service reports whether the controller keeps its pods running (a
// ReplicaSet, StatefulSet or DaemonSet), rather than running them to
// completion (a Job).
func (c *Controller) service() bool { return c.Kind != "Job" }

// ownerKey names a controller as its pods' owner does.
type ownerKey struct{ namespace, kind, name string }

// controllers converts the controllers the importer found, and links
// each to the pods of the scenario it controls at time 0: those it made,
// and those of the inputs whose controller owner reference names it.
func (b *builder) controllers(ins []*input) error {
	ws := b.ws
	b.ws = nil // the templates were warned about with their pods
	defer func() { b.ws = ws }()
	for _, in := range ins {
		b.file = in.name
		for i := range in.spec.Controllers {
			if err := b.controller(&in.spec.Controllers[i]); err != nil {
				return err
			}
		}
	}
	if len(b.sc.Controllers) == 0 {
		return nil
	}
	byOwner := make(map[ownerKey]int, len(b.sc.Controllers))
	for i, c := range b.sc.Controllers {
		byOwner[ownerKey{c.Namespace, c.Kind, c.Name}] = i
	}
	for i := range b.sc.Pods {
		p := &b.sc.Pods[i].Pod
		if p.Owner == nil {
			continue
		}
		ns := p.Namespace
		if ns == "" {
			ns = cluster.DefaultNamespace
		}
		if c, ok := byOwner[ownerKey{ns, p.Owner.Kind, p.Owner.Name}]; ok {
			b.sc.Controllers[c].pods = append(b.sc.Controllers[c].pods, int32(i))
		}
	}
	b.sc.podNames = b.podNames // names the controllers' new pods must not take
	b.sc.podLimit = b.opts.limits.Pods
	return nil
}

// ErrPodLimit is returned by a run whose controllers would make more pods
// than Limits.Pods, counted with the scenario's own: a Job of a billion
// completions is a mistake to report, not a run to wait for.
var ErrPodLimit = errors.New("the pods the controllers make go past the limit of pods (Limits.Pods)")

// controller converts one controller: its template becomes a pod as every
// pod it makes has it, checked as the pods of the inputs are.
func (b *builder) controller(s *schema.Controller) error {
	spec := s.Template
	b.cur = spec.Origin
	where := b.entry(spec.Origin, "", 0, s.Name)
	spec.Name = s.Name
	p, err := b.podTemplate(&spec, where)
	if err != nil {
		return err
	}
	if p.ResourceClaims, _, err = b.podClaims(&spec, where); err != nil {
		return err
	}
	c := Controller{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Source: Source{File: s.File, Line: s.Line, Path: s.Object},
		def: *s, template: p, runTime: b.opts.runTime}
	if spec.Duration != "" {
		d, err := parseTime(spec.Duration)
		if err != nil {
			return b.fail(spec.Line, where+".duration", err)
		}
		c.runTime = FixedRunTime(d)
	}
	b.sc.Controllers = append(b.sc.Controllers, c)
	return nil
}

// pod makes the controller's pod named name, with index (a Job's
// completion index, a StatefulSet's ordinal; -1 for none) and, for a
// DaemonSet, the node it is pinned to. Its maps are the template's or its
// own, read-only.
func (c *Controller) pod(name string, index int, node string) cluster.Pod {
	p := c.template
	p.Name = name
	p.Labels = c.def.PodLabels(name, index)
	if node != "" {
		p.Affinity = pinnedTo(p.Affinity, node)
	}
	return p
}

// podSource names a pod the controller made while running, for run-time
// errors: "Deployment shop/web (pod web-7f9c-5)".
func (c *Controller) podSource(name string) Source {
	src := c.Source
	src.Path += " (pod " + name + ")"
	return src
}

// pinnedTo returns a copy of a whose required node affinity is one term
// matching the node's name, as the DaemonSet controller pins its pods.
func pinnedTo(a *cluster.Affinity, node string) *cluster.Affinity {
	var out cluster.Affinity
	if a != nil {
		out = *a
	}
	var na cluster.NodeAffinity
	if out.NodeAffinity != nil {
		na = *out.NodeAffinity
	}
	na.Required = []cluster.SelectorTerm{{MatchFields: []cluster.SelectorRequirement{
		{Key: cluster.NodeNameField, Operator: cluster.SelectorIn, Values: []string{node}}}}}
	out.NodeAffinity = &na
	return &out
}

// daemonNode is the node a DaemonSet's pod runs on: the one it is bound
// to, or the one its node affinity pins it to.
func daemonNode(p *cluster.Pod) string {
	if p.NodeName != "" {
		return p.NodeName
	}
	if p.Affinity == nil || p.Affinity.NodeAffinity == nil {
		return ""
	}
	for _, t := range p.Affinity.NodeAffinity.Required {
		for _, r := range t.MatchFields {
			if r.Key == cluster.NodeNameField && r.Operator == cluster.SelectorIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

// podIndex is a pod's completion index (a Job's) or ordinal (a
// StatefulSet's), from its label, or for a StatefulSet from its name; -1
// when it has none.
func (c *Controller) podIndex(p *cluster.Pod) int {
	label := schema.JobCompletionIndexLabel
	if c.Kind == "StatefulSet" {
		label = schema.PodIndexLabel
	}
	if v, ok := p.Labels[label]; ok {
		if i, err := strconv.Atoi(v); err == nil && i >= 0 {
			return i
		}
	}
	if c.Kind == "StatefulSet" {
		if rest, ok := strings.CutPrefix(p.Name, c.Name+"-"); ok {
			if i, err := strconv.Atoi(rest); err == nil && i >= 0 {
				return i
			}
		}
	}
	return -1
}

// runTimeFor is the run time of the controller's pod key, made for the
// n-th time (a StatefulSet makes web-0 again).
func (c *Controller) runTimeFor(key cluster.PodKey, n int) time.Duration {
	return c.runTime.draw(string(key), n)
}
