package controllers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
	"github.com/gangsim/gangsim/podgroup"
)

// ResourceClaims is Kubernetes' resourceclaim controller (a part of
// kube-controller-manager) in simulated time: it makes, from its
// ResourceClaimTemplate, the claim of each entry of a pod that names a
// template (spec.resourceClaims[].resourceClaimTemplateName), owned by
// the pod, records the claim's name in the pod's status
// (status.resourceClaimStatuses), and deletes the claims a pod owns once
// the pod has ended for good (succeeded, deleted, or refused at its
// creation). Like every controller it acts through the Scheduler's public
// API alone (AddResourceClaim, SetResourceClaimStatuses,
// DeleteResourceClaim); the scheduler never reads a template. A pod whose
// claims are not made waits, held by the DynamicResources plugin's
// PreEnqueue, as in Kubernetes.
//
// A pod of a PodGroup whose entry equals one of the group's
// spec.resourceClaims (DRAWorkloadResourceClaims) uses the group's claim:
// for a template, the controller makes it once for the group, owned by the
// PodGroup and named "<group>-<entry>" by the same rule as a pod's, and
// records its name in the status of each pod that uses it (GroupClaims
// gives the group's record). The group's pods share it; the Scheduler
// frees its devices when the group's last pod leaves its node.
//
// The templates are API objects the controller watches, so they are
// given to it (AddTemplate), not to the Scheduler. A template added after
// the pods that name it has their claims made then.
//
// The real controller makes a pod's claims a moment after the pod is
// created, before the scheduler's first look at it in practice; the
// simulator has no such moment. A caller that adds pods (the scenario
// runner, the Manager) calls Prepare before AddPod: the claims are made
// and the pod's status names them, at the pod's creation time. That is
// also what a pod that arrives running needs, whose claims the controller
// made before it ran. A pod added without Prepare is seen in the event
// stream (Attach) and gets its claims at the next Sync.
//
// Names: the claim of a pod's entry is "<pod>-<entry>" when no claim has
// that name, and otherwise the first of "<pod>-<entry>-1",
// "<pod>-<entry>-2", ... that none has (Kubernetes' generateName adds a
// random suffix, which never collides): a user's claim of that name, or
// another pod's (pod "a" entry "b-c" and pod "a-b" entry "c"), is never
// taken.
//
// A pod that arrives with a template entry's claim already recorded in
// its status (a dump's, made before the simulation, with Kubernetes'
// random suffix) keeps it; when the claim is the pod's (its owner is the
// pod) it is deleted with the pod like the claims the controller makes.
//
// Determinism: pods are served in the order they arrive or ended, entries
// in spec order, and every name is the first free one in a fixed
// sequence. Concurrency: one goroutine drives the controller and its
// Scheduler, as for the Manager.
type ResourceClaims struct {
	s         *gangsim.Scheduler
	templates map[templateRef]*cluster.ResourceClaimTemplate
	// owned are the claims made for each pod, by the pod's key
	owned map[cluster.PodKey][]string
	// arrived are pods added without their claims, in arrival order, to be
	// served at the next Sync; waiting those whose template is missing
	arrived, waiting []*cluster.Pod
	// ended are the pods that ended for good, whose claims Sync deletes
	ended []cluster.PodKey
	// groups are the claims made for PodGroups from their templates (a
	// PodGroup's status.resourceClaimStatuses), by the group's key
	groups map[string][]cluster.PodResourceClaimStatus
}

// NewResourceClaims returns the controller, with no template yet.
func NewResourceClaims() *ResourceClaims {
	return &ResourceClaims{templates: map[templateRef]*cluster.ResourceClaimTemplate{}, owned: map[cluster.PodKey][]string{},
		groups: map[string][]cluster.PodResourceClaimStatus{}}
}

// Attach returns the option through which the controller follows the
// Scheduler's event stream (pods arriving and ending), for gangsim.New.
func (c *ResourceClaims) Attach() gangsim.Option {
	return gangsim.WithObserverOf(c.observe, gangsim.EventPodArrived, gangsim.EventPodSucceeded,
		gangsim.EventPodDeleted, gangsim.EventPodRejected)
}

