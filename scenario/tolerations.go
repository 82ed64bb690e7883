package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
)

// GKE runs the API server's ExtendedResourceToleration admission plugin
// and taints its GPU nodes nvidia.com/gpu=present:NoSchedule: a pod that
// requests nvidia.com/gpu tolerates that taint without saying so, and a
// pod that does not stays off the GPU nodes. A dump of a GKE cluster
// holds its pods as the API server admitted them, toleration included,
// but manifests do not have it, so the simulation adds it where the
// cluster would.
// Scenario.ExtendedResourceToleration says whether it does: from
// WithExtendedResourceToleration, else a file's admission section, else
// on when a node carries GKE's node-pool label.

// gkeNodePool is the label GKE gives every node: its node pool.
const gkeNodePool = "cloud.google.com/gke-nodepool"

// WithExtendedResourceToleration turns the API server's
// ExtendedResourceToleration admission on or off for the run, whatever
// the files and the nodes say (Scenario.ExtendedResourceToleration).
func WithExtendedResourceToleration(on bool) Option {
	return func(o *options) { o.extendedToleration = &on }
}

// extendedResourceToleration decides Scenario.ExtendedResourceToleration
// (the option, else the files, which must agree, else GKE's nodes) and
// warns: that it was turned on for GKE's nodes, or, when off, about the
// pods that no node offering what they request can take for want of it.
func (b *builder) extendedResourceToleration(ins []*input) error {
	on, set, err := fileSetting(ins)
	if err != nil {
		return err
	}
	if o := b.opts.extendedToleration; o != nil {
		on, set = *o, true
	}
	if !set {
		for _, n := range b.sc.Nodes {
			if _, ok := n.Labels[gkeNodePool]; ok {
				on = true
				b.ws.Add("Node", "metadata.labels["+gkeNodePool+"]", "GKE's nodes: its API server's ExtendedResourceToleration admission is on, "+
					"so a pod requesting an extended resource (nvidia.com/gpu) tolerates the taint of that name "+
					"(-extended-resource-toleration=false, or admission: {extendedResourceToleration: false} in a scenario file, to turn it off)",
					"Node "+n.Name)
			}
		}
	}
	b.sc.ExtendedResourceToleration = on
	if !on {
		b.warnUntolerated()
	}
	return nil
}

// fileSetting is what the files' admission sections say; two that
// disagree are an error.
func fileSetting(ins []*input) (on, set bool, err error) {
	first := ""
	for _, in := range ins {
		a := in.spec.Admission
		if a == nil || a.ExtendedResourceToleration == nil {
			continue
		}
		if set && *a.ExtendedResourceToleration != on {
			return false, false, &FieldError{File: in.name, Line: a.Line, Path: "admission.extendedResourceToleration",
				Err: fmt.Errorf("%v here, %v in %s", *a.ExtendedResourceToleration, on, first)}
		}
		on, set, first = *a.ExtendedResourceToleration, true, in.name
	}
	return on, set, nil
}

// warnUntolerated warns about each pod (a workload's template counts for
// its pods) that requests an extended resource and that no node offering
// the resources it requests would take for its taints, while with the
// tolerations ExtendedResourceToleration adds one would: it stays
// pending for want of the admission. Pods alike are judged once.
func (b *builder) warnUntolerated() {
	judged := map[string]bool{}
	check := func(p *cluster.Pod, src *Source) {
		tols, added := admission.ExtendedResourceToleration(p)
		if !added || p.NodeName != "" {
			return
		}
		key := fmt.Sprint(p.Requests, p.Tolerations)
		stuck, ok := judged[key]
		if !ok {
			stuck = !b.anyNodeTakes(p, p.Tolerations) && b.anyNodeTakes(p, tols)
			judged[key] = stuck
		}
		if stuck {
			b.ws.Add("Pod", "spec.tolerations", "does not tolerate the taint of the extended resource it requests ("+extendedNames(p)+
				"), which the nodes offering it have: the pod stays pending. GKE's API server adds that toleration (its ExtendedResourceToleration "+
				"admission): -extended-resource-toleration, or admission: {extendedResourceToleration: true} in a scenario file, turns it on",
				cmp.Or(src.File, b.sc.Name)+": "+src.Path) // named only when warned: a million pods pass here
		}
	}
	for i := range b.sc.Pods {
		p := &b.sc.Pods[i]
		check(&p.Pod, &p.Source)
	}
	for i := range b.sc.Controllers {
		c := &b.sc.Controllers[i]
		check(&c.workload.Template, &c.Source)
	}
}

// anyNodeTakes reports whether some node offers every extended resource
// p requests and has no NoSchedule or NoExecute taint tols leave
// untolerated.
func (b *builder) anyNodeTakes(p *cluster.Pod, tols []cluster.Toleration) bool {
	for i := range b.sc.Nodes {
		n := &b.sc.Nodes[i]
		if offers(n, p) && !slices.ContainsFunc(n.Taints, func(t cluster.Taint) bool {
			return t.Effect != cluster.TaintPreferNoSchedule && !slices.ContainsFunc(tols, func(tol cluster.Toleration) bool { return tol.Tolerates(&t) })
		}) {
			return true
		}
	}
	return false
}

// offers reports whether a node's allocatable has every extended
// resource p requests.
func offers(n *cluster.Node, p *cluster.Pod) bool {
	for s := range p.Requests.Scalars() {
		if n.Allocatable.Get(s.Name) == 0 {
			return false
		}
	}
	return true
}

// extendedNames lists the extended resources a pod requests.
func extendedNames(p *cluster.Pod) string {
	tols, _ := admission.ExtendedResourceToleration(&cluster.Pod{Requests: p.Requests, Resources: p.Resources})
	names := make([]string, len(tols))
	for i, t := range tols {
		names[i] = t.Key
	}
	return strings.Join(names, ", ")
}

// withExtendedTolerations is p as the API server admits it when
// ExtendedResourceToleration is on: its tolerations with those of its
// extended resources added (a copy; p is read-only).
func withExtendedTolerations(p cluster.Pod) cluster.Pod {
	if tols, added := admission.ExtendedResourceToleration(&p); added {
		p.Tolerations = tols
	}
	return p
}
