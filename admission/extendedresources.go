package admission

import (
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// ExtendedResourceToleration is the API server's admission plugin of that
// name, which GKE turns on: a pod that requests an extended resource
// (nvidia.com/gpu) gets a toleration of the taint of the same key,
// {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}, so that
// nodes tainted so (GKE taints its GPU nodes nvidia.com/gpu=present)
// take the pods that need them and no others. It returns the pod's
// tolerations with those it lacks added, one per resource in name order
// after the pod's own, and whether any was added; the pod's slice is
// never written.
//
// As kube's plugin: the resources are those the containers and init
// containers request (Resources; the pod's Requests when it has no
// containers) whose names are extended (a domain other than
// kubernetes.io, as cluster's resource names have it), and a toleration
// is added unless the pod has one of the same key, operator, value and
// effect.
func ExtendedResourceToleration(p *cluster.Pod) ([]cluster.Toleration, bool) {
	var names []string
	add := func(name cluster.ResourceName) {
		if isExtended(name) && !slices.Contains(names, string(name)) {
			names = append(names, string(name))
		}
	}
	if p.Resources != nil {
		for _, c := range p.Resources.Containers {
			for name := range c.Resources.Requests {
				add(name)
			}
		}
	} else {
		for s := range p.Requests.Scalars() {
			add(s.Name)
		}
	}
	slices.Sort(names)
	out := p.Tolerations
	added := false
	for _, name := range names {
		t := cluster.Toleration{Key: name, Operator: cluster.TolerationExists, Effect: cluster.TaintNoSchedule}
		if slices.Contains(out, t) {
			continue
		}
		if !added {
			out = slices.Clone(slices.Clip(out)) // the pod's own slice stays as it is
		}
		out, added = append(out, t), true
	}
	return out, added
}

// isExtended reports whether a resource name is an extended resource:
// one with a domain that is not kubernetes.io's (nvidia.com/gpu, not
// cpu or hugepages-2Mi), and not a quota's requests. name.
func isExtended(name cluster.ResourceName) bool {
	n := string(name)
	domain, _, ok := strings.Cut(n, "/")
	return ok && domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io") && !strings.HasPrefix(n, "requests.")
}