// Start gives the controller the Scheduler it acts on, made with Attach,
// and serves the pods the stream has told of so far (Sync).
func (c *ResourceClaims) Start(s *gangsim.Scheduler) error {
	c.s = s
	return c.Sync()
}

// AddTemplate adds a template, checked as the API server checks it
// (its CEL selectors compiled). Once started, the controller makes the
// claims of the pods that were waiting for it.
func (c *ResourceClaims) AddTemplate(t cluster.ResourceClaimTemplate) error {
	if t.Namespace == "" {
		t.Namespace = cluster.DefaultNamespace
	}
	if err := t.Validate(); err != nil {
		return err
	}
	key := string(cluster.MakePodKey(t.Namespace, t.Name))
	if err := deviceselector.CheckClaimSpec("spec.spec.devices", &t.Spec); err != nil {
		err.Object = "resourceclaimtemplate " + key
		return err
	}
	ref := templateRef{t.Namespace, t.Name}
	if _, ok := c.templates[ref]; ok {
		return fmt.Errorf("%w: resource claim template %s already exists", cluster.ErrDeviceObject, key)
	}
	t.Spec = t.Spec.Clone()
	c.templates[ref] = &t
	if len(c.waiting) > 0 {
		c.arrived = append(c.arrived, c.waiting...)
		c.waiting = nil
	}
	if c.s == nil {
		return nil
	}
	return c.Sync()
}

// Template returns a template by namespace ("" for the default) and
// name. Read-only.
func (c *ResourceClaims) Template(namespace, name string) (*cluster.ResourceClaimTemplate, bool) {
	return c.template(namespace, name)
}

// templateRef names a template: its namespace and name.
type templateRef struct{ namespace, name string }

func (c *ResourceClaims) template(namespace, name string) (*cluster.ResourceClaimTemplate, bool) {
	if namespace == "" {
		namespace = cluster.DefaultNamespace
	}
	t, ok := c.templates[templateRef{namespace, name}]
	return t, ok
}

// Owned returns the keys of the claims the controller made for a pod
// that has not ended, in the order of its entries.
func (c *ResourceClaims) Owned(key cluster.PodKey) []string { return slices.Clone(c.owned[key]) }

// GroupClaims returns the claims made for a PodGroup (by its key
// "namespace/name") from its templates, as its
// status.resourceClaimStatuses records them, in the order they were made.
func (c *ResourceClaims) GroupClaims(key string) []cluster.PodResourceClaimStatus {
	return slices.Clone(c.groups[key])
}

// Prepare makes the claims of p's entries that name a template and are
// not recorded yet, and records them in p's status
// (p.ResourceClaimStatuses, a new slice), for the caller to add p now: as
// the controller would a moment after p's creation, or before p ran when
// p arrives running. An entry whose template does not exist is left
// without a claim: the pod waits for it. Claims of pods that ended are
// deleted first, so that a pod made again under the same name gets the
// same names.
func (c *ResourceClaims) Prepare(p *cluster.Pod) error {
	if c.s == nil {
		return errNotStarted
	}
	if err := c.deleteEnded(); err != nil {
		return err
	}
	c.adopt(p)
	made, err := c.makeClaims(p)
	if err != nil || len(made) == 0 {
		return err
	}
	p.ResourceClaimStatuses = append(slices.Clip(p.ResourceClaimStatuses), made...)
	return nil
}

// adopt records as the pod's the claims its status names for its
// template entries that exist and that it owns (their controller owner
// reference is the pod: a dump's, made before the simulation), so that
// they are deleted when the pod ends, as Kubernetes' controller deletes
// the claims a pod owns. A claim the pod does not own is never deleted.
func (c *ResourceClaims) adopt(p *cluster.Pod) {
	for i := range p.ResourceClaims {
		if p.ResourceClaims[i].ResourceClaimTemplateName == "" {
			continue
		}
		key := p.ClaimKey(i)
		if key == "" || slices.Contains(c.owned[p.Key()], key) {
			continue
		}
		rc, ok := c.s.ResourceClaim(key)
		if !ok || rc.Owner == nil || rc.Owner.Kind != cluster.OwnerPod || rc.Owner.Name != p.Name {
			continue
		}
		c.owned[p.Key()] = append(c.owned[p.Key()], key)
	}
}

