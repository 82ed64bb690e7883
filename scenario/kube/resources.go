package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// parseResourceList parses a list into amounts in the model's units
// (millicores for cpu, whole units otherwise), checking names and signs
// in name order; on error it returns the resource at fault.
func parseResourceList(list map[string]string, use schema.ResourceUse) (map[string]int64, string, error) {
	out := make(map[string]int64, len(list))
	for _, name := range slices.Sorted(maps.Keys(list)) {
		if err := schema.CheckResourceName(name, use); err != nil {
			return nil, name, err
		}
		v, err := cluster.ParseResourceQuantity(cluster.ResourceName(name), list[name])
		if err != nil {
			return nil, name, err
		}
		if v < 0 {
			return nil, name, fmt.Errorf("%q is negative", list[name])
		}
		out[name] = v
	}
	return out, "", nil
}

// overcommittable reports whether requests may be below limits: cpu,
// memory and ephemeral storage; not huge pages or extended resources.
func overcommittable(name string) bool {
	return name == "cpu" || name == "memory" || name == "ephemeral-storage"
}

// containerRequests returns a container's requests and limits as the
// API server stores them: a limit without a request gives the request, a
// request above its limit is an error, and a resource that cannot be
// overcommitted needs its limit, equal to the request, in whole units.
func containerRequests(r *kubeResources) (cluster.ResourceRequirements, string, error) {
	req, name, err := parseResourceList(r.Requests, schema.ResourcesOfContainer)
	if err != nil {
		return cluster.ResourceRequirements{}, "requests." + name, err
	}
	lim, name, err := parseResourceList(r.Limits, schema.ResourcesOfContainer)
	if err != nil {
		return cluster.ResourceRequirements{}, "limits." + name, err
	}
	for name, l := range lim {
		if _, ok := req[name]; !ok {
			req[name] = l // defaulted from the limit
		}
	}
	for _, name := range slices.Sorted(maps.Keys(req)) {
		l, limited := lim[name]
		switch {
		case limited && req[name] > l:
			return cluster.ResourceRequirements{}, "requests." + name, fmt.Errorf("%s is above the limit %s", r.Requests[name], r.Limits[name])
		case overcommittable(name):
		case !limited:
			return cluster.ResourceRequirements{}, "limits." + name, fmt.Errorf("required: %s cannot be overcommitted, so its limit must be set (and equal to the request)", name)
		case req[name] != l:
			return cluster.ResourceRequirements{}, "requests." + name, fmt.Errorf("%s differs from the limit %s: %s cannot be overcommitted", r.Requests[name], r.Limits[name], name)
		}
		if !strings.HasPrefix(name, "hugepages-") {
			if err := wholeUnits(r, name); err != nil {
				return cluster.ResourceRequirements{}, "limits." + name, err
			}
		}
	}
	return cluster.ResourceRequirements{Requests: resourceList(req), Limits: resourceList(lim)}, "", nil
}

// resourceList makes parsed amounts a cluster.ResourceList (nil for none).
func resourceList(m map[string]int64) cluster.ResourceList {
	if len(m) == 0 {
		return nil
	}
	out := make(cluster.ResourceList, len(m))
	for name, v := range m {
		out[cluster.ResourceName(name)] = v
	}
	return out
}

// wholeUnits checks that an extended resource is asked in whole units.
func wholeUnits(r *kubeResources, name string) error {
	if overcommittable(name) {
		return nil
	}
	text := r.Limits[name]
	milli, err := cluster.ParseQuantity(text, 1000)
	if err == nil && milli%1000 != 0 {
		return fmt.Errorf("%q: %s is counted in whole units", text, name)
	}
	return nil
}

// podRequests reads a pod's resources container by container, checked
// as the API server checks them, and computes its effective requests as
// Kubernetes does (cluster.PodResources.Requests): the sum over its
// containers; at least the largest init container, where a restartable
// (sidecar) init container runs beside the containers and the init
// containers after it; pod-level requests, when given, replace the cpu and
// memory so computed; then the overhead. The requests are a resource list
// in the scenario's notation.
func podRequests(spec *kubePodSpec, at string) (map[string]string, *cluster.PodResources, string, error) {
	res := &cluster.PodResources{}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		r, field, err := containerRequests(&c.Resources)
		if err != nil {
			return nil, nil, fmt.Sprintf("%s.containers[%d] (%s).resources.%s", at, i, c.Name, field), err
		}
		res.Containers = append(res.Containers, cluster.Container{Name: c.Name, Resources: r})
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		r, field, err := containerRequests(&c.Resources)
		if err != nil {
			return nil, nil, fmt.Sprintf("%s.initContainers[%d] (%s).resources.%s", at, i, c.Name, field), err
		}
		res.Containers = append(res.Containers, cluster.Container{Name: c.Name, Resources: r, Init: true, Sidecar: c.RestartPolicy == "Always"})
	}
	if pl := spec.Resources; pl != nil {
		r, field, err := podLevelRequests(pl)
		if err != nil {
			return nil, nil, at + ".resources." + field, err
		}
		res.PodLevel = &r
	}
	over, name, err := parseResourceList(spec.Overhead, schema.ResourcesOfContainer)
	if err != nil {
		return nil, nil, at + ".overhead." + name, err
	}
	res.Overhead = resourceList(over)
	out := map[string]string{}
	for name, v := range res.Requests() {
		if v != 0 {
			out[string(name)] = cluster.FormatQuantity(name, v)
		}
	}
	return out, res, "", nil
}

// podLevelRequests reads pod-level resources, which may give cpu and
// memory only.
func podLevelRequests(r *kubeResources) (cluster.ResourceRequirements, string, error) {
	for _, list := range []struct {
		field string
		names map[string]string
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for _, name := range slices.Sorted(maps.Keys(list.names)) {
			if name != "cpu" && name != "memory" {
				return cluster.ResourceRequirements{}, list.field + "." + name, fmt.Errorf("pod-level resources are cpu and memory only")
			}
		}
	}
	return containerRequests(r)
}