// Busy reports whether the controller has something to do now: claims
// to delete, or pods that arrived without their claims.
func (c *ResourceClaims) Busy() bool { return len(c.ended) > 0 || len(c.arrived) > 0 }

// Sync does what the stream told: it deletes the claims of the pods that
// ended, then makes the claims of the pods that arrived without them and
// records them (SetResourceClaimStatuses), which lets the scheduler queue
// them.
func (c *ResourceClaims) Sync() error {
	if c.s == nil {
		return errNotStarted
	}
	if err := c.deleteEnded(); err != nil {
		return err
	}
	arrived := c.arrived
	c.arrived = nil
	for _, p := range arrived {
		if st, ok := c.s.Pod(p.Key()); !ok || st.Phase != gangsim.PhasePending {
			continue
		}
		made, err := c.makeClaims(p)
		if err != nil {
			return err
		}
		if c.missing(p, made) {
			c.waiting = append(c.waiting, p)
		}
		if len(made) == 0 {
			continue
		}
		if err := c.s.SetResourceClaimStatuses(p.Key(), made...); err != nil {
			return fmt.Errorf("resourceclaim controller: pod %s: %w", p.Key(), err)
		}
	}
	return nil
}

var errNotStarted = errors.New("controllers: the resourceclaim controller is not started (Start)")

// observe follows the stream: a pod that arrived with entries of
// templates not recorded is to be served; a pod that owns claims and
// ended for good (or was refused at its creation) has them deleted.
func (c *ResourceClaims) observe(e gangsim.Event) {
	switch e.Kind {
	case gangsim.EventPodArrived:
		p := e.Pod.Pod()
		if c.s != nil {
			c.adopt(p) // a claim its status names that it owns (Prepare adopts too)
		}
		if c.missing(p, nil) {
			c.arrived = append(c.arrived, p)
		}
	case gangsim.EventPodSucceeded, gangsim.EventPodDeleted, gangsim.EventPodRejected:
		if key := e.PodKey(); len(c.owned[key]) > 0 {
			c.ended = append(c.ended, key)
		}
	}
}

// missing reports whether an entry of p that names a template has no
// claim recorded, in p's status or in made.
func (c *ResourceClaims) missing(p *cluster.Pod, made []cluster.PodResourceClaimStatus) bool {
	for i := range p.ResourceClaims {
		e := &p.ResourceClaims[i]
		if e.ResourceClaimTemplateName != "" && p.ClaimKey(i) == "" &&
			!slices.ContainsFunc(made, func(st cluster.PodResourceClaimStatus) bool { return st.Name == e.Name }) {
			return true
		}
	}
	return false
}

// makeClaims makes the claims of p's template entries that have none
// recorded and whose template exists, and returns their statuses.
func (c *ResourceClaims) makeClaims(p *cluster.Pod) ([]cluster.PodResourceClaimStatus, error) {
	var made []cluster.PodResourceClaimStatus
	var podKey cluster.PodKey
	for i := range p.ResourceClaims {
		e := &p.ResourceClaims[i]
		if e.ResourceClaimTemplateName == "" || p.ClaimKey(i) != "" {
			continue
		}
		if g := c.groupOf(p); g != nil && g.ClaimEntry(*e) >= 0 {
			name, ok, err := c.groupClaim(g, e)
			if err != nil {
				return nil, fmt.Errorf("pod %s: spec.resourceClaims[%d]: %w", p.Key(), i, err)
			}
			if ok {
				made = append(made, cluster.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: name})
			}
			continue
		}
		t, ok := c.template(p.Namespace, e.ResourceClaimTemplateName)
		if !ok {
			continue
		}
		name, key := c.freeName(p.Namespace, cluster.TemplateClaimName(p.Name, e.Name))
		rc := cluster.ResourceClaim{Namespace: p.Namespace, Name: name, Spec: t.Spec,
			Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPod, Name: p.Name}}
		if err := c.s.AddResourceClaim(rc); err != nil {
			return nil, fmt.Errorf("pod %s: spec.resourceClaims[%d]: making its claim from template %s: %w", p.Key(), i, e.ResourceClaimTemplateName, err)
		}
		if podKey == "" {
			podKey = p.Key()
		}
		c.owned[podKey] = append(c.owned[podKey], key)
		made = append(made, cluster.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: name})
	}
	return made, nil
}

// groupOf returns the PodGroup of p, as the Scheduler holds it; nil for
// a pod of no group, or of a group not defined yet (whose entries are
// then the pod's own).
func (c *ResourceClaims) groupOf(p *cluster.Pod) *podgroup.PodGroup {
	if p.PodGroup == "" {
		return nil
	}
	st, ok := c.s.PodGroup(podgroup.Key(p.Namespace, p.PodGroup))
	if !ok || len(st.Group.ResourceClaims) == 0 {
		return nil
	}
	return &st.Group
}

// groupClaim returns the name of the claim made for the group's entry e
// (a template's), made now, owned by the group, when it is the first of
// the group's pods to need it: "<group>-<entry>", or the first free name
// after it. False when the template does not exist yet.
func (c *ResourceClaims) groupClaim(g *podgroup.PodGroup, e *cluster.PodResourceClaim) (string, bool, error) {
	key := g.Key()
	for _, st := range c.groups[key] {
		if st.Name == e.Name {
			return st.ResourceClaimName, true, nil
		}
	}
	t, ok := c.template(g.Namespace, e.ResourceClaimTemplateName)
	if !ok {
		return "", false, nil
	}
	name, _ := c.freeName(g.Namespace, cluster.TemplateClaimName(g.Name, e.Name))
	rc := cluster.ResourceClaim{Namespace: g.Namespace, Name: name, Spec: t.Spec,
		Owner: &cluster.ClaimOwner{Kind: cluster.OwnerPodGroup, Name: g.Name}}
	if err := c.s.AddResourceClaim(rc); err != nil {
		return "", false, fmt.Errorf("making the claim of pod group %s from template %s: %w", key, e.ResourceClaimTemplateName, err)
	}
	c.groups[key] = append(c.groups[key], cluster.PodResourceClaimStatus{Name: e.Name, ResourceClaimName: name})
	return name, true, nil
}

// maxNameLength is the longest object name (a DNS subdomain).
const maxNameLength = 253

// freeName returns base when no claim of the namespace has that name,
// else the first of base-1, base-2, ... that none has (base cut short
// where the suffix would make the name too long), and the claim's key.
func (c *ResourceClaims) freeName(namespace, base string) (name, key string) {
	free := func(name string) (string, bool) {
		key := string(cluster.MakePodKey(namespace, name))
		_, taken := c.s.ResourceClaim(key)
		return key, !taken
	}
	if len(base) <= maxNameLength {
		if key, ok := free(base); ok {
			return base, key
		}
	}
	for k := 1; ; k++ {
		suffix := fmt.Sprintf("-%d", k)
		b := base
		if len(b)+len(suffix) > maxNameLength {
			b = strings.TrimRight(b[:maxNameLength-len(suffix)], "-.")
		}
		if key, ok := free(b + suffix); ok {
			return b + suffix, key
		}
	}
}

// deleteEnded deletes the claims of the pods that ended, in the order
// they ended.
func (c *ResourceClaims) deleteEnded() error {
	ended := c.ended
	c.ended = nil
	for _, key := range ended {
		for _, claim := range c.owned[key] {
			// a claim someone else deleted is gone already: the only
			// error of a started Scheduler's deletion
			if err := c.s.DeleteResourceClaim(claim); err != nil && !errors.Is(err, cluster.ErrDeviceObject) {
				return fmt.Errorf("resourceclaim controller: pod %s: %w", key, err)
			}
		}
		delete(c.owned, key)
	}
	return nil
}
